"""Measures sweep throughput (runs per second) on 1 and 2 threads and on a Dask
LocalCluster of 2 worker processes, and the per-call cost of forward() from Python
against the same call in C++.

    PYTHONPATH=build/python /usr/bin/python3 python/examples/throughput.py [--runs 200]
"""

import argparse
import json
import math
import pathlib
import time

import numpy as np

import appell

PENDULUM = {
    "name": "pendulum", "gravity": [0, 0, -9.81],
    "bodies": [{"name": "bob", "type": "particle", "mass": 1.0, "position": [0, 0, -1]}],
    "constraints": [{"name": "rod", "type": "distance", "bodies": ["world", "bob"],
                     "points": [[0, 0, 0], [0, 0, -1]]}],
    "solver": {"formulation": "pinv"},
    "integrator": {"method": "dopri5", "duration": 5.0, "dt": 0.01, "rtol": 1e-10,
                   "atol": 1e-12},
}


def timed(f):
    t0 = time.perf_counter()
    out = f()
    return time.perf_counter() - t0, out


def timed_cpu(f):
    """(wall seconds, CPU seconds of this process over all its threads, result)"""
    c0, t0 = time.process_time(), time.perf_counter()
    out = f()
    return time.perf_counter() - t0, time.process_time() - c0, out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=200)
    args = p.parse_args()
    model = appell.load_model_from_string(json.dumps(PENDULUM), "pendulum.json")
    runs = []
    for th in np.linspace(0.1, 2.8, args.runs):
        x0 = [math.sin(th), 0.0, -math.cos(th)]
        runs.append({"/bodies/0/position": x0, "/constraints/0/points/1": x0})

    results = {}
    for threads in (1, 2):
        dt, cpu, sr = timed_cpu(
            lambda: appell.sweep(model, runs=runs, threads=threads, progress=False))
        results[threads] = sr
        print(f"threads={threads}: {len(runs) / dt:8.1f} runs/s ({dt:.3f} s wall, "
              f"{cpu:.3f} s CPU: {len(runs) / cpu:.1f} runs per CPU-second)")

    from distributed import Client, LocalCluster
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=None, silence_logs=40)
    client = Client(cluster)
    appell.sweep(model, runs=runs[:4], client=client, progress=False)  # warm the workers
    dt, sr = timed(lambda: appell.sweep(model, runs=runs, client=client, progress=False))
    print(f"LocalCluster(2 processes): {len(runs) / dt:8.1f} runs/s ({dt:.3f} s)")
    same = all(np.array_equal(a["final"], b["final"]) for a, b in zip(sr.runs, results[2].runs))
    print("dask results identical to the thread pool's:", same)
    client.close()
    cluster.close()

    # forward(): Python's call on a reused Data against the C++ loop, same state
    here = pathlib.Path(__file__).resolve().parents[2] / "scenes" / "examples"
    for scene in (here / "double_pendulum.json", here / "four_bar.json"):
        m = appell.load_model(scene)
        s = m.initial_state()
        data = appell.Data(m)
        n = 20000
        cpp = appell._appell._forward_seconds(m, s, n)
        dt, _ = timed(lambda: [data.forward(s) for _ in range(n)])
        dt_full, _ = timed(lambda: [appell.forward(m, s) for _ in range(n // 10)])
        print(f"{scene.name}: C++ forward {cpp * 1e6:.2f} us, Python Data.forward "
              f"{dt / n * 1e6:.2f} us (overhead {(dt / n - cpp) * 1e6:.2f} us), "
              f"appell.forward() with dicts {dt_full / (n // 10) * 1e6:.2f} us")


if __name__ == "__main__":
    main()
