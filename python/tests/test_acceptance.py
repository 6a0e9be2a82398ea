"""Issue 25's acceptance, as a scientist tries the module: import from the build tree and
from `pip install` (the last test runs this whole file again inside a fresh virtual
environment), a URDF, forces by name (Newton's third law, the program's `eval`), the
energy against `appell simulate`, threads = Dask = `appell sweep` bit for bit, errors of
Python callbacks as Python exceptions, pickling, and stepping (resumable, equal to one
run).  Every number is checked against the program, a closed form or a conservation law."""

import csv
import importlib.util
import json
import os
import pathlib
import pickle
import shutil
import subprocess
import sys

import numpy as np
import pytest

import appell
from conftest import CLI, EXAMPLES, SOURCE, run_cli

DOUBLE = EXAMPLES / "double_pendulum.json"

URDF = """<?xml version="1.0"?>
<robot name="two_r">
  <link name="base"/>
  <link name="upper"><inertial><origin xyz="0 0 -0.25"/><mass value="1.5"/>
    <inertia ixx="0.03" iyy="0.03" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="fore"><inertial><origin xyz="0 0 -0.2"/><mass value="0.8"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.0005" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/>
    <axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="50" velocity="5"/></joint>
  <joint name="elbow" type="revolute"><parent link="upper"/><child link="fore"/>
    <origin xyz="0 0 -0.5"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="50" velocity="5"/></joint>
</robot>
"""


def test_imports_from_the_build_tree():
    # the module the suite runs is the build tree's (PYTHONPATH=build/python), a fresh
    # interpreter finds the same one, and the package's files are beside the extension
    where = pathlib.Path(appell.__file__).resolve().parent
    assert (where / "_appell.pyi").is_file() and list(where.glob("_appell*.so"))
    p = subprocess.run([sys.executable, "-c", "import appell; print(appell.__file__)"],
                       capture_output=True, text=True, check=True)
    assert pathlib.Path(p.stdout.strip()).resolve().parent == where


def test_urdf_against_the_closed_form_and_the_program(tmp_path):
    path = tmp_path / "two_r.urdf"
    path.write_text(URDF)
    model = appell.load_model(path)
    assert list(model.joints) == ["shoulder", "elbow"] and model.nq == model.nu == 2
    # at rest, both links hanging straight and the elbow bent by 90 degrees: the textbook
    # 2R arm (about y) gives M udot = -g terms; the mass matrix in closed form
    s = appell.State(0.0, [0.0, np.pi / 2], [0.0, 0.0])
    m1, c1, l1, m2, c2, i1, i2 = 1.5, 0.25, 0.5, 0.8, 0.2, 0.03, 0.01
    cos2 = np.cos(np.pi / 2)
    m11 = i1 + i2 + m1 * c1**2 + m2 * (l1**2 + c2**2 + 2 * l1 * c2 * cos2)
    m12 = i2 + m2 * (c2**2 + l1 * c2 * cos2)
    M = np.array([[m11, m12], [m12, i2 + m2 * c2**2]])
    assert np.allclose(appell.mass_matrix(model, s), M, rtol=1e-12, atol=0)
    # the program's eval of the file at its t = 0 state equals Python's forward()
    ev = json.loads(run_cli("eval", "--json", path).stdout)
    r = appell.forward(model)
    for body in ("upper", "fore"):
        assert r["accelerations"][body]["linear"].tolist() == \
            ev["bodies"][body]["linear_acceleration"]


