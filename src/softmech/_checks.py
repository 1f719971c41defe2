"""Input validation: every public parameter is checked before any work starts, and a bad value
raises ValueError naming the field, the value and the allowed range."""
import numpy as np


def _show(value):
    arr = np.asarray(value)
    if arr.size > 6:
        return f"array of shape {arr.shape}"
    return repr(value if np.ndim(value) == 0 else arr.tolist())


def positive(field, value):
    """A finite scalar or array whose entries are all > 0; returned as float / float array."""
    arr = finite(field, value)
    if np.any(arr <= 0):
        raise ValueError(f"{field} = {_show(value)} is not allowed: must be > 0 (finite, positive)")
    return arr


def nonnegative(field, value):
    arr = finite(field, value)
    if np.any(arr < 0):
        raise ValueError(f"{field} = {_show(value)} is not allowed: must be >= 0")
    return arr


def _is_text(value):
    """True for a string, or a list / array holding one."""
    if isinstance(value, (str, bytes)):
        return True
    if isinstance(value, (list, tuple, np.ndarray)):
        if isinstance(value, np.ndarray) and value.dtype.kind not in "USO":
            return False
        return any(_is_text(v) for v in value)
    return False


def finite(field, value, shape=None):
    """A float array with no NaN/inf; with `shape` (None entries are free) also checks the shape.
    Text is refused, not converted ("1e7" is not the number 1e7: a scenario file's quoted value
    is an error naming its field)."""
    if _is_text(value):
        raise ValueError(f"{field} = {_show(value)} is not allowed: must be a number or array of "
                         "numbers, not text (write 1e7, not \"1e7\")")
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{field} = {_show(value)} is not allowed: must be a number or array of numbers") from None
    if shape is not None:
        ok = arr.ndim == len(shape) and all(s is None or s == a for s, a in zip(shape, arr.shape))
        if not ok:
            want = "(" + ", ".join("any" if s is None else str(s) for s in shape) + ")"
            raise ValueError(f"{field} has shape {arr.shape}, expected {want}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{field} = {_show(value)} is not allowed: contains NaN or inf (must be finite)")
    return arr


MAX_ELEMENTS = 10**7
"""Most elements of one rod: a larger count (a typo, or a file declaring 10^9) is refused before
its arrays are allocated (10^7 elements already take gigabytes of state and workspace)."""

MAX_WORLDS = 10**6
"""Most worlds of one compiled simulation, refused before the batched arrays are allocated."""


def integer(field, value, minimum, maximum=None):
    """An integer >= minimum (and <= maximum when given); a bool is not an integer."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{field} = {value!r} is not allowed: must be an integer >= {minimum}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{field} = {value!r} is not allowed: must be an integer in "
                         f"{minimum}..{maximum} (larger counts would exhaust memory)")
    return int(value)


def unit_vector(field, value):
    vec = finite(field, value, shape=(3,))
    norm = np.linalg.norm(vec)
    if norm == 0:
        raise ValueError(f"{field} = {_show(value)} is not allowed: must be a non-zero 3-vector")
    return vec / norm


def choice(field, value, allowed):
    if value not in allowed:
        raise ValueError(f"{field} = {value!r} is not allowed: must be one of {sorted(allowed)}")
    return value


def orthonormal_frames(field, Q, tol=1e-8):
    """Frames of shape (..., 3, 3) with Q Q^T = I and det Q = +1 within tol."""
    Q = finite(field, Q)
    if Q.ndim < 2 or Q.shape[-2:] != (3, 3):
        raise ValueError(f"{field} has shape {Q.shape}, expected (..., 3, 3)")
    err = np.abs(Q @ np.swapaxes(Q, -1, -2) - np.eye(3)).max() if Q.size else 0.0
    if err > tol or np.any(np.linalg.det(Q) < 0):
        raise ValueError(f"{field} is not allowed: frames must be orthonormal and right-handed "
                         f"(max |Q Q^T - I| = {err:.3g} > {tol:g}, or det < 0)")
    return Q


def per_element(field, value, n, positive_values=True):
    """Scalar or per-element array -> float array of shape (n,)."""
    arr = positive(field, value) if positive_values else finite(field, value)
    if arr.ndim == 0:
        return np.full(n, float(arr))
    if arr.shape != (n,):
        raise ValueError(f"{field} has shape {arr.shape}, expected a scalar or shape ({n},)")
    return arr.astype(float)
