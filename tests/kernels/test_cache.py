"""The kernel-cache guard deletes cached kernels when any kernel source changes."""

from pathlib import Path

import reach.kernels.cache as guard


def test_guard_clears_stale_kernels(tmp_path, monkeypatch):
    pkg = tmp_path / "pkg"
    (pkg / "__pycache__").mkdir(parents=True)
    (pkg / "lcp.py").write_text("x = 1\n")
    stale = pkg / "__pycache__" / "routh.kernel-1.py311.nbi"
    stale.write_text("old")
    monkeypatch.setattr(guard, "__file__", str(pkg / "cache.py"))
    guard.ensure_fresh_cache(pkg / "__pycache__")                      # no stamp yet: clear and stamp
    assert not stale.exists()
    stale.write_text("compiled from lcp.py v1")
    guard.ensure_fresh_cache(pkg / "__pycache__")                      # unchanged sources: keep
    assert stale.exists()
    (pkg / "lcp.py").write_text("x = 2\n")          # a kernel source changed: clear
    guard.ensure_fresh_cache(pkg / "__pycache__")
    assert not stale.exists()
    assert (pkg / "__pycache__" / guard.STAMP).exists()


def test_a_new_kernel_module_is_guarded(tmp_path, monkeypatch):
    # Every module of the folder counts, not a list someone must remember to extend.
    pkg = tmp_path / "pkg"
    (pkg / "__pycache__").mkdir(parents=True)
    (pkg / "lcp.py").write_text("x = 1\n")
    monkeypatch.setattr(guard, "__file__", str(pkg / "cache.py"))
    guard.ensure_fresh_cache(pkg / "__pycache__")
    stale = pkg / "__pycache__" / "routh.kernel-1.py311.nbc"
    stale.write_text("compiled before revised.py existed")
    (pkg / "revised.py").write_text("y = 1\n")
    guard.ensure_fresh_cache(pkg / "__pycache__")
    assert not stale.exists()


def test_the_guard_watches_the_folder_numba_caches_in_numba_cache_dir_included(tmp_path, monkeypatch):
    # With NUMBA_CACHE_DIR set, Numba caches the kernels there, not next to the package: the guard and the
    # first run's notice (reach.tools.compiling.kernels_cold) must look there too.
    from numba.core import config

    from reach.kernels import routh

    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path))
    folder = guard.cache_folder()
    assert folder.parent == tmp_path
    assert folder == Path(routh.run_samples_kernel._cache.__class__(routh.run_samples_kernel.py_func)._cache_path)
    guard.ensure_fresh_cache()  # no stamp yet: stamped
    stale = folder / "routh.run_samples_kernel-1.py311.nbi"
    stale.write_text("compiled from the kernels as they were")
    guard.ensure_fresh_cache()
    assert stale.exists()
    monkeypatch.setattr(guard, "kernels_digest", lambda: "the kernels changed")
    guard.ensure_fresh_cache()
    assert not stale.exists()


def test_no_kernel_outside_the_kernels_folder():
    """Kernels live in reach/kernels only: the guard watches that folder alone."""
    package = Path(guard.__file__).parents[1]
    outside = [p for p in package.rglob("*.py") if "kernels" not in p.parts and "njit(" in p.read_text()]
    assert outside == []


def test_a_kernel_is_held_where_its_index_file_is(tmp_path):
    assert not guard.holds("routh.run_samples_kernel", tmp_path)
    (tmp_path / "routh.run_samples_kernel-451.py311.nbi").write_bytes(b"")
    assert guard.holds("routh.run_samples_kernel", tmp_path)
    assert not guard.holds("routh.run_sample", tmp_path)  # a name is matched whole, not as a prefix


def _cache_with(tmp_path, monkeypatch, ages):
    """A package folder whose cache holds a kernel file per ``ages`` entry, each dated that many seconds from now;
    returns the cache folder and the files."""
    import os
    import time

    pkg = tmp_path / "pkg"
    cache = pkg / "__pycache__"
    cache.mkdir(parents=True)
    (pkg / "lcp.py").write_text("x = 1\n")
    monkeypatch.setattr(guard, "__file__", str(pkg / "cache.py"))
    now, files = time.time(), []
    for k, age in enumerate(ages):
        files.append(cache / f"routh.kernel-{k}.py311.{'nbi' if k % 2 == 0 else 'nbc'}")
        files[-1].write_text(f"a kernel dated {age:+} s")
        os.utime(files[-1], (now + age, now + age))
    return cache, files


def test_the_guard_keeps_what_another_process_compiled_after_its_look(tmp_path, monkeypatch):
    # Two cold processes at once: the one that looks at the stale stamp second must not delete the kernels the
    # first has compiled since (written after its look), only the stale ones.
    cache, (stale, fresh) = _cache_with(tmp_path, monkeypatch, [-3600, 60])  # fresh: written after the look
    guard.ensure_fresh_cache(cache)
    assert not stale.exists() and fresh.exists()
    assert (cache / guard.STAMP).read_text() == guard.kernels_digest()
    assert sorted(p.name for p in cache.iterdir()) == sorted([fresh.name, guard.STAMP])  # no temporary stamp left


def test_the_guard_deletes_a_stale_kernel_dated_in_the_future(tmp_path, monkeypatch):
    # A kernel written while the clock ran ahead (set back since) is not one another process just compiled.
    import os
    import time

    cache, (ahead, fresh) = _cache_with(tmp_path, monkeypatch, [86400, 5])  # ahead: under a clock a day ahead
    guard.ensure_fresh_cache(cache)
    assert not ahead.exists() and fresh.exists()
    later = time.time() + guard.FUTURE_SLACK + 60
    os.utime(fresh, (later, later))  # the limit is the slack, not any date ahead
    (cache.parent / "lcp.py").write_text("x = 2\n")
    guard.ensure_fresh_cache(cache)
    assert not fresh.exists()
