"""Bad input raises a Python exception with the located message; the interpreter
survives every one of them."""

import json

import numpy as np
import pytest

import appell
from conftest import EXAMPLES, PENDULUM


def test_scene_error_carries_the_json_pointer():
    text = json.dumps(PENDULUM).replace('"mass": 1.0', '"mass": -1')
    with pytest.raises(appell.SceneError) as e:
        appell.load_model_from_string(text, "p.json")
    assert str(e.value) == "p.json: /bodies/0/mass: must be > 0, got -1"
    assert e.value.pointer == "/bodies/0/mass" and e.value.file == "p.json"
    assert isinstance(e.value, ValueError)


def test_override_errors_are_located():
    text = json.dumps(PENDULUM)
    with pytest.raises(appell.SceneError) as e:
        appell.load_model_from_string(text, "p.json", {"/bodies/4/mass": 1})
    assert e.value.pointer == "/bodies/4/mass"
    assert "no element '4' in the array at /bodies (it has 1)" in str(e.value)
    with pytest.raises(appell.SceneError) as e:
        appell.load_model_from_string(text, "p.json", {"/bodies/0/inertia": {"sphere": 1}})
    assert e.value.pointer.startswith("/bodies/0")
    with pytest.raises(appell.SceneError) as e:
        appell.load_model_from_string(text, "p.json", {"bodies/0/mass": 1})
    assert "must start with '/'" in str(e.value)
    with pytest.raises(appell.SceneError) as e:
        appell.load_model_from_string(text, "p.json", {"/integrator/method": "euler"})
    assert e.value.pointer == "/integrator/method"


def test_files_and_malformed_json():
    with pytest.raises(appell.SceneError) as e:
        appell.load_model("/nonexistent/scene.json")
    assert "cannot open the file" in str(e.value)
    with pytest.raises(appell.SceneError):
        appell.load_model_from_string('{"bodies": [', "broken.json")


def test_api_misuse_raises_value_error():
    model = appell.load_model(EXAMPLES / "spherical_pendulum.json")
    with pytest.raises(ValueError, match="expected"):
        appell.forward(model, appell.State(0.0, np.zeros(2), np.zeros(3)))
    with pytest.raises(ValueError, match="unknown formulation 'fast'"):
        appell.forward(model, formulation="fast")
    with pytest.raises(ValueError, match="unknown option 'durration'"):
        appell.simulate(model, durration=1)
    with pytest.raises(ValueError):
        appell.simulate(model, dt=-1)
    with pytest.raises(ValueError, match="no body named 'bobb'"):
        appell.ModelBuilder().add_distance("world", "bobb", (0, 0, 0), (0, 0, 1))
    with pytest.raises(ValueError):
        appell.ModelBuilder().add_body("b", mass=-1)


def test_exceptions_in_callables_and_observers_propagate():
    b = appell.ModelBuilder()
    b.add_body("bob", type="particle", position=(0, 0, -1))
    b.add_callable_force(lambda s: np.zeros((2, 2)))  # the wrong shape
    with pytest.raises(ValueError, match=r"shape \(1, 6\)"):
        appell.simulate(appell.compile(b), duration=0.1)

    class Stop(Exception):
        pass

    def boom(s):
        raise Stop("from the force")
    b = appell.ModelBuilder()
    b.add_body("bob", type="particle", position=(0, 0, -1))
    b.add_callable_force(boom)
    with pytest.raises(Stop):
        appell.forward(appell.compile(b))
    with pytest.raises(Stop):
        appell.sweep(appell.compile(b), states=[None] * 4, duration=0.1, progress=False)

    def observer(s):
        if s["index"] == 3:
            raise Stop("from the observer")
    model = appell.load_model(EXAMPLES / "spherical_pendulum.json")
    with pytest.raises(Stop):
        appell.simulate(model, duration=0.5, observer=observer)
    # and the interpreter and the module go on working
    assert appell.simulate(model, duration=0.1).ok


def test_numerical_failure_is_a_status_not_an_exception():
    # the initial position violates the rod by 0.5: refused at t = 0, with its reason
    text = json.dumps(PENDULUM)
    model = appell.load_model_from_string(text, "p.json")
    s = model.initial_state()
    r = appell.simulate(model, appell.State(0.0, 1.5 * s.q, s.u), duration=0.1)
    assert not r.ok and r.status == "inconsistent" and "rod" in r.message


def test_bad_sweeps():
    model = appell.load_model_from_string(json.dumps(PENDULUM), "p.json")
    with pytest.raises(appell.SceneError) as e:
        appell.sweep(model, grid={"/bodies/0/mass": [1, -2]}, progress=False)
    assert str(e.value) == "p.json: /bodies/0/mass: must be > 0, got -2"
    with pytest.raises(ValueError, match="give one of"):
        appell.sweep(model, states=[None], grid={"/gravity/2": [1]})
    coded = appell.compile(appell.ModelBuilder())
    with pytest.raises(ValueError, match="built in code"):
        appell.sweep(coded, grid={"/gravity/2": [1]})
