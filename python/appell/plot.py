"""Plotting helpers (matplotlib) for appell.Result: a figure in one line each.

    import appell.plot as ap
    r = appell.simulate(model, duration=5)
    ap.energy(r); ap.violation(r); ap.positions(r); ap.constraint_forces(r)
    ap.overview(r).savefig("run.png")       # the four on one figure

Every helper draws on `ax` when given (else on a new figure) and returns the Axes.
"""

import numpy as np


def _axes(ax):
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt
    return plt.figure().add_subplot()


def energy(result, ax=None, relative=True):
    """The energy drift E(t) − E(0) (relative=True) or E(t) against t."""
    ax = _axes(ax)
    e = result.energy
    ax.plot(result.t, e - e[0] if relative else e, label="E − E(0)" if relative else "E")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("energy drift [J]" if relative else "energy [J]")
    ax.set_title("energy")
    return ax


def violation(result, ax=None):
    """The largest position and velocity constraint violations against t (log scale)."""
    ax = _axes(ax)
    floor = np.finfo(float).tiny  # log axes cannot show exact zeros
    ax.semilogy(result.t, np.maximum(result.violation_position, floor), label="position |g|")
    ax.semilogy(result.t, np.maximum(result.violation_velocity, floor), label="velocity |π|")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("max violation")
    ax.set_title("constraint violation")
    ax.legend()
    return ax


def positions(result, bodies=None, ax=None, components="xyz"):
    """The centre-of-mass coordinates of `bodies` (default all) against t."""
    ax = _axes(ax)
    for b in bodies or result.bodies:
        for c in components:
            ax.plot(result.t, result[f"{b}.{c}"], label=f"{b}.{c}")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("position [m]")
    ax.set_title("body positions")
    ax.legend(fontsize="small")
    return ax


def constraint_forces(result, constraints=None, ax=None):
    """|force| of each constraint on each body it names, against t."""
    ax = _axes(ax)
    for name in result.columns:
        if not name.endswith(".fx"):
            continue
        constraint, body = name[:-3].rsplit(".", 1)
        if constraints is not None and constraint not in constraints:
            continue
        f = result.force(constraint, body)
        ax.plot(result.t, np.linalg.norm(f, axis=1), label=f"{constraint} on {body}")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("|force| [N]")
    ax.set_title("constraint forces")
    ax.legend(fontsize="small")
    return ax


def overview(result):
    """Energy, violation, positions and constraint forces on one 2 × 2 figure."""
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(2, 2, figsize=(11, 7), constrained_layout=True)
    energy(result, axes[0, 0])
    violation(result, axes[0, 1])
    positions(result, ax=axes[1, 0])
    constraint_forces(result, ax=axes[1, 1])
    return fig
