"""`reach coverage`: the gap against a reference, the ideal random spread, and saved references."""

import json

import numpy as np
import pytest

import scenarios
from reach import sample_post_impact_set
from reach.sets.completeness import CELL, closing_speed, thin_cells
from reach.tools.cli import main
from reach.tools.coverage import IDEAL, gap, ideal_gap, load_reference, run_coverage, save_reference


@pytest.fixture(scope="module")
def block():
    s = scenarios.get("rocking-block")
    return s.problem, s.h, s.N


@pytest.fixture(scope="module")
def block_set(block):
    p, h, N = block
    return sample_post_impact_set(p, 2048, h, N, seed=3, n_jobs=1, completeness=False, progress=False)


def test_a_set_misses_none_of_its_own_cells(block, block_set):
    p = block[0]
    speed = closing_speed(p)
    cells = thin_cells(p, block_set.velocities, CELL * speed)
    g = gap(block_set, cells, speed)
    assert g["outside_2pct"] == 0.0 and g["max_fraction"] == 0.0


def test_ideal_spread_shrinks_with_its_budget_and_covers_when_it_holds_every_cell(block, block_set):
    p = block[0]
    speed = closing_speed(p)
    cells = thin_cells(p, block_set.velocities, 0.0005 * speed)  # fine cells: many to spread over
    assert len(cells) > 200
    assert ideal_gap(p, cells, len(cells), speed)["max_fraction"] == 0.0
    few = ideal_gap(p, cells, 8, speed, seed=1)
    many = ideal_gap(p, cells, len(cells) // 2, speed, seed=1)
    assert few["max_fraction"] > many["max_fraction"] > 0.0
    assert few["outside_2pct"] >= many["outside_2pct"]
    # the same seed, the same draw
    assert ideal_gap(p, cells, 8, speed, seed=1) == few


def test_saved_reference_round_trips_and_belongs_to_its_problem(block, block_set, tmp_path):
    p = block[0]
    cells = thin_cells(p, block_set.velocities, CELL * closing_speed(p))
    path = save_reference(p, cells, 2048, tmp_path / "ref.npz")
    back, samples = load_reference(p, path)
    assert samples == 2048 and np.array_equal(back, cells)
    other = scenarios.get("box-wall").problem
    with pytest.raises(ValueError, match="another problem"):
        load_reference(other, path)
    (tmp_path / "junk.npz").write_text("junk")
    np.save(tmp_path / "array.npy", cells)
    for wrong in ("junk.npz", "array.npy"):
        with pytest.raises(ValueError, match="not a reference"):
            load_reference(p, tmp_path / wrong)


def test_run_coverage_against_a_saved_reference_adds_the_ideal_rows(block, tmp_path):
    p, h, N = block
    kw = dict(label="block", factor=2, fractions=(1 / 4, 1), strategies=["directed (default)"], n_jobs=1,
              log=lambda *a: None)
    built = run_coverage(p, h, N, 512, save_reference_to=tmp_path / "ref.npz", **kw)
    again = run_coverage(p, h, N, 512, reference=tmp_path / "ref.npz", **kw)
    assert built["reference"]["cells"] == again["reference"]["cells"]
    assert again["reference"]["source"].endswith("ref.npz")
    ideal = [r for r in again["rows"] if r["strategy"] == IDEAL]
    assert [r["samples"] for r in ideal] == [256, 512]
    # measured against the same reference, the same seed gives the same gap
    first = [r for r in built["rows"] if r["strategy"] != IDEAL]
    second = [r for r in again["rows"] if r["strategy"] != IDEAL]
    assert [r["outside_2pct"] for r in first] == [r["outside_2pct"] for r in second]


def test_cli_rejects_a_reference_of_another_problem(block, block_set, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    other = scenarios.get("box-wall").problem
    save_reference(other, other.v[None, :], 1, tmp_path / "other.npz")
    assert main(["coverage", "rocking-block", "--reference", str(tmp_path / "other.npz"), "--budget", "256"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--reference" in err[0] and "another problem" in err[0]


def test_cli_saves_and_reads_a_reference(tmp_path, monkeypatch):
    import contextlib

    import reach.tools.compiling as compiling

    monkeypatch.chdir(tmp_path)
    watched = []  # a first run says that it compiles
    monkeypatch.setattr(compiling, "compile_progress", lambda **kw: watched.append(kw) or contextlib.nullcontext())
    args = ["coverage", "rocking-block", "--budget", "256", "--factor", "2", "--n-jobs", "1"]
    assert main(args + ["--save-reference", "ref.npz", "--out", "a.json"]) == 0
    assert watched == [{}]
    assert main(args + ["--reference", "ref.npz", "--out", "b.json"]) == 0
    a, b = (json.loads((tmp_path / f).read_text())[0] for f in ("a.json", "b.json"))
    assert a["reference"]["cells"] == b["reference"]["cells"]
    assert any(r["strategy"] == IDEAL for r in b["rows"])


def test_each_budget_is_measured_once_even_where_small_fractions_round_to_the_same_size():
    from reach.tools.coverage import budgets

    assert budgets(1024, (1 / 16, 1 / 4, 1)) == [256, 1024]  # 64 and 256 both become 256: one row, not two
    assert budgets(2**16, (1 / 16, 1 / 4, 1)) == [4096, 16384, 65536]


def test_a_reference_in_pieces_is_the_cells_of_all_its_pieces(block):
    """reach.tools.coverage.reference_cells (the benches' large references): each piece its own seeds, and the
    cells those pieces' outcomes occupy, each once."""
    from reach.tools.coverage import build_reference, reference_cells

    problem, h, N = block
    logged = []
    cells = reference_cells(problem, h, N, 2, piece=2**12, n_jobs=1,
                            log=lambda k, c, seconds: logged.append((k, len(c))))
    parts = [build_reference(problem, h, N, 2**12 // 16, factor=16, n_jobs=1, log=lambda *a: None,
                             seed=1001 + 100 * k).velocities for k in range(2)]
    cell = CELL * closing_speed(problem)
    assert [k for k, _ in logged] == [0, 1] and logged[-1][1] == len(cells)
    assert _cells_of(problem, cells, cell) == _cells_of(problem, np.concatenate(parts), cell)
    assert len(cells) == len(_cells_of(problem, cells, cell))  # one outcome a cell


def _cells_of(problem, velocities, cell):
    keys = np.floor(problem.contact_velocities(velocities).reshape(len(velocities), -1) / cell + 0.5)
    return {tuple(k) for k in keys.astype(np.int64)}
