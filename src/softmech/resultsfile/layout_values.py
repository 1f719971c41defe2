"""What the results-file layout check (softmech.resultsfile.validate_layout) asks of a value
-- a real number, an integer, text, a real dtype -- and how a refusal shows what it found."""
import h5py
import numpy as np

def is_bool(value):
    return isinstance(value, (bool, np.bool_))


def is_integer(value):
    return isinstance(value, (int, np.integer)) and not is_bool(value)


def number(value):
    """A real number, not a boolean (True is no time step)."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not is_bool(value)


def real(value, scalar=True):
    """A real number (bool counts: a flag), or with scalar=False also a real numeric array."""
    if isinstance(value, (bool, int, float, np.bool_, np.integer, np.floating)):
        return True
    return (not scalar and isinstance(value, np.ndarray) and value.dtype.kind in "biuf")


def text(value):
    """`value` as str if it is text (str, or UTF-8 bytes), else None."""
    if isinstance(value, str):
        return str(value)
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return None
    return None


def real_dtype(dtype):
    return dtype.kind in "iuf" and dtype.fields is None and dtype.subdtype is None


def text_dtype(dtype):
    return h5py.check_string_dtype(dtype) is not None or dtype.kind == "S"


def holds(obj):
    if isinstance(obj, h5py.Group):
        return "is a group"
    return f"holds shape {obj.shape} {obj.dtype}"


def shape_text(shape):
    names = iter("nmk")
    return "(" + ", ".join(str(s) if s is not None else next(names) for s in shape) + \
        ("," if len(shape) == 1 else "") + ")"


def show(value, limit=60):
    """A short description of a value for a message: its repr (cut) and type."""
    shown = value.item() if isinstance(value, np.generic) else value
    text = repr(value.tolist() if isinstance(value, np.ndarray) and value.size < 20 else shown)
    if len(text) > limit:
        text = text[:limit] + "..."
    kind = f"{value.dtype}" if isinstance(value, (np.ndarray, np.generic)) else type(value).__name__
    return f"{text} ({kind})"
