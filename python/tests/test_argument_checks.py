"""Arguments that were taken wrongly: numpy scalars and 0-d arrays as inputs, complex
numbers (their imaginary part silently dropped), non-finite times, unknown body names,
states off the constraint manifold; and pickles that depended on the working
directory."""

import math
import pickle

import numpy as np
import pytest

import appell
from conftest import EXAMPLES, SOURCE


def actuated_pendulum():
    b = appell.ModelBuilder()
    b.gravity = (0, 0, -9.81)
    b.add_body("arm", mass=1.0, inertia=(0.01, 0.01, 0.01), position=(0, 0, -0.5))
    b.add_joint("revolute", "world", "arm", anchor=(0, 0, 0), axis=(0, 1, 0), name="hinge")
    return appell.compile(b)


# ---- set_input: any real number, never a complex one ----

@pytest.mark.parametrize("value", [np.float32(0.5), np.float64(0.5), np.array(0.5),
                                   np.array(0.5, dtype=np.float32), np.array([0.5])])
def test_set_input_takes_numpy_scalars_and_0d_arrays(value):
    sim = appell.Simulator(actuated_pendulum(), integrator="rk4", dt=1e-3, duration=0.1,
                           actuated=["hinge"])
    sim.set_input("hinge", value)
    assert sim.inputs["hinge"].dtype == np.float64
    assert sim.inputs["hinge"].tolist() == [0.5]


@pytest.mark.parametrize("value", [np.int64(2), np.int32(2), np.uint8(2), np.array(2), 2])
def test_set_input_takes_integers_as_float64(value):
    sim = appell.Simulator(actuated_pendulum(), duration=0.1, actuated=["hinge"])
    sim.set_input("hinge", value)
    assert sim.inputs["hinge"].tolist() == [2.0]


def test_an_input_given_as_a_numpy_scalar_acts_as_the_same_float():
    def run(value):
        sim = appell.Simulator(actuated_pendulum(), integrator="rk4", dt=1e-3, duration=0.05,
                               actuated=["hinge"])
        sim.set_input("hinge", value)
        sim.advance_to(0.05)
        return sim.state.q

    assert np.array_equal(run(np.float32(0.25)), run(0.25))   # 0.25 is exact in float32
    assert np.array_equal(run(np.int64(1)), run(1.0))


@pytest.mark.parametrize("value", [1j, np.complex128(1 + 2j), np.array([0.5 + 1j]),
                                   np.array(0.5 + 0j)])
def test_set_input_refuses_complex_values(value):
    sim = appell.Simulator(actuated_pendulum(), duration=0.1, actuated=["hinge"])
    with pytest.raises(TypeError, match=r"set_input\(\): value: complex"):
        sim.set_input("hinge", value)
    assert sim.inputs["hinge"] is None


@pytest.mark.parametrize("value", ["0.5", np.array([True]), [[0.5]]])
def test_set_input_refuses_what_is_no_real_number(value):
    sim = appell.Simulator(actuated_pendulum(), duration=0.1, actuated=["hinge"])
    with pytest.raises((TypeError, ValueError), match=r"set_input\(\): value"):
        sim.set_input("hinge", value)


def test_a_state_refuses_complex_coordinates():
    with pytest.raises(TypeError, match="State: q: complex"):
        appell.State(0.0, np.array([0.1 + 0.2j]), np.zeros(1))
    s = appell.State(0.0, np.zeros(1), np.zeros(1))
    with pytest.raises(TypeError, match="State.u: complex"):
        s.u = np.array([1j])
    s.q = np.array([1], dtype=np.int64)                     # integers: float64
    assert s.q.dtype == np.float64 and s.q.tolist() == [1.0]


# ---- times ----

@pytest.mark.parametrize("t", [math.nan, math.inf, -math.inf])
def test_advance_to_refuses_a_time_that_is_not_finite(t):
    sim = appell.Simulator(actuated_pendulum(), integrator="rk4", dt=1e-3, duration=0.1)
    with pytest.raises(ValueError, match=r"advance_to\(\): t must be a finite time"):
        sim.advance_to(t)
    assert sim.t == 0.0 and sim.running


# ---- names ----

