"""Sweeps on the thread pool: the elliptic-integral period of the pendulum, bit-for-bit
equality with serial runs, and equality with `appell sweep`."""

import csv
import json
import math

import numpy as np
import pytest

import appell
from conftest import PENDULUM, run_cli

G, L = 9.81, 1.0


def complete_elliptic_k(k):
    """K(k) = π / (2 AGM(1, √(1 − k²))) (Gauss's arithmetic–geometric mean)."""
    a, b = 1.0, math.sqrt(1.0 - k * k)
    for _ in range(64):  # converges quadratically: a handful of steps reach round-off
        if abs(a - b) <= 4e-16 * a:
            break
        a, b = (a + b) / 2, math.sqrt(a * b)
    return math.pi / (2 * a)


def period(theta0):
    """The plane pendulum's period from rest at θ0: T = 4 √(L/g) K(sin(θ0/2))."""
    return 4 * math.sqrt(L / G) * complete_elliptic_k(math.sin(theta0 / 2))


def pendulum_runs(amplitudes):
    """One run per amplitude: released from rest at θ0, sampled every quarter period."""
    runs = []
    for th in amplitudes:
        x0 = [L * math.sin(th), 0.0, -L * math.cos(th)]
        T = period(th)
        runs.append({"/bodies/0/position": x0, "/constraints/0/points/1": x0,
                     "/integrator/duration": T, "/integrator/dt": T / 4})
    return runs


def test_agm_elliptic_k_against_known_values():
    assert complete_elliptic_k(0.0) == pytest.approx(math.pi / 2, rel=1e-15)
    # K(1/√2) = Γ(1/4)² / (4 √π)
    assert complete_elliptic_k(1 / math.sqrt(2)) == pytest.approx(
        math.gamma(0.25) ** 2 / (4 * math.sqrt(math.pi)), rel=1e-14)


def test_a_sweep_of_200_pendulums_reproduces_the_elliptic_integral_period():
    amplitudes = np.linspace(0.05, 2.8, 200)
    model = appell.load_model_from_string(json.dumps(PENDULUM), "pendulum.json")
    sr = appell.sweep(model, runs=pendulum_runs(amplitudes), record=True, forces=False,
                      threads=2, progress=False)
    assert len(sr) == 200 and sr.ok
    for i, th in enumerate(amplitudes):
        r = sr.result(i)
        x, z = r["bob.x"], r["bob.z"]
        assert len(r) == 5  # t = 0, T/4, T/2, 3T/4, T
        # a quarter period: at the bottom; half: at the other extreme; a full one: back
        assert abs(x[1]) < 1e-7 and abs(z[1] + L) < 1e-7, (th, x[1], z[1])
        assert abs(x[2] + x[0]) < 1e-7 and abs(z[2] - z[0]) < 1e-7
        assert abs(x[3]) < 1e-7
        assert abs(x[4] - x[0]) < 1e-7 and abs(r["bob.vx"][4]) < 1e-6
    # the period grows with the amplitude: the small-angle 2π√(L/g) would miss by 50%
    assert period(2.8) > 1.5 * 2 * math.pi * math.sqrt(L / G)


def test_thread_sweep_equals_serial_runs_bit_for_bit():
    text = json.dumps(PENDULUM)
    model = appell.load_model_from_string(text, "pendulum.json")
    runs = [{"/bodies/0/velocity": [0, v, 0]} for v in np.linspace(0.5, 5, 12)]
    sr = appell.sweep(model, runs=runs, record=True, threads=2, progress=False)
    for i, run in enumerate(runs):
        alone = appell.simulate(appell.load_model_from_string(text, "pendulum.json", run))
        assert np.array_equal(sr.result(i).values, alone.values)
        assert sr[i]["steps"] == alone.steps and sr[i]["t"] == alone.info["t"]
        assert np.array_equal(sr[i]["final"][0, :3], alone.position("bob")[-1])
    one = appell.sweep(model, runs=runs, threads=1, progress=False)
    assert np.array_equal(one.final("bob"), sr.final("bob"))
    assert np.array_equal(one["energy_final"], sr["energy_final"])
    assert np.array_equal(one["max_abs_energy_drift"], sr["max_abs_energy_drift"])


def test_one_model_many_states():
    model = appell.load_model_from_string(json.dumps(PENDULUM), "pendulum.json")
    s0 = model.initial_state()
    states = [appell.State(0.0, s0.q, np.array([0.0, v, 0.0])) for v in (0.5, 1.0, 2.0, 4.0)]
    sr = appell.sweep(model, states=states, threads=2, record=True, progress=False,
                      duration=0.5)
    for i, s in enumerate(states):
        assert np.array_equal(sr.result(i).values, appell.simulate(model, s, duration=0.5).values)
    # energy is conserved by every run (the rod does no work)
    assert np.all(sr["max_abs_energy_drift"] < 1e-8)


