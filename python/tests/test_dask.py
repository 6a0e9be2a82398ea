"""The same sweep on a Dask LocalCluster of worker processes equals the thread pool's."""

import json

import numpy as np
import pytest

import appell
from conftest import PENDULUM

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=40)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def test_dask_sweep_equals_thread_sweep(client):
    model = appell.load_model_from_string(json.dumps(PENDULUM), "pendulum.json",
                                          {"/integrator/duration": 0.5})
    grid = {"/bodies/0/mass": [1.0, 2.0], "/bodies/0/velocity": [[0, v, 0] for v in
                                                                 np.linspace(0.5, 4, 10)]}
    threads = appell.sweep(model, grid=grid, threads=2, record=True, progress=False)
    dask = appell.sweep(model, grid=grid, client=client, chunk=3, record=True, progress=False)
    assert len(dask) == len(threads) == 20 and dask.ok
    for a, b in zip(threads.runs, dask.runs):
        assert a["overrides"] == b["overrides"]
        assert np.array_equal(a["values"], b["values"])
        assert np.array_equal(a["final"], b["final"])
        for key in ("t", "steps", "rhs_evaluations", "energy_final", "max_abs_energy_drift",
                    "violation_position_max"):
            assert a[key] == b[key], key


def test_dask_sweep_of_states(client):
    model = appell.load_model_from_string(json.dumps(PENDULUM), "pendulum.json")
    s0 = model.initial_state()
    states = [appell.State(0.0, s0.q, np.array([0.0, v, 0.0])) for v in (0.5, 1.0, 2.0)]
    threads = appell.sweep(model, states=states, duration=0.3, progress=False)
    dask = appell.sweep(model, states=states, duration=0.3, client=client, progress=False)
    assert np.array_equal(threads.final("bob"), dask.final("bob"))


def test_dask_needs_a_model_from_a_scene(client):
    b = appell.ModelBuilder()
    b.add_body("bob", type="particle")
    with pytest.raises(ValueError, match="rebuild the model from its scene"):
        appell.sweep(appell.compile(b), states=[None], client=client)
