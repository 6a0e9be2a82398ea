"""appell: constrained multibody dynamics from Gauss's principle, in Python.

    import appell
    model = appell.load_model("scenes/examples/double_pendulum.json")
    r = appell.forward(model)                      # accelerations, multipliers, forces by name
    result = appell.simulate(model, duration=2.0)  # columns as numpy arrays
    result.to_csv("traj.csv")                      # what `appell simulate --out` writes
    runs = appell.sweep(model, grid={"/bodies/1/mass": [1, 2, 3]})
    sim = appell.Simulator(model, dt=1e-3); sim.step(10); sim.t, sim.state
    s = model.initial_state()                      # joint coordinates q, u
    M = appell.mass_matrix(model, s); J = appell.jacobian(model, s, "arm")
    tau = appell.inverse_dynamics(model, s, udot); udot, status = appell.forward_dynamics(model, s)
    UDOT, ok = appell.forward_batch(model, Q, U)   # many states on every core

The C++ core is appell._appell (pybind11); this package adds the result objects, the
sweeps (threads or Dask) and the plotting helpers (appell.plot).
"""

import json as _json
import os as _os
import weakref as _weakref

from . import _appell
from ._appell import (  # noqa: F401  (the public names)
    Data,
    Model,
    ModelBuilder,
    SceneError,
    State,
    bias_forces,
    constraint_forces,
    constraint_jacobian,
    forward_batch,
    forward_dynamics,
    hardware_threads,
    inverse_dynamics,
    inverse_dynamics_constrained,
    jacobian,
    mass_matrix,
)
from ._appell import (  # noqa: F401  (exact derivatives, docs/derivatives.md)
    forward_dynamics_derivatives,
    constrained_dynamics_derivatives,
    inverse_dynamics_derivatives,
    linearize,
)
from ._appell import (  # noqa: F401  (Lagrangian systems, docs/lagrangian.md)
    LagrangianSystem,
    lagrangian_eval,
    lagrangian_simulate,
    load_lagrangian,
    load_lagrangian_from_string,
    RigidNuSystem,
    load_rigid_nu,
    load_rigid_nu_from_string,
    rigid_nu_eval,
    rigid_nu_simulate,
)
from .result import Result
from .sweep import SweepResult, sweep

