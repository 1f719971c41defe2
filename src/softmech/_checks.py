"""Input validation: every public parameter is checked before any work starts, and a bad value
raises ValueError naming the field, the value and the allowed range."""
import importlib
import os

import numpy as np


def _show(value):
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):       # a ragged list: show it as written, shortened
        text = repr(value)
        return text if len(text) <= 80 else text[:77] + "..."
    if arr.size > 6:
        return f"array of shape {arr.shape}"
    return repr(value if np.ndim(value) == 0 else arr.tolist())


def positive(field, value, shape=None):
    """A finite scalar or array whose entries are all > 0; returned as float / float array
    (shape: as in `finite`; () for a single number)."""
    arr = finite(field, value, shape)
    if np.any(arr <= 0):
        raise ValueError(f"{field} = {_show(value)} is not allowed: must be > 0 (finite, positive)")
    return arr


def nonnegative(field, value, shape=None):
    arr = finite(field, value, shape)
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


def _quoted_number(value):
    """The first text in value (a string, or a list / array holding strings) that reads as a
    number, stripped, or None."""
    if isinstance(value, bytes):
        value = value.decode(errors="replace")
    if isinstance(value, str):
        try:
            float(value)
        except ValueError:
            return None
        return value.strip()
    if isinstance(value, (list, tuple, np.ndarray)):
        return next((q for q in map(_quoted_number, value) if q is not None), None)
    return None


def _unquoting_hint(value):
    """' (write 2.5e6, not "2.5e6")' for the user's own quoted number, or ''."""
    number = _quoted_number(value)
    return "" if number is None else f' (write {number}, not "{number}")'


def _is_boolean(value):
    """True for True / False (numpy's too), a boolean array, or a list / tuple holding one."""
    if isinstance(value, (bool, np.bool_)):
        return True
    if isinstance(value, np.ndarray):
        return value.dtype == bool
    if isinstance(value, (list, tuple)):
        return any(_is_boolean(v) for v in value)
    return False


def finite(field, value, shape=None):
    """A float array with no NaN/inf; with `shape` (None entries are free) also checks the shape.
    Text is refused, not converted ("1e7" is not the number 1e7: a scenario file's quoted value
    is an error naming its field), and so are True / False (radius=True is not a radius of 1)."""
    if _is_text(value):
        raise ValueError(f"{field} = {_show(value)} is not allowed: must be a number or array of "
                         f"numbers, not text{_unquoting_hint(value)}")
    if _is_boolean(value):
        shown = repr(value) if isinstance(value, (list, tuple)) else _show(value)
        raise ValueError(f"{field} = {shown if len(shown) <= 80 else _show(value)} is not "
                         "allowed: must be a number or array of numbers, not True / False")
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{field} = {_show(value)} is not allowed: must be a number or array of numbers") from None
    if shape is not None:
        ok = arr.ndim == len(shape) and all(s is None or s == a for s, a in zip(shape, arr.shape))
        if not ok and shape == ():
            raise ValueError(f"{field} = {_show(value)} is not allowed: must be a single number, "
                             f"not an array of shape {arr.shape}")
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


def user_result(owner, value, shape, t):
    """A user function's result at time t [s] as a float array of `shape`; ValueError naming
    `owner` (the term) if it has another shape or a NaN or inf (sm.NodeUserForce in both
    engines)."""
    out = np.asarray(value, dtype=float)
    if out.shape != shape:
        raise ValueError(f"{owner}: the user function returned shape {out.shape}, expected "
                         f"{shape}")
    if not np.all(np.isfinite(out)):
        raise ValueError(f"{owner}: the user function returned NaN or inf at t = {t:.6g} s")
    return out


