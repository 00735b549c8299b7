"""Design sweeps of the paper's impacts: ``build(params) -> ImpactProblem`` with named parameters.

============================  ===========================  ==============================================
name                          parameters (default)         what varies
============================  ===========================  ==============================================
``billiards``                 ``theta`` (pi/2)             angle between the lines of centres (rad)
``compass-gait``              ``stance_deg`` (78)          each leg's angle from vertical at heel strike
``rocking-block``             ``aspect`` (2), ``spin`` (0)  height / width; pre-impact rotation, as the
                                                           fraction of the fall speed the corners differ by
``ramone``                    ``theta_deg`` (16)           trunk pitch at touchdown (deg)
============================  ===========================  ==============================================
"""

from __future__ import annotations

import numpy as np

__all__ = ["DESIGNS", "PARAMETERS", "build", "defaults", "names", "describe"]


def _billiards(p):
    from scenarios import billiards

    return billiards.impact(p["theta"])


def _compass(p):
    from scenarios import compass_gait as cg

    if not 0.0 < p["stance_deg"] < 90.0:
        raise ValueError(f"stance_deg = {p['stance_deg']:g} puts the hip at or below the ground; "
                         "each leg's angle from vertical must lie in (0, 90) degrees.")
    model = cg.build_model()
    phi = np.deg2rad(p["stance_deg"])
    q = np.array([-cg.LEG_LENGTH * np.sin(phi), cg.LEG_LENGTH * np.cos(phi), -phi, phi])
    rates = np.array([cg.OMEGA, cg.OMEGA])
    v = np.concatenate([cg.hip_velocity_for_trailing_foot_at_rest(model, q, rates), rates])
    return model.impact_problem(q, v, cg.MU, contacts=list(cg.CONTACTS), names=["A", "B"])


def _block(p):
    from scenarios import rocking_block as rb

    width, height = 1.0, float(p["aspect"])
    model = rb.build_model(width=width, height=height)
    v0 = float(np.sqrt(2.0 * 9.81 * rb.DROP_HEIGHT))
    omega = float(p["spin"]) * 2.0 * v0 / width  # corner A falls at v0 (1 + spin), B at v0 (1 - spin)
    q = np.array([0.0, height / 2.0, 0.0])
    return model.impact_problem(q, [0.0, -v0, -omega], rb.MU,
                                contacts=["block.bottom_left|floor", "block.bottom_right|floor"], names=["A", "B"])


def _ramone(p):
    from scenarios import ramone

    model = ramone.build_model()
    q = ramone.initial_configuration(model, p["theta_deg"])
    trunk = ramone.trunk_velocity_for_trailing_foot_at_rest(model, q)
    v = np.array([trunk[0], trunk[1], ramone.TRUNK_RATE, 0.0, 0.0, 0.0, 0.0])
    return model.impact_problem(q, v, ramone.MU, contacts=list(ramone.CONTACTS), names=["A", "B"])


#: name -> (builder, default parameters)
DESIGNS = {
    "billiards": (_billiards, {"theta": float(np.pi / 2)}),
    "compass-gait": (_compass, {"stance_deg": 78.0}),
    "rocking-block": (_block, {"aspect": 2.0, "spin": 0.0}),
    "ramone": (_ramone, {"theta_deg": 16.0}),
}


#: parameter name -> what it is, with its unit (axis labels of sweeps)
PARAMETERS = {
    "theta": "angle between the lines of centres, theta (rad)",
    "stance_deg": "each leg's angle from vertical at heel strike (deg)",
    "aspect": "block height / width (-)",
    "spin": "pre-impact rotation: corners' fall speeds differ by this fraction (-)",
    "theta_deg": "trunk pitch at touchdown (deg)",
}


def names():
    return list(DESIGNS)


def describe(parameter):
    """An axis label for ``parameter``: what it is, and its unit."""
    return PARAMETERS.get(parameter, parameter)


def defaults(name):
    """The default parameters of design ``name`` (a copy)."""
    return dict(_entry(name)[1])


def build(name):
    """``build(params) -> ImpactProblem`` of design ``name``; missing parameters take their defaults."""
    builder, default = _entry(name)

    def build_problem(params):
        unknown = sorted(set(params) - set(default))
        if unknown:
            raise ValueError(f"design {name!r} has no parameters {unknown}; it has {sorted(default)}.")
        return builder({**default, **params})
    return build_problem


def _entry(name):
    key = name.strip().lower().replace("_", "-") if isinstance(name, str) else name
    if key not in DESIGNS:
        raise ValueError(f"unknown design {name!r}; valid names are {', '.join(DESIGNS)}.")
    return DESIGNS[key]
