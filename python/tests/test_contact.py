"""Scenes with contact (the moreau time stepper, collision shapes) from Python: simulate()
and the Simulator run them, equal bit for bit to each other and to `appell simulate`,
and the bodies land as the scene says (the box rests flat on the ground, the ball stays
above it)."""

import json

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



def test_friction_rule_sets_the_sliding_deceleration(tmp_path):
    """A box (mu 0.2) sliding at 2 m/s on the ground (mu 0.8): v(t) = v0 - mu g t with
    mu = sqrt(0.2 * 0.8) = 0.4 by default and max(0.2, 0.8) = 0.8 with "max"."""
    for rule, mu in ((None, 0.4), ("geometric", 0.4), ("max", 0.8)):
        scene = {
            "gravity": [0, 0, -9.81],
            "shapes": [{"name": "ground", "type": "plane", "friction": 0.8}],
            "bodies": [{"name": "box", "mass": 1.0, "inertia": {"box": [0.2, 0.2, 0.2]},
                        "position": [0, 0, 0.1], "velocity": [2.0, 0, 0],
                        "shapes": [{"type": "box", "size": [0.2, 0.2, 0.2],
                                    "friction": 0.2}]}],
            "integrator": {"method": "moreau", "dt": 0.001, "duration": 0.2},
        }
        if rule:
            scene["contact"] = {"friction": rule}
        path = tmp_path / "box.json"
        path.write_text(json.dumps(scene))
        model = appell.load_model(path)
        assert model.friction_rule == (rule or "geometric")
        r = appell.simulate(model)
        assert r.ok, r.info["message"]
        assert abs(r.velocity("box")[-1, 0] - (2.0 - mu * 9.81 * 0.2)) < 1e-6
