"""The cost of a Python force in a threaded sweep: the same 40 runs of a pendulum with a
Python damping force, on 1 and on 2 threads (wall-clock and CPU seconds).  Every
evaluation of the force takes the GIL, so the runs are serialized on it; what 2 threads
must not do is cost more than 1.

    PYTHONPATH=build/python python3 python/examples/callback_threads.py
"""

import os
import time

import numpy as np

import appell


def damped_pendulum():
    b = appell.ModelBuilder()
    b.gravity = (0, 0, -9.81)
    b.add_body("bob", mass=1.0, type="particle", position=(0.6, 0, -0.8))
    b.add_distance("world", "bob", (0, 0, 0), (0.6, 0, -0.8), name="rod")
    b.add_callable_force(lambda s: np.hstack([-0.3 * s["v"], np.zeros((1, 3))]))
    return appell.compile(b)


def main(runs=40, repeat=3):
    model = damped_pendulum()
    s0 = model.initial_state()
    states = [appell.State(0.0, s0.q, s0.u + 0.01 * i) for i in range(runs)]
    for threads in (1, 2, 1, 2):
        best = None
        for _ in range(repeat):
            w0, c0 = time.perf_counter(), time.process_time()
            sr = appell.sweep(model, states=states, threads=threads, duration=1.0,
                              integrator="rk4", dt=1e-3, progress=False)
            w, c = time.perf_counter() - w0, time.process_time() - c0
            assert sr.ok
            best = (w, c) if best is None or w < best[0] else best
        evals = runs * 1000 * 4
        print(f"threads={threads}: {best[0]:.3f} s wall, {best[1]:.3f} s CPU, "
              f"{1e6 * best[0] / evals:.2f} us per force evaluation (load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