__all__ = [
    "Data", "Model", "ModelBuilder", "SceneError", "State", "Result", "SweepResult",
    "load_model", "load_model_from_string", "load_scene", "compile", "forward", "simulate", "sweep",
    "options", "hardware_threads", "Simulator", "describe", "range_values",
    "mass_matrix", "inverse_dynamics", "inverse_dynamics_constrained", "bias_forces", "jacobian",
    "forward_dynamics", "forward_batch", "constraint_jacobian", "constraint_forces",
    "inverse_dynamics_derivatives", "forward_dynamics_derivatives",
    "constrained_dynamics_derivatives", "linearize",
    "LagrangianSystem", "load_lagrangian", "load_lagrangian_from_string", "lagrangian_eval",
    "lagrangian_simulate", "RigidNuSystem", "load_rigid_nu", "load_rigid_nu_from_string",
    "rigid_nu_eval", "rigid_nu_simulate",
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


# the builders compile() has turned into Models: adding to them afterwards would change
# nothing the Model sees, so it is an error (a new ModelBuilder describes a new model)
_compiled = _weakref.WeakSet()


def compile(builder):  # noqa: A001  (mirrors appell::compile)
    """The constant Model of a ModelBuilder (a Model is returned as it is).  The builder is
    spent: adding bodies, constraints or forces to it afterwards raises RuntimeError."""
    if isinstance(builder, Model):
        return builder
    model = _appell._compile(builder)
    _compiled.add(builder)
    return model


def _guard(name):
    method = getattr(ModelBuilder, name)

    def guarded(self, *args, **kwargs):
        if self in _compiled:
            raise RuntimeError(
                f"ModelBuilder.{name}(): this builder was compiled already and its Model "
                f"would not see what is added now; add everything before appell.compile()")
        return method(self, *args, **kwargs)

    guarded.__name__ = name
    guarded.__doc__ = method.__doc__
    setattr(ModelBuilder, name, guarded)


for _name in [n for n in dir(ModelBuilder) if n.startswith("add_")]:
    _guard(_name)


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


def range_values(text):
    """The values of a range `a:b:n` (n numbers from a to b, equal bit for bit to
    numpy.linspace(a, b, n)) or of a list `v1,v2,...` (JSON values, or words such as
    pinv): what `appell sweep --set P=TEXT` uses.  Raises SceneError on bad text.
    A string value in sweep()'s grid is read this way."""
    return [_json.loads(v) for v in _appell._set_values("", str(text))]


def describe(model):
    """The model as plain Python objects: {name, gravity, bodies, joints, constraints,
    forces}, each a list of dicts.  bodies: name, type, rigid, mass, inertia (3 x 3, body
    frame, about the centre of mass), position, orientation [w x y z], velocity,
    angular_velocity (the t = 0 values); joints (the spanning tree's, in tree order, with
    the free joints of floating bodies, whose name is ""): name, type, nq, nu, q_offset,
    u_offset, parent, child; constraints: name, type, rows, bodies; forces: type."""
    return _appell._describe(model)


def _model_joints(self):
    """{joint name: {type, nq, nu, q_offset, u_offset, parent, child}} (describe()); the
    free joint of a floating body is under that body's name."""
    return {j["name"] or j["child"]: j for j in _appell._describe(self)["joints"]}


def _model_body(self, name):
    """The body named `name` as a dict (describe())."""
    for b in _appell._describe(self)["bodies"]:
        if b["name"] == name:
            return b
    raise KeyError(f"no body '{name}'; bodies: {', '.join(self.bodies)}")


def _rebuild_model(text, file, overrides, label=""):
    """A pickled Model: its scene text, loaded from the scene's absolute path `file` (so
    that its includes and meshes are found from any working directory) under the name it
    was first loaded with (`label`)."""
    return _appell._load_model_text(text, file, list(overrides), label)


def _reduce_model(self):
    source = self.source
    if source is None:
        raise TypeError("a Model built in code (ModelBuilder) cannot be pickled; a Model "
                        "loaded from a scene pickles as its scene text and overrides")
    return (_rebuild_model, source)


def _reduce_state(self):
    return (State, (self.t, self.q, self.u))


Model.describe = describe
Model.joints = property(_model_joints)
Model.body = _model_body
Model.__reduce__ = _reduce_model
State.__reduce__ = _reduce_state
State.__eq__ = lambda a, b: (isinstance(b, State) and a.t == b.t
                             and a.q.shape == b.q.shape and a.u.shape == b.u.shape
                             and bool((a.q == b.q).all() and (a.u == b.u).all()))
State.__hash__ = None


class Simulator:
    """A simulation driven step by step (a controller loop, a viewer):

        sim = appell.Simulator(model, state=None, dt=1e-3, integrator="rk4")
        while sim.step():            # one accepted step; False once finished or failed
            ... sim.t, sim.state ...
        sim.result()                 # the samples so far, as simulate() returns them

    `state` defaults to the model's initial state; keyword options are simulate()'s
    (the run ends at `duration`).  Stepping in any number of calls makes the same steps,
    bit for bit, as one simulate() call.  sim.state is a copy of the state reached (joint
    coordinates).

    Joint inputs (MuJoCo's data.ctrl, by joint name): sim.set_input("elbow", 0.5) sets the
    joint force/torque of joint "elbow" (nu values; a number when nu = 1) from the next
    evaluation on (the first stage of the next step was evaluated at the instant reached,
    before the change; inputs set before the first step act from t = 0), held until set
    again; sim.set_input("elbow", None) gives the joint back to the
    scene.  The inputs are the joints with a joint_torque in the scene (whose value acts
    until an input is given) and those named in actuated=[...] (0 until given); sim.inputs
    lists them."""

    def __init__(self, model, state=None, forces=True, actuated=None, **options):
        """Simulator(model: Model, state: State | None = None, forces: bool = True,
        actuated: list[str] | None = None, **options): starts the run (options as
        simulate()'s; actuated: joints to drive with set_input besides the scene's
        joint_torque actuators)."""
        self.model = model
        self._sim = _appell.Simulator(model, state, options, forces,
                                      list(actuated) if actuated is not None else [])

    def set_input(self, name, value):
        """The input of joint `name` from the next evaluation on: its nu joint forces (a
        number when nu = 1), or None to give the joint back to the scene's own force."""
        self._sim.set_input(str(name), value)

    @property
    def inputs(self):
        """inputs: dict[str, ndarray | None], the joints' inputs (None: not given)."""
        return self._sim.inputs

    def step(self, n=1):
        """n accepted steps (fewer when the run ends); True while the run can go on."""
        return self._sim.step(int(n))

    def advance_to(self, t):
        """Steps until the time reaches t (or the run ends); True while it can go on."""
        return self._sim.advance_to(float(t))

    @property
    def t(self):
        """t: float, the time reached."""
        return self._sim.t

    @property
    def state(self):
        """state: State, the joint coordinates reached (a copy)."""
        return self._sim.state

    @property
    def running(self):
        """False once the run has finished (duration reached) or failed."""
        return self._sim.running

    @property
    def status(self):
        """status: str, the run's status as simulate() reports it ('completed', 'not finite', ...)."""
        return self._sim.info["status"]

    @property
    def message(self):
        """message: str, what went wrong ("" while all is well)."""
        return self._sim.info["message"]

    def result(self):
        """The samples so far as a Result (the columns of simulate())."""
        columns, values, info = self._sim.samples()
        return Result(columns, values, info, self.model.bodies, self.model.constraints)
