"""The Python module against the C++ API as the `appell` program runs it, and against
closed forms: the same computation must give the same bits."""

import json

import numpy as np
import pytest

import appell
from conftest import EXAMPLES, PENDULUM, run_cli

SCENES = ["double_pendulum", "four_bar", "spherical_pendulum", "heavy_top", "rolling_disk",
          "chaplygin_sleigh", "joint_universal"]


@pytest.mark.parametrize("name", SCENES)
def test_forward_equals_cli_eval_bit_for_bit(name):
    scene = EXAMPLES / f"{name}.json"
    cli = json.loads(run_cli("eval", scene).stdout)
    r = appell.forward(appell.load_model(scene))
    assert r["status"] == "ok"
    assert r["formulation"] == cli["formulation"]
    assert r["rank"] == cli["constraint_rank"] and r["dof"] == cli["dof"]
    for body, e in cli["bodies"].items():
        assert np.array_equal(r["accelerations"][body]["linear"], e["linear_acceleration"])
        if "angular_acceleration" in e:
            assert np.array_equal(r["accelerations"][body]["angular"],
                                  e["angular_acceleration"])
    for con, e in cli["constraints"].items():
        assert np.array_equal(r["multipliers"][con], e["multipliers"])
        for body, w in e["bodies"].items():
            assert np.array_equal(r["forces"][con][body]["force"], w["force"])
            if "moment" in w:
                assert np.array_equal(r["forces"][con][body]["moment"], w["moment"])


@pytest.mark.parametrize("name", ["double_pendulum", "four_bar", "heavy_top", "joint_actuators",
                                  "robots/two_link_arm"])
def test_simulate_csv_equals_cli_byte_for_byte(name, tmp_path):
    scene = EXAMPLES / f"{name}.json"
    run_cli("simulate", scene, "--duration", "0.3", "--quiet", "--out", tmp_path / "cli.csv",
            "--forces", tmp_path / "cli_forces.csv")
    r = appell.simulate(appell.load_model(scene), duration=0.3)
    assert r.ok
    r.to_csv(tmp_path / "py.csv")
    r.to_csv(tmp_path / "py_forces.csv", forces=True)
    assert (tmp_path / "py.csv").read_text() == (tmp_path / "cli.csv").read_text()
    assert (tmp_path / "py_forces.csv").read_text() == (tmp_path / "cli_forces.csv").read_text()


def test_a_long_simulate_csv_equals_to_csv_byte_for_byte(tmp_path):
    # 3001 rows, a sample every step: the program writes them on its writer thread in
    # batches that cycle its ring many times; the module formats them itself
    scene = json.loads((EXAMPLES / "joint_actuators.json").read_text())
    scene["output"] = {"every": 1}
    path = tmp_path / "arm.json"
    path.write_text(json.dumps(scene))
    run_cli("simulate", path, "--quiet", "--out", tmp_path / "cli.csv",
            "--forces", tmp_path / "cli_forces.csv")
    r = appell.simulate(appell.load_model(path))
    assert r.ok and len(r.t) == 3001
    r.to_csv(tmp_path / "py.csv")
    r.to_csv(tmp_path / "py_forces.csv", forces=True)
    assert (tmp_path / "py.csv").read_text() == (tmp_path / "cli.csv").read_text()
    assert (tmp_path / "py_forces.csv").read_text() == (tmp_path / "cli_forces.csv").read_text()


def test_joint_columns_against_the_body_states_and_the_prescribed_motion():
    r = appell.simulate(appell.load_model(EXAMPLES / "joint_actuators.json"), duration=0.5)
    assert r.ok and set(r.joints) == {"shoulder", "elbow"}
    # the shoulder (world–upper, axis z, anchor at the origin) turns the upper arm's centre,
    # initially at (0.25, 0, 0): its angle is the polar angle of that centre, its rate ω_z
    x, y = r["upper.x"], r["upper.y"]
    assert np.allclose(r.joint_q("shoulder")[:, 0], np.arctan2(y, x), atol=1e-9)
    assert np.allclose(r.joint_qd("shoulder")[:, 0], r["upper.wz"], atol=1e-9)
    # the elbow follows its prescribed trajectory q = 0.5 sin(2t) (Baumgarte-stabilized)
    assert np.allclose(r.joints["elbow"]["q"][:, 0], 0.5 * np.sin(2 * r.t), atol=1e-6)
    assert np.allclose(r.joints["elbow"]["qd"][:, 0], np.cos(2 * r.t), atol=1e-5)
    # both joints are actuated: power = τ·u
    for j in ("shoulder", "elbow"):
        e = r.joints[j]
        assert np.allclose(e["power"], (e["tau"] * e["qd"]).sum(axis=1), rtol=1e-12, atol=1e-12)
    with pytest.raises(KeyError, match="no joint 'knee'"):
        r.joint_q("knee")


