"""The `reach` command as a user meets it: help, run, list, plot, and a corpus of bad input.

Every bad input exits 2 with one line that names the argument or the file;
nothing prints a traceback.
"""

import json
import subprocess
import sys

import numpy as np
import pytest

from helpers import hand_rocking_block
from reach import PostImpactSet
from reach.tools.cli import main


@pytest.fixture(autouse=True)
def _in_a_scratch_folder(tmp_path, monkeypatch):
    """Commands that write to their default places (results/, plots/) write into a scratch folder."""
    monkeypatch.chdir(tmp_path)


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "reach.tools.cli", *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd)


def test_help_lists_commands():
    out = run("--help")
    assert out.returncode == 0
    for cmd in ("run", "list", "show", "plot", "figures", "bench"):
        assert cmd in out.stdout


def test_list_names_every_scenario(capsys):
    assert main(["list"]) == 0
    text = capsys.readouterr().out
    for name in ("rocking-block", "box-wall", "compass-gait", "ramone", "disk-stack"):
        assert name in text


def test_run_scenario_quick_writes_a_loadable_result_and_its_picture(tmp_path, capsys):
    out = tmp_path / "block.npz"
    assert main(["run", "rocking-block", "--quick", "--no-progress", "--n-jobs", "1", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "LCPs per sample" in text and "saved" in text and "status" in text
    result = PostImpactSet.load(out)
    assert len(result) > 4000 and result.success
    assert not (tmp_path / "block.ckpt").exists()
    png = tmp_path / "block.png"
    assert f"wrote {png}" in text
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000


def test_run_problem_file_draws_the_planes(tmp_path, capsys):
    path = hand_rocking_block().save(tmp_path / "mine.json")
    assert main(["run", "--fixed", "--problem", str(path), "--h", "0.3", "--steps", "10", "--samples", "2^10",
                 "--no-progress", "--n-jobs", "1", "--out", str(tmp_path / "mine.npz")]) == 0
    assert PostImpactSet.load(tmp_path / "mine.npz").all_velocities.shape == (1024, 3)
    assert (tmp_path / "mine.png").stat().st_size > 10_000
    assert main(["run", "--fixed", "--problem", str(path), "--h", "0.3", "--steps", "10", "--samples", "64",
                 "--no-progress", "--n-jobs", "1", "--no-plot", "--out", str(tmp_path / "quiet.npz")]) == 0
    assert not (tmp_path / "quiet.png").exists()


# --------------------------------------------------------------------------- the bad-input corpus
def _files(tmp):
    """Problem and result files of every broken kind, made fresh in ``tmp``."""
    good = hand_rocking_block()
    files = {}
    (tmp / "empty.npz").write_bytes(b"")
    files["empty.npz"] = tmp / "empty.npz"
    full = good.save(tmp / "full.npz").read_bytes()
    (tmp / "truncated.npz").write_bytes(full[: len(full) // 2])
    files["truncated.npz"] = tmp / "truncated.npz"
    np.save(tmp / "array.npy", np.eye(3))
    (tmp / "array.npy").rename(tmp / "renamed.npz")
    files["renamed.npz"] = tmp / "renamed.npz"
    for name, text in {"five.json": "5", "null.json": "null", "broken.json": "{\"M\": [[1",
                       "nested.json": "[" * 100_000 + "]" * 100_000}.items():
        (tmp / name).write_text(text)
        files[name] = tmp / name
    d = good.to_dict()
    for name, change in {"dirs.json": {"friction_directions": [1, 2]}, "names.json": {"contact_names": 5},
                         "complex.json": {"M": "1+2j"}, "many.json": {"friction_directions": 10**6}}.items():
        (tmp / name).write_text(json.dumps(dict(d, **change)))
        files[name] = tmp / name
    (tmp / "folder.npz").mkdir()
    files["folder.npz"] = tmp / "folder.npz"
    return files


PROBLEM_CASES = ["empty.npz", "truncated.npz", "renamed.npz", "five.json", "null.json", "broken.json",
                 "nested.json", "dirs.json", "names.json", "complex.json", "many.json", "folder.npz"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("corpus")
    files = _files(tmp)
    result = tmp / "good.npz"
    assert main(["run", "rocking-block", "--samples", "256", "--no-progress", "--n-jobs", "1", "--no-plot",
                 "--out", str(result)]) == 0
    good = PostImpactSet.load(result)
    bad = {}
    raw = dict(np.load(result))
    meta = json.loads(str(raw["meta"]))
    variants = {
        "nometa-problem.npz": dict(raw, meta=np.array(json.dumps({k: v for k, v in meta.items() if k != "problem"}))),
        "short-kept.npz": dict(raw, kept=raw["kept"][:10]),
        "path-lengths.npz": dict(raw, path_lengths=raw["path_lengths"] + 3),
        "nan-velocities.npz": dict(raw, all_velocities=np.full_like(raw["all_velocities"], np.nan)),
    }
    for name, arrays in variants.items():
        np.savez(tmp / name, **arrays)
        bad[name] = tmp / name
    (tmp / "half-result.npz").write_bytes(result.read_bytes()[:2000])
    bad["half-result.npz"] = tmp / "half-result.npz"
    (tmp / "a-file").write_text("x")
    return {"tmp": tmp, "files": files, "results": bad, "good": good, "result": result}


def _bad(capsys, args, *needles):
    code = main(args)
    err = capsys.readouterr().err.strip()
    assert code == 2, (args, code, err)
    assert len(err.splitlines()) == 1, err
    assert err.startswith("reach"), err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err, (needle, err)


@pytest.mark.parametrize("args, needle", [
    (["run", "nope"], "unknown scenario 'nope'"),
    (["run", "my-robot.npz"], "a problem file is given as --problem FILE"),
    (["coverage", "robots/my-robot"], "a problem file is given as --problem FILE"),
    (["run"], "give a scenario name or --problem FILE"),
    (["run", "--problem", "missing.npz", "--h", "1", "--steps", "2"], "does not exist"),
    (["run", "--problem", "x.json"], "needs --h and --steps"),
    (["run", "rocking-block", "--samples", "abc"], "--samples"),
    (["run", "rocking-block", "--samples", "1e400"], "--samples"),
    (["run", "rocking-block", "--samples", "2.7e0"], "whole number"),
    (["run", "rocking-block", "--samples", "-5"], "--samples"),
    (["run", "rocking-block", "--samples", "2^99"], "--samples"),
    (["run", "rocking-block", "--samples", "0"], "--samples"),
    (["run", "rocking-block", "--steps", "1e400"], "--steps"),
    (["run", "rocking-block", "--steps", "2.5"], "--steps"),
    (["run", "rocking-block", "--steps", "0"], "--steps"),
    (["run", "rocking-block", "--seed", str(2**64)], "--seed"),
    (["run", "rocking-block", "--seed", "-1"], "--seed"),
    (["run", "rocking-block", "--h", "0"], "--h"),
    (["run", "rocking-block", "--h", "nan"], "--h"),
    (["run", "rocking-block", "--h", "inf"], "--h"),
    (["run", "rocking-block", "--eps", "-1"], "--eps"),
    (["run", "rocking-block", "--n-jobs", "0"], "--n-jobs"),
    (["run", "rocking-block", "--n-jobs", "many"], "--n-jobs"),
    (["run", "rocking-block", "--confidence", "1.5"], "--confidence"),
    (["run", "rocking-block", "--missed", "1.5"], "--missed"),
    (["run", "rocking-block", "--resolution", "0"], "--resolution"),
    (["run", "rocking-block", "--fixed", "--missed", "0.05"], "--missed does not apply to a --fixed run"),
    (["run", "rocking-block", "--fixed", "--time-limit", "5", "--confidence", "0.9"],
     "--time-limit and --confidence do not apply to a --fixed run"),
    (["run", "rocking-block", "--epsilon", "0.01", "--resolution", "0.05"], "does not apply to an --epsilon run"),
    (["run", "rocking-block", "--epsilon", "0.01", "--time-limit", "5"], "--time-limit does not apply"),
    (["run", "rocking-block", "--scheduler", "tcp://host:8786"], "it needs --backend dask"),
    (["run", "rocking-block", "--caps", "edges"], "--caps"),
    (["run", "rocking-block", "--out", "x.txt"], "--out must end in .npz"),
    (["run", "compass-gait", "--choice", "enumerate", "--steps", "20000", "--quick"], "Sobol dimensions"),
    (["show", "nope"], "unknown scenario"),
    (["show", "rocking-block", "--out", "x.xyz"], "--out must end in"),
    (["plot", "missing.npz"], "is not a file"),
    (["frobnicate"], "invalid choice"),
])
def test_bad_arguments_exit_2_with_one_line(capsys, args, needle):
    _bad(capsys, args, needle)


def test_a_small_run_takes_one_core_by_default(tmp_path, monkeypatch):
    import reach.sampling.workers as workers

    monkeypatch.setattr(workers, "STARTED", [])  # a fresh process has no workers to reuse
    out = tmp_path / "small.npz"
    assert main(["run", "rocking-block", "--samples", "512", "--no-progress", "--no-plot", "--out", str(out)]) == 0
    meta = PostImpactSet.load(out).metadata
    assert meta["n_jobs_requested"] == "auto" and meta["workers"] == 1


@pytest.mark.parametrize("name", PROBLEM_CASES)
def test_bad_problem_files_exit_2_naming_the_file(capsys, corpus, name):
    path = corpus["files"][name]
    _bad(capsys, ["run", "--problem", str(path), "--h", "1", "--steps", "2", "--no-progress"], "--problem")


@pytest.mark.parametrize("name", ["nometa-problem.npz", "short-kept.npz", "path-lengths.npz",
                                  "nan-velocities.npz", "half-result.npz"])
def test_bad_result_files_exit_2_on_plot(capsys, corpus, name, tmp_path):
    _bad(capsys, ["plot", str(corpus["results"][name]), "--out", str(tmp_path)], name)


def test_bad_output_paths_exit_2(capsys, corpus):
    tmp = corpus["tmp"]
    under_file = str(tmp / "a-file" / "r.npz")
    _bad(capsys, ["run", "rocking-block", "--quick", "--out", under_file], "--out", "cannot create its folder")
    _bad(capsys, ["run", "rocking-block", "--quick", "--out", str(corpus["files"]["folder.npz"])], "is a directory")
    _bad(capsys, ["run", "rocking-block", "--quick", "--out", str(tmp / "ok.npz"), "--json",
                  str(tmp / "a-file" / "s.json")], "--json")
    _bad(capsys, ["show", "rocking-block", "--out", str(tmp / "a-file" / "x.png")], "--out")
    _bad(capsys, ["plot", str(corpus["result"]), "--out", str(tmp / "a-file")], "--out")
    _bad(capsys, ["plot", str(corpus["result"]), "--out", str(tmp / "a-file" / "planes")], "--out", "cannot create it")
    _bad(capsys, ["figures", "--quick", "--only", "zeno", "--out", str(tmp / "a-file")], "--out", "not a folder")
    _bad(capsys, ["figures", "--quick", "--only", "zeno", "--out", str(tmp / "a-file" / "figs")], "--out")


def test_unreachable_scheduler_is_a_usage_error(capsys, tmp_path):
    # found when the executor is made: before a progress bar, and before a checkpoint that would stop the next run
    pytest.importorskip("distributed", reason="dask.distributed is not installed")
    _bad(capsys, ["run", "rocking-block", "--quick", "--fixed", "--backend", "dask", "--n-jobs", "2",
                  "--scheduler", "tcp://127.0.0.1:9", "--out", str(tmp_path / "r.npz")], "`scheduler`")
    assert not any(tmp_path.iterdir())


def test_existing_checkpoint_needs_resume(tmp_path, capsys):
    out = tmp_path / "r.npz"
    ckpt = tmp_path / "r.ckpt"
    ckpt.mkdir()
    (ckpt / "manifest.json").write_text("{}")
    _bad(capsys, ["run", "--fixed", "rocking-block", "--quick", "--no-progress", "--out", str(out)], "resume it")
    assert not out.exists()


def test_result_written_into_a_directory_keeps_the_checkpoint(tmp_path, capsys, monkeypatch):
    """The result cannot be written: the run's checkpoint stays, and --resume finishes it."""
    import reach.sets.result

    out = tmp_path / "r.npz"
    real = reach.sets.result.PostImpactSet.save

    def failing_save(self, path):
        raise ValueError(f"`path` {str(path)!r} cannot be written: disk full.")

    monkeypatch.setattr(reach.sets.result.PostImpactSet, "save", failing_save)
    args = ["run", "--fixed", "rocking-block", "--samples", "2048", "--no-progress", "--n-jobs", "1", "--no-plot",
            "--out", str(out)]
    assert main(args) == 1
    assert "disk full" in capsys.readouterr().err
    assert (tmp_path / "r.ckpt" / "manifest.json").exists()
    monkeypatch.setattr(reach.sets.result.PostImpactSet, "save", real)
    assert main(args + ["--resume"]) == 0
    assert out.exists() and not (tmp_path / "r.ckpt").exists()


def test_adaptive_run_reports_its_rounds(tmp_path, capsys):
    assert main(["run", "rocking-block", "--epsilon", "0.004", "--no-progress", "--no-plot", "--n-jobs", "1",
                 "--out", str(tmp_path / "a.npz")]) == 0
    text = capsys.readouterr().out
    assert "adaptive stopping at epsilon=0.004" in text and "held-out outcomes farther than epsilon" in text


def test_an_empty_set_is_saved_said_and_exits_1(tmp_path, capsys):
    out = tmp_path / "empty.npz"
    assert main(["run", "--fixed", "box-wall", "--h", "1e-6", "--steps", "2", "--samples", "256", "--no-progress",
                 "--n-jobs", "1", "--out", str(out)]) == 1
    captured = capsys.readouterr()
    assert "status                    EMPTY" in captured.out and "nan" not in captured.out
    assert captured.err.strip().startswith("reach: the set is empty: none of 256 samples")
    assert len(captured.err.strip().splitlines()) == 1  # the message, not a Python warning too
    assert PostImpactSet.load(out).status.name == "EMPTY"


def test_the_entry_point_of_0_1_console_scripts_still_answers():
    """`reach` scripts installed by 0.1 call reach.cli:main; it forwards to the tools' command line."""
    out = subprocess.run([sys.executable, "-m", "reach.cli", "run", "no-such-scenario"], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 2
    assert out.stderr.strip() == ("reach: unknown scenario 'no-such-scenario'; valid names are rocking-block, "
                                  "box-wall, compass-gait, ramone, disk-stack.")


def test_run_with_random_choice_says_how_many_steps_have_several_outcomes(capsys):
    assert main(["run", "compass-gait", "--quick", "--no-progress", "--n-jobs", "1", "--no-plot",
                 "--choice", "random"]) == 0
    text = capsys.readouterr().out
    line = next(l for l in text.splitlines() if l.startswith("non-unique steps"))
    assert "sampled steps have several outcomes (contact modes)" in line
    assert "no random covering vector reached" in text and "--choice exact finds every one" in text
    assert PostImpactSet.load("results/compass-gait.npz").metadata["uniqueness"]["nonunique_steps"] > 0


def test_run_with_exact_choice_has_no_uniqueness_line(capsys):
    assert main(["run", "compass-gait", "--quick", "--no-progress", "--n-jobs", "1", "--no-plot"]) == 0
    assert "non-unique steps" not in capsys.readouterr().out


def test_run_of_a_spatial_problem_says_why_auto_took_first_choice(tmp_path, capsys):
    from reach import ImpactProblem

    p = hand_rocking_block()  # made spatial: a lateral coordinate each contact may slide along, at rest
    M = np.eye(p.nv + 1)
    M[:p.nv, :p.nv] = p.M
    Jt = np.zeros((2 * p.m, p.nv + 1))
    Jt[0::2, :p.nv], Jt[1::2, p.nv] = p.Jt, 1.0
    spatial = ImpactProblem(M, np.hstack([p.Jn, np.zeros((p.m, 1))]), Jt, p.mu, np.append(p.v, 0.0),
                            friction_directions=4)
    path = tmp_path / "lifted.npz"
    spatial.save(path)
    out = tmp_path / "set.npz"
    assert main(["run", "--problem", str(path), "--h", "0.3", "--steps", "10", "--quick", "--no-progress",
                 "--n-jobs", "1", "--no-plot", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "choice=first" in text
    line = next(l for l in text.splitlines() if l.startswith("choice (auto)"))
    assert line.startswith("choice (auto)      first: at none of") and "probed steps" in line
    assert PostImpactSet.load(out).metadata["auto_choice"]["probe"]["split"] == 0


def test_run_plan_prints_the_plan_and_samples_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--fixed", "disk-stack", "--samples", "2^16", "--plan", "--n-jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("65,536 samples (directed sampling, seed 0) on 1 worker;")
    assert "first batch" in out and "round 4" in out and "held-out completeness search: 8,192 samples" in out
    assert not (tmp_path / "results").exists()


def test_by_default_a_run_samples_to_the_coverage_target_and_its_plan_says_so(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["run", "disk-stack", "--plan", "--n-jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("coverage-driven: rounds of 4,096, then twice as many samples each, up to 1,048,576")
    assert "4,096 samples (directed sampling, seed 0) on 1 worker;" in out
    assert "a frontier of 8 of its held-out budgets, where that is at most 32,768 samples or its estimate of the " \
           "cells missed is over the target" in out
    assert out.rstrip().endswith("as the estimate is over it, up to 131,072 samples)")


def test_run_to_a_coverage_prints_the_budget_it_needed_and_the_time(tmp_path, capsys):
    """The default run (no --fixed): a two-contact set meets the target in its first round."""
    out = tmp_path / "set.npz"
    assert main(["run", "rocking-block", "--samples", "8192", "--no-plot", "--no-progress",
                 "--out", str(out), "--json", str(tmp_path / "s.json")]) == 0
    text = capsys.readouterr().out
    assert "coverage target, at most 1% of the held-out outcomes farther than 2% of |vn0|" in text and ": met" in text
    line = next(line for line in text.splitlines() if line.startswith("budget needed:"))
    assert "held-out + 16,384 frontier, joined to the set" in line and " s;" in line and "drawn over 1 round," in line
    assert "before the other outcomes joined it: the joined set misses no more than that set does" in text
    coverage = json.loads((tmp_path / "s.json").read_text())["coverage"]
    assert coverage["met"] and len(PostImpactSet.load(out).all_velocities) == coverage["budget"] + \
        coverage["held_out_budget"] + coverage["frontier_budget"]


def test_python_dash_m_reach_is_the_command_line():
    done = subprocess.run([sys.executable, "-m", "reach", "run", "no-such-scenario"], capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [done.stderr.strip()] and "no-such-scenario" in done.stderr


def test_run_to_a_coverage_target_of_ones_own(tmp_path, capsys):
    """--resolution and --missed name the target (SPEC: the user names the resolution); the run meets that one."""
    out = tmp_path / "set.npz"
    assert main(["run", "compass-gait", "--resolution", "0.01", "--missed", "0.005", "--no-plot", "--no-progress",
                 "--n-jobs", "1", "--out", str(out)]) == 0
    import scenarios
    from reach.sets.completeness import closing_speed

    text = capsys.readouterr().out
    coverage = PostImpactSet.load(out).metadata["coverage"]
    speed = closing_speed(scenarios.get("compass-gait").problem)
    assert coverage["resolution"] == 0.01 and coverage["missed"] == 0.005
    assert coverage["epsilon"] == pytest.approx(0.01 * speed)
    assert coverage["met"] and coverage["rounds"][-1]["upper_bound"] <= 0.005
    assert "coverage target, at most 0.5% of the held-out outcomes farther than 1% of |vn0|" in text
    # the estimate of the cells missed at that resolution, beside the completeness estimate's (at 2 %)
    assert f"the set's cells missed by more than 1% of |vn0|: about {coverage['cells_missed']:.2%}" in text


@pytest.mark.parametrize("mode, says", [([], "finished rounds"), (["--fixed"], "finished chunks"),
                                        (["--epsilon", "0.01"], "finished rounds")])
def test_an_interrupted_run_says_what_it_kept(capsys, tmp_path, monkeypatch, mode, says):
    import reach.tools.cli_run as cli_run

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_run, "_sample", interrupted)
    code = main(["run", "rocking-block", "--no-progress", "--out", str(tmp_path / "r.npz"), *mode])
    err = capsys.readouterr().err
    assert code == 130 and says in err and "r.ckpt" in err and "--resume to continue" in err


def test_an_interrupted_coverage_run_resumes_with_the_same_command(capsys, tmp_path, monkeypatch):
    # the default run, to a coverage target, keeps its rounds and the chunks of the round under way
    from reach.sampling.checkpoint import Checkpoint
    from reach.sets import rounds

    monkeypatch.setattr(rounds, "CHUNKS_FROM", 0)  # (a round this small keeps no chunks otherwise)
    args = ["run", "rocking-block", "--samples", "2048", "--no-progress", "--n-jobs", "1", "--no-plot"]
    assert main(args + ["--out", str(tmp_path / "whole.npz")]) == 0
    real, writes = Checkpoint.write_chunk, []

    def write_chunk(self, chunk):
        writes.append(chunk["start"])
        if len(writes) == 5:
            raise KeyboardInterrupt
        return real(self, chunk)

    monkeypatch.setattr(Checkpoint, "write_chunk", write_chunk)
    out, checkpoint = tmp_path / "r.npz", tmp_path / "r.ckpt"
    assert main(args + ["--out", str(out)]) == 130
    assert "--resume to continue" in capsys.readouterr().err and (checkpoint / "rounds.json").is_file()
    monkeypatch.setattr(Checkpoint, "write_chunk", real)
    _bad(capsys, args + ["--out", str(out)], "exists from an earlier run")
    _bad(capsys, args + ["--out", str(out), "--fixed", "--resume"], "resume it without --fixed")
    assert main(args + ["--out", str(out), "--resume"]) == 0
    assert out.exists() and not checkpoint.exists()
    whole, resumed = PostImpactSet.load(tmp_path / "whole.npz"), PostImpactSet.load(out)
    assert np.array_equal(whole.all_velocities, resumed.all_velocities)
    assert resumed.metadata["coverage"]["rounds"][0]["samples"] == 2048 and resumed.metadata["resumed_samples"] > 0


def test_a_failed_command_leaves_no_empty_output_folder_behind(capsys, tmp_path):
    # --resume with nothing to resume fails after --out's folders were made: they go again, what was there stays
    _bad(capsys, ["run", "rocking-block", "--resume", "--out", str(tmp_path / "new" / "sub" / "r.npz")], "--resume")
    assert not (tmp_path / "new").exists()
    (tmp_path / "kept").mkdir()
    _bad(capsys, ["run", "rocking-block", "--resume", "--out", str(tmp_path / "kept" / "r.npz")], "--resume")
    assert (tmp_path / "kept").is_dir()
    assert main(["show", "rocking-block", "--out", str(tmp_path / "made" / "block.png")]) == 0
    assert (tmp_path / "made" / "block.png").is_file()  # a command that succeeds keeps what it made


@pytest.mark.parametrize("kind, says", [("reach-propagation-1", "reach trajectory"),
                                        ("reach-trajectory-1", "reach simulate")])
def test_plot_names_another_commands_result_for_what_it_is(capsys, tmp_path, kind, says):
    path = tmp_path / "other.npz"
    np.savez(path, format=np.array(kind), meta=np.array("{}"))
    _bad(capsys, ["plot", str(path)], "is not a set to plot", says)
