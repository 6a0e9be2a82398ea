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
    # bob.x stays 0 (the pendulum swings in the y-z plane): drawn, out of the legend
    assert [line.get_label() for line in ax.lines] == ["_nolegend_", "bob.z"]
    assert np.array_equal(ax.lines[0].get_data()[1], r["bob.x"])
    assert np.array_equal(ax.lines[1].get_data()[1], r["bob.z"])
    # the rod's equal and opposite forces on arm and bob (third law): one line
    ax = ap.constraint_forces(r, constraints=["rod"])
    assert [line.get_label() for line in ax.lines] == ["rod on arm = −(on bob)"]
    f = ax.lines[0].get_data()[1]
    assert np.allclose(f, np.linalg.norm(r.force("rod", "arm"), axis=1))
    assert np.allclose(f, np.linalg.norm(r.force("rod", "bob"), axis=1))
    ax = ap.violation(r)
    assert len(ax.lines) == 2
    # overview: energy, violation, positions, and one force panel per constraint
    fig = ap.overview(r)
    assert len(fig.axes) == 3 + 2
    titles = [a.get_legend().get_texts()[0].get_text() for a in fig.axes[3:]]
    assert titles == ["hinge on arm", "rod on arm = −(on bob)"]


def test_exact_zeros_are_not_clamped_on_the_log_axis():
    """The first sample's violation is exactly 0 (the initial state is consistent): it is
    left out (NaN, a gap) rather than drawn at 1e-308; a violation that is 0 at every
    sample has no line, and its legend says so."""
    r = appell.simulate(appell.load_model(EXAMPLES / "double_pendulum.json"), duration=0.2)
    r.values[:, r.columns.index("violation_position")] = 0.0
    ax = ap.violation(r)
    position, velocity = ax.lines
    assert position.get_xydata().size == 0
    assert ax.get_legend().get_texts()[0].get_text() == "position |g|: exactly 0"
    y = velocity.get_data()[1]
    v = r.violation_velocity
    assert np.array_equal(np.isnan(y), v == 0) and np.array_equal(y[v > 0], v[v > 0])
    assert np.nanmin(y) > 1e-300


def test_constant_coordinates_stay_out_of_the_legend():
    # the double pendulum swings in the y-z plane: x of both bodies stays 0
    r = appell.simulate(appell.load_model(EXAMPLES / "double_pendulum.json"), duration=0.2)
    ax = ap.positions(r)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["arm.y", "arm.z", "bob.y", "bob.z"]
    assert "arm.x" in ax.get_title() and "bob.x" in ax.get_title()


def test_example_runs_headless(tmp_path):
    script = SOURCE / "python" / "examples" / "pendulum_sweep.py"
    env = dict(os.environ, MPLBACKEND="Agg")
    p = subprocess.run([sys.executable, str(script), "--runs", "20", "--out", str(tmp_path)],
                       capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    for name in ("run.png", "period.png"):
        assert pathlib.Path(tmp_path, name).stat().st_size > 1000
    assert "largest period error" in p.stdout
