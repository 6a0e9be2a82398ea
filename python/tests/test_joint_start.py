"""A run starts from the joints' stated coordinates and reports its State as it is: an angle
beyond ±π keeps its whole turns (read back from body poses it would lose them)."""

import json

import appell

SCENE = {
    "gravity": [0, 0, -9.81],
    "bodies": [{"name": "a", "mass": 1, "inertia": {"box": [0.1, 0.1, 1]},
                "com": [0, 0, -0.5]}],
    "constraints": [{"name": "j1", "type": "revolute", "bodies": ["world", "a"],
                     "origin": {"xyz": [0, 0, 2]}, "axis": [1, 0, 0], "q": 4, "qd": 0.5}],
}


def test_the_simulators_state_is_its_joint_state_whole_turns_included():
    model = appell.load_model_from_string(json.dumps(SCENE))
    assert model.initial_state().q[0] == 4.0
    sim = appell.Simulator(model, duration=0.05, integrator="rk4", dt=1e-3)
    assert sim.state.q[0] == 4.0 and sim.state.u[0] == 0.5
    sim.step(10)
    assert abs(sim.state.q[0] - 4.0) < 0.1  # 4 − 2π when read back from the body poses
    while sim.step(100):
        pass
    assert sim.status == "completed"
    assert abs(sim.state.q[0] - 4.0) < 0.1