def spherical_pendulum_in_code():
    """scenes/examples/spherical_pendulum.json, built with the ModelBuilder."""
    b = appell.ModelBuilder()
    b.name = "spherical pendulum"
    b.gravity = (0, 0, -9.81)
    b.add_body("bob", mass=1.0, type="particle", position=(0.6, 0, -0.8), velocity=(0, 1.3, 0))
    b.add_distance("world", "bob", (0, 0, 0), (0.6, 0, -0.8), name="rod")
    return appell.compile(b)


def test_model_built_in_code_equals_the_scene_and_uk96_eq28():
    coded = spherical_pendulum_in_code()
    loaded = appell.load_model(EXAMPLES / "spherical_pendulum.json")
    a = appell.forward(coded, formulation="pinv")
    b = appell.forward(loaded, formulation="pinv")
    assert np.array_equal(a["udot"], b["udot"])
    assert np.array_equal(a["forces"]["rod"]["bob"]["force"], b["forces"]["rod"]["bob"]["force"])
    # [UK96 eq. 28]: m ẍ = m g − m (|ẋ|² + g·x) / L² x, L = 1
    x, v, g = np.array([0.6, 0, -0.8]), np.array([0, 1.3, 0]), np.array([0, 0, -9.81])
    expected = g - (v @ v + g @ x) * x
    assert np.allclose(a["accelerations"]["bob"]["linear"], expected, rtol=0, atol=1e-12)
    # the rod's force is m (ẍ − g): the tension along the rod
    assert np.allclose(a["forces"]["rod"]["bob"]["force"], expected - g, rtol=0, atol=1e-12)


def test_state_arrays_and_forward_on_a_state():
    model = appell.load_model(EXAMPLES / "spherical_pendulum.json")
    s = model.initial_state()
    assert s.q.shape == (model.nq,) and s.u.shape == (model.nu,)
    assert np.array_equal(s.q, [0.6, 0, -0.8]) and np.array_equal(s.u, [0, 1.3, 0])
    # a State with twice the velocity is the scene with twice the velocity
    fast = appell.State(0.0, s.q, 2 * s.u)
    other = appell.load_model(EXAMPLES / "spherical_pendulum.json",
                              {"/bodies/0/velocity": [0, 2.6, 0]})
    assert np.array_equal(other.initial_state().u, fast.u)
    a = appell.forward(model, fast, formulation="pinv")
    b = appell.forward(other, other.initial_state(), formulation="pinv")
    assert np.array_equal(a["udot"], b["udot"])
    # a reused Data gives the same as a fresh one
    data = appell.Data(model)
    assert data.forward(fast, "pinv") == "ok"
    assert np.array_equal(data.udot, a["udot"])
    assert np.array_equal(data.reactions[0, :3], a["forces"]["rod"]["bob"]["force"])


def test_simulate_from_a_state_equals_the_scene_with_that_state():
    model = appell.load_model(EXAMPLES / "spherical_pendulum.json")
    s = model.initial_state()
    r1 = appell.simulate(model, appell.State(0.0, s.q, 2 * s.u), duration=0.5)
    other = appell.load_model(EXAMPLES / "spherical_pendulum.json",
                              {"/bodies/0/velocity": [0, 2.6, 0]})
    r2 = appell.simulate(other, duration=0.5)
    assert np.array_equal(r1.values, r2.values)


