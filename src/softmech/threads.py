"""The thread pool that advances the worlds of a batch: blocks of worlds of the explicit and
implicit Cosserat solvers (softmech.simulation), worlds of the discrete engine's compiled
Newton loop (softmech.implicit.compiled). One pool per process, as many threads as numba's
thread count (which also sets how worlds are grouped into blocks: softmech.packing.Lanes);
the compiled functions it runs release the GIL."""
from concurrent.futures import ThreadPoolExecutor

import numba

_POOL = []


def block_pool():
    """The process's ThreadPoolExecutor, rebuilt when numba's thread count changed."""
    if not _POOL or _POOL[0][0] != numba.get_num_threads():
        _POOL[:] = [(numba.get_num_threads(),
                     ThreadPoolExecutor(numba.get_num_threads(), thread_name_prefix="softmech"))]
    return _POOL[0][1]
