"""A Python force's potential: add_callable_force(fn, potential=V) puts V into the
reported energy, which then matches the built-in spring's to round-off and is conserved;
without it the energy is kinetic only (the docs say so).  A bad potential raises."""

import numpy as np
import pytest

import appell

K = 4.0


def oscillator(kind):
    """A particle on a zero-length spring to the origin: f = -k x, V = k |x|² / 2."""
    b = appell.ModelBuilder()
    b.add_body("bob", mass=1.5, type="particle", position=(0.3, 0.0, 0.4),
               velocity=(0.0, 0.5, 0.1))
    force = lambda s: np.hstack([-K * s["x"], np.zeros((1, 3))])  # noqa: E731
    if kind == "builtin":
        b.add_spring("world", "bob", (0, 0, 0), (0.3, 0.0, 0.4), stiffness=K, rest_length=0.0)
    elif kind == "potential":
        b.add_callable_force(force, potential=lambda s: 0.5 * K * float(s["x"][0] @ s["x"][0]))
    else:
        b.add_callable_force(force)
    return appell.compile(b)


def run(kind):
    return appell.simulate(oscillator(kind), duration=2.0, dt=1e-3, integrator="rk4",
                           formulation="pinv")


def test_a_python_force_with_its_potential_reports_the_builtin_springs_energy():
    builtin, python = run("builtin"), run("potential")
    E0 = 0.5 * 1.5 * (0.5**2 + 0.1**2) + 0.5 * K * (0.3**2 + 0.4**2)  # closed form at t = 0
    assert python.energy[0] == pytest.approx(E0, rel=1e-14)
    np.testing.assert_allclose(python.energy, builtin.energy, rtol=1e-12)
    assert np.abs(python.energy - E0).max() < 1e-9  # conserved (rk4, dt = 1e-3)


def test_without_its_potential_the_energy_is_kinetic_only():
    python = run("none")
    T0 = 0.5 * 1.5 * (0.5**2 + 0.1**2)
    assert python.energy[0] == pytest.approx(T0, rel=1e-14)
    # the spring trades kinetic for potential energy that is not reported
    assert np.ptp(python.energy) > 0.1


def test_a_potential_that_returns_no_number_raises():
    b = appell.ModelBuilder()
    b.add_body("bob", mass=1.0, type="particle")
    b.add_callable_force(lambda s: None, potential=lambda s: "high")
    with pytest.raises((ValueError, TypeError), match="potential"):
        appell.simulate(appell.compile(b), duration=0.01)
