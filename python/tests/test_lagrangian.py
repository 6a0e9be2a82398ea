"""Lagrangian systems from Python (docs/lagrangian.md): L96 section 2's equations (2.4)-(2.5),
the two forms against each other, and a run's conserved energy."""

import math

import numpy as np
import pytest

import appell
from conftest import EXAMPLES

LEWIS = EXAMPLES / "lagrangian" / "lewis_particle.json"


def test_lewis_particle_eqs_2_4_and_2_5_at_random_states():
    system = appell.load_lagrangian(str(LEWIS))
    assert system.coordinates == ["x", "y", "z"]
    assert system.quasi_velocities == ["nu1", "nu2"]
    m, g, k, c, d = 1.3, 9.81, 2.0, 0.5, 0.1
    rng = np.random.default_rng(36)
    for _ in range(20):
        q = rng.uniform(-1, 1, 3)
        vx, vy = rng.uniform(-1, 1, 2)
        t = rng.uniform(-2, 2)
        r = appell.lagrangian_eval(system, q, [vx, vy, q[1] * vx], t)
        y, nu1, nu2 = q[1], vy, q[1] * q[1] * vx + vx
        w = 1 + y * y
        fx, fy, fz = -k * q[0], c * math.sin(t) - d * vy, -m * g
        assert r["nudot"][0] == pytest.approx(fy / m, abs=1e-12)                        # (2.4)
        assert r["nudot"][1] == pytest.approx((fx + y * fz) / m + y * nu1 * nu2 / w,   # (2.5)
                                              abs=1e-12)
        np.testing.assert_allclose(r["hessian"], np.diag([m, m / w]), atol=1e-13)
        np.testing.assert_allclose(r["qdd"], r["qdd_gauss"], atol=1e-12)


def test_off_the_constraint_and_wrong_sizes_are_refused():
    system = appell.load_lagrangian(str(LEWIS))
    with pytest.raises(ValueError, match="do not satisfy the constraints"):
        appell.lagrangian_eval(system, [0, 1, 0], [1, 0, 0])
    with pytest.raises(ValueError, match="q has 2 entries, expected n = 3"):
        appell.lagrangian_eval(system, [0, 1])
    with pytest.raises(appell.SceneError, match="/lagrangian/L"):
        appell.load_lagrangian_from_string(
            '{"lagrangian": {"coordinates": [{"name": "x"}], "L": "-qd(x)^2"}}')


def test_relativistic_run_conserves_its_energy_function():
    system = appell.load_lagrangian(str(EXAMPLES / "lagrangian" / "relativistic_particle.json"))
    run = appell.lagrangian_simulate(system, duration=3.0)
    assert run["ok"]
    assert run["q"].shape == (len(run["t"]), 2)
    e = run["energy"]
    assert np.max(np.abs(e - e[0])) < 1e-9
    speed = np.linalg.norm(run["qd"], axis=1)
    assert speed.max() < 1.0 and speed.max() > 0.7


def test_isokinetic_particle_constraint_nonlinear_in_the_rates():
    """xdot^2 + ydot^2 = v0^2 in a uniform field: the heading obeys v0 theta' = -g cos theta, so
    u = asinh(tan theta) falls at g/v0 and x = -(v0^2/g)(theta - theta0),
    y = -(v0^2/g) ln(cosh u / cosh u0)"""
    system = appell.load_lagrangian(str(EXAMPLES / "lagrangian" / "isokinetic_particle.json"))
    g, v0 = 9.81, 5.0
    # at a state on the constraint set, both forms: ydd = -g cos^2 theta
    for th in (-1.0, 0.3, 1.2):
        r = appell.lagrangian_eval(system, [0.1, 0.2], [v0 * math.cos(th), v0 * math.sin(th)])
        assert r["nudot"][0] == pytest.approx(-g * math.cos(th) ** 2, abs=1e-12)
        np.testing.assert_allclose(r["qdd"], r["qdd_gauss"], atol=1e-12)
    with pytest.raises(ValueError, match="do not satisfy the constraints"):
        appell.lagrangian_eval(system, [0, 0], [3, 4.1])
    run = appell.lagrangian_simulate(system)
    assert run["ok"]
    th0 = math.atan2(4, 3)
    u0 = math.asinh(math.tan(th0))
    u = u0 - g * run["t"] / v0
    th = np.arctan(np.sinh(u))
    r2 = v0 * v0 / g
    np.testing.assert_allclose(run["q"][:, 0], -r2 * (th - th0), atol=1e-9)
    np.testing.assert_allclose(run["q"][:, 1], -r2 * np.log(np.cosh(u) / np.cosh(u0)), atol=1e-9)
    np.testing.assert_allclose(np.linalg.norm(run["qd"], axis=1), v0, atol=1e-12)