def integer(field, value, minimum, maximum=None):
    """An integer >= minimum (and <= maximum when given); a bool is not an integer."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{field} = {value!r} is not allowed: must be an integer >= {minimum}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{field} = {value!r} is not allowed: must be an integer in "
                         f"{minimum}..{maximum} (larger counts would exhaust memory)")
    return int(value)


def memory_bytes():
    """Memory this process may use [bytes]: the machine's physical memory, or the address-space
    limit (ulimit -v, a cluster job's limit) where that is lower; 16 GiB where the OS does not
    say."""
    try:
        total = int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        total = 16 * 2**30
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft != resource.RLIM_INFINITY and soft > 0:
            total = min(total, soft)
    except (ImportError, ValueError, OSError):
        pass
    return total


MEMORY_FRACTION = 0.5
"""Share of the machine's physical memory that one scene's arrays may claim."""


def affordable_count(field, value, minimum, bytes_each, what):
    """An integer count >= minimum whose arrays (bytes_each [bytes] per item, an estimate) fit
    in MEMORY_FRACTION of physical memory: n_elems = 10**9 is refused here, with the allowed
    range, instead of failing in numpy with a MemoryError (or being killed by the OS) later."""
    n = integer(field, value, minimum)
    limit = max(minimum, int(MEMORY_FRACTION * memory_bytes() // bytes_each))
    if n > limit:
        raise ValueError(f"{field} = {n} is not allowed: must be an integer in [{minimum}, "
                         f"{limit}] on this machine ({what} would need about "
                         f"{n * bytes_each / 2**30:.3g} GiB, more than {MEMORY_FRACTION:.0%} "
                         f"of its {memory_bytes() / 2**30:.3g} GiB of memory)")
    return n


def unit_vector(field, value):
    vec = finite(field, value, shape=(3,))
    scale = np.max(np.abs(vec))
    if scale == 0:
        raise ValueError(f"{field} = {_show(value)} is not allowed: must be a non-zero 3-vector")
    vec = vec / scale                   # (1e300, 1e300, 0): its norm would overflow to inf
    return vec / np.linalg.norm(vec)


MAX_COORDINATE = 1e100
"""Largest |coordinate| [m] of a body's initial position: far beyond any scene, and small
enough that squared distances (contact searches, norms) do not overflow. The divergence guard
stops a run whose state exceeds the same bound (softmech.run_loop.EXPLODING)."""


def coordinates(field, value, shape):
    """Finite positions [m] of the given shape, each |coordinate| <= MAX_COORDINATE."""
    arr = finite(field, value, shape=shape)
    if arr.size and np.max(np.abs(arr)) > MAX_COORDINATE:
        raise ValueError(f"{field} = {_show(value)} is not allowed: coordinates must be within "
                         f"+-{MAX_COORDINATE:g} m (largest {np.max(np.abs(arr)):.3g} m)")
    return arr


def boolean(field, value):
    """True or False (numpy's too), as a bool; anything else (0, 1, "true") is refused."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{field} = {value!r} is not allowed: must be True or False")
    return bool(value)


def choice(field, value, allowed):
    try:
        known = value in allowed
    except TypeError:           # a list or table where a name was expected (unhashable)
        known = False
    if not known:
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


# ---------------------------------------------------------------- physical bounds per field
# A value outside these ranges is no material and no body: it is a units slip (mm written as m,
# MPa as Pa, g/cm^3 as kg/m^3) or a typo, and it would run as nonsense (a 1e-300 Pa rod, a
# ring of radius 1e12 m). Each range is wide enough to hold every built-in scene and test.
MODULUS = (1e-3, 1e13, "Pa")
"""Young's and shear moduli [Pa]: 1 mPa is a thousand times softer than the softest
hydrogels and tissues (~1 Pa - 1 kPa; brain ~1 kPa); 10 TPa is eight times diamond's 1.2 TPa,
the stiffest bulk material. Built-in scenes: swimmer 3.9 MPa, walker 300 kPa, cells 340 kPa,
bones 17 GPa."""

DENSITY = (1e-3, 1e5, "kg/m^3")
"""Densities of bodies [kg/m^3]: 1e-3 is a thousandth of air (1.2) and below the lightest
aerogels (~1); 1e5 is over four times osmium (22,590), the densest element. A fixed body with
neither density nor mass gets rigid_body.FIXED_DENSITY (1000)."""

LENGTH = (1e-9, 1e4, "m")
"""Lengths, radii and thicknesses of bodies [m]: 1 nm is a few atoms, below which a
continuum rod or shell means nothing (the swimmer's tail is 4.3 um thick); 10 km is beyond any
soft robot, animal or cable model a laptop runs (rods of 1e4 m elements are still
representable to 1e-12 m)."""


def physical(field, value, bounds, shape=None):
    """A positive finite scalar or array (as `positive`) whose entries all lie within `bounds`
    (MODULUS, DENSITY, LENGTH: (lowest, highest, unit)); ValueError naming the field,
    the value and the range otherwise."""
    arr = positive(field, value, shape)
    low, high, unit = bounds
    if np.any(arr < low) or np.any(arr > high):
        worst = arr.min() if np.any(arr < low) else arr.max()
        raise ValueError(f"{field} = {_show(value)} {unit} is not allowed: must be within "
                         f"[{low:g}, {high:g}] {unit} (physical bounds, softmech._checks; "
                         f"{worst:g} {unit} is a units slip or a typo)")
    return arr


def poisson_ratio(field, value, low=-1.0, high=0.5, open_low=True, open_high=False):
    """Poisson's ratio, a single number in (-1, 0.5] (the bounds of an isotropic elastic
    material; a body may narrow them, e.g. [0, 0.5)), as float."""
    nu = float(finite(field, value, shape=()))
    if (nu <= low if open_low else nu < low) or (nu >= high if open_high else nu > high):
        raise ValueError(f"{field} = {_show(value)} is not allowed: must be in "
                         f"{'(' if open_low else '['}{low:g}, {high:g}{')' if open_high else ']'}")
    return nu


def per_element(field, value, n, positive_values=True, of=None, bounds=None):
    """Scalar or per-element array -> float array of shape (n,); `of`: what sets the number of
    elements (e.g. "rod 'r'.centerline (6 nodes)"), named when the shape does not fit;
    `bounds`: physical bounds of the values (MODULUS, DENSITY, LENGTH) when given."""
    arr = (physical(field, value, bounds) if bounds is not None else
           positive(field, value) if positive_values else finite(field, value))
    if arr.ndim == 0:
        return np.full(n, float(arr))
    if arr.shape != (n,):
        source = "" if of is None else f": one value per element of {of}"
        raise ValueError(f"{field} has shape {arr.shape}, expected a scalar or shape "
                         f"({n},){source}")
    return arr.astype(float)


MAX_STEPS = 10**9
"""Most time steps one run may take: at ~1 us per step that is 20 minutes of the fastest scene,
hours of most; a duration = 1e30 s or dt = 1e-300 s request is refused before it starts."""

MAX_SAMPLES = 10**7
"""Most samples one run may record (a [record] every = 1e-12 s would fill the disk)."""


def run_steps(duration, dt, every=None):
    """(steps, steps between samples) of a run of `duration` [s] at `dt` [s] recorded every
    `every` [s] (None: the end only); ValueError naming the field if the run would take more
    than MAX_STEPS steps or record more than MAX_SAMPLES samples."""
    steps = round(duration / dt)
    if steps > MAX_STEPS:
        raise ValueError(f"duration = {duration:g} s is not allowed at dt = {dt:g} s: "
                         f"{steps:.3g} steps, a run may take at most {MAX_STEPS:.0e} (shorten "
                         "the duration or take a larger dt)")
    steps = int(steps)
    if every is None:
        return steps, steps
    every_steps = max(1, int(round(every / dt)))
    samples = steps // every_steps
    if samples > MAX_SAMPLES:
        raise ValueError(f"every = {every:g} s is not allowed for a run of {duration:g} s at "
                         f"dt = {dt:g} s: {samples:.3g} samples, a run may record at most "
                         f"{MAX_SAMPLES:.0e} (record less often)")
    return steps, every_steps


def optional_module(name, needed_for, install):
    """The optional package `name`, imported; ValueError saying what needs it (`needed_for`,
    e.g. "--format parquet") and how to get it (`install`) when it is missing, so that a command
    refuses before any work starts instead of failing after it."""
    try:
        return importlib.import_module(name)
    except ImportError:
        raise ValueError(f"{needed_for} needs the {name} package, which is not installed: "
                         f"{install}") from None