def test_forces_by_name_obey_newton_and_equal_the_program():
    model = appell.load_model(DOUBLE)
    r = appell.forward(model)
    ev = json.loads(run_cli("eval", "--json", DOUBLE).stdout)
    for name, per_body in r["forces"].items():
        for body, w in per_body.items():
            assert w["force"].tolist() == ev["constraints"][name]["bodies"][body]["force"]
    # the rod between the arm and the bob: equal and opposite forces (third law), and the
    # moment on the arm is that of the bob's force at the rod's end on the arm
    rod = r["forces"]["rod"]
    assert np.allclose(rod["arm"]["force"], -rod["bob"]["force"], rtol=0, atol=1e-13)
    # the hinge holds the whole pendulum: its force balances gravity and the accelerations
    g = np.array([0, 0, -9.81])
    masses = {b["name"]: b["mass"] for b in appell.describe(model)["bodies"]}
    total = sum(masses[b] * (r["accelerations"][b]["linear"] - g) for b in masses)
    assert np.allclose(r["forces"]["hinge"]["arm"]["force"], total, rtol=0, atol=1e-12)


def test_energy_equals_the_program(tmp_path):
    summary = tmp_path / "summary.json"
    run_cli("simulate", DOUBLE, "--duration", 0.5, "--quiet", "--summary", summary)
    cli = json.loads(summary.read_text())
    res = appell.simulate(appell.load_model(DOUBLE), duration=0.5)
    assert res.info["energy_initial"] == cli["energy"]["initial"]
    assert res.info["energy_final"] == cli["energy"]["final"]
    assert res.info["max_abs_energy_drift"] == cli["energy"]["max_abs_drift"]
    # and the energy is conserved (no dissipation in the scene) to the integrator's tolerance
    assert abs(res.energy[-1] - res.energy[0]) < 1e-5 * abs(res.energy[0])


def test_threads_dask_and_the_program_agree_bit_for_bit(tmp_path):
    model = appell.load_model(DOUBLE, overrides={"/integrator/duration": 0.2})
    grid = {"/bodies/0/mass": [1.0, 1.5, 2.0]}
    one = appell.sweep(model, grid=grid, threads=1, progress=False)
    two = appell.sweep(model, grid=grid, threads=2, progress=False)
    assert one == two and one.ok
    out = tmp_path / "sweep.csv"
    run_cli("sweep", DOUBLE, "--set", "/bodies/0/mass=1:2:3", "--set",
            "/integrator/duration=0.2", "--threads", 2, "--out", out)
    mine = tmp_path / "mine.csv"
    one.to_csv(mine)
    # the program's range 1:2:3 is numpy's linspace(1, 2, 3): the same runs, every figure
    # and final state equal
    with open(out) as f:
        cli_rows = list(csv.DictReader(f))
    with open(mine) as f:
        my_rows = list(csv.DictReader(f))
    assert len(cli_rows) == len(my_rows) == 3
    for a, b in zip(cli_rows, my_rows):
        assert float(a["/bodies/0/mass"]) == float(b["/bodies/0/mass"])
        for key in b:
            if key in ("run", "/bodies/0/mass"):
                continue
            assert (a[key] == b[key]) if key == "status" else float(a[key]) == float(b[key]), key
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=40)
    client = distributed.Client(cluster)
    try:
        dask = appell.sweep(model, grid=grid, client=client, progress=False)
    finally:
        client.close()
        cluster.close()
    assert dask == one


def test_callback_errors_are_python_exceptions():
    class Boom(Exception):
        pass

    def boom(s):
        if s["t"] > 0.01:
            raise Boom("at t = %g" % s["t"])
        return np.zeros((1, 6))

    b = appell.ModelBuilder()
    b.add_body("bob", mass=1.0, type="particle")
    b.add_callable_force(boom)
    model = appell.compile(b)
    with pytest.raises(Boom, match="at t"):
        appell.simulate(model, duration=0.1, dt=1e-3, integrator="rk4")
    sim = appell.Simulator(model, duration=0.1, dt=1e-3, integrator="rk4")
    with pytest.raises(Boom):
        sim.step(100)
    s0 = model.initial_state()
    with pytest.raises(Boom):
        appell.sweep(model, states=[s0, s0], threads=2, duration=0.1, progress=False)
    # an observer's error too, at the first sample
    with pytest.raises(KeyError):
        appell.simulate(appell.load_model(DOUBLE), observer=lambda s: s["no such key"])