def test_contact_force_of_an_unknown_body_raises_naming_the_bodies():
    scene = {
        "gravity": [0, 0, -9.81], "shapes": [{"name": "ground", "type": "plane"}],
        "bodies": [{"name": "box", "mass": 1.0, "inertia": {"box": [0.2, 0.2, 0.2]},
                    "position": [0, 0, 0.1],
                    "shapes": [{"type": "box", "size": [0.2, 0.2, 0.2]}]}],
        "integrator": {"method": "moreau", "duration": 0.01, "dt": 0.001}}
    r = appell.simulate(appell.load_model(scene))
    with pytest.raises(KeyError, match="no body 'Box'; bodies: box"):
        r.contact_force("Box")
    assert r.contact_force("box")[-1, 2] == pytest.approx(9.81, rel=1e-6)   # its weight
    assert np.allclose(r.contact_force("world")[-1], -r.contact_force("box")[-1])


def test_unknown_names_raise_listing_the_names_there_are():
    model = actuated_pendulum()
    s = model.initial_state()
    with pytest.raises(ValueError, match="no body named 'Arm'; bodies: 'arm'"):
        appell.jacobian(model, s, "Arm")
    with pytest.raises(ValueError, match="no joint of the tree named 'Hinge'; joints: 'hinge'"):
        appell.linearize(model, s, inputs=["Hinge"])
    with pytest.raises(ValueError, match="no joint of the tree named 'x'; joints: 'hinge'"):
        appell.inverse_dynamics_constrained(model, s, np.zeros(1), actuated=["x"])
    with pytest.raises(ValueError, match="actuated: no joint named 'x'; joints: 'hinge'"):
        appell.Simulator(model, actuated=["x"])


# ---- linearize on the constraint manifold, as `appell linearize` ----

def test_linearize_refuses_a_state_off_the_constraint_manifold_as_the_cli_does():
    loop = appell.load_model(EXAMPLES / "four_bar.json")
    s = loop.initial_state()
    # every joint turned, at rest (no velocity to violate the rows): the loop is open
    off = appell.State(s.t, s.q + 0.05, np.zeros_like(s.u))
    with pytest.raises(ValueError) as python:
        appell.linearize(loop, off)
    message = str(python.value)
    assert message.startswith("linearize(): initial positions violate constraint '")
    assert message.endswith("(tolerance 1e-6)")
    # on the manifold it linearizes as before
    lin = appell.linearize(loop, s)
    assert lin["A"].shape[0] == lin["A"].shape[1] > 0


# ---- pickles that do not depend on the working directory ----

@pytest.mark.parametrize("scene, overrides", [
    ("scenes/examples/robots/quadruped.json", None),                  # includes a URDF
    ("scenes/examples/robots/two_link_arm.urdf", {"/gravity": [0, 0, -1.62]}),
    ("scenes/examples/robots/two_link_arm.xml", None),                # an MJCF
    ("scenes/examples/contact_rimless_wheel.json", None),             # a mesh
])
def test_a_pickled_model_loads_in_another_working_directory(scene, overrides, tmp_path,
                                                            monkeypatch):
    monkeypatch.chdir(SOURCE)
    model = appell.load_model(scene, overrides=overrides)
    data = pickle.dumps(model)
    monkeypatch.chdir(tmp_path)             # nothing of the scene's here
    again = pickle.loads(data)
    assert again.name == model.name and again.bodies == model.bodies
    assert again.source[3] == scene         # the file name it was loaded as
    s = model.initial_state()
    assert np.array_equal(appell.mass_matrix(again, s), appell.mass_matrix(model, s))
    assert np.array_equal(appell.bias_forces(again, s), appell.bias_forces(model, s))
    # and a sweep that rebuilds it with overrides, from here
    sr = appell.sweep(model, runs=[{"/gravity": [0, 0, -3.0]}], duration=0.001, progress=False)
    assert sr[0]["status"] == "completed", sr[0]["message"]


def test_linearize_where_nothing_moves_has_no_manifold_to_check():
    b = appell.ModelBuilder()
    b.gravity = (0, 0, -9.81)
    b.add_body("a", mass=1.0, position=(0, 0, -1))
    b.add_joint("fixed", "world", "a", name="weld")
    still = appell.compile(b)
    assert still.nu == 0
    for lin in (appell.linearize(still, still.initial_state()), appell.linearize(still)):
        assert lin["A"].shape == (0, 0) and lin["coordinates"] == []
