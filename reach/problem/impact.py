"""Impact problems: the data of one impact state, validated once.

An impact problem is, at a fixed configuration q (SPEC §2; paper §2.2):

=========  ==========================  ===============================================
symbol     shape                       meaning
=========  ==========================  ===============================================
``M``      (nv, nv)                    generalized mass matrix, symmetric positive definite
``Jn``     (m, nv)                     contact normal Jacobians
``Jt``     (m, nv) or (2m, nv)         tangential Jacobians (planar or spatial)
``mu``     (m,)                        Coulomb friction coefficients, >= 0
``v``      (nv,)                       pre-impact generalized velocity
=========  ==========================  ===============================================

Friction is linearized (paper eq. 19-22) with k unit directions per contact:
planar problems use k = 2 (+t, -t); spatial ones k >= 4 evenly spaced
directions in the tangent plane (default 8).  ``J_D`` stacks ``D^T Jt_i`` per
contact, ``E = blkdiag(1_k, ...)`` and ``Jbar = [Jn; J_D]`` (eq. 34-35).

The Routh step LCP (eq. 75) has the constant matrix

.. code-block:: text

    W = [ 0   -I            0             0 ]
        [ I   Jn M^-1 Jn^T  Jn M^-1 J_D^T 0 ]
        [ 0   J_D M^-1 Jn^T J_D M^-1 J_D^T E ]
        [ 0   diag(mu)      -E^T          0 ]

which :class:`ImpactProblem` assembles once; only ``w = [lambda_max; Jbar v; 0]``
changes from step to step.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import numpy as np

from reach.files import atomic_write, read_npz
from reach.kernels.assembly import cholesky, largest_eigenvalue, solve_lower, solve_lower_transposed, times

__all__ = ["ImpactProblem"]

#: Relative tolerance, on the scale of the pre-impact contact velocities, below
#: which a normal velocity counts as colliding.
COLLIDING_RTOL = 1e-9


#: Most friction directions per spatial contact.
MAX_FRICTION_DIRECTIONS = 64


def _as_float_array(name, value, ndim):
    if isinstance(value, (str, bytes, dict)) or value is None:
        raise TypeError(f"`{name}` must be a numeric array; got {type(value).__name__}.")
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError, RecursionError) as exc:
        raise TypeError(f"`{name}` must be a numeric array; got {type(value).__name__}.") from exc
    if np.iscomplexobj(raw):
        raise TypeError(f"`{name}` must be real; got a complex array.")
    if raw.dtype == object or not (np.issubdtype(raw.dtype, np.number) or raw.dtype == bool):
        raise TypeError(f"`{name}` must be a numeric array; got {type(value).__name__} of {raw.dtype}.")
    arr = np.array(raw, dtype=float)
    if arr.ndim != ndim:
        raise ValueError(f"`{name}` must be {ndim}-dimensional; got shape {arr.shape}.")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"`{name}` contains NaN or infinite entries.")
    return arr


def _check_mass_matrix(M):
    """``M`` symmetrized, and its Cholesky factor; a ValueError unless symmetric positive definite."""
    scale = np.max(np.abs(M))
    if scale == 0 or np.max(np.abs(M - M.T)) > 1e-10 * scale:
        raise ValueError("`M` must be symmetric; its largest asymmetry is "
                         f"{np.max(np.abs(M - M.T)):.3g} on a scale of {scale:.3g}.")
    M = 0.5 * (M + M.T)
    chol = np.zeros_like(M)
    if not np.all(np.isfinite(M)) or not cholesky(M, chol):  # (in a fixed order: reach.kernels.assembly)
        raise ValueError("`M` must be positive definite; its Cholesky factorization failed.")
    eig = np.linalg.eigvalsh(M)
    if eig[0] <= 1e-13 * eig[-1]:
        raise ValueError(f"`M` must be positive definite; its condition number is {eig[-1] / max(eig[0], 1e-300):.3g}.")
    return M, chol


def friction_directions_matrix(k):
    """Unit friction directions ``D`` (2, k) evenly spaced in the tangent plane."""
    angles = [2.0 * math.pi * j / k for j in range(k)]  # libm's cos and sin, not NumPy's (which vary with the CPU)
    return np.array([[math.cos(a) for a in angles], [math.sin(a) for a in angles]])


class ImpactProblem:
    """One impact state: ``M``, contact Jacobians, friction and the pre-impact velocity.

    Parameters
    ----------
    M : array_like, shape (nv, nv)
        Generalized mass matrix, symmetric positive definite.
    Jn : array_like, shape (m, nv)
        Normal Jacobians; row i maps v to the normal velocity of contact i.
    Jt : array_like, shape (m, nv) or (2m, nv)
        Tangential Jacobians.  With m rows the problem is planar (one tangent
        per contact); with 2m rows it is spatial (rows 2i, 2i+1 span contact
        i's tangent plane).
    mu : float or array_like, shape (m,)
        Coulomb friction coefficients (>= 0; a scalar is used for all contacts).
    v : array_like, shape (nv,)
        Pre-impact generalized velocity; at least one contact must collide.
    friction_directions : int, optional
        Number k of friction directions per contact.  Planar problems accept
        only 2 (the default); spatial problems need k >= 4 (default 8).
    contact_names : sequence of str, optional
        Labels of the contacts, default ``"A", "B", ...``.

    Attributes
    ----------
    m, nv, k : int
        Contacts, velocity coordinates and friction directions per contact.
    planar : bool
        Whether the tangential Jacobian has one row per contact.
    JD : ndarray, shape (m*k, nv)
        Friction-direction Jacobians ``D^T Jt`` stacked per contact.
    Jbar : ndarray, shape (m + m*k, nv)
        ``[Jn; JD]``.
    J_contact : ndarray, shape (m (1 + d), nv)
        Per contact its normal row and its d tangential rows (d = 1 planar,
        2 spatial): :meth:`contact_velocities` is ``J_contact v``.
    Minv_JbarT : ndarray, shape (nv, m + m*k)
        ``M^-1 Jbar^T``: maps impulses to velocity changes.
    delassus : ndarray, shape (m + m*k, m + m*k)
        ``Jbar M^-1 Jbar^T``.
    W : ndarray, shape (n, n) with n = m*(3 + k)
        The Routh-step LCP matrix (eq. 75b).
    colliding_tol : float
        A contact with ``Jn[i] @ v < -colliding_tol`` is colliding.
    psi : float
        ``sigma_max(M^-1 Jbar^T) / g m (1 + max mu) + 1`` of Algorithm 2, with
        ``M^-1 Jbar^T`` taken in the problem's own mass unit (divided by
        ``mass_scale``) so that it does not depend on the unit of mass.
    mass_scale : float
        ``g = max_i (Jn M^-1 Jn^T)_ii`` (1/kg): impulses times ``g`` are
        velocities.  The kernels see impulses so (see :mod:`reach.kernels.routh`).
    W_unit : ndarray, shape (n, n)
        The Routh-step matrix ``W`` with its Delassus blocks divided by ``g``.

    Examples
    --------
    A point mass falling onto the floor with one frictional contact:

    >>> import numpy as np
    >>> p = ImpactProblem(np.eye(2), [[0.0, 1.0]], [[1.0, 0.0]], 0.5, [1.0, -1.0])
    >>> p.m, p.nv, p.k, p.planar
    (1, 2, 2, True)
    >>> p.contact_velocities(p.v)
    array([[-1.,  1.]])
    """

    def __init__(self, M, Jn, Jt, mu, v, *, friction_directions=None, contact_names=None):
        M = _as_float_array("M", M, 2)
        Jn = _as_float_array("Jn", Jn, 2)
        Jt = _as_float_array("Jt", Jt, 2)
        v = _as_float_array("v", v, 1)
        nv = v.shape[0]
        if nv == 0:
            raise ValueError("`v` must have at least one entry.")
        if M.shape != (nv, nv):
            raise ValueError(f"`M` must have shape ({nv}, {nv}) to match `v`; got {M.shape}.")
        m = Jn.shape[0]
        if m == 0:
            raise ValueError("`Jn` must have at least one row (one contact).")
        if Jn.shape[1] != nv:
            raise ValueError(f"`Jn` must have {nv} columns to match `v`; got shape {Jn.shape}.")
        if Jt.shape not in ((m, nv), (2 * m, nv)):
            raise ValueError(
                f"`Jt` must have shape ({m}, {nv}) (planar) or ({2 * m}, {nv}) (spatial); got {Jt.shape}."
            )
        mu = np.array(mu, dtype=float)
        if mu.ndim == 0:
            mu = np.full(m, float(mu))
        if mu.shape != (m,):
            raise ValueError(f"`mu` must be a scalar or have shape ({m},); got {mu.shape}.")
        if not np.all(np.isfinite(mu)):
            raise ValueError("`mu` contains NaN or infinite entries.")
        if np.any(mu < 0):
            raise ValueError(f"`mu` must be >= 0; got {mu.tolist()}.")

        M, chol = _check_mass_matrix(M)
        row_norms = np.linalg.norm(Jn, axis=1)
        zero_rows = np.flatnonzero(row_norms == 0)
        if zero_rows.size:
            raise ValueError(f"`Jn` row {int(zero_rows[0])} is all zeros: contact {int(zero_rows[0])} cannot separate.")

        planar = Jt.shape[0] == m
        if friction_directions is None:
            k = 2 if planar else 8
        else:
            if isinstance(friction_directions, bool) or not isinstance(friction_directions, (int, np.integer)):
                raise TypeError(f"`friction_directions` must be an integer; got {friction_directions!r}.")
            k = int(friction_directions)
            if k > MAX_FRICTION_DIRECTIONS:
                raise ValueError(f"`friction_directions` must be at most {MAX_FRICTION_DIRECTIONS}; got {k}.")
            if planar and k != 2:
                raise ValueError(f"`friction_directions` must be 2 for a planar problem; got {k}.")
            if not planar and k < 4:
                raise ValueError(f"`friction_directions` must be >= 4 for a spatial problem; got {k}.")

        if contact_names is None:
            contact_names = [chr(ord("A") + i) if i < 26 else f"C{i}" for i in range(m)]
        if isinstance(contact_names, (str, bytes)) or not hasattr(contact_names, "__iter__"):
            raise TypeError(f"`contact_names` must be a sequence of strings; got {contact_names!r}.")
        contact_names = [str(c) for c in contact_names]
        if len(contact_names) != m:
            raise ValueError(f"`contact_names` must have {m} entries; got {len(contact_names)}.")
        if len(set(contact_names)) != m:
            raise ValueError(f"`contact_names` must be distinct; got {contact_names}.")

        normal_velocity, tangential = times(Jn, v[:, None])[:, 0], times(Jt, v[:, None])[:, 0]
        speed_scale = float(np.max(np.abs(np.concatenate([normal_velocity, tangential]))))
        colliding_tol = COLLIDING_RTOL * speed_scale
        if not np.any(normal_velocity < -colliding_tol) or speed_scale == 0:
            raise ValueError(
                "`v` is not an impact: no contact is colliding (Jn @ v = "
                f"{np.array2string(normal_velocity, precision=4)}; colliding means < 0)."
            )

        self.M, self.Jn, self.Jt, self.mu, self.v = M, Jn, Jt, mu, v
        for arr in (self.M, self.Jn, self.Jt, self.mu, self.v):
            arr.setflags(write=False)
        self.m, self.nv, self.k, self.planar = m, nv, k, planar
        self.contact_names = tuple(contact_names)
        self.colliding_tol = colliding_tol
        self._chol = chol
        self._assemble()

    # ------------------------------------------------------------------ derived data
    def _assemble(self):
        m, k, nv = self.m, self.k, self.nv
        if self.planar:
            D = np.array([[1.0, -1.0]])
            JD = np.empty((m * k, nv))
            JD[0::2] = self.Jt
            JD[1::2] = -self.Jt
        else:
            D = friction_directions_matrix(k)
            JD = np.vstack([times(D, self.Jt[2 * i:2 * i + 2], transpose=True) for i in range(m)])
        self.D = D
        self.JD = JD
        self.Jbar = np.vstack([self.Jn, JD])
        # per contact its normal row, then its d tangential rows: contact_velocities = J_contact v
        d = self.tangent_dim
        self.J_contact = np.concatenate([self.Jn[:, None, :], self.Jt.reshape(m, d, nv)], axis=1).reshape(-1, nv)
        # M^-1 Jbar^T and the Delassus matrix Y^T Y (Y = L^-1 Jbar^T), each in a fixed order of operations
        # (reach.kernels.assembly): OpenBLAS and LAPACK sum in their CPU's orders, and every outcome follows these bits
        L = self._chol
        Y, self.Minv_JbarT = np.empty((nv, self.Jbar.shape[0])), np.empty((nv, self.Jbar.shape[0]))
        solve_lower(L, np.ascontiguousarray(self.Jbar.T), Y)
        solve_lower_transposed(L, Y, self.Minv_JbarT)
        self.delassus = times(Y, Y, transpose=True)
        self.delassus = 0.5 * (self.delassus + self.delassus.T)
        E = np.zeros((m * k, m))
        for i in range(m):
            E[i * k:(i + 1) * k, i] = 1.0
        self.E = E
        n = m * (3 + k)
        W = np.zeros((n, n))
        nb = m + m * k  # size of lambda-bar
        W[0:m, m:2 * m] = -np.eye(m)
        W[m:2 * m, 0:m] = np.eye(m)
        W[m:m + nb, m:m + nb] = self.delassus
        W[2 * m:2 * m + m * k, m + nb:] = E
        W[m + nb:, m:2 * m] = np.diag(self.mu)
        W[m + nb:, 2 * m:2 * m + m * k] = -E.T
        self.W = W
        # the mass scale g (1/kg): impulses times g are velocities; the kernels work in those units
        self.mass_scale = float(np.max(np.diag(self.delassus)[:m]))
        W_unit = W.copy()
        W_unit[m:m + nb, m:m + nb] /= self.mass_scale
        self.W_unit = W_unit
        A = self.Minv_JbarT  # its largest singular value: that of the smaller of its two Gram matrices
        gram = times(A, A, transpose=True) if A.shape[1] <= A.shape[0] else times(A, np.ascontiguousarray(A.T))
        sigma = math.sqrt(max(largest_eigenvalue(gram), 0.0))
        self.psi = float(sigma / self.mass_scale * m * (1.0 + self.mu.max()) + 1.0)
        for arr in (self.D, self.JD, self.Jbar, self.J_contact, self.Minv_JbarT, self.delassus, self.E, self.W,
                    self.W_unit):
            arr.setflags(write=False)

    @property
    def lcp_size(self):
        """Size n = m (3 + k) of the Routh-step LCP."""
        return self.m * (3 + self.k)

    @property
    def tangent_dim(self):
        """Tangential velocity components per contact: 1 (planar) or 2 (spatial)."""
        return 1 if self.planar else 2

    def routh_w(self, v, lambda_max):
        """The Routh-step LCP vector ``w = [lambda_max; Jbar v; 0]`` (eq. 75a)."""
        lambda_max = np.broadcast_to(np.asarray(lambda_max, dtype=float), (self.m,))
        return np.concatenate([lambda_max, self.Jbar @ v, np.zeros(self.m)])

    def kinetic_energy(self, V):
        """Kinetic energy ``v^T M v / 2`` of one velocity (nv,) or many (..., nv)."""
        V = np.asarray(V, dtype=float)
        return 0.5 * np.einsum("...i,ij,...j->...", V, self.M, V)

    def normal_velocities(self, V):
        """Normal contact velocities ``Jn v``: shape (..., m)."""
        return np.asarray(V, dtype=float) @ self.Jn.T

    def is_colliding(self, V):
        """Whether each velocity (..., nv) has a colliding contact (``Jn v < -tol``)."""
        return np.any(self.normal_velocities(V) < -self.colliding_tol, axis=-1)

    def contact_velocities(self, V):
        """Contact-frame velocities of one velocity (nv,) or many (..., nv).

        Returns
        -------
        ndarray, shape (..., m, 1 + d)
            Per contact the normal velocity followed by the d tangential
            components (d = 1 planar, 2 spatial).  These coordinates are
            convention-free: they do not depend on how v is parameterized.
        """
        V = np.asarray(V, dtype=float)
        # einsum, not BLAS: called between parallel phases, BLAS threads left spinning after a product take
        # CPU from the workers (measured on two cores)
        return np.einsum("...j,ij->...i", V, self.J_contact).reshape(V.shape[:-1] + (self.m, 1 + self.tangent_dim))

    def with_velocity(self, v):
        """A copy of this problem with another pre-impact velocity."""
        return ImpactProblem(self.M, self.Jn, self.Jt, self.mu, v,
                             friction_directions=self.k, contact_names=self.contact_names)

    def restricted_to(self, contacts):
        """The same state with only the given contacts (indices), e.g. for sequential resolution.

        The restricted problem need not be an impact, so validation of the
        colliding condition is skipped; use it only for Routh steps.
        """
        contacts = list(contacts)
        obj = ImpactProblem.__new__(ImpactProblem)
        obj.M, obj.v = self.M, self.v
        obj.Jn = self.Jn[contacts]
        d = self.tangent_dim
        obj.Jt = np.vstack([self.Jt[d * i:d * (i + 1)] for i in contacts])
        obj.mu = self.mu[contacts]
        obj.m, obj.nv, obj.k, obj.planar = len(contacts), self.nv, self.k, self.planar
        obj.contact_names = tuple(self.contact_names[i] for i in contacts)
        obj.colliding_tol = self.colliding_tol
        obj._chol = self._chol
        obj._assemble()
        return obj

    # ------------------------------------------------------------------ identity and files
    def fingerprint(self):
        """A short hash of the problem data (for result metadata and checkpoints)."""
        h = hashlib.sha256()
        for arr in (self.M, self.Jn, self.Jt, self.mu, self.v):
            h.update(np.ascontiguousarray(arr, dtype=float).tobytes())
        h.update(repr((self.k, self.contact_names)).encode())
        return h.hexdigest()[:16]

    def to_dict(self):
        """The problem's defining data as plain lists (JSON-serializable)."""
        return {
            "M": self.M.tolist(), "Jn": self.Jn.tolist(), "Jt": self.Jt.tolist(),
            "mu": self.mu.tolist(), "v": self.v.tolist(),
            "friction_directions": self.k, "contact_names": list(self.contact_names),
        }

    def save(self, path):
        """Write the problem to ``.npz`` or ``.json`` (chosen by the suffix), atomically."""
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix not in (".npz", ".json"):
            raise ValueError(f"`path` must end in .npz or .json; got {str(path)!r}.")
        if suffix == ".json":
            text = json.dumps(self.to_dict(), indent=1).encode()
            return atomic_write(path, lambda fh: fh.write(text))
        return atomic_write(path, lambda fh: np.savez(
            fh, M=self.M, Jn=self.Jn, Jt=self.Jt, mu=self.mu, v=self.v, friction_directions=np.array(self.k),
            contact_names=np.array(self.contact_names)))

    @classmethod
    def from_file(cls, path):
        """Read a problem written by :meth:`save` (or by hand) from ``.npz`` or ``.json``.

        The file holds the arrays ``M, Jn, Jt, mu, v`` and optionally
        ``friction_directions`` and ``contact_names``.  Anything else — a
        missing, empty, truncated or foreign file, entries of the wrong kind —
        is a ValueError or TypeError naming the file and the entry.
        """
        path = Path(path)
        if not path.exists():
            raise ValueError(f"`path` {str(path)!r} does not exist.")
        if not path.is_file():
            raise ValueError(f"`path` {str(path)!r} is not a file.")
        data = _read_problem_file(path)
        missing = [key for key in ("M", "Jn", "Jt", "mu", "v") if key not in data]
        if missing:
            raise ValueError(f"`path` {str(path)!r} lacks the entries {missing}.")
        k = data.get("friction_directions")
        if k is not None:
            k = np.asarray(k)
            if k.shape != () or k.dtype.kind not in "iu":
                raise TypeError(f"`friction_directions` in {str(path)!r} must be one integer; got {k.tolist()!r}.")
            k = int(k)
        names = data.get("contact_names")
        if names is not None:
            names = np.asarray(names)
            if names.ndim != 1 or names.dtype.kind not in "US":
                raise TypeError(f"`contact_names` in {str(path)!r} must be a list of strings; got {names.tolist()!r}.")
            names = [str(s) for s in names.tolist()]
        return cls(data["M"], data["Jn"], data["Jt"], data["mu"], data["v"], friction_directions=k,
                   contact_names=names)

    def __repr__(self):
        kind = "planar" if self.planar else f"spatial, k={self.k}"
        return f"ImpactProblem(m={self.m}, nv={self.nv}, {kind}, contacts={list(self.contact_names)})"


def _read_problem_file(path):
    """The entries of a problem file as a dict; a damaged or foreign file is a ValueError."""
    suffix = path.suffix.lower()
    if suffix == ".json":
        try:
            data = json.loads(path.read_text())
        except (ValueError, RecursionError, UnicodeDecodeError) as exc:
            raise ValueError(f"`path` {str(path)!r} is not valid JSON: {str(exc)[:120]}") from None
    elif suffix == ".npz":
        try:
            data = read_npz(path)
        except ValueError as exc:
            raise ValueError(f"`path` {exc}") from None
    else:
        raise ValueError(f"`path` must end in .npz or .json; got {str(path)!r}.")
    if not isinstance(data, dict):
        raise ValueError(f"`path` {str(path)!r} must hold a mapping of named arrays; got {type(data).__name__}.")
    return data
