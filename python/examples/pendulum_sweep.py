"""appell from Python, notebook style: one run and its plots, then a sweep of pendulums
whose periods are checked against the complete elliptic integral.

    PYTHONPATH=build/python /usr/bin/python3 python/examples/pendulum_sweep.py [--runs N]
        [--out DIR] [--dask]

Writes DIR/run.png and DIR/period.png (headless: the Agg backend).  --dask runs the sweep
on a local Dask cluster instead of the thread pool: the one-line change is client=...
"""

import argparse
import json
import math
import os
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import appell  # noqa: E402
import appell.plot as ap  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
SCENES = HERE.parents[1] / "scenes" / "examples"


# the period: four times the first passage through the bottom (x = 0)
def quarter_period(r):
    t, x = r.t, r["bob.x"]
    k = np.flatnonzero(np.sign(x[1:]) != np.sign(x[:-1]))[0]
    return t[k] - x[k] * (t[k + 1] - t[k]) / (x[k + 1] - x[k])


def elliptic_k(k):  # π / (2 AGM(1, √(1 − k²)))
    a, b = 1.0, math.sqrt(1 - k * k)
    for _ in range(64):
        a, b = (a + b) / 2, math.sqrt(a * b)
    return math.pi / (2 * a)


def main():
    args = argparse.ArgumentParser()
    args.add_argument("--runs", type=int, default=200)
    args.add_argument("--out", default=".")
    args.add_argument("--dask", action="store_true")
    args = args.parse_args()
    os.makedirs(args.out, exist_ok=True)

    # %% one run of a scene: energy, violation, positions, constraint forces
    model = appell.load_model(SCENES / "double_pendulum.json")
    result = appell.simulate(model, duration=2.0)
    print(result, "energy drift", result.energy[-1] - result.energy[0])
    ap.overview(result).savefig(os.path.join(args.out, "run.png"), dpi=80)

    # %% a pendulum of length 1, released from rest at θ0: one run per amplitude
    G = 9.81
    pendulum = {
        "name": "pendulum", "gravity": [0, 0, -G],
        "bodies": [{"name": "bob", "type": "particle", "mass": 1.0, "position": [0, 0, -1]}],
        "constraints": [{"name": "rod", "type": "distance", "bodies": ["world", "bob"],
                         "points": [[0, 0, 0], [0, 0, -1]]}],
        "integrator": {"method": "dopri5", "duration": 1.5, "dt": 0.001, "rtol": 1e-10,
                       "atol": 1e-12},
    }
    model = appell.load_model_from_string(json.dumps(pendulum), "pendulum.json")
    amplitudes = np.linspace(0.1, 2.9, args.runs)
    runs = []
    for th in amplitudes:
        x0 = [math.sin(th), 0.0, -math.cos(th)]
        runs.append({"/bodies/0/position": x0, "/constraints/0/points/1": x0})

    client = None
    if args.dask:
        from distributed import Client, LocalCluster
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None)
        client = Client(cluster)  # on a real cluster: Client("scheduler-address:8786")
    sweep = appell.sweep(model, runs=runs, record=True, forces=False, client=client)


    measured = np.array([4 * quarter_period(sweep.result(i)) for i in range(len(sweep))])
    exact = np.array([4 * math.sqrt(1 / G) * elliptic_k(math.sin(th / 2)) for th in amplitudes])
    print("largest period error %.3g s over %d runs" % (np.max(np.abs(measured - exact)),
                                                        len(sweep)))

    fig, ax = plt.subplots()
    ax.plot(np.degrees(amplitudes), exact, label="4 √(L/g) K(sin θ0/2)")
    ax.plot(np.degrees(amplitudes), measured, ".", label="appell sweep")
    ax.axhline(2 * math.pi / math.sqrt(G), ls=":", label="small angles 2π √(L/g)")
    ax.set_xlabel("amplitude θ0 [deg]")
    ax.set_ylabel("period [s]")
    ax.legend()
    fig.savefig(os.path.join(args.out, "period.png"), dpi=80)
    if client is not None:
        client.close()
        cluster.close()


# Dask's worker processes import this file again: run only as a script
if __name__ == "__main__":
    main()
