"""The softmech side of the peer benchmarks on the validated DER cantilever
(peer_dismech.py, peer_dismech_cpp.py, peer_dismech_matlab.py; not collected by pytest)."""
import time

import softmech as sm
from softmech.implicit.newton import NewtonOptions
from softmech.validation.der import cantilever


def softmech_run(E, dt, duration, options=None):
    """softmech.validation.der's cantilever at Young's modulus E [Pa], released from rest and
    run warm (kernels compiled and loaded by a first scene) for `duration` [s] in steps of dt
    [s] with NewtonOptions `options` (None: the defaults). Returns (wall [s], CPU [s] of the
    run, Newton iterations per step, times (n_steps,) [s], tip z (n_steps,) [m]): one sample
    per step, the initial one (t = 0) dropped so that the peers' records hold the same
    instants."""
    options = NewtonOptions() if options is None else options
    scene, _ = cantilever(E)
    scene.compile(dt=dt, newton=options).step(1)               # kernels compiled and loaded
    scene, _ = cantilever(E)
    sim = scene.compile(dt=dt, newton=options)
    w0, c0 = time.perf_counter(), time.process_time()
    out = sim.run(duration, record=sm.Every(dt, ("rod.positions",)))
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    st = sim.newton_stats
    return wall, cpu, st.iterations / st.steps, out["time"][1:], out["rod.positions"][0, 1:, -1, 2]
