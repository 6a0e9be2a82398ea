"""Scenes of bodies in the quasi-velocities their user chooses, from Python (docs/lagrangian.md,
"Rigid-body scenes in your quasi-velocities"): the benchmark bicycle's mass matrix in (lean
rate, steer rate, speed) against Meijaard et al.'s printed M, the two forms against each
other, a run of the rolling disk in its body-frame angular velocity, and a refusal."""

import json
import math

import numpy as np
import pytest

import appell
from conftest import EXAMPLES

BICYCLE = EXAMPLES / "quasi_velocities" / "bicycle.json"
DISK = EXAMPLES / "quasi_velocities" / "rolling_disk.json"


def test_bicycle_mass_matrix_in_nu_is_meijaards():
    system = appell.load_rigid_nu(str(BICYCLE))
    assert system.quasi_velocities == ["lean_rate", "steer_rate", "speed"]
    assert len(system.velocities) == 9 and len(system.coordinates) == 10
    r = appell.rigid_nu_eval(system)
    # Meijaard et al. (2007) eq. (5.3); the steer axis points up here, down in the paper
    m_paper = np.array([[80.81722, -2.31941332208709], [-2.31941332208709, 0.29784188199686]])
    np.testing.assert_allclose(r["hessian"][:2, :2], m_paper, atol=1e-12)
    assert r["hessian"][2, 2] == pytest.approx(94 + 0.12 / 0.09 + 0.28 / 0.1225, abs=1e-12)
    np.testing.assert_allclose(r["nu"], [0, 0, 5], atol=1e-12)
    np.testing.assert_allclose(r["qdd"], r["qdd_gauss"], atol=1e-12)


def test_disk_run_keeps_its_tilt_and_energy():
    system = appell.load_rigid_nu(str(DISK))
    run = appell.rigid_nu_simulate(system, duration=0.5, dt=1e-3)
    assert run["ok"]
    assert run["nu"].shape == (len(run["t"]), 3)
    e = run["energy"]
    assert np.max(np.abs(e - e[0])) < 1e-10 * abs(e[0])
    w, x, y = run["q"][:, 3], run["q"][:, 4], run["q"][:, 5]
    axis_z = 1 - 2 * (x * x + y * y)  # the disk's axis, its z component
    assert np.max(np.abs(np.abs(axis_z) - math.sin(0.3))) < 1e-9


def test_too_few_quasi_velocities_are_refused():
    scene = json.loads(DISK.read_text())
    scene["quasi_velocities"] = scene["quasi_velocities"][:2]
    with pytest.raises(appell.SceneError, match="/quasi_velocities: expected 3"):
        appell.load_rigid_nu_from_string(json.dumps(scene))
