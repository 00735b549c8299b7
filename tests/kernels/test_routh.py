"""The sampling kernel: one compiled per kind of choice, with the same answers either way."""

import numpy as np
import pytest

import scenarios
from reach.sampling.caps import draw_caps
from reach.kernels.routh import (CHOICE_ENUMERATE, CHOICE_EXACT, CHOICE_FIRST, CHOICE_RANDOM, allocate_output,
                                 modes_flag, run_samples_kernel)
from reach.kernels.routh_data import make_step_work
from reach.problem.step import kernel_data, step_options


def test_random_and_first_choice_get_the_kernel_without_the_contact_modes():
    assert modes_flag(CHOICE_RANDOM) is None and modes_flag(CHOICE_FIRST) is None
    assert modes_flag(CHOICE_EXACT) is True and modes_flag(CHOICE_ENUMERATE) is True


@pytest.mark.parametrize("name, choice", [("compass-gait", CHOICE_RANDOM), ("disk-stack", CHOICE_RANDOM),
                                          ("ramone", CHOICE_FIRST)])
def test_both_kernels_give_random_and_first_choice_the_same_outcomes_bit_for_bit(name, choice):
    # The kernel compiled for exact choice and enumeration (modes=True) steps random and first choice
    # through Lemke's method too; the one compiled without the modes' code (modes=None) must agree.
    s = scenarios.get(name)
    p = s.problem
    data = kernel_data(p)
    opts = step_options(p, h=s.h, eps_lambda=1e-6, choice=choice, seed=4)
    P = draw_caps(p.m, s.N, 0, 512, seed=4)
    outs = []
    for modes in (None, True):
        out = allocate_output(512, p.nv, 512, s.N + 2)
        run_samples_kernel(data, opts, P, 0, out, make_step_work(p.lcp_size, p.m, p.nv), modes, None)
        outs.append(out)
    a, b = outs
    assert a.kept.any() and np.isfinite(a.velocities).all()
    energy = np.einsum("si,ij,sj->s", a.velocities, p.M, a.velocities) / 2
    assert np.all(energy <= p.kinetic_energy(p.v) * (1 + 1e-9))  # Theorem 7: no sample gains energy
    assert np.all(a.residual[a.kept] <= 1e-9)  # every step verified
    for field in ("velocities", "lcp_solves", "kept", "terminated", "status", "residual", "path_len"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field
    assert np.array_equal(a.paths, b.paths, equal_nan=True)


def test_exact_choice_without_the_certificate_gets_the_kernel_without_it():
    from reach.kernels.routh import certify_flag
    from reach.tools.scaling import disc_row

    two = kernel_data(scenarios.get("compass-gait").problem, certificate="auto")
    three = kernel_data(disc_row(3)[0], certificate="auto")
    assert not two.certified and certify_flag(two) is None  # two contacts enumerate their 49 pieces
    assert three.certified and certify_flag(three) is True
    assert certify_flag(kernel_data(scenarios.get("disk-stack").problem)) is None  # no certificate asked for
