"""Many simulations at once: appell.sweep().

On one machine the runs go to the C++ thread pool (appell/sweep.hpp) with the GIL released;
with client=<dask.distributed.Client> they go to a Dask cluster in chunks of many runs per
task.  Each run is independent and deterministic, so the results are identical, bit for
bit, however the runs are spread (serially, on threads, on Dask workers).

    appell.sweep(model, states=[s0, s1, ...])                   # one model, many starts
    appell.sweep(model, grid={"/bodies/0/mass": [1, 2, 3],      # cartesian product of
                              "/integrator/duration": [1, 2]})  # JSON-Pointer overrides
    appell.sweep(model, runs=[{"/bodies/0/mass": 1}, ...])      # one dict per run
    appell.sweep(model, grid=..., client=Client("scheduler:8786"))  # on a cluster
"""

import itertools
import json
import math
import sys

import numpy as np

from . import _appell
from .result import Result

SUMMARY = ("t", "steps", "rhs_evaluations", "energy_initial", "energy_final",
           "max_abs_energy_drift", "violation_position_max", "violation_velocity_max")


class SweepResult:
    """The outcomes of a sweep, in run order.

    sr.runs[i]: a dict (status, message, t, steps, rhs_evaluations, energy_initial,
    energy_final, max_abs_energy_drift, violation_position_max, violation_velocity_max,
    final: (bodies, 6) array of x y z vx vy vz at the last sample, overrides: the run's
    {pointer: value}); sr[name]: that summary figure over the runs, as a numpy array;
    sr.final(body): (runs, 6); sr.result(i): the run's Result when recorded (record=True).
    """

    def __init__(self, runs, bodies, constraints):
        """SweepResult(runs: list[dict], bodies: list[str], constraints: list[str]): what
        sweep() returns."""
        self.runs = runs
        self.bodies = list(bodies)
        self.constraints = list(constraints)

    def __len__(self):
        return len(self.runs)

    def __iter__(self):
        return iter(self.runs)

    def __getitem__(self, name):
        if isinstance(name, (int, np.integer)):
            return self.runs[name]
        return np.array([r[name] for r in self.runs])

    @property
    def ok(self):
        """ok: bool, True when every run completed."""
        return all(r["status"] == "completed" for r in self.runs)

    def final(self, body):
        """final(body: str) -> ndarray (runs, 6): x y z vx vy vz at each run's last sample."""
        i = self.bodies.index(body)
        return np.array([r["final"][i] for r in self.runs])

    def __eq__(self, other):
        """Equal when every run has the same figures, bit for bit (NaN equal to NaN)."""
        if not isinstance(other, SweepResult) or len(self) != len(other):
            return NotImplemented if not isinstance(other, SweepResult) else False
        return all(_same(a, b) for a, b in zip(self.runs, other.runs))

    def table(self):
        """{column: array over the runs}: the summary figures, then per body its final
        x y z vx vy vz (the columns of `appell sweep`)."""
        cols = {name: self[name] for name in ("status",) + SUMMARY}
        for i, body in enumerate(self.bodies):
            for k, c in enumerate(("x", "y", "z", "vx", "vy", "vz")):
                cols[f"{body}.{c}"] = np.array([r["final"][i, k] for r in self.runs])
        return cols

    def to_csv(self, path):
        """One row per run, as `appell sweep` writes it: run, the overridden values (JSON),
        status, the summary figures and the final body states."""
        import csv
        pointers = list(self.runs[0]["overrides"]) if self.runs else []
        table = self.table()
        with open(path, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["run"] + pointers + list(table))
            for i, r in enumerate(self.runs):
                row = [i] + [json.dumps(r["overrides"].get(p)) for p in pointers]
                row += [table["status"][i]] + ["%.17g" % table[c][i] for c in list(table)[1:]]
                w.writerow(row)

    def result(self, i):
        """result(i: int) -> Result: run i's samples (sweep(..., record=True))."""
        r = self.runs[i]
        if "values" not in r:
            raise ValueError("the sweep did not record trajectories: sweep(..., record=True)")
        return Result(r["columns"], r["values"], r, self.bodies, self.constraints)


def _same(a, b):
    """Bit-for-bit equality of two per-run dicts (arrays compared element by element)."""
    if a.keys() != b.keys():
        return False
    for k in a:
        x, y = a[k], b[k]
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            if not np.array_equal(np.asarray(x), np.asarray(y), equal_nan=True):
                return False
        elif isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y):
            continue
        elif x != y:
            return False
    return True


def _grid_runs(grid):
    """The cartesian product of {pointer: values}, the last pointer varying fastest."""
    pointers = list(grid)
    from . import range_values
    grid = {p: range_values(v) if isinstance(v, str) else v for p, v in grid.items()}
    values = [list(np.asarray(grid[p]).tolist()) if hasattr(grid[p], "tolist") else list(grid[p])
              for p in pointers]
    return [dict(zip(pointers, combo)) for combo in itertools.product(*values)]


