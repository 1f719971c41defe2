"""The engine's block layout (softmech.model): how B worlds map to blocks of W lanes, and the
conversion of user-facing arrays (B, n, ...) to and from it. Low level: softmech.packing and the
body kinds' packing modules build on it."""
import math
from dataclasses import dataclass

import numba
import numpy as np

MAX_LANES = 8  # one AVX-512 register of float64


@dataclass(frozen=True)
class Lanes:
    """How B worlds map to n_blocks blocks of W lanes."""
    worlds: int
    W: int
    n_blocks: int

    @classmethod
    def for_worlds(cls, worlds, n_threads=None):
        n_threads = n_threads or numba.get_num_threads()
        W = 1 if worlds == 1 else min(MAX_LANES, math.ceil(worlds / n_threads))
        return cls(worlds, W, math.ceil(worlds / W))

    @property
    def world_of_lane(self):
        return np.minimum(np.arange(self.n_blocks * self.W), self.worlds - 1)


def to_blocks(arr, lanes):
    """(B, n, c...) -> (n_blocks, c, n*W) (c flattened; no component axis gives (n_blocks, n*W))."""
    arr = np.asarray(arr, dtype=float)[lanes.world_of_lane]
    n = arr.shape[1]
    comps = int(np.prod(arr.shape[2:]))
    out = arr.reshape(lanes.n_blocks, lanes.W, n, comps).transpose(0, 3, 2, 1)
    out = np.ascontiguousarray(out.reshape(lanes.n_blocks, comps, n * lanes.W))
    return out[:, 0] if arr.ndim == 2 else out


def from_blocks(arr, lanes, trailing=()):
    """Inverse of to_blocks: (n_blocks, c, n*W) -> (B, n, *trailing)."""
    if arr.ndim == 2:
        arr = arr[:, None]
    nb, comps, nw = arr.shape
    n = nw // lanes.W
    out = arr.reshape(nb, comps, n, lanes.W).transpose(0, 3, 2, 1).reshape(nb * lanes.W, n, comps)
    return out[:lanes.worlds].reshape((lanes.worlds, n) + tuple(trailing))


def write_slots(target, slot, values, lanes):
    """target (n_blocks, c, n*W) (a State field) <- values (B, k, c) at its k slots `slot`."""
    blocks = to_blocks(values, lanes)                   # (n_blocks, c, k W)
    lanes_of = (np.asarray(slot)[:, None] * lanes.W + np.arange(lanes.W)).reshape(-1)
    target[..., lanes_of] = blocks.reshape(blocks.shape[:2] + (len(lanes_of),))


def per_lane(arr, lanes):
    """(B or 1, ...) -> (n_blocks, ..., W): per-world vectors for the point-load tables."""
    arr = np.asarray(arr, dtype=float)
    arr = arr[lanes.world_of_lane % arr.shape[0]]
    out = arr.reshape((lanes.n_blocks, lanes.W) + arr.shape[1:])
    return np.ascontiguousarray(np.moveaxis(out, 1, -1))


def writable_contiguous(tup):
    """Same tuple with every array C-contiguous and writable: numba types encode layout and
    read-only flags, so any variation would compile the kernels again. A field that is a
    namedtuple of arrays (a kernel's nested scratch) is made so field by field."""
    def fix(a):
        if isinstance(a, tuple) and hasattr(a, "_fields"):
            return writable_contiguous(a)
        return a if a.flags.c_contiguous and a.flags.writeable else np.array(a, order="C")
    return type(tup)(*(fix(a) for a in tup))


def broadcast_worlds(field, arr, worlds, trailing):
    """Check a per-world parameter (1 or B, *trailing), or *trailing alone (one value for every
    world, as the discrete engine's params take it: a bare scalar for a scalar parameter), and
    broadcast it to (B, *trailing); trailing axes of size 1 broadcast too (e.g. (B, 1) for one
    value per world on every element)."""
    arr = np.asarray(arr, dtype=float)
    given = arr.shape
    if arr.ndim == len(trailing):
        arr = arr[None]
    trailing_ok = arr.ndim == 1 + len(trailing) and all(
        a in (1, t) for a, t in zip(arr.shape[1:], trailing))
    if not trailing_ok or arr.shape[0] not in (1, worlds):
        shapes = [tuple(trailing), (1, *trailing)] + ([(worlds, *trailing)] if worlds > 1 else [])
        raise ValueError(f"params['{field}'] has shape {given}, expected one of "
                         f"{', '.join(map(str, shapes))}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"params['{field}'] contains NaN or inf (must be finite)")
    return np.broadcast_to(arr, (worlds,) + tuple(trailing))
