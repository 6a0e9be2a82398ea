"""Joint inputs set between steps (Simulator.set_input, MuJoCo's data.ctrl by joint name):
equal bit for bit to the same constant joint_torque given in the scene, the scene's own
value until an input is given, and a PD controller written in Python (with the gravity
compensation of bias_forces) reaching its set point."""

import copy
import math

import numpy as np
import pytest

import appell

# a rigid link hinged about y at the origin, its centre of mass 0.5 below
LINK = {
    "name": "link",
    "gravity": [0, 0, -9.81],
    "bodies": [{"name": "link", "mass": 1.2, "inertia": {"principal": [0.1, 0.1, 0.01]},
                "position": [0, 0, -0.5]}],
    "constraints": [{"name": "hinge", "type": "revolute", "bodies": ["world", "link"],
                     "anchor": [0, 0, 0], "axis": [0, 1, 0]}],
    "integrator": {"method": "rk4", "duration": 1.0, "dt": 0.001},
}


def with_torque(value):
    scene = copy.deepcopy(LINK)
    scene["forces"] = [{"type": "joint_torque", "joint": "hinge", "value": value}]
    return appell.load_model(scene)


def test_input_equals_the_scene_constant_bit_for_bit():
    given = appell.Simulator(with_torque(0.8))
    driven = appell.Simulator(with_torque(0.0))
    assert list(driven.inputs) == ["hinge"] and driven.inputs["hinge"] is None
    driven.set_input("hinge", 0.8)
    assert driven.inputs["hinge"].tolist() == [0.8]
    for _ in range(5):  # in several calls, as a controller loop steps
        given.step(40)
        driven.step(40)
    assert given.t == driven.t
    assert given.state == driven.state  # q, u equal bit for bit
    a, b = given.result(), driven.result()
    assert a.columns == b.columns and np.array_equal(a.values, b.values)
    assert np.all(b.joint_tau("hinge") == 0.8)
    # and the scene's value moves the link: the input is not ignored
    free = appell.Simulator(with_torque(0.0))
    free.step(200)
    assert free.state.q[0] != driven.state.q[0]


def test_the_scene_acts_until_an_input_is_given():
    model = with_torque("0.5*sin(3*t)")
    whole = appell.simulate(model)
    sim = appell.Simulator(model)
    while sim.step(100):
        pass
    assert np.array_equal(sim.result().values, whole.values)
    # None gives the joint back to the scene
    sim2 = appell.Simulator(model)
    sim2.set_input("hinge", 3.0)
    sim2.set_input("hinge", None)
    sim2.step(1000)
    assert np.array_equal(sim2.result().values, whole.values)


def test_input_changed_between_steps():
    # 0.3 N m for the first 100 steps, then 0: as a scene whose torque is 0.3 up to t = 0.1
    # (the step boundary, so no rk4 stage straddles the switch)
    sim = appell.Simulator(appell.load_model(LINK), actuated=["hinge"])
    sim.set_input("hinge", [0.3])
    sim.step(100)
    sim.set_input("hinge", 0.0)
    sim.step(100)
    tau = sim.result().joint_tau("hinge")
    t = sim.result().t
    assert np.all(tau[t < 0.1 - 1e-12] == 0.3) and np.all(tau[t > 0.1 + 1e-12] == 0.0)


def test_pd_controller_in_python_reaches_its_set_point():
    model = appell.load_model(LINK)
    target, kp, kd = 0.6, 40.0, 12.0
    sim = appell.Simulator(model, actuated=["hinge"], duration=4.0)
    while sim.running:
        s = sim.state
        # gravity compensation + PD, held for 10 steps (100 Hz)
        tau = appell.bias_forces(model, s)[0] + kp * (target - s.q[0]) - kd * s.u[0]
        sim.set_input("hinge", tau)
        sim.step(10)
    assert abs(sim.state.q[0] - target) < 1e-3 and abs(sim.state.u[0]) < 1e-2
    # a closed form: at rest at the set point, the input holds the weight, m g c sin(q)
    assert math.isclose(sim.inputs["hinge"][0], 1.2 * 9.81 * 0.5 * math.sin(target), rel_tol=1e-2)


def test_bad_inputs_raise():
    sim = appell.Simulator(appell.load_model(LINK), actuated=["hinge"])
    with pytest.raises(ValueError, match="no input 'elbow'.*'hinge'"):
        sim.set_input("elbow", 1.0)
    with pytest.raises(ValueError, match="takes 1 values, got 2"):
        sim.set_input("hinge", [1.0, 2.0])
    with pytest.raises(ValueError, match="not finite"):
        sim.set_input("hinge", float("nan"))
    with pytest.raises(ValueError, match="no joint named 'elbow'"):
        appell.Simulator(appell.load_model(LINK), actuated=["elbow"])
    with pytest.raises(ValueError, match="no input 'hinge'.*none here"):
        appell.Simulator(appell.load_model(LINK)).set_input("hinge", 1.0)
