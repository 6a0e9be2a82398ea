"""Hostile input to the Python module: a ValueError or a failed run, never a dead
interpreter nor a success that is not one."""

import json
import os
import resource
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import appell
from conftest import PENDULUM

# every sample finite, but the work of the constant force (1.1 m g up on a mass of 1e300)
# takes E from -1.5e308 to +5e307: |E(t) - E(0)| overflows (the C++ test
# sweep_hardening_test.cpp explains the numbers)
DRIFT_OVERFLOW = {
    "name": "overflow",
    "gravity": [0, 0, -9.81],
    "bodies": [{"name": "p", "type": "particle", "mass": 1e300, "position": [0, 0, -1.529e7]}],
    "forces": [{"type": "force", "body": "p", "vector": [0, 0, 1.0791e301]}],
    "integrator": {"method": "rk4", "duration": 6100, "dt": 10},
}


def test_infinite_figures_are_a_failed_run_as_in_the_cli(tmp_path):
    model = appell.load_model_from_string(json.dumps(DRIFT_OVERFLOW), "overflow.json")
    r = appell.simulate(model)
    assert np.all(np.isfinite(r.energy))  # every sample is finite ...
    with np.errstate(over="ignore"):
        assert r.energy[-1] - r.energy[0] == np.inf  # ... their difference is not
    assert not r.ok
    assert r.info["status"] == "not finite"
    assert r.info["message"] == "the summary's figures are not finite"
    sr = appell.sweep(model, states=[model.initial_state()], threads=1, progress=False)
    assert not sr.ok and sr.runs[0]["message"] == "the summary's figures are not finite"
    # the command line judges the same scene the same way
    path = tmp_path / "overflow.json"
    path.write_text(json.dumps(DRIFT_OVERFLOW))
    from conftest import run_cli
    p = run_cli("simulate", path, "--quiet", check=False)
    assert p.returncode == 3 and "the summary's figures are not finite" in p.stderr


def test_sweep_survives_threads_that_cannot_start(tmp_path):
    # a default thread stack (RLIMIT_STACK 4 GB, read by the C library when the process
    # starts) larger than the address space allowed (RLIMIT_AS 3 GB): every new thread
    # fails, as root too; the runs go on on the calling thread with a RuntimeWarning, and
    # give what an unlimited sweep gives
    script = textwrap.dedent(f"""
        import json, warnings
        import appell
        model = appell.load_model_from_string({json.dumps(json.dumps(PENDULUM))}, "p.json")
        states = []
        for k in range(3):
            s = model.initial_state(); s.u = s.u + 0.5 * k; states.append(s)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            sr = appell.sweep(model, states=states, threads=2, progress=False, duration=0.2)
        print(json.dumps({{"warnings": [str(x.message) for x in w],
                          "steps": [r["steps"] for r in sr.runs],
                          "final": [r["energy_final"] for r in sr.runs], "ok": sr.ok}}))
    """)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")

    def limits():
        resource.setrlimit(resource.RLIMIT_STACK, (4 << 30, resource.RLIM_INFINITY))
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, resource.RLIM_INFINITY))

    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                       preexec_fn=limits)
    assert p.returncode == 0, p.stderr  # no abort (it was SIGABRT, -6)
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert any("0 of 2 worker threads could start" in w and "the calling thread" in w
               for w in out["warnings"]), out["warnings"]
    # the same runs without limits
    model = appell.load_model_from_string(json.dumps(PENDULUM), "p.json")
    states = []
    for k in range(3):
        s = model.initial_state()
        s.u = s.u + 0.5 * k
        states.append(s)
    sr = appell.sweep(model, states=states, threads=2, progress=False, duration=0.2)
    assert out["ok"] and sr.ok
    assert out["steps"] == [r["steps"] for r in sr.runs]
    assert out["final"] == [r["energy_final"] for r in sr.runs]


@pytest.mark.parametrize("name", ["a,b", "a\nb", 'say "hi"', "", "tab\there"])
def test_builder_names_follow_the_scene_rule(name):
    b = appell.ModelBuilder()
    with pytest.raises(ValueError) as e:
        b.add_body(name, mass=1, type="particle")
    assert "add_body()" in str(e.value)
    # the same words as the JSON loader's
    scene = json.loads(json.dumps(PENDULUM))
    scene["bodies"][0]["name"] = name
    scene["constraints"][0]["bodies"][1] = name
    with pytest.raises(appell.SceneError) as s:
        appell.load_model_from_string(json.dumps(scene), "p.json")
    assert str(e.value) == "add_body(): " + s.value.message
    b.add_body("bob", mass=1, type="particle", position=(0, 0, -1))
    with pytest.raises(ValueError, match="constraint name"):
        b.add_distance("world", "bob", (0, 0, 0), (0, 0, -1), name=name)
    with pytest.raises(ValueError, match="constraint name"):
        b.add_callable_constraint(name, ["bob"], 1, True, lambda s: None)
    assert b.nbody == 1


def test_a_joint_from_a_body_to_itself_is_refused():
    b = appell.ModelBuilder()
    b.add_body("a", mass=1)
    with pytest.raises(ValueError, match="the two bodies must differ"):
        b.add_joint("revolute", "a", "a")
    with pytest.raises(ValueError, match="the two bodies must differ"):
        b.add_joint("revolute", 0, "a")
    with pytest.raises(ValueError, match="the two bodies must differ"):
        b.add_joint("fixed", "world", -1)


def test_row_counts_past_int_are_refused():
    b = appell.ModelBuilder()
    b.add_body("p", mass=1, type="particle")
    for name in ("c1", "c2"):
        b.add_callable_constraint(name, ["p"], 1 << 30, True, lambda s: None)
    with pytest.raises(ValueError, match=r"more than 2147483647 rows .* at constraint 'c2'"):
        appell.compile(b)


def test_zero_quaternions_in_a_state_name_their_joint():
    b = appell.ModelBuilder()
    b.gravity = (0, 0, -9.81)
    b.add_body("base", mass=1, position=(0, 0, 0))  # free: a quaternion in q
    b.add_body("arm", mass=1, position=(0, 0, -1))
    b.add_joint("spherical", "base", "arm", anchor=(0, 0, 0), name="shoulder")
    model = appell.compile(b)
    good = model.initial_state()
    q = np.asarray(good.q)
    # which entries hold a quaternion: a unit one is (1, 0, 0, 0) at the reference pose
    ones = np.flatnonzero(q == 1.0)
    assert len(ones) == 2
    for k, who in zip(ones, ("the free joint of body 'base'", "joint 'shoulder'")):
        bad = q.copy()
        bad[k:k + 4] = 0.0
        s = appell.State(0.0, bad, np.asarray(good.u))
        for call in (lambda: appell.simulate(model, s, duration=0.1),
                     lambda: appell.forward(model, s),
                     lambda: appell.sweep(model, states=[s], progress=False)):
            with pytest.raises(ValueError) as e:
                call()
            assert str(e.value) == f"State: the quaternion of {who} is zero; expected a " \
                                   "nonzero [w x y z]"
    bad = q.copy()
    bad[0] = np.nan
    with pytest.raises(ValueError, match="not finite"):
        appell.simulate(model, appell.State(0.0, bad, np.asarray(good.u)))
    with pytest.raises(ValueError, match="expected"):
        appell.simulate(model, appell.State(0.0, q[:-1], np.asarray(good.u)))
    assert appell.simulate(model, good, duration=0.1).ok
