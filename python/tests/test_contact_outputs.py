"""Contact forces in Python results (Result.contacts, contact_force, limit_force, the
summary's contact figures) against statics, and against contacts.csv written by the
`appell` program for the same scene."""

import csv
import json
import math

import numpy as np

import appell
from conftest import EXAMPLES, run_cli

G = 9.81

RESTING_BOX = {
    "name": "resting box", "gravity": [0, 0, -G],
    "shapes": [{"name": "ground", "type": "plane", "friction": 0.8}],
    "bodies": [{"name": "box", "mass": 2.0, "inertia": {"box": [0.4, 0.3, 0.2]},
                "position": [0, 0, 0.1],
                "shapes": [{"name": "crate", "type": "box", "size": [0.4, 0.3, 0.2]}]}],
    "integrator": {"method": "moreau", "duration": 0.05, "dt": 0.001},
    "contact": {"tolerance": 1e-12}, "output": {"every": 10},
}


def test_resting_box_contact_forces_hold_its_weight():
    r = appell.simulate(appell.load_model_from_string(json.dumps(RESTING_BOX)))
    assert r.ok
    c = r.contacts
    assert len(c["t"]) >= 3 * (len(r) - 1)  # a manifold at every sample after t = 0
    assert set(c["kind"]) == {"contact"}
    assert c["point"].shape == (len(c["t"]), 3)
    f = r.contact_force("box")
    assert np.allclose(f[0], 0.0)  # no step before the first sample
    assert np.allclose(f[1:, 2], 2.0 * G, rtol=1e-8, atol=0)
    assert np.allclose(f[1:, :2], 0.0, atol=1e-8)
    assert np.all(np.abs(c["friction_force"]) < 1e-8)
    assert r.impacts == 0 and 0.0 <= r.max_penetration <= 1e-6


def test_contacts_equal_the_programs_contacts_csv(tmp_path):
    scene = tmp_path / "box.json"
    scene.write_text(json.dumps(RESTING_BOX))
    out = tmp_path / "contacts.csv"
    run_cli("simulate", scene, "--quiet", "--contacts", out)
    with open(out) as f:
        rows = list(csv.DictReader(f))
    c = appell.simulate(appell.load_model(scene)).contacts
    assert len(rows) == len(c["t"])
    for k, row in enumerate(rows):
        assert float(row["t"]) == c["t"][k]
        assert float(row["normal_force"]) == c["normal_force"][k]
        assert row["body_a"] == c["body_a"][k] and row["shape_b"] == c["shape_b"][k]
        assert row["state"] == c["state"][k]


def test_limit_force_balances_gravity_on_the_resting_rod():
    r = appell.simulate(appell.load_model(EXAMPLES / "limits_pendulum.json"))
    assert r.ok
    y = r["rod.y"][-1]
    assert math.isclose(y, 0.2 * math.cos(1.0), abs_tol=1e-6)
    assert math.isclose(r.limit_force("hinge")[-1], 1.0 * G * y, rel_tol=1e-8)
    c = r.contacts
    last = c["sample"] == len(r) - 1
    assert list(c["kind"][last]) == ["limit"]
    assert list(c["joint"][last]) == ["hinge"] and list(c["side"][last]) == ["lower"]


def test_simulator_gives_the_same_contacts():
    model = appell.load_model_from_string(json.dumps(RESTING_BOX))
    sim = appell.Simulator(model)
    sim.advance_to(1.0)
    a = sim.result().contacts
    b = appell.simulate(model).contacts
    assert np.array_equal(a["normal_force"], b["normal_force"])
    assert np.array_equal(a["sample"], b["sample"])


def test_smooth_run_has_no_contacts():
    r = appell.simulate(appell.load_model(EXAMPLES / "double_pendulum.json"), duration=0.01)
    assert len(r.contacts["t"]) == 0
    assert np.array_equal(r.contact_force("arm"), np.zeros((len(r), 3)))
