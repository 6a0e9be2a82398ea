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
    """The largest position and velocity constraint violations against t (log scale).

    A log axis cannot show an exact zero: those samples are left out (the line has a gap)
    and a violation that is zero at every sample is drawn as no line, its legend entry
    saying "exactly 0"."""
    ax = _axes(ax)
    drawn = False
    for values, label in ((result.violation_position, "position |g|"),
                          (result.violation_velocity, "velocity |π|")):
        values = np.asarray(values, dtype=float)
        shown = np.where(values > 0, values, np.nan)
        if np.isnan(shown).all():
            ax.plot([], [], label=f"{label}: exactly 0")
        else:
            ax.plot(result.t, shown, label=label)
            drawn = True
    ax.set_yscale("log")
    if not drawn:  # nothing a log axis can show: say so where the lines would be
        if len(result.t):
            ax.set_xlim(result.t[0], result.t[-1])
        ax.set_yticks([])
        ax.minorticks_off()
        ax.text(0.5, 0.5, "exactly 0 at every sample", transform=ax.transAxes,
                ha="center", va="center")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("max violation")
    ax.set_title("constraint violation")
    ax.legend()
    return ax


def _constant(y):
    """True when the column does not change beyond round-off of its own size."""
    y = np.asarray(y, dtype=float)
    return y.size == 0 or np.ptp(y) <= 1e-12 * max(1.0, float(np.max(np.abs(y))))


def positions(result, bodies=None, ax=None, components="xyz"):
    """The centre-of-mass coordinates of `bodies` (default all) against t.  Coordinates
    that stay constant are drawn thin and grey, out of the legend (the title names them)."""
    ax = _axes(ax)
    constant = []
    for b in bodies or result.bodies:
        for c in components:
            y = result[f"{b}.{c}"]
            if _constant(y):
                constant.append(f"{b}.{c}")
                ax.plot(result.t, y, color="0.6", linewidth=0.8, label="_nolegend_")
            else:
                ax.plot(result.t, y, label=f"{b}.{c}")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("position [m]")
    title = "body positions"
    if constant:
        title += "\n(constant: " + ", ".join(constant) + ")"
    ax.set_title(title, fontsize="medium")
    if len(constant) < len(ax.lines):
        ax.legend(fontsize="small")
    return ax


def _force_lines(result, constraints):
    """{constraint: [(label, |f|)]}: the force of each constraint on each body it names;
    the two equal and opposite forces of a constraint between two bodies (Newton's third
    law, which every constraint force here obeys) as one line."""
    out = {}
    for name in result.columns:
        if not name.endswith(".fx"):
            continue
        constraint, body = name[:-3].rsplit(".", 1)
        if constraints is not None and constraint not in constraints:
            continue
        out.setdefault(constraint, []).append((body, result.force(constraint, body)))
    lines = {}
    for constraint, forces in out.items():
        if len(forces) == 2:
            (a, fa), (b, fb) = forces
            scale = max(float(np.max(np.abs(fa), initial=0.0)), 1e-300)
            if np.allclose(fa, -fb, rtol=0, atol=1e-9 * scale):
                lines[constraint] = [(f"{constraint} on {a} = −(on {b})",
                                      np.linalg.norm(fa, axis=1))]
                continue
        lines[constraint] = [(f"{constraint} on {body}", np.linalg.norm(f, axis=1))
                             for body, f in forces]
    return lines


def constraint_forces(result, constraints=None, ax=None):
    """|force| of each constraint on each body it names, against t (one line for the equal
    and opposite forces of a constraint between two bodies).  `ax` may be a list of Axes:
    then each constraint has its own panel (overview() does that), so that forces of
    similar size do not hide one another.  Returns the (first) Axes."""
    lines = _force_lines(result, constraints)
    axes = list(ax) if isinstance(ax, (list, tuple, np.ndarray)) else [_axes(ax)] * len(lines)
    if not lines:
        axes = axes[:1] or [_axes(None)]
    for panel, (constraint, entries) in zip(axes, lines.items()):
        for label, f in entries:
            panel.plot(result.t, f, label=label)
    panels = list(dict.fromkeys(axes))  # each panel once
    for panel in panels:
        if panel.lines:
            panel.legend(fontsize="x-small" if len(panels) > 1 else "small", loc="best")
    if len(panels) == 1:
        panels[0].set_ylabel("|force| [N]")
        panels[0].set_title("constraint forces")
    else:  # stacked panels: one title says the unit (labels of each would overlap)
        panels[0].set_title("constraint forces, |force| [N]")
    axes[-1].set_xlabel("t [s]")
    return axes[0]


def overview(result, max_force_panels=6):
    """Energy, violation, positions and constraint forces on one 2 × 2 figure; the forces
    have one panel per constraint (stacked, up to max_force_panels, else one panel)."""
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(2, 2, figsize=(11, 7), constrained_layout=True)
    energy(result, axes[0, 0])
    violation(result, axes[0, 1])
    positions(result, ax=axes[1, 0])
    n = len(_force_lines(result, None))
    if 1 < n <= max_force_panels:
        spec = axes[1, 1].get_subplotspec()
        axes[1, 1].remove()
        grid = spec.subgridspec(n, 1, hspace=0.05)
        panels = [fig.add_subplot(grid[0])]
        panels += [fig.add_subplot(grid[k], sharex=panels[0]) for k in range(1, n)]
        for p in panels[:-1]:
            p.tick_params(labelbottom=False)
        constraint_forces(result, ax=panels)
    else:
        constraint_forces(result, ax=axes[1, 1])
    return fig
