"""One Simulator (or Data) used from several Python threads at once: its methods take the
object's lock, so the threads' calls run one after another and the run is the same, bit
for bit, as the same number of steps made by one thread."""

import os
import subprocess
import sys
import textwrap

from conftest import EXAMPLES

# Run in a child interpreter: without the lock the threads corrupt the heap, and a crash
# there fails this test instead of ending the whole pytest session.
HAMMER = textwrap.dedent("""
    import sys, threading
    import numpy as np
    import appell

    model = appell.load_model(sys.argv[1])
    threads, steps = 4, 150
    sim = appell.Simulator(model, integrator="rk4", dt=1e-3, duration=10.0)
    errors = []

    def work():
        try:
            for _ in range(steps):
                sim.step()
                s = sim.state           # reads while the other threads step
                assert s.q.shape == (model.nq,) and np.isfinite(s.q).all()
                sim.t, sim.running
        except BaseException as e:      # noqa: BLE001  (reported by the parent)
            errors.append(repr(e))

    pool = [threading.Thread(target=work) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    assert not errors, errors

    serial = appell.Simulator(model, integrator="rk4", dt=1e-3, duration=10.0)
    serial.step(threads * steps)
    assert sim.t == serial.t, (sim.t, serial.t)
    assert np.array_equal(sim.state.q, serial.state.q)
    assert np.array_equal(sim.state.u, serial.state.u)
    a, b = sim.result(), serial.result()
    assert a.columns == b.columns and np.array_equal(a.values, b.values)
    assert len(a) == threads * steps + 1
    print("same")
""")


def test_threads_stepping_one_simulator_make_the_steps_of_one_thread():
    scene = EXAMPLES / "robots" / "seven_dof_arm.json"
    p = subprocess.run([sys.executable, "-c", HAMMER, str(scene)], capture_output=True,
                       text=True, timeout=120, env=dict(os.environ))
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stdout.strip() == "same"


def test_a_python_force_that_steps_its_own_simulator_raises():
    """A callable of the model calling back into the Simulator that runs it (on the same
    thread) would wait for itself: it raises RuntimeError instead."""
    import numpy as np
    import appell
    holder = {}

    def force(states):
        if "sim" in holder:
            holder["sim"].step()
        return np.zeros((1, 6))

    b = appell.ModelBuilder()
    b.gravity = (0, 0, -9.81)
    b.add_body("bob", mass=1.0, type="particle", position=(0, 0, -1))
    b.add_distance("world", "bob", (0, 0, 0), (0, 0, -1))
    b.add_callable_force(force)
    sim = appell.Simulator(appell.compile(b), integrator="rk4", dt=1e-3, duration=1.0,
                           formulation="pinv")
    sim.step()
    holder["sim"] = sim
    try:
        sim.step()
    except RuntimeError as e:
        assert "called from inside this object's own run" in str(e)
    else:
        raise AssertionError("no RuntimeError")
