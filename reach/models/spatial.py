"""Contact geometry shared by the simulator adapters (MuJoCo, Drake): planar detection, merging, tangents.

An adapter reads, for every contact, a world-frame normal ``n`` (pointing so that
``n . v_rel > 0`` separates) and the 3 x nv Jacobian of the *relative* velocity
of the contact point.  These helpers decide whether the problem is planar, which
contacts coincide, and which tangent directions ``Jt`` uses, the same way for
every adapter.
"""

from __future__ import annotations

import numpy as np

__all__ = ["PLANAR_RTOL", "DUPLICATE_RTOL", "contact_plane", "coincident_groups", "tangent_basis", "cross3"]

#: Relative tolerance (on singular values) for "the contact velocities lie in a plane".
PLANAR_RTOL = 1e-9
#: Relative tolerance for "two contacts have the same Jacobian" (deduplication).
DUPLICATE_RTOL = 1e-9


def contact_plane(jacobians, normals):
    """Unit normal ``e`` of the plane holding all contact-point velocities, or None."""
    stacked = np.concatenate(jacobians, axis=1)  # (3, m * nv)
    gram = stacked @ stacked.T
    eigvals, eigvecs = np.linalg.eigh(gram)
    if eigvals[-1] <= 0 or eigvals[0] > PLANAR_RTOL**2 * eigvals[-1]:
        return None
    e = eigvecs[:, 0]
    e = e if e[np.argmax(np.abs(e))] > 0 else -e
    if any(abs(float(n @ e)) > 1e-6 for n in normals):
        return None
    return e


def coincident_groups(jacobians, normals):
    """Groups of contacts with the same normal and relative-velocity Jacobian; first of each kept."""
    scale = max(float(np.max(np.abs(J))) for J in jacobians) or 1.0
    groups = []
    for i, (J, n) in enumerate(zip(jacobians, normals)):
        for group in groups:
            j = group[0]
            if np.allclose(normals[j], n, atol=1e-9) and np.max(np.abs(jacobians[j] - J)) <= DUPLICATE_RTOL * scale:
                group.append(i)
                break
        else:
            groups.append([i])
    return groups


def cross3(a, b):
    """The cross product ``a x b`` of two 3-vectors: ``np.cross``'s products and differences, in its order (the same
    bits), without its tens of microseconds a call (tested)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def tangent_basis(normal, plane=None):
    """Unit tangents of a contact with unit ``normal``: shape (1, 3) planar, (2, 3) spatial.

    Planar (``plane`` the unit normal ``e`` of the plane of motion): ``t = e x n``, the
    project's planar convention.  Spatial: ``t1`` the world axis least aligned with
    ``n`` made orthogonal to it, ``t2 = n x t1`` (a right-handed frame ``n, t1, t2``).
    """
    n = np.asarray(normal, dtype=float)
    if plane is not None:
        t = cross3(np.asarray(plane, dtype=float), n)
        return (t / np.linalg.norm(t))[None, :]
    axis = np.eye(3)[int(np.argmin(np.abs(n)))]
    t1 = axis - (axis @ n) * n
    t1 /= np.linalg.norm(t1)
    return np.stack([t1, cross3(n, t1)])
