"""Shapes carried by planar bodies, and static walls.

Every shape lives in the frame of one body and is given by body-frame
coordinates; :class:`Wall` is a static half-plane in the world frame.

=========  =====================================  ===========================
shape      geometry (body frame)                  contact candidates
=========  =====================================  ===========================
Point      one vertex ``offset``                  the vertex against walls
Rod        vertices ``start`` and ``end``         both vertices against walls
Box        four corners of a ``width x height``   each corner against walls
           rectangle centred at ``offset``,
           rotated by ``angle``
Disc       circle of ``radius`` centred at        the disc against walls and
           ``offset``                             against discs of other bodies
=========  =====================================  ===========================

A wall is the half-plane ``{p : n . p >= offset}`` of free space, bounded by
the line ``n . p = offset``; its unit normal ``n`` points into free space.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["Point", "Rod", "Box", "Disc", "Wall", "as_vector2"]


def as_vector2(what, value):
    """``value`` as a finite float array of shape (2,), or a ValueError naming ``what``."""
    try:
        arr = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a pair of numbers; got {value!r}.") from None
    if arr.shape != (2,):
        raise ValueError(f"{what} must be a pair of numbers (shape (2,)); got shape {arr.shape}.")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{what} must be finite; got {arr.tolist()}.")
    arr.setflags(write=False)
    return arr


def _positive(what, value):
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a number; got {value!r}.") from None
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{what} must be positive; got {value!r}.")
    return value


@dataclass(frozen=True)
class Point:
    """A contact vertex fixed to a body.

    Parameters
    ----------
    name, body : str
        Shape name and the body carrying it.
    offset : array_like, shape (2,)
        Body-frame position of the vertex.
    contact : bool
        Whether the vertex can touch walls.
    """

    name: str
    body: str
    offset: np.ndarray = field(default_factory=lambda: np.zeros(2))
    contact: bool = True
    kind = "point"

    def __post_init__(self):
        object.__setattr__(self, "offset", as_vector2(f"point {self.name!r}: `offset`", self.offset))

    def vertices(self):
        """Body-frame vertices (1, 2) and their names."""
        return self.offset[None, :], ("",)


@dataclass(frozen=True)
class Rod:
    """A segment (a massless link, or one carrying its own mass) fixed to a body.

    Parameters
    ----------
    name, body : str
        Shape name and the body carrying it.
    start, end : array_like, shape (2,)
        Body-frame end points; they must differ.
    contact : bool
        Whether the two end vertices can touch walls.
    """

    name: str
    body: str
    start: np.ndarray
    end: np.ndarray
    contact: bool = True
    kind = "rod"

    def __post_init__(self):
        object.__setattr__(self, "start", as_vector2(f"rod {self.name!r}: `start`", self.start))
        object.__setattr__(self, "end", as_vector2(f"rod {self.name!r}: `end`", self.end))
        if np.allclose(self.start, self.end, rtol=0.0, atol=1e-12):
            raise ValueError(f"rod {self.name!r} has zero length: `start` and `end` are both {self.start.tolist()}.")

    @property
    def length(self):
        return float(np.linalg.norm(self.end - self.start))

    def vertices(self):
        """Body-frame vertices (2, 2) and their names ``start``, ``end``."""
        return np.vstack([self.start, self.end]), ("start", "end")


#: Names of a box's corners, counter-clockwise from the bottom left (box frame).
BOX_CORNERS = ("bottom_left", "bottom_right", "top_right", "top_left")


@dataclass(frozen=True)
class Box:
    """A rectangle fixed to a body; its four corners are contact vertices.

    Parameters
    ----------
    name, body : str
        Shape name and the body carrying it.
    width, height : float
        Side lengths (> 0) along the box's own x and y axes.
    offset : array_like, shape (2,)
        Body-frame position of the box centre.
    angle : float
        Rotation (rad) of the box axes relative to the body frame.
    contact : bool
        Whether the corners can touch walls.
    """

    name: str
    body: str
    width: float
    height: float
    offset: np.ndarray = field(default_factory=lambda: np.zeros(2))
    angle: float = 0.0
    contact: bool = True
    kind = "box"

    def __post_init__(self):
        object.__setattr__(self, "width", _positive(f"box {self.name!r}: `width`", self.width))
        object.__setattr__(self, "height", _positive(f"box {self.name!r}: `height`", self.height))
        object.__setattr__(self, "offset", as_vector2(f"box {self.name!r}: `offset`", self.offset))
        angle = float(self.angle)
        if not np.isfinite(angle):
            raise ValueError(f"box {self.name!r}: `angle` must be finite; got {self.angle!r}.")
        object.__setattr__(self, "angle", angle)

    def vertices(self):
        """Body-frame corners (4, 2), counter-clockwise from bottom left, and their names."""
        w, h = 0.5 * self.width, 0.5 * self.height
        local = np.array([[-w, -h], [w, -h], [w, h], [-w, h]])
        c, s = np.cos(self.angle), np.sin(self.angle)
        rot = np.array([[c, -s], [s, c]])
        return self.offset + local @ rot.T, BOX_CORNERS


@dataclass(frozen=True)
class Disc:
    """A circle fixed to a body (a wheel, a rolling foot, a ball).

    Parameters
    ----------
    name, body : str
        Shape name and the body carrying it.
    radius : float
        Radius (> 0).
    offset : array_like, shape (2,)
        Body-frame position of the centre.
    contact : bool
        Whether the disc can touch walls and other bodies' discs.
    """

    name: str
    body: str
    radius: float
    offset: np.ndarray = field(default_factory=lambda: np.zeros(2))
    contact: bool = True
    kind = "disc"

    def __post_init__(self):
        object.__setattr__(self, "radius", _positive(f"disc {self.name!r}: `radius`", self.radius))
        object.__setattr__(self, "offset", as_vector2(f"disc {self.name!r}: `offset`", self.offset))

    def vertices(self):
        """Discs have no vertices: an empty (0, 2) array and no names."""
        return np.zeros((0, 2)), ()


@dataclass(frozen=True)
class Wall:
    """A static half-plane ``{p : normal . p >= offset}`` of free space.

    Parameters
    ----------
    name : str
        Wall name (used in contact names, e.g. ``"foot|floor"``).
    normal : array_like, shape (2,)
        Direction into free space; normalized on construction.
    offset : float
        Signed distance of the wall line from the origin along ``normal``.
    """

    name: str
    normal: np.ndarray
    offset: float = 0.0
    kind = "wall"

    def __post_init__(self):
        normal = np.array(as_vector2(f"wall {self.name!r}: `normal`", self.normal))
        norm = np.linalg.norm(normal)
        if norm < 1e-12:
            raise ValueError(f"wall {self.name!r}: `normal` must be non-zero; got {normal.tolist()}.")
        normal /= norm
        normal.setflags(write=False)
        object.__setattr__(self, "normal", normal)
        offset = float(self.offset)
        if not np.isfinite(offset):
            raise ValueError(f"wall {self.name!r}: `offset` must be finite; got {self.offset!r}.")
        object.__setattr__(self, "offset", offset)

    @property
    def tangent(self):
        """Unit tangent ``t = (n_y, -n_x)`` of the wall."""
        return np.array([self.normal[1], -self.normal[0]])

    def distance(self, points):
        """Signed distance of world points (..., 2) from the wall (positive in free space)."""
        return np.asarray(points, dtype=float) @ self.normal - self.offset
