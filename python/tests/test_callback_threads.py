"""A sweep of a model with a Python force on worker threads: each worker keeps one Python
thread state for its life (a threading.local survives from one call to the next, which it
did not when every call made a new one), and the runs equal serial simulate() bit for bit."""

import threading

import numpy as np
import pytest

import appell


def damped(counts):
    local = threading.local()

    def force(s):
        local.calls = getattr(local, "calls", 0) + 1  # lost with a new thread state per call
        counts.append(local.calls)
        return np.hstack([-0.3 * s["v"], np.zeros((1, 3))])

    b = appell.ModelBuilder()
    b.gravity = (0, 0, -9.81)
    b.add_body("bob", mass=1.0, type="particle", position=(0.6, 0, -0.8))
    b.add_distance("world", "bob", (0, 0, 0), (0.6, 0, -0.8), name="rod")
    b.add_callable_force(force)
    return appell.compile(b)


@pytest.mark.parametrize("threads", [1, 2])
def test_a_worker_keeps_its_thread_state_and_runs_equal_serial_ones(threads):
    counts = []
    model = damped(counts)
    s0 = model.initial_state()
    states = [appell.State(0.0, s0.q, s0.u + 0.1 * i) for i in range(4)]
    opts = dict(duration=0.05, dt=1e-3, integrator="rk4")
    sr = appell.sweep(model, states=states, threads=threads, record=True, progress=False, **opts)
    assert sr.ok
    assert max(counts) > 100  # one thread state served every call of a worker
    for i, s in enumerate(states):
        assert np.array_equal(sr.result(i).values, appell.simulate(model, s, **opts).values)


def test_an_exception_in_a_worker_callback_reaches_the_caller():
    b = appell.ModelBuilder()
    b.add_body("bob", mass=1.0, type="particle")

    def boom(s):
        raise RuntimeError("boom from a worker")

    b.add_callable_force(boom)
    model = appell.compile(b)
    s0 = model.initial_state()
    with pytest.raises(RuntimeError, match="boom from a worker"):
        appell.sweep(model, states=[s0, s0, s0], threads=2, duration=0.01, progress=False)
