"""What a Pinocchio or MuJoCo user expects of the module: URDF in load_model, the model
as plain Python objects, pickling, State arrays that never change under the reader, a
step-by-step Simulator equal to one whole run, and a:b:n ranges equal to numpy.linspace."""

import csv
import io
import json
import pickle

import numpy as np
import pytest

import appell
from conftest import EXAMPLES, PENDULUM, run_cli

# one link hanging from a hinge about y: a rod's centre of mass 0.4 m out along x, so at
# rest horizontal its angular acceleration is m g l / (I_yy + m l²)
URDF = """<?xml version="1.0"?>
<robot name="one_link">
  <link name="base"/>
  <link name="link">
    <inertial><origin xyz="0.4 0 0"/><mass value="2.0"/>
      <inertia ixx="0.01" iyy="0.03" izz="0.03" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <joint name="hinge" type="revolute">
    <parent link="base"/><child link="link"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="10" velocity="5"/>
  </joint>
</robot>
"""


def bits(values):
    return np.asarray(values, dtype=float).view(np.int64).tolist()


def test_load_model_reads_urdf_as_the_program_does(tmp_path):
    path = tmp_path / "one_link.urdf"
    path.write_text(URDF)
    model = appell.load_model(path)
    assert model.bodies == ["link"] and model.nq == 1 and model.nu == 1
    joint = model.joints["hinge"]
    assert (joint["type"], joint["nq"], joint["nu"], joint["parent"], joint["child"]) == \
        ("revolute", 1, 1, "world", "link")
    assert model.body("link")["mass"] == 2.0
    r = appell.forward(model)
    expected = 2.0 * 9.81 * 0.4 / (0.03 + 2.0 * 0.4 ** 2)
    alpha = r["accelerations"]["link"]["angular"]
    assert abs(abs(alpha[1]) - expected) < 1e-12 * expected and alpha[0] == alpha[2] == 0
    # the program reads the same file to the same model: one body, one coordinate
    assert "link" in run_cli("check", path).stdout
    # overrides go into the scene that includes the URDF: its bodies are not there
    with pytest.raises(appell.SceneError, match="one_link.urdf"):
        appell.load_model(path, overrides={"/bodies/0/mass": 1.0})


def test_describe_gives_the_scene_back():
    scene = json.loads((EXAMPLES / "double_pendulum.json").read_text())
    info = appell.describe(appell.load_model(EXAMPLES / "double_pendulum.json"))
    for got, given in zip(info["bodies"], scene["bodies"]):
        assert got["name"] == given["name"] and got["mass"] == given["mass"]
        assert got["rigid"] == (given["type"] == "rigid")
        assert np.array_equal(got["position"], given["position"])
        if got["rigid"]:
            assert np.array_equal(np.diag(got["inertia"]), given["inertia"]["principal"])
    assert [(c["name"], c["type"]) for c in info["constraints"]] == \
        [(c["name"], c["type"]) for c in scene["constraints"]]
    assert info["constraints"][1]["bodies"] == ["arm", "bob"]
    assert [f["type"] for f in info["forces"]] == [f["type"] for f in scene["forces"]]
    hinge = [j for j in info["joints"] if j["name"] == "hinge"][0]
    assert (hinge["type"], hinge["nq"], hinge["parent"], hinge["child"]) == \
        ("revolute", 1, "world", "arm")
    model = appell.load_model(EXAMPLES / "double_pendulum.json")
    assert sum(j["nq"] for j in info["joints"]) == model.nq


def test_models_and_states_pickle():
    model = appell.load_model(EXAMPLES / "double_pendulum.json", overrides={"/bodies/0/mass": 2.5})
    again = pickle.loads(pickle.dumps(model))
    assert again.body("arm")["mass"] == 2.5
    s = model.initial_state()
    s2 = appell.State(0.25, s.q, 2 * s.u)
    s3 = pickle.loads(pickle.dumps(s2))
    assert s3.t == 0.25 and bits(s3.q) == bits(s2.q) and bits(s3.u) == bits(s2.u)
    a, b = appell.forward(model, s2), appell.forward(again, s3)
    assert bits(a["udot"]) == bits(b["udot"])
    urdf = appell.load_model_from_string(URDF, "one_link.urdf")
    assert pickle.loads(pickle.dumps(urdf)).bodies == ["link"]
    builder = appell.ModelBuilder()
    builder.add_body("bob", type="particle")
    with pytest.raises(TypeError, match="built in code"):
        pickle.dumps(appell.compile(builder))


def test_state_arrays_are_copies_that_never_follow_the_state():
    s = appell.State(0.0, [1.0, 2.0], [3.0])
    q, u = s.q, s.u
    s.q = np.arange(7.0)  # a change of size: the old array must not dangle
    s.u = [9.0, 9.0]
    del s
    assert q.tolist() == [1.0, 2.0] and u.tolist() == [3.0]
    s = appell.State(0.0, [1.0, 2.0], [3.0])
    with pytest.raises(ValueError):  # a copy: writing it would change nothing, so it raises
        s.q[0] = 5.0
    assert s.q.tolist() == [1.0, 2.0]


