"""The constraint Jacobian and the constraint forces in joint coordinates
(appell.constraint_jacobian, appell.constraint_forces) against independent values: the
tension of a pendulum's rod in closed form, the reactions of the maximal-coordinate
formulation (forward(..., formulation="pinv")) mapped to joint coordinates by the body
Jacobians, the constrained equation of motion built from mass_matrix and bias_forces, and
J u = 0 on the manifold of a closed four-bar and a rolling disk."""

import math

import numpy as np
import pytest

import appell
from conftest import EXAMPLES, PENDULUM


def on_manifold(model, steps=20):
    """A state the simulation reached: q and u satisfy the constraints."""
    sim = appell.Simulator(model, dt=1e-3, integrator="rk4", duration=1.0)
    sim.step(steps)
    return sim.state


def reactions_in_joint_coordinates(model, state):
    """Σ over constraints and bodies of J_bᵀ (f; n): the maximal formulation's reaction
    wrenches (force at the centre of mass, moment about it) as joint forces.  The tree's
    own joints add nothing (their reactions do no work along the tree's motion)."""
    r = appell.forward(model, state, formulation="pinv")
    assert r["status"] == "ok"
    total = np.zeros(model.nu)
    for per_body in r["forces"].values():
        for body, w in per_body.items():
            if body == "world":
                continue
            J = appell.jacobian(model, state, body)
            total += J[:3].T @ w["force"]
            if "moment" in w:
                total += J[3:].T @ w["moment"]
    return total


def check_equation_of_motion(model, state, tau=None):
    out = appell.constraint_forces(model, state, tau)
    assert out["status"] == "ok"
    M = appell.mass_matrix(model, state)
    b = appell.bias_forces(model, state)
    lhs = M @ out["udot"] + b - (0 if tau is None else tau)
    scale = 1 + np.abs(lhs).max()
    # J^T lambda = M udot + b - tau, and J udot = rhs
    assert np.allclose(out["J"].T @ out["multipliers"], lhs, atol=1e-9 * scale, rtol=0)
    assert np.allclose(out["force"], lhs, atol=1e-9 * scale, rtol=0)
    assert out["residual"] < 1e-9 * scale
    assert np.allclose(out["J"] @ out["udot"], out["rhs"], atol=1e-8 * scale, rtol=0)
    J, rows = appell.constraint_jacobian(model, state)
    assert np.array_equal(J, out["J"]) and rows == out["rows"]
    return out


def test_pendulum_rod_tension_in_closed_form():
    # a particle on a rod of length 1 from the origin, at angle th from the vertical,
    # speed v: the rod pulls it towards the origin with m g cos(th) + m v^2 / L
    model = appell.load_model(PENDULUM)
    th, v, m, g = 0.4, 1.3, 1.0, 9.81
    x = np.array([math.sin(th), 0.0, -math.cos(th)])
    vel = v * np.array([math.cos(th), 0.0, math.sin(th)])
    s = model.initial_state()
    s.q, s.u = x, vel  # a free particle's joint coordinates: position and velocity
    J, rows = appell.constraint_jacobian(model, s)
    assert rows == ["rod"] and J.shape == (1, 3)
    assert abs(J[0] @ vel) < 1e-15  # J u = 0: the velocity is tangent
    # J is normal to the sphere |x| = 1
    assert np.allclose(np.cross(J[0], x), 0, atol=1e-15)
    out = check_equation_of_motion(model, s)
    tension = m * g * math.cos(th) + m * v**2 / 1.0
    assert np.allclose(out["force"], -tension * x, atol=1e-12)


def test_four_bar_loop_force_against_the_maximal_reactions():
    model = appell.load_model(EXAMPLES / "four_bar.json")
    s = on_manifold(model)
    J, rows = appell.constraint_jacobian(model, s)
    # the loop-closing revolute's five rows, named after it
    assert len(rows) == 5 and len({r.split("[")[0] for r in rows}) == 1
    assert J.shape == (5, model.nu)
    assert np.abs(J @ s.u).max() < 1e-6  # J u = 0 on the manifold
    out = check_equation_of_motion(model, s)
    expected = reactions_in_joint_coordinates(model, s)
    assert np.allclose(out["force"], expected, atol=1e-8 * (1 + np.abs(expected).max()), rtol=0)
    # a joint torque at the crank changes the loop force as the equation says
    tau = np.zeros(model.nu)
    tau[0] = 0.7
    check_equation_of_motion(model, s, tau)


def test_rolling_disk_nonholonomic_rows():
    model = appell.load_model(EXAMPLES / "rolling_disk.json")
    s = model.initial_state()
    J, rows = appell.constraint_jacobian(model, s)
    assert all(r.startswith("contact") for r in rows) and J.shape[1] == model.nu
    assert np.abs(J @ s.u).max() < 1e-12  # the scene starts rolling without slipping
    out = check_equation_of_motion(model, s)
    expected = reactions_in_joint_coordinates(model, s)
    assert np.allclose(out["force"], expected, atol=1e-9 * (1 + np.abs(expected).max()), rtol=0)


def test_a_tree_has_no_rows():
    b = appell.ModelBuilder()
    b.gravity = (0, 0, -9.81)
    b.add_body("upper", mass=1.0, position=(0, 0, -0.2))
    b.add_body("lower", mass=0.5, position=(0, 0, -0.6))
    b.add_joint("revolute", "world", "upper", axis=(1, 0, 0), name="j1")
    b.add_joint("revolute", "upper", "lower", anchor=(0, 0, -0.4), axis=(1, 0, 0), name="j2")
    model = appell.compile(b)
    s = model.initial_state()
    J, rows = appell.constraint_jacobian(model, s)
    assert J.shape == (0, model.nu) and rows == []
    out = appell.constraint_forces(model, s)
    assert out["multipliers"].shape == (0,) and not out["force"].any()


def test_bad_arguments_raise():
    model = appell.load_model(PENDULUM)
    with pytest.raises(ValueError, match="constraint_jacobian\\(\\): the State has nq"):
        appell.constraint_jacobian(model, appell.State(0.0, [0.0], [0.0]))
    with pytest.raises(ValueError, match="tau has 2 entries"):
        appell.constraint_forces(model, model.initial_state(), np.zeros(2))
    with pytest.raises(ValueError, match="a Model is required"):
        appell.constraint_jacobian(None, model.initial_state())