class _Bar:
    """A progress bar on a terminal's stderr (nothing in a pipe)."""

    def __init__(self, enabled):
        self.on = bool(enabled) and hasattr(sys.stderr, "isatty") and sys.stderr.isatty()

    def __call__(self, done, total):
        if not self.on:
            return
        fill = int(40 * done / max(total, 1))
        sys.stderr.write("\r[%s%s] %d/%d runs" % ("=" * fill, " " * (40 - fill), done, total))
        sys.stderr.flush()

    def close(self):
        if self.on:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


def _models_for(model, runs):
    """One model per run: `model` itself when a run overrides nothing, else rebuilt from
    its scene with the run's overrides appended to the model's own."""
    from . import _override_list
    if not any(runs):
        return [model] * len(runs)
    if model.source is None:
        raise ValueError("sweep(): grid/runs override scene values, but this model was built "
                         "in code; load it from a scene (appell.load_model)")
    text, file, base, label = model.source
    return [_appell._load_model_text(text, file, base + _override_list(r), label) for r in runs]


def _run_chunk(text, file, base, overrides, states, options, record, forces, label=""):
    """One Dask task: rebuild the models from the scene text (C++ objects do not pickle)
    and run its runs one after the other on the worker."""
    built = {}
    models = []
    for ov in overrides:
        key = tuple(ov)
        if key not in built:
            built[key] = _appell._load_model_text(text, file, base + list(ov), label)
        models.append(built[key])
    states = [None if s is None else _appell.State(*s) for s in states]
    return _appell.sweep(models, states, [options] * len(models), 1, record, forces)


def _on_dask(client, model, runs, states, options, record, forces, chunk, bar):
    from . import _override_list
    if model.source is None or model.has_callables:
        raise ValueError("sweep(client=...): the workers rebuild the model from its scene; "
                         "load it from a scene (appell.load_model), without Python callables")
    text, file, base, label = model.source
    overrides = [_override_list(r) for r in runs]
    packed = [None if s is None else (s.t, np.asarray(s.q), np.asarray(s.u)) for s in states]
    n = len(runs)
    if chunk is None:  # about four tasks per worker thread, for balance
        workers = max(1, sum(client.nthreads().values()))
        chunk = max(1, math.ceil(n / (4 * workers)))
    starts = list(range(0, n, chunk))
    futures = [client.submit(_run_chunk, text, file, base, overrides[i:i + chunk],
                             packed[i:i + chunk], options, record, forces, label,
                             pure=False)
               for i in starts]
    from distributed import as_completed
    done = 0
    for f in as_completed(futures):
        done += len(f.result())
        bar(done, n)
    return [r for f in futures for r in f.result()]


def sweep(model, states=None, grid=None, runs=None, threads=None, client=None, record=False,
          forces=True, chunk=None, progress=True, **options):
    """Runs many simulations of `model` (a Model, or a scene path).

    states:  a list of States: one run from each (the model is shared by the threads);
             a dict here is taken as the grid, a list of dicts as the runs;
    grid:    {JSON Pointer: values}: one run per element of the cartesian product (the
             last pointer varying fastest), each on the scene with those values;
    runs:    [{JSON Pointer: value}, ...]: one run per dict;
    threads: the size of the C++ thread pool (default: every core);
    client:  a dask.distributed Client: the runs go to its workers in tasks of `chunk`
             runs (default: about four tasks per worker thread); workers rebuild the
             model from its scene, so it must come from one;
    record:  keep every sample of every run (SweepResult.result(i));
    progress: a bar on a terminal (True), none (False), or a callable(done, total);
    options: as simulate(): formulation, integrator, duration, dt, rtol, atol, every,
             stabilization.

    Returns a SweepResult.  A run that fails numerically has its status and message; bad
    scenes, pointers or values raise SceneError before any run starts.
    """
    if isinstance(model, (str, bytes)) or hasattr(model, "__fspath__"):
        from . import load_model
        model = load_model(model)
    # a dict in the place of the states is a grid; a list of dicts, runs
    if isinstance(states, dict):
        states, grid = None, states if grid is None else grid
    elif states is not None and not isinstance(states, (str, bytes)):
        states = list(states)
        if states and all(isinstance(x, dict) for x in states):
            states, runs = None, states if runs is None else runs
    if sum(x is not None for x in (states, grid, runs)) > 1:
        raise ValueError("sweep(): give one of states, grid or runs")
    if grid is not None:
        runs = _grid_runs(grid)
    if states is not None:
        states = list(states)
        runs = [{}] * len(states)
    elif runs is not None:
        runs = [dict(r) for r in runs]
        states = [None] * len(runs)
    else:
        raise ValueError("sweep(): give states, grid or runs")
    bar = progress if callable(progress) else _Bar(progress)
    try:
        if client is not None:
            out = _on_dask(client, model, runs, states, options, record, forces, chunk, bar)
        else:
            models = _models_for(model, runs)
            out = _appell.sweep(models, states, [options] * len(runs),
                                0 if threads is None else int(threads), record, forces, bar)
    finally:
        if isinstance(bar, _Bar):
            bar.close()
    for r, ov in zip(out, runs):
        r["overrides"] = ov
    return SweepResult(out, model.bodies, model.constraints)
