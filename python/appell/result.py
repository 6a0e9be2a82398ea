"""The samples of one simulation as numpy columns (appell.Result)."""

import numpy as np


class Result:
    """Columns of one run, named as in `appell simulate`'s traj.csv and forces.csv:

    t; per body <body>.x .y .z [.qw .qx .qy .qz] .vx .vy .vz [.wx .wy .wz]; energy,
    violation_position, violation_velocity; per constraint and body it names
    <constraint>.<body>.fx .fy .fz [.mx .my .mz].

        r["bob.x"], r.t, r.energy, r.position("bob"), r.force("rod", "bob")

    r.status, r.message, r.steps, ... come from the run (r.info has them all).
    """

    def __init__(self, columns, values, info, bodies=(), constraints=()):
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
        return self.info.get("status") == "completed"

    @property
    def t(self):
        return self["t"]

    @property
    def energy(self):
        return self["energy"]

    @property
    def violation_position(self):
        return self["violation_position"]

    @property
    def violation_velocity(self):
        return self["violation_velocity"]

    def _stack(self, prefix, keys):
        return np.column_stack([self[prefix + k] for k in keys])

    def position(self, body):
        """(samples, 3) centre-of-mass positions of `body`."""
        return self._stack(body + ".", ("x", "y", "z"))

    def velocity(self, body):
        return self._stack(body + ".", ("vx", "vy", "vz"))

    def quaternion(self, body):
        """(samples, 4) [w x y z], sign continuous in time (rigid bodies only)."""
        return self._stack(body + ".", ("qw", "qx", "qy", "qz"))

    def angular_velocity(self, body):
        return self._stack(body + ".", ("wx", "wy", "wz"))

    def force(self, constraint, body):
        """(samples, 3) resultant force of `constraint` on `body`, world frame."""
        return self._stack(f"{constraint}.{body}.", ("fx", "fy", "fz"))

    def moment(self, constraint, body):
        """(samples, 3) its moment about the body's centre of mass."""
        return self._stack(f"{constraint}.{body}.", ("mx", "my", "mz"))

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
        first = self._index["violation_velocity"] + 1
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
