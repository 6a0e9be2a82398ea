"""Joint-space dynamics from Python (mass_matrix, inverse_dynamics, bias_forces, jacobian,
forward_dynamics, forward_batch, inverse_dynamics_constrained) against independent values:
the planar double pendulum's closed-form mass matrix, the kinetic and potential energies
the simulation reports, finite differences of positions, the body velocities of the
forward kinematics, the maximal-coordinate formulation, and single calls."""

import json
import math

import numpy as np
import pytest

import appell
from conftest import EXAMPLES, PENDULUM

# a planar double pendulum of two rigid links hinged about x: lengths, centres of mass,
# masses and centroidal moments about the hinge axis
L1, C1, C2, M1, M2, I1, I2 = 0.5, 0.2, 0.3, 1.3, 0.7, 0.021, 0.013


def double_pendulum(gravity=(0, 0, -9.81)):
    b = appell.ModelBuilder()
    b.gravity = gravity
    b.add_body("upper", mass=M1, inertia=(I1, 0.05, 0.04), position=(0, 0, -C1))
    b.add_body("lower", mass=M2, inertia=(I2, 0.03, 0.02), position=(0, 0, -L1 - C2))
    b.add_joint("revolute", "world", "upper", anchor=(0, 0, 0), axis=(1, 0, 0), name="j1")
    b.add_joint("revolute", "upper", "lower", anchor=(0, 0, -L1), axis=(1, 0, 0), name="j2")
    return appell.compile(b)


def closed_form_mass(q2):
    """The textbook 2R arm: M11 = I1 + I2 + m1 c1² + m2 (l1² + c2² + 2 l1 c2 cos q2), ..."""
    c = math.cos(q2)
    m11 = I1 + I2 + M1 * C1**2 + M2 * (L1**2 + C2**2 + 2 * L1 * C2 * c)
    m12 = I2 + M2 * (C2**2 + L1 * C2 * c)
    return np.array([[m11, m12], [m12, I2 + M2 * C2**2]])


def first_sample(model, state):
    """What the simulation reports at the state itself (energies, body velocities)."""
    seen = []
    appell.simulate(model, state, observer=seen.append, duration=1e-3, dt=1e-3,
                    integrator="rk4", formulation="recursive")
    return seen[0]


def positions(model, q):
    data = appell.Data(model)
    data.forward(appell.State(0.0, q, np.zeros(model.nu)))
    return data.positions