def test_progress_is_reported_on_the_calling_thread():
    model = appell.load_model_from_string(json.dumps(PENDULUM), "pendulum.json")
    seen = []
    appell.sweep(model, states=[None] * 8, threads=2, duration=0.2,
                 progress=lambda d, n: seen.append((d, n)))
    assert seen and seen[-1] == (8, 8)
    assert all(a[0] <= b[0] for a, b in zip(seen, seen[1:]))


def test_cli_sweep_equals_the_python_sweep(tmp_path, pendulum_file):
    out = tmp_path / "sweep.csv"
    run_cli("sweep", pendulum_file, "--set", "/bodies/0/mass=1:2:3",
            "--set", "/bodies/0/velocity=[0,0.5,0],[0,2,0]", "--threads", "2", "--out", out)
    rows = list(csv.DictReader(out.open()))
    sr = appell.sweep(appell.load_model(pendulum_file),
                      grid={"/bodies/0/mass": np.linspace(1, 2, 3),
                            "/bodies/0/velocity": [[0, 0.5, 0], [0, 2, 0]]},
                      progress=False)
    assert len(rows) == len(sr) == 6
    for row, run in zip(rows, sr.runs):
        assert float(row["/bodies/0/mass"]) == run["overrides"]["/bodies/0/mass"]
        assert json.loads(row["/bodies/0/velocity"]) == run["overrides"]["/bodies/0/velocity"]
        assert row["status"] == run["status"] == "completed"
        for key in ("t", "energy_initial", "energy_final", "max_abs_energy_drift",
                    "violation_position_max", "violation_velocity_max"):
            assert float(row[key]) == run[key], key
        assert int(row["steps"]) == run["steps"]
        for k, c in enumerate(("x", "y", "z", "vx", "vy", "vz")):
            assert float(row[f"bob.{c}"]) == run["final"][0, k]


def test_cli_sweep_errors_are_located(pendulum_file, tmp_path):
    p = run_cli("sweep", pendulum_file, "--set", "/bodies/0/mass=1,-1", "--out",
                tmp_path / "x.csv", check=False)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr == f"error: {pendulum_file}: /bodies/0/mass: must be > 0, got -1\n"
    assert not (tmp_path / "x.csv").exists()
    p = run_cli("sweep", pendulum_file, "--set", "/bodies/0/mass=1:2", check=False)
    assert p.returncode == 2 and "/bodies/0/mass: '1:2' is not a range a:b:n" in p.stderr
    p = run_cli("sweep", pendulum_file, "--set", "/nothing/here=1", check=False)
    assert p.returncode == 2 and ": /nothing: unknown key 'nothing'" in p.stderr
    p = run_cli("sweep", pendulum_file, "--set", "/constraints/0/points/2=[0,0,0]", check=False)
    assert p.returncode == 2 and p.stderr.endswith(
        ": /constraints/0/points/2: no element '2' in the array at /constraints/0/points "
        "(it has 2)\n")


def test_sweep_results_compare_and_write_the_cli_csv(tmp_path, pendulum_file):
    grid = {"/bodies/0/mass": [1.0, 2.0], "/bodies/0/velocity": [[0, 0.5, 0], [0, 2, 0]]}
    model = appell.load_model(pendulum_file)
    a = appell.sweep(model, grid=grid, threads=1, progress=False)
    b = appell.sweep(model, grid, threads=2, progress=False)  # a dict in place of states
    assert a == b
    assert appell.sweep(model, [r["overrides"] for r in a], progress=False) == a
    c = appell.sweep(model, grid={"/bodies/0/mass": [1.0, 2.0],
                                  "/bodies/0/velocity": [[0, 0.5, 0], [0, 2.5, 0]]},
                     progress=False)
    assert a != c
    a.to_csv(tmp_path / "py.csv")
    run_cli("sweep", pendulum_file, "--set", "/bodies/0/mass=1.0,2.0",
            "--set", "/bodies/0/velocity=[0, 0.5, 0],[0, 2, 0]", "--out", tmp_path / "cli.csv")
    py = list(csv.reader((tmp_path / "py.csv").open()))
    cli = list(csv.reader((tmp_path / "cli.csv").open()))
    assert py[0] == cli[0]
    for p, c in zip(py[1:], cli[1:]):
        assert [json.loads(x) for x in p[1:3]] == [json.loads(x) for x in c[1:3]]
        assert p[3] == c[3] and [float(x) for x in p[4:]] == [float(x) for x in c[4:]]
