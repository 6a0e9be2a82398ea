"""Exact derivatives of the dynamics and the linear model from Python
(inverse_dynamics_derivatives, forward_dynamics_derivatives, linearize) against independent
values: central differences of forward_dynamics, the closed-form cart-pole, and the
relations between the forward and inverse derivatives."""

import numpy as np
import pytest

import appell
from conftest import EXAMPLES


def double_pendulum():
    b = appell.ModelBuilder()
    b.gravity = (0, 0, -9.81)
    b.add_body("upper", mass=1.3, inertia=(0.021, 0.05, 0.04), position=(0, 0, -0.2))
    b.add_body("lower", mass=0.7, inertia=(0.013, 0.03, 0.02), position=(0, 0, -0.8))
    b.add_joint("revolute", "world", "upper", anchor=(0, 0, 0), axis=(1, 0, 0), name="j1")
    b.add_joint("universal", "upper", "lower", anchor=(0, 0, -0.5), axis=(1, 0, 0),
                name="j2")
    return appell.compile(b)


def test_forward_derivatives_against_central_differences():
    model = double_pendulum()
    rng = np.random.default_rng(3)
    s = appell.State(0.0, rng.uniform(-0.5, 0.5, model.nq), rng.uniform(-1, 1, model.nu))
    tau = rng.uniform(-1, 1, model.nu)
    dq, du, minv = appell.forward_dynamics_derivatives(model, s, tau)
    assert dq.shape == du.shape == minv.shape == (model.nu, model.nu)
    h = 1e-6
    for j in range(model.nu):
        e = np.zeros(model.nu)
        e[j] = h
        # every joint here has q' = u: the tangent directions are the coordinates
        up, _ = appell.forward_dynamics(model, appell.State(0.0, s.q + e, s.u), tau)
        dn, _ = appell.forward_dynamics(model, appell.State(0.0, s.q - e, s.u), tau)
        assert np.allclose(dq[:, j], (up - dn) / (2 * h), rtol=1e-6, atol=1e-6)
        up, _ = appell.forward_dynamics(model, appell.State(0.0, s.q, s.u + e), tau)
        dn, _ = appell.forward_dynamics(model, appell.State(0.0, s.q, s.u - e), tau)
        assert np.allclose(du[:, j], (up - dn) / (2 * h), rtol=1e-6, atol=1e-6)
    M = appell.mass_matrix(model, s)
    assert np.allclose(minv @ M, np.eye(model.nu), atol=1e-12)
    # the inverse derivatives at the forward accelerations: du̇/dq = −M⁻¹ dτ/dq
    udot, _ = appell.forward_dynamics(model, s, tau)
    tq, tu, M2 = appell.inverse_dynamics_derivatives(model, s, udot)
    assert np.allclose(M2, M, atol=1e-14)
    assert np.allclose(dq, -np.linalg.solve(M, tq), atol=1e-10)
    assert np.allclose(du, -np.linalg.solve(M, tu), atol=1e-10)


def test_constrained_derivatives_of_a_rolling_disk():
    """The disk's rolling rows beyond its tree: the derivatives of the constrained
    accelerations against central differences of forward_dynamics, and the multipliers
    carrying what the tree needs beyond tau (A^T lambda = ID(q, u, udot) - tau)."""
    model = appell.load_model(EXAMPLES / "rolling_disk.json")
    s = model.initial_state()
    c = appell.constrained_dynamics_derivatives(model, s)
    assert c["A"].shape == (3, model.nu) and c["lambda"].shape == (3,)
    udot, _ = appell.forward_dynamics(model, s)
    assert np.allclose(c["udot"], udot, atol=1e-12)
    tau = appell.inverse_dynamics(model, s, c["udot"])
    assert np.allclose(c["A"].T @ c["lambda"], tau, atol=1e-10)
    h = 1e-5
    for j in range(model.nu):
        e = np.zeros(model.nu)
        e[j] = h
        up, _ = appell.forward_dynamics(model, appell.State(0.0, s.q, s.u + e))
        dn, _ = appell.forward_dynamics(model, appell.State(0.0, s.q, s.u - e))
        assert np.allclose(c["dudot_du"][:, j], (up - dn) / (2 * h), rtol=1e-6, atol=1e-6)
    dq, du, dtau = appell.forward_dynamics_derivatives(model, s)
    assert np.array_equal(dq, c["dudot_dq"]) and np.array_equal(dtau, c["dudot_dtau"])


def test_linearize_cart_pole_closed_form():
    model = appell.load_model(EXAMPLES / "cart_pole.json")
    lin = appell.linearize(model, inputs=["rail"])
    assert lin["exact"] and lin["coordinates"] == ["rail", "hinge"] and lin["inputs"] == ["rail"]
    Mc, m, l, I, g = 1.0, 0.1, 0.5, 0.1 / 12, 9.81
    D = (Mc + m) * (I + m * l * l) - (m * l) ** 2
    A = np.zeros((4, 4))
    A[0, 2] = A[1, 3] = 1
    A[2, 1] = -(m * l) ** 2 * g / D
    A[3, 1] = (Mc + m) * m * g * l / D
    B = np.array([[0], [0], [(I + m * l * l) / D], [-m * l / D]])
    assert np.allclose(lin["A"], A, atol=1e-12)
    assert np.allclose(lin["B"], B, atol=1e-12)
    assert max(lin["eigenvalues"].real) == pytest.approx(np.sqrt(A[3, 1]), rel=1e-10)


def test_linearize_a_model_without_degrees_of_freedom():
    # one body welded to the world: an empty linear model (this used to end the interpreter)
    b = appell.ModelBuilder()
    b.gravity = (0, 0, -9.81)
    b.add_body("block", mass=2.0, inertia=(1, 1, 1), position=(0, 0, 1))
    b.add_joint("fixed", "world", "block", name="weld")
    model = appell.compile(b)
    assert model.nu == 0
    lin = appell.linearize(model)
    assert lin["A"].shape == (0, 0) and lin["B"].shape == (0, 0)
    assert len(lin["eigenvalues"]) == 0


def test_linearize_benchmark_bicycle_and_a_steady_turn():
    # Meijaard et al. (2007), Table 2 at 5 m/s: castor, weave pair, capsize
    model = appell.load_model(EXAMPLES.parent / "benchmarks" / "whipple_bicycle.json")
    lin = appell.linearize(model)
    assert len(lin["independent_velocities"]) == 3 and lin["turn_rate"] == 0
    published = [-14.0783896927982, -0.775341882195845 + 4.46486771378823j,
                 -0.775341882195845 - 4.46486771378823j, -0.322866429004087]
    for z in published:
        assert min(abs(lin["eigenvalues"] - z)) < 1e-9
    # the shipped rolling disk turns steadily at 1.7 rad/s: taken in the turning frame, its
    # motion is neutral (no eigenvalue off the imaginary axis)
    disk = appell.linearize(appell.load_model(EXAMPLES / "rolling_disk.json"))
    assert disk["turn_rate"] == pytest.approx(1.7, abs=1e-9)
    assert max(abs(disk["eigenvalues"].real)) < 1e-5


def test_errors_are_value_errors():
    model = double_pendulum()
    s = model.initial_state()
    with pytest.raises(ValueError):
        appell.inverse_dynamics_derivatives(model, s, np.zeros(model.nu + 1))
    with pytest.raises(ValueError, match="no joint of the tree named 'nope'"):
        appell.linearize(model, inputs=["nope"])
