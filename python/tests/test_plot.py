"""The plotting helpers draw the result's own columns; the example runs headless."""

import os
import pathlib
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402

import appell  # noqa: E402
import appell.plot as ap  # noqa: E402
from conftest import EXAMPLES, SOURCE  # noqa: E402


def test_helpers_plot_the_columns():
    r = appell.simulate(appell.load_model(EXAMPLES / "double_pendulum.json"), duration=0.2)
    ax = ap.energy(r)
    x, y = ax.lines[0].get_data()
    assert np.array_equal(x, r.t) and np.array_equal(y, r.energy - r.energy[0])
    ax = ap.positions(r, bodies=["bob"], components="xz")
    assert [line.get_label() for line in ax.lines] == ["bob.x", "bob.z"]
    assert np.array_equal(ax.lines[1].get_data()[1], r["bob.z"])
    ax = ap.constraint_forces(r, constraints=["rod"])
    assert {line.get_label() for line in ax.lines} == {"rod on arm", "rod on bob"}
    f = ax.lines[0].get_data()[1]
    assert np.allclose(f, np.linalg.norm(r.force("rod", "arm"), axis=1))
    ax = ap.violation(r)
    assert len(ax.lines) == 2
    assert len(ap.overview(r).axes) == 4


def test_example_runs_headless(tmp_path):
    script = SOURCE / "python" / "examples" / "pendulum_sweep.py"
    env = dict(os.environ, MPLBACKEND="Agg")
    p = subprocess.run([sys.executable, str(script), "--runs", "20", "--out", str(tmp_path)],
                       capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    for name in ("run.png", "period.png"):
        assert pathlib.Path(tmp_path, name).stat().st_size > 1000
    assert "largest period error" in p.stdout
