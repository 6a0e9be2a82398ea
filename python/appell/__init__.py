"""appell: constrained multibody dynamics from Gauss's principle, in Python.

    import appell
    model = appell.load_model("scenes/examples/double_pendulum.json")
    r = appell.forward(model)                      # accelerations, multipliers, forces by name
    result = appell.simulate(model, duration=2.0)  # columns as numpy arrays
    result.to_csv("traj.csv")                      # what `appell simulate --out` writes
    runs = appell.sweep("pendulum.json", grid={"/bodies/0/mass": [1, 2, 3]})

The C++ core is appell._appell (pybind11); this package adds the result objects, the
sweeps (threads or Dask) and the plotting helpers (appell.plot).
"""

import json as _json
import os as _os

from . import _appell
from ._appell import (  # noqa: F401  (the public names)
    Data,
    Model,
    ModelBuilder,
    SceneError,
    State,
    hardware_threads,
)
from .result import Result
from .sweep import SweepResult, sweep

__all__ = [
    "Data", "Model", "ModelBuilder", "SceneError", "State", "Result", "SweepResult",
    "load_model", "load_model_from_string", "load_scene", "compile", "forward", "simulate", "sweep",
    "options", "hardware_threads",
]


def _override_list(overrides):
    """{pointer: value} or [(pointer, value)] -> [(pointer, JSON text)]."""
    if overrides is None:
        return []
    items = overrides.items() if isinstance(overrides, dict) else overrides
    out = []
    for pointer, value in items:
        if hasattr(value, "tolist"):  # numpy scalars and arrays
            value = value.tolist()
        out.append((str(pointer), _json.dumps(value)))
    return out


def load_model_from_string(text, file="<scene>", overrides=None):
    """A Model from scene text (docs/scene-format.md); `overrides` replaces values by JSON
    Pointer, e.g. {"/bodies/0/mass": 2.0}.  Raises SceneError (located) on bad input."""
    return _appell._load_model_text(text, file, _override_list(overrides))


def load_model(scene, overrides=None):
    """A Model from a scene: a file path, or a dict holding the scene itself; optional
    JSON-Pointer overrides.  Raises SceneError (located) on bad input."""
    if isinstance(scene, dict):
        return load_model_from_string(_json.dumps(scene), "<scene>", overrides)
    path = _os.fspath(scene)
    return load_model_from_string(_appell._read_scene_text(path), path, overrides)


# as in C++, appell.compile(appell.load_scene(path)); here the scene comes compiled
load_scene = load_model


def compile(builder):  # noqa: A001  (mirrors appell::compile)
    """The constant Model of a ModelBuilder (a Model is returned as it is)."""
    if isinstance(builder, Model):
        return builder
    return _appell._compile(builder)


def forward(model, state=None, formulation=None):
    """The equations of motion at one state (default: the scene's initial state, velocities
    projected onto the constraints, as `appell eval`).  A dict: status, formulation, rank,
    dof, udot, accelerations {body: {linear, angular}}, multipliers {constraint: array},
    forces {constraint: {body: {force, moment}}}.  For many calls on one model, reuse an
    appell.Data: data.forward(state)."""
    return _appell.forward(model, state, formulation)


def options(model, **kwargs):
    """The run settings a simulation of `model` uses with these keyword options."""
    return _appell.options(model, kwargs)


def simulate(model, state=None, observer=None, forces=True, **kwargs):
    """One simulation of `model` from `state` (default its initial state).

    Keyword options override the scene's settings: formulation, integrator (rk4, dopri5,
    rkf78), duration, dt, rtol, atol, every, stabilization ('none', 'projection' or
    {'type': 'baumgarte', 'alpha': a, 'beta': b}).  `observer(sample)` is called at every
    output instant with a dict (t, x, Q, v, w per body, energy, violations, udot,
    multipliers); it takes the GIL, so it slows the run down.  Returns a Result; a
    numerical failure is not an exception: result.ok is False, result.message says why
    and the samples so far are kept."""
    columns, values, info = _appell.simulate(model, state, observer, forces, kwargs)
    return Result(columns, values, info, model.bodies, model.constraints)