def test_a_compiled_builder_takes_nothing_more():
    b = appell.ModelBuilder()
    b.add_body("bob", type="particle", position=(0, 0, -1))
    appell.compile(b)
    with pytest.raises(RuntimeError, match="compiled already"):
        b.add_callable_force(lambda s: None)
    with pytest.raises(RuntimeError, match="compiled already"):
        b.add_damping("bob", 0.1)


@pytest.mark.parametrize("options", [dict(integrator="rk4", dt=1e-3, formulation="recursive"),
                                     dict(integrator="dopri5", formulation="pinv")])
def test_simulator_steps_equal_one_whole_run(options):
    model = appell.load_model(EXAMPLES / "double_pendulum.json")
    s = model.initial_state()
    s2 = appell.State(0.0, s.q, 1.5 * s.u)
    whole = appell.simulate(model, s2, duration=0.3, **options)
    sim = appell.Simulator(model, s2, duration=0.3, **options)
    assert sim.t == 0.0
    for n in (1, 2, 5, 0, 13):
        assert sim.step(n)
    sim.advance_to(0.1)
    assert sim.t >= 0.1
    while sim.step(7):
        pass
    assert not sim.running and sim.status == "completed" and sim.t == 0.3
    got = sim.result()
    assert got.columns == whole.columns
    assert bits(got.values.ravel()) == bits(whole.values.ravel())
    # the state reached is the last sample's: its bodies, in joint coordinates
    end = sim.state
    assert end.t == 0.3
    last = whole.values[-1]
    x = [last[whole.columns.index(f"bob.{c}")] for c in "xyz"]
    data = appell.Data(model)
    assert data.forward(end) == "ok"
    bob = model.bodies.index("bob")
    assert np.allclose(data.positions[bob], x, rtol=0, atol=1e-12)


def test_ranges_equal_numpy_linspace_bit_for_bit():
    rng = np.random.default_rng(25)
    cases = [(0.2, 2.0, 10), (0.0, 1.0, 11), (1.0, 2.0, 11), (-3.5, 7.25, 40), (1e-3, 1e3, 7),
             (2.0, 0.2, 10), (-0.0, 1.0, 3), (5.0, 5.0, 4), (0.0, 5e-324, 10), (1.0, 3.0, 1),
             (0.1, 0.7, 100)]
    cases += [(float(a), float(b), int(n)) for a, b, n in
              zip(rng.normal(0, 10, 300), rng.normal(0, 1e3, 300), rng.integers(1, 60, 300))]
    for a, b, n in cases:
        got = appell.range_values(f"{a!r}:{b!r}:{n}")
        assert bits(got) == bits(np.linspace(a, b, n)), (a, b, n)
    assert appell.range_values("0.2:2.0:10")[7] == 1.6


def test_cli_ranges_equal_numpy_linspace(tmp_path):
    scene = dict(PENDULUM, integrator=dict(PENDULUM["integrator"], duration=0.01))
    path = tmp_path / "pendulum.json"
    path.write_text(json.dumps(scene))
    out = tmp_path / "sweep.csv"
    run_cli("sweep", path, "--set", "/bodies/0/mass=0.2:2.0:10", "--out", out, "--quiet")
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    column = [k for k in rows[0] if "mass" in k][0]
    assert bits([float(r[column]) for r in rows]) == bits(np.linspace(0.2, 2.0, 10))


def test_a_controller_loop_sets_a_python_force_between_steps():
    """The model's forces are fixed once compiled; a Python force reading a value the loop
    sets is the way to change an input between steps.  A free particle, no gravity: at
    rest while the push is 0, then v = F/m (t − t1), less one stage: the first stage of
    the step after the change is the rate already evaluated at t1 (with F = 0, for the
    sample there), so rk4's first step gains F/m dt (2 + 2 + 1)/6 instead of F/m dt."""
    push = {"f": 0.0}
    b = appell.ModelBuilder()
    b.gravity = (0, 0, 0)
    b.add_body("puck", mass=2.0, type="particle")
    b.add_callable_force(lambda s: np.array([[push["f"], 0, 0, 0, 0, 0]]))
    model = appell.compile(b)
    sim = appell.Simulator(model, integrator="rk4", dt=0.01, duration=1.0)
    sim.step(10)
    assert np.array_equal(sim.state.u, np.zeros(3))
    t1 = sim.t
    push["f"] = 3.0
    sim.step(20)
    assert abs(sim.state.u[0] - 3.0 / 2.0 * (sim.t - t1 - 0.01 / 6)) < 1e-12
