"""ImpactProblem: validation messages (asserted word for word where it matters) and derived data."""

import numpy as np
import pytest

from helpers import hand_rocking_block
from reach import ImpactProblem

M = np.eye(2)
JN = [[0.0, 1.0]]
JT = [[1.0, 0.0]]
V = [1.0, -1.0]


@pytest.mark.parametrize("kwargs, message", [
    (dict(M=np.eye(3)), r"`M` must have shape \(2, 2\) to match `v`; got \(3, 3\)."),
    (dict(M=[[1.0, 0.5], [0.0, 1.0]]), "`M` must be symmetric"),
    (dict(M=[[1.0, 0.0], [0.0, -1.0]]), "`M` must be positive definite"),
    (dict(M=[[1.0, 0.0], [0.0, np.nan]]), "`M` contains NaN or infinite entries."),
    (dict(Jn=[[0.0, 1.0, 0.0]]), r"`Jn` must have 2 columns to match `v`; got shape \(1, 3\)."),
    (dict(Jn=[[0.0, 0.0]]), "`Jn` row 0 is all zeros"),
    (dict(Jt=[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), r"`Jt` must have shape \(1, 2\) \(planar\) or \(2, 2\) \(spatial\)"),
    (dict(mu=-0.1), r"`mu` must be >= 0; got \[-0.1\]."),
    (dict(mu=[0.1, 0.2]), r"`mu` must be a scalar or have shape \(1,\); got \(2,\)."),
    (dict(v=[1.0, 1.0]), "`v` is not an impact: no contact is colliding"),
    (dict(v=[np.inf, -1.0]), "`v` contains NaN or infinite entries."),
    (dict(v=[[1.0, -1.0]]), r"`v` must be 1-dimensional; got shape \(1, 2\)."),
    (dict(friction_directions=4), "`friction_directions` must be 2 for a planar problem; got 4."),
    (dict(contact_names=["A", "B"]), "`contact_names` must have 1 entries; got 2."),
])
def test_bad_input_is_named(kwargs, message):
    args = dict(M=M, Jn=JN, Jt=JT, mu=0.5, v=V)
    extra = {k: kwargs.pop(k) for k in ("friction_directions", "contact_names") if k in kwargs}
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        ImpactProblem(args["M"], args["Jn"], args["Jt"], args["mu"], args["v"], **extra)


def test_spatial_needs_four_directions():
    with pytest.raises(ValueError, match="`friction_directions` must be >= 4 for a spatial problem; got 3."):
        ImpactProblem(np.eye(3), [[0, 0, 1.0]], [[1.0, 0, 0], [0, 1.0, 0]], 0.5, [0, 0, -1.0],
                      friction_directions=3)


def test_routh_matrix_structure_matches_eq_75():
    p = hand_rocking_block()
    m, k = p.m, p.k
    W = p.W
    assert W.shape == (m * (3 + k),) * 2
    np.testing.assert_array_equal(W[:m, m:2 * m], -np.eye(m))
    np.testing.assert_array_equal(W[m:2 * m, :m], np.eye(m))
    G = p.Jbar @ np.linalg.solve(p.M, p.Jbar.T)
    np.testing.assert_allclose(W[m:m + m + m * k, m:m + m + m * k], G, atol=1e-14)
    np.testing.assert_array_equal(W[-m:, m:2 * m], np.diag(p.mu))
    # E^T block and its copy
    np.testing.assert_array_equal(W[-m:, 2 * m:2 * m + m * k], -W[2 * m:2 * m + m * k, -m:].T)


def test_spatial_friction_directions_span_the_tangent_plane():
    p = ImpactProblem(np.eye(3), [[0, 0, 1.0]], [[1.0, 0, 0], [0, 1.0, 0]], 0.5, [0.3, 0, -1.0])
    assert p.k == 8 and p.JD.shape == (8, 3)
    np.testing.assert_allclose(np.linalg.norm(p.JD, axis=1), 1.0)
    assert p.contact_velocities(p.v).shape == (1, 3)


@pytest.mark.parametrize("suffix", [".npz", ".json"])
def test_save_and_load_round_trip(tmp_path, suffix):
    p = hand_rocking_block()
    path = p.save(tmp_path / f"problem{suffix}")
    q = ImpactProblem.from_file(path)
    assert q.fingerprint() == p.fingerprint()
    assert q.contact_names == p.contact_names


def test_from_file_errors(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        ImpactProblem.from_file(tmp_path / "missing.npz")
    bad = tmp_path / "bad.json"
    bad.write_text('{"M": [[1]]}')
    with pytest.raises(ValueError, match=r"lacks the entries \['Jn', 'Jt', 'mu', 'v'\]"):
        ImpactProblem.from_file(bad)