def test_result_columns_and_constraint_forces_by_name():
    model = appell.load_model(EXAMPLES / "double_pendulum.json")
    r = appell.simulate(model, duration=0.2)
    assert r.columns[0] == "t" and "energy" in r and "rod.bob.fx" in r
    assert r.t[0] == 0.0 and r.t[-1] == pytest.approx(0.2, abs=1e-15)
    assert r.position("bob").shape == (len(r), 3)
    assert r.quaternion("arm").shape == (len(r), 4)
    # the rod pulls the arm and the bob with opposite forces (a massless rod)
    assert np.allclose(r.force("rod", "bob"), -r.force("rod", "arm"), atol=1e-9)
    assert set(r.forces) == {"hinge", "rod"} and set(r.forces["rod"]) == {"arm", "bob"}
    assert np.array_equal(r.forces["rod"]["bob"]["force"], r.force("rod", "bob"))
    assert "moment" in r.forces["hinge"]["arm"] and "moment" not in r.forces["rod"]["bob"]
    # at t = 0 the columns hold what forward() gives on the initial state
    f0 = appell.forward(model)["forces"]["hinge"]["arm"]
    assert np.allclose(r.forces["hinge"]["arm"]["force"][0], f0["force"], rtol=1e-9, atol=1e-9)
    assert r.steps > 0 and r.formulation == "recursive"


def test_observer_sees_every_sample():
    model = appell.load_model(EXAMPLES / "double_pendulum.json")
    seen = []
    r = appell.simulate(model, duration=0.1, observer=lambda s: seen.append(
        (s["t"], s["energy"], s["x"][1].copy())))
    assert len(seen) == len(r)
    assert np.array_equal([t for t, _, _ in seen], r.t)
    assert np.array_equal([e for _, e, _ in seen], r.energy)
    assert np.array_equal(np.array([x for _, _, x in seen]), r.position("bob"))


def test_python_force_equals_the_built_in_damping():
    """A Python callable −c v on the bob gives the run a scene's "damping" gives."""
    def build(python_force):
        b = appell.ModelBuilder()
        b.gravity = (0, 0, -9.81)
        b.add_body("bob", mass=2.0, type="particle", position=(0.6, 0, -0.8),
                   velocity=(0, 1.3, 0))
        b.add_distance("world", "bob", (0, 0, 0), (0.6, 0, -0.8), name="rod")
        if python_force:
            b.add_callable_force(lambda s: np.hstack([-0.3 * s["v"], np.zeros((1, 3))]))
        else:
            b.add_damping("bob", 0.3)
        return appell.compile(b)
    opts = dict(formulation="pinv", integrator="dopri5", duration=0.5, dt=0.05)
    ours, theirs = appell.simulate(build(True), **opts), appell.simulate(build(False), **opts)
    assert build(True).has_callables and not build(False).has_callables
    assert np.array_equal(ours.values, theirs.values)
    assert ours.energy[-1] < ours.energy[0]  # damping dissipates


def test_python_constraint_equals_the_built_in_distance():
    """The rod |x| = 1 written as canonical rows in Python [HO21 eq. 14]:
    g = (|x|² − 1)/2, π = x·v, lin = x, b = −|v|² (the part of dπ/dt without ẍ)."""
    def rows(s):
        x, v = s["x"][0], s["v"][0]
        return (x.reshape(1, 1, 3), np.zeros((1, 1, 3)), np.array([-(v @ v)]),
                np.array([x @ v]), np.array([(x @ x - 1) / 2]))
    b = appell.ModelBuilder()
    b.gravity = (0, 0, -9.81)
    b.add_body("bob", mass=1.0, type="particle", position=(0.6, 0, -0.8), velocity=(0, 1.3, 0))
    b.add_callable_constraint("rod", ["bob"], 1, True, rows)
    mine = appell.forward(appell.compile(b), formulation="pinv")
    ref = appell.forward(spherical_pendulum_in_code(), formulation="pinv")
    assert np.allclose(mine["udot"], ref["udot"], rtol=0, atol=1e-12)
    assert np.allclose(mine["forces"]["rod"]["bob"]["force"],
                       ref["forces"]["rod"]["bob"]["force"], rtol=0, atol=1e-12)


def test_options_come_from_the_scene_and_the_keywords():
    model = appell.load_model_from_string(json.dumps(PENDULUM), "pendulum.json")
    o = appell.options(model)
    assert o["integrator"] == "dopri5" and o["dt"] == 0.01 and o["formulation"] == "pinv"
    o = appell.options(model, integrator="rk4", duration=3.0)
    assert o["integrator"] == "rk4" and o["duration"] == 3.0


def test_a_scene_as_a_dict_and_load_scene_compile():
    a = appell.load_model(PENDULUM)
    b = appell.compile(appell.load_scene(json.loads(json.dumps(PENDULUM))))
    assert a.bodies == b.bodies == ["bob"] and a.constraints == ["rod"]
    assert np.array_equal(appell.forward(a)["udot"], appell.forward(b)["udot"])