def test_pickling_models_states_and_results():
    model = appell.load_model(DOUBLE, overrides={"/bodies/1/mass": 0.7})
    back = pickle.loads(pickle.dumps(model))
    s = model.initial_state()
    s2 = pickle.loads(pickle.dumps(s))
    assert s2 == s and s2 is not s
    a = appell.simulate(model, s, duration=0.1)
    b = appell.simulate(back, s2, duration=0.1)
    assert np.array_equal(a.values, b.values)
    # a model built in code holds no scene: pickling it says so
    bld = appell.ModelBuilder()
    bld.add_body("x")
    with pytest.raises(TypeError):
        pickle.dumps(appell.compile(bld))


def test_stepping_is_one_run_and_resumes():
    model = appell.load_model(DOUBLE)
    whole = appell.simulate(model, duration=0.3, integrator="rk4", dt=1e-3)
    sim = appell.Simulator(model, duration=0.3, integrator="rk4", dt=1e-3)
    for n in (1, 7, 50, 1000):
        sim.step(n)
    assert not sim.running and sim.status == "completed"
    assert np.array_equal(sim.result().values, whole.values)
    # resume: a new Simulator from a state reached (a run starts its clock at 0, so it
    # runs for the time left) ends where the first one did, to rounding (the state passes
    # through joint coordinates)
    half = appell.Simulator(model, duration=0.3, integrator="rk4", dt=1e-3)
    half.advance_to(0.15)
    rest = appell.Simulator(model, half.state, duration=0.3 - half.t, integrator="rk4",
                            dt=1e-3)
    while rest.step(100):
        pass
    assert rest.status == "completed"
    assert np.allclose(rest.state.q, sim.state.q, rtol=0, atol=1e-9)
    assert np.allclose(rest.state.u, sim.state.u, rtol=0, atol=1e-8)


def test_the_installed_package_passes_this_file(tmp_path):
    """pip install . into a virtual environment, then this file's checks (all but this
    one) run against the installed package."""
    if os.environ.get("APPELL_ACCEPTANCE_INSTALLED"):
        pytest.skip("already the installed package")
    missing = [m for m in ("ensurepip", "pip", "setuptools", "wheel")
               if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"pip install needs {', '.join(missing)}")
    build = pathlib.Path(appell.__file__).resolve().parents[2]
    if not (build / "CMakeCache.txt").exists():
        pytest.skip(f"appell is not imported from a CMake build tree ({appell.__file__})")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                   check=True, capture_output=True)
    python = venv / "bin" / "python"
    src = tmp_path / "src"
    shutil.copytree(SOURCE, src, symlinks=True,
                    ignore=shutil.ignore_patterns("build*", ".git", "*.egg-info", "node_modules"))
    env = dict(os.environ, APPELL_CMAKE_BUILD_DIR=str(build), PIP_NO_INDEX="1",
               PIP_DISABLE_PIP_VERSION_CHECK="1", APPELL_ACCEPTANCE_INSTALLED="1",
               APPELL_CLI=CLI, APPELL_SOURCE_DIR=str(SOURCE), MPLBACKEND="Agg")
    env.pop("PYTHONPATH", None)
    p = subprocess.run([str(python), "-m", "pip", "install", "--no-build-isolation", "-q",
                        str(src)], capture_output=True, text=True, env=env, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    here = pathlib.Path(__file__).resolve()
    p = subprocess.run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "--rootdir", str(here.parent), str(here)],
                       capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-2000:]
    assert "failed" not in p.stdout and " passed" in p.stdout
    # the installed package, not the build tree's, ran
    probe = subprocess.run([str(python), "-c", "import appell; print(appell.__file__)"],
                           capture_output=True, text=True, env=env, cwd=tmp_path, check=True)
    assert probe.stdout.strip().startswith(str(venv))
