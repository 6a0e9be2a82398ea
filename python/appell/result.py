"""The samples of one simulation as numpy columns (appell.Result)."""

import numpy as np


class Result:
    """Columns of one run, named as in `appell simulate`'s traj.csv and forces.csv:

    t; per body <body>.x .y .z [.qw .qx .qy .qz] .vx .vy .vz [.wx .wy .wz]; energy,
    violation_position, violation_velocity; per joint <joint>.q .qd (.q0 .q1 ... for
    several coordinates; angles continuous in time); per constraint and body it names
    <constraint>.<body>.fx .fy .fz [.mx .my .mz]; per actuated joint <joint>.tau .power.

        r["bob.x"], r.t, r.energy, r.position("bob"), r.force("rod", "bob"),
        r["hinge.q"], r.joint_q("hinge"), r.joints["hinge"]["qd"]

    r.status, r.message, r.steps, ... come from the run (r.info has them all).
    """

    def __init__(self, columns, values, info, bodies=(), constraints=()):
        """Result(columns: list[str], values: array (samples, columns), info: dict,
        bodies: list[str] = (), constraints: list[str] = ()): what simulate() returns."""
        self.columns = list(columns)
        self.values = np.asarray(values, dtype=float).reshape(-1, len(self.columns))
        self.info = dict(info)
        self.bodies = list(bodies)
        self.constraints = list(constraints)
        self._index = {name: i for i, name in enumerate(self.columns)}

    def __getitem__(self, name):
        try:
            return self.values[:, self._index[name]]
        except KeyError:
            raise KeyError(f"no column '{name}'; columns: {', '.join(self.columns)}") from None

    def __contains__(self, name):
        return name in self._index

    def __len__(self):
        return self.values.shape[0]

    def __getattr__(self, name):
        info = self.__dict__.get("info", {})
        if name in info:
            return info[name]
        raise AttributeError(name)

    def __repr__(self):
        return (f"<appell.Result {self.info.get('status')}: {len(self)} samples, "
                f"t = {self.info.get('t')}>")

    @property
    def ok(self):
        """ok: bool, True when the run completed (no numerical failure)."""
        return self.info.get("status") == "completed"

    @property
    def t(self):
        """t: ndarray (samples,), the sample times."""
        return self["t"]

    @property
    def energy(self):
        """energy: ndarray (samples,), kinetic + potential (gravity, springs, and Python
        forces that were given a potential)."""
        return self["energy"]

    @property
    def violation_position(self):
        """violation_position: ndarray (samples,), the largest position-row residual."""
        return self["violation_position"]

    @property
    def violation_velocity(self):
        """violation_velocity: ndarray (samples,), the largest velocity-row residual."""
        return self["violation_velocity"]

    def _stack(self, prefix, keys):
        return np.column_stack([self[prefix + k] for k in keys])

    def position(self, body):
        """(samples, 3) centre-of-mass positions of `body`."""
        return self._stack(body + ".", ("x", "y", "z"))

    def velocity(self, body):
        """velocity(body: str) -> ndarray (samples, 3): the centre of mass's velocity."""
        return self._stack(body + ".", ("vx", "vy", "vz"))

    def quaternion(self, body):
        """(samples, 4) [w x y z], sign continuous in time (rigid bodies only)."""
        return self._stack(body + ".", ("qw", "qx", "qy", "qz"))

    def angular_velocity(self, body):
        """angular_velocity(body: str) -> ndarray (samples, 3), world frame."""
        return self._stack(body + ".", ("wx", "wy", "wz"))

    def force(self, constraint, body):
        """(samples, 3) resultant force of `constraint` on `body`, world frame."""
        return self._stack(f"{constraint}.{body}.", ("fx", "fy", "fz"))

    def moment(self, constraint, body):
        """(samples, 3) its moment about the body's centre of mass."""
        return self._stack(f"{constraint}.{body}.", ("mx", "my", "mz"))

    def _joint(self, joint, what):
        """(samples, n) columns <joint>.<what> or <joint>.<what>0 ... <what>(n-1)."""
        if f"{joint}.{what}" in self._index:
            return self._stack(joint + ".", (what,))
        keys = []
        while f"{joint}.{what}{len(keys)}" in self._index:
            keys.append(f"{what}{len(keys)}")
        if not keys:
            raise KeyError(f"no joint '{joint}' with {what} columns; joints: "
                           f"{', '.join(self.joints)}")
        return self._stack(joint + ".", keys)

    def joint_q(self, joint):
        """(samples, nq) the joint's own coordinates, in its type's order (revolute: the
        angle, continuous in time; free: position then quaternion [w x y z])."""
        return self._joint(joint, "q")

    def joint_qd(self, joint):
        """(samples, nu) the joint's rates u (relative twist along its motion subspace)."""
        return self._joint(joint, "qd")

    def joint_tau(self, joint):
        """(samples, nu) the actuator's generalized force on an actuated joint."""
        return self._joint(joint, "tau")

    @property
    def joints(self):
        """{joint: {"q": (samples, nq), "qd": (samples, nu)[, "tau": (samples, nu),
        "power": (samples,)]}} for every joint, in the scene's order ("tau" and "power"
        for actuated joints, when forces were kept)."""
        out = {}
        # a joint is a constraint with a <joint>.q (or .q0) column: found by name, not place
        names = self.constraints or [c.rsplit(".", 1)[0] for c in self.columns]
        for joint in dict.fromkeys(names):
            if f"{joint}.q" not in self._index and f"{joint}.q0" not in self._index:
                continue
            out[joint] = {"q": self._joint(joint, "q"), "qd": self._joint(joint, "qd")}
            if f"{joint}.power" in self._index:
                out[joint]["tau"] = self._joint(joint, "tau")
                out[joint]["power"] = self[f"{joint}.power"]
        return out

    def _traj_columns(self):
        """How many leading columns are traj.csv's (the rest are forces.csv's)."""
        if "traj_columns" in self.info:
            return int(self.info["traj_columns"])
        return self._index["violation_velocity"] + 1

    @property
    def forces(self):
        """{constraint: {body: {"force": (samples, 3), "moment": (samples, 3)}}} by name,
        as appell.forward() gives them at one instant (moments on rigid bodies only)."""
        out = {}
        for name in self.columns:
            if name.endswith(".fx"):
                constraint, body = name[:-3].rsplit(".", 1)
                entry = {"force": self.force(constraint, body)}
                if f"{constraint}.{body}.mx" in self._index:
                    entry["moment"] = self.moment(constraint, body)
                out.setdefault(constraint, {})[body] = entry
        return out

    def to_csv(self, path, forces=False):
        """Writes traj.csv (as `appell simulate --out`, byte for byte) or, with
        forces=True, forces.csv (as `--forces`)."""
        first = self._traj_columns()
        cols = list(range(first, len(self.columns))) if forces else list(range(first))
        if forces:
            cols = [0] + cols
        with open(path, "w") as f:
            f.write(",".join(self.columns[c] for c in cols) + "\n")
            for row in self.values[:, cols]:
                f.write(",".join("%.17g" % v for v in row) + "\n")

    def to_dict(self):
        """{column: array}, e.g. for pandas.DataFrame(result.to_dict())."""
        return {name: self[name] for name in self.columns}

    # ---- contacts (moreau runs; docs/contact.md "Outputs") ----

    @property
    def contacts(self):
        """The contact points and joint limits of the step that produced each sample, one
        row each (contacts.csv's rows; empty for runs without unilateral rows):
        {"sample", "t", "normal_force", "gap", "impact": (n,); "point", "normal",
        "friction_force": (n, 3) world frame; "kind" (contact | limit), "body_a",
        "body_b", "shape_a", "shape_b", "joint", "side", "state" (open | stick | slip):
        (n,) arrays of str}.  Forces act on body_b (body_a gets the opposite), N (a
        rotational limit's: N m), the step's impulses / dt."""
        raw = self.info.get("contacts") or {}
        out = {}
        for key, value in raw.items():
            if isinstance(value, list):
                out[key] = np.asarray(value, dtype=str)
            else:
                out[key] = np.asarray(value)
        return out

    def contact_force(self, body):
        """(samples, 3) the total contact force (normal and friction) on `body` at each
        sample, world frame, N; zero where it touches nothing.  KeyError for a name that
        is no body of the run's model ("world" is the ground)."""
        if self.bodies and body not in self.bodies and body != "world":
            raise KeyError(f"no body '{body}'; bodies: {', '.join(self.bodies)} (and world)")
        c = self.contacts
        total = np.zeros((len(self), 3))
        if not c or len(c["sample"]) == 0:
            return total
        force = c["normal_force"][:, None] * c["normal"] + c["friction_force"]
        contact = c["kind"] == "contact"
        for sign, side in ((1.0, "body_b"), (-1.0, "body_a")):
            rows = contact & (c[side] == body)
            np.add.at(total, c["sample"][rows], sign * force[rows])
        return total

    def limit_force(self, joint):
        """(samples,) the generalized force of a joint's limits on its coordinate (+
        pushes it up), forces.csv's <joint>.limit_force."""
        return self[f"{joint}.limit_force"]