@pytest.mark.parametrize("q2", [0.0, 0.7, -2.1])
def test_mass_matrix_of_the_double_pendulum_is_the_closed_form(q2):
    model = double_pendulum()
    s = appell.State(0.0, np.array([0.4, q2]), np.zeros(2))
    M = appell.mass_matrix(model, s)
    assert M.shape == (2, 2)
    np.testing.assert_allclose(M, closed_form_mass(q2), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("scene", ["robots/seven_dof_arm.urdf", "robots/quadruped.urdf",
                                   "heavy_top.json", "joint_universal.json"])
def test_half_u_M_u_is_the_kinetic_energy_the_simulation_reports(scene):
    model = appell.load_model(EXAMPLES / scene)  # trees: any u is consistent
    rng = np.random.default_rng(4)
    s0 = model.initial_state()
    s = appell.State(0.0, s0.q, rng.uniform(-1, 1, model.nu))
    M = appell.mass_matrix(model, s)
    assert np.array_equal(M, M.T)
    assert np.all(np.linalg.eigvalsh(M) > 0)
    T = first_sample(model, s)["kinetic_energy"]
    assert 0.5 * s.u @ M @ s.u == pytest.approx(T, rel=1e-12)


def test_bias_forces_at_rest_are_the_gradient_of_the_reported_potential_energy():
    model = double_pendulum()
    q, h = np.array([0.4, -0.9]), 1e-6
    g = appell.bias_forces(model, appell.State(0.0, q, np.zeros(2)))
    for k in range(2):
        e = np.eye(2)[k] * h
        Vp = first_sample(model, appell.State(0.0, q + e, np.zeros(2)))["potential_energy"]
        Vm = first_sample(model, appell.State(0.0, q - e, np.zeros(2)))["potential_energy"]
        assert g[k] == pytest.approx((Vp - Vm) / (2 * h), rel=1e-7, abs=1e-9)


def test_inverse_dynamics_is_M_udot_plus_bias_and_inverts_forward_dynamics():
    model = appell.load_model(EXAMPLES / "robots" / "seven_dof_arm.urdf")
    rng = np.random.default_rng(5)
    s = appell.State(0.2, rng.uniform(-1, 1, model.nq), rng.uniform(-1, 1, model.nu))
    udot = rng.uniform(-2, 2, model.nu)
    M, h = appell.mass_matrix(model, s), appell.bias_forces(model, s)
    tau = appell.inverse_dynamics(model, s, udot)
    np.testing.assert_allclose(tau, M @ udot + h, rtol=1e-10, atol=1e-10)
    # forward dynamics with these joint forces gives back udot
    back, status = appell.forward_dynamics(model, s, tau)
    assert status == "ok"
    np.testing.assert_allclose(back, udot, rtol=1e-9, atol=1e-9)
    free, _ = appell.forward_dynamics(model, s)
    np.testing.assert_allclose(M @ (back - free), tau, rtol=1e-9, atol=1e-9)


def test_forward_dynamics_equals_the_maximal_formulation_on_a_particle():
    # the pendulum's bob is a tree root (a particle joint, u = its velocity) held by an
    # extra row; pinv solves the same instant in maximal coordinates
    model = appell.load_model_from_string(json.dumps(PENDULUM))
    s = appell.State(0.0, np.array([0.6, 0.0, -0.8]), np.array([0.8, 0.3, 0.6]))
    udot, status = appell.forward_dynamics(model, s)
    assert status == "ok"
    r = appell.forward(model, s, formulation="pinv")
    np.testing.assert_allclose(udot, r["accelerations"]["bob"]["linear"], rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("scene", ["robots/seven_dof_arm.urdf", "double_pendulum.json"])
def test_jacobian_columns_are_finite_differences_of_positions(scene):
    model = appell.load_model(EXAMPLES / scene)
    joints = appell.describe(model)["joints"]
    assert all(j["type"] in ("revolute", "fixed", "particle") for j in joints)  # q̇ = u
    rng = np.random.default_rng(6)
    q = model.initial_state().q + rng.uniform(-0.5, 0.5, model.nq)
    s = appell.State(0.0, q, np.zeros(model.nu))
    h = 1e-6
    for b, name in enumerate(model.bodies):
        J = appell.jacobian(model, s, name)
        assert J.shape == (6, model.nu)
        for k in range(model.nu):
            e = np.eye(model.nu)[k] * h
            fd = (positions(model, q + e)[b] - positions(model, q - e)[b]) / (2 * h)
            np.testing.assert_allclose(J[:3, k], fd, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("scene", ["robots/quadruped.urdf", "heavy_top.json", "four_bar.json"])
def test_jacobian_times_u_is_the_velocity_of_the_forward_kinematics(scene):
    model = appell.load_model(EXAMPLES / scene)
    rng = np.random.default_rng(7)
    s0 = model.initial_state()
    s = appell.State(0.0, s0.q, rng.uniform(-1, 1, model.nu))
    seen = first_sample(model, s) if scene != "four_bar.json" else None
    if seen is None:  # a loop: the simulation would project u; use a consistent one
        s = s0
        seen = first_sample(model, s)
    for b, name in enumerate(model.bodies):
        off = np.array([0.05, -0.1, 0.2])
        p = seen["x"][b] + seen["Q"][b] @ off  # a material point off the centre of mass
        J = appell.jacobian(model, s, name, point=p)
        v = seen["v"][b] + np.cross(seen["w"][b], p - seen["x"][b])
        np.testing.assert_allclose(J[:3] @ s.u, v, rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(J[3:] @ s.u, seen["w"][b], rtol=1e-10, atol=1e-10)
    assert np.array_equal(appell.jacobian(model, s, 0), appell.jacobian(model, s, model.bodies[0]))


def test_forward_batch_equals_single_calls_bit_for_bit_on_any_number_of_threads():
    model = appell.load_model(EXAMPLES / "robots" / "quadruped.urdf")
    rng = np.random.default_rng(8)
    n = 64
    s0 = model.initial_state()
    Q = np.tile(s0.q, (n, 1))
    Q += rng.uniform(-0.2, 0.2, Q.shape) * (np.abs(s0.q) < 0.9)  # not the quaternion's w
    U = rng.uniform(-1, 1, (n, model.nu))
    TAU = rng.uniform(-5, 5, (n, model.nu))
    T = np.linspace(0, 1, n)
    one = np.array([appell.forward_dynamics(model, appell.State(T[i], Q[i], U[i]), TAU[i])[0]
                    for i in range(n)])
    for threads in (1, 2, 3):
        UDOT, ok = appell.forward_batch(model, Q, U, TAU, t=T, threads=threads)
        assert UDOT.shape == (n, model.nu) and ok.all()
        assert np.array_equal(UDOT, one)
    free = np.array([appell.forward_dynamics(model, appell.State(0.0, Q[i], U[i]))[0]
                     for i in range(n)])
    assert np.array_equal(appell.forward_batch(model, Q, U)[0], free)


def test_forward_batch_and_friends_name_bad_arguments():
    model = double_pendulum()
    s = model.initial_state()
    with pytest.raises(ValueError, match="U must be an array of shape"):
        appell.forward_batch(model, np.zeros((3, 2)), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="TAU must be"):
        appell.forward_batch(model, np.zeros((3, 2)), np.zeros((3, 2)), np.zeros((3, 3)))
    with pytest.raises(ValueError, match="not finite"):
        appell.forward_batch(model, np.full((1, 2), np.nan), np.zeros((1, 2)))
    with pytest.raises(ValueError, match="udot has 3 entries"):
        appell.inverse_dynamics(model, s, np.zeros(3))
    with pytest.raises(ValueError, match="no body named 'nose'"):
        appell.jacobian(model, s, "nose")
    with pytest.raises(ValueError, match="the State has nq = 1"):
        appell.mass_matrix(model, appell.State(0.0, [0.0], [0.0]))


def test_the_constrained_inverse_of_the_free_four_bar_needs_no_actuator():
    model = appell.load_model(EXAMPLES / "four_bar.json")
    s = model.initial_state()  # its velocities satisfy the loop
    udot, status = appell.forward_dynamics(model, s)
    assert status == "ok"
    r = appell.inverse_dynamics_constrained(model, s, udot)
    assert r["constraint_residual"] < 1e-10
    assert np.abs(r["tau"]).max() < 1e-9 * (1 + np.abs(r["tau_tree"]).max())
    np.testing.assert_allclose(r["A"] @ udot, r["b"], atol=1e-10)
    # actuating only joint A (the crank): one input moves the one-degree-of-freedom loop
    want = udot + 0.5  # any motion the loop allows: project onto A's null space
    want -= np.linalg.pinv(r["A"]) @ (r["A"] @ want - r["b"])
    a = appell.inverse_dynamics_constrained(model, s, want, actuated=["A"])
    assert a["force_residual"] < 1e-9
    assert np.count_nonzero(a["tau"]) <= 1
    back, _ = appell.forward_dynamics(model, s, a["tau"])
    np.testing.assert_allclose(back, want, rtol=1e-8, atol=1e-8)


def test_python_forces_enter_the_dynamics_and_their_exceptions_surface():
    def pendulum(force):
        b = appell.ModelBuilder()
        b.gravity = (0, 0, -9.81)
        b.add_body("bob", mass=2.0, type="particle", position=(0.6, 0, -0.8))
        b.add_distance("world", "bob", (0, 0, 0), (0.6, 0, -0.8))
        b.add_callable_force(force)
        return appell.compile(b)

    push = np.array([[0.5, -1.0, 2.0, 0, 0, 0]])
    model = pendulum(lambda s: push)
    s = appell.State(0.0, np.array([0.6, 0, -0.8]), np.array([0.8, 0.2, 0.6]))
    # the bob is a tree root whose u is its velocity: bias = −(m g + push)
    np.testing.assert_allclose(appell.bias_forces(model, s),
                               -(2.0 * np.array([0, 0, -9.81]) + push[0, :3]), rtol=1e-15)
    Q, U = np.tile(s.q, (5, 1)), np.tile(s.u, (5, 1)) * np.arange(5)[:, None]
    UDOT, ok = appell.forward_batch(model, Q, U, threads=2)
    assert ok.all()
    for i in range(5):
        one, _ = appell.forward_dynamics(model, appell.State(0.0, Q[i], U[i]))
        assert np.array_equal(UDOT[i], one)

    def boom(s):
        raise KeyError("from the force")

    bad = pendulum(boom)
    with pytest.raises(KeyError, match="from the force"):
        appell.forward_batch(bad, Q, U)
    with pytest.raises(KeyError, match="from the force"):
        appell.inverse_dynamics(bad, s, np.zeros(3))
