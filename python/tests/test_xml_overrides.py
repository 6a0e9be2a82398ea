"""load_model of an MJCF or a URDF with overrides, as JSON Pointers into the scene that
includes the file ({"include": {"mjcf" | "urdf": FILE}}): gravity, the include's joint
values and base, the integrator; checked against the file loaded as it is (the program's
reading), accelerations that scale with gravity at rest, and pickling."""

import pickle

import numpy as np
import pytest

import appell
from conftest import EXAMPLES, run_cli
from test_parity import URDF

ARM = EXAMPLES / "robots" / "two_link_arm.xml"


def udot(model, state=None):
    s = state if state is not None else model.initial_state()
    return appell.forward_dynamics(model, s)[0]


def test_mjcf_loads_as_the_program_loads_it():
    model = appell.load_model(ARM)
    assert list(model.joints) == ["shoulder", "elbow"]
    # the program's eval of the same file: the same number of coordinates
    assert "shoulder" in run_cli("check", ARM).stdout
    # no overrides at all: the same model as the file itself
    same = appell.load_model(ARM, overrides={})
    assert np.array_equal(udot(same), udot(model))


def test_mjcf_overrides_gravity_joint_values_and_integrator():
    model = appell.load_model(ARM)
    moon = appell.load_model(ARM, overrides={"/gravity": [0, 0, -1.62]})
    s = model.initial_state()
    s.q = np.array([0.4, -0.7])
    # at rest the accelerations are linear in gravity
    assert np.allclose(udot(moon, s), udot(model, s) * 1.62 / 9.81, rtol=1e-12, atol=0)
    bent = appell.load_model(ARM, overrides={"/include/q/elbow": 0.3})
    q0 = bent.initial_state().q
    assert q0[0] == 0.0 and abs(q0[1] - 0.3) < 1e-15
    assert np.allclose(udot(bent), udot(model, appell.State(0.0, q0, [0.0, 0.0])),
                       rtol=1e-12, atol=1e-12)
    # (the arm's joint ranges are unilateral rows: they step with moreau)
    fast = appell.load_model(ARM, overrides={"/integrator": {"method": "moreau", "dt": 0.002,
                                                             "duration": 0.1}})
    assert appell.options(fast)["dt"] == 0.002
    assert len(appell.simulate(fast).t) == 51
    # a model with overrides pickles (scene text, file and overrides) and comes back equal
    back = pickle.loads(pickle.dumps(moon))
    assert np.array_equal(udot(back, s), udot(moon, s))


def test_urdf_overrides(tmp_path):
    path = tmp_path / "one_link.urdf"
    path.write_text(URDF)
    plain = appell.load_model(path)
    fixed = appell.load_model(path, overrides={"/include/base": "fixed"})
    assert np.array_equal(udot(fixed), udot(plain))
    raised = appell.load_model(path, overrides={"/include/q/hinge": 0.5})
    assert abs(raised.initial_state().q[0] - 0.5) < 1e-15
    # the base link has no mass: it cannot float, and the error names the file
    with pytest.raises(appell.SceneError, match="one_link.urdf.*base fixed"):
        appell.load_model(path, overrides={"/include/base": "floating"})
    half = appell.load_model(path, overrides={"/gravity": [0, 0, -4.905]})
    assert np.allclose(udot(half), udot(plain) / 2, rtol=1e-12, atol=0)


def test_xml_override_errors_are_located(tmp_path):
    with pytest.raises(appell.SceneError, match="two_link_arm.xml.*/include/q"):
        appell.load_model(ARM, overrides={"/include/q/wrist": 0.1})
    with pytest.raises(appell.SceneError, match="need its file"):
        appell.load_model_from_string(ARM.read_text(), overrides={"/gravity": [0, 0, -1]})
