"""Scenes with contact (the moreau time stepper, collision shapes) from Python: simulate()
and the Simulator run them, equal bit for bit to each other and to `appell simulate`,
and the bodies land as the scene says (the box rests flat on the ground, the ball stays
above it)."""

import numpy as np

import appell
from conftest import EXAMPLES, run_cli

SCENE = EXAMPLES / "box_on_ground_shapes.json"


def test_simulate_and_simulator_run_contact_scenes(tmp_path):
    model = appell.load_model(SCENE)
    assert appell.options(model)["integrator"] == "moreau"
    whole = appell.simulate(model, duration=0.8)
    assert whole.ok, whole.info["message"]
    # the box (0.2 high) lands flat: its centre 0.1 above the ground, at rest
    z_box = whole.position("box")[:, 2]
    assert abs(z_box[-1] - 0.1) < 5e-3 and np.abs(whole.velocity("box")[-1]).max() < 1e-2
    # the ball (radius 0.1) never goes through the ground
    assert whole.position("ball")[:, 2].min() > 0.1 - 5e-3
    sim = appell.Simulator(model, duration=0.8)
    while sim.step(37):
        pass
    assert sim.status == "completed"
    assert np.array_equal(sim.result().values, whole.values)
    # the program writes the same trajectory
    out = tmp_path / "traj.csv"
    run_cli("simulate", SCENE, "--duration", 0.8, "--out", out)
    mine = tmp_path / "mine.csv"
    whole.to_csv(mine)
    assert mine.read_bytes() == out.read_bytes()
