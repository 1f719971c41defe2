"""Values between Python builder arguments and TOML: numbers, strings, booleans, arrays (inline
lists or side-file references), rods (by name) and friction laws (sub-tables)."""
import dataclasses
import os

import numpy as np

from softmech.bodies.cosserat_rod import CosseratRod
from softmech.bodies.rigid_body import RigidBody
from softmech.implicit.body import ImplicitBody
from softmech.scenefile.schema import INLINE_LIMIT

BODIES = (CosseratRod, RigidBody, ImplicitBody)
"""Body types a term argument may hold: written as the body's name."""


class ScenarioError(ValueError):
    """A scenario file that cannot be loaded: the message names the file, the table, the field,
    the value and what is allowed."""


def to_toml(value, key, side_arrays=None):
    """A builder argument as a TOML value. key: dotted path of the value (the side-file key).
    side_arrays: dict collecting arrays larger than INLINE_LIMIT (they become
    {file, key} references); None writes every array inline."""
    if isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    if isinstance(value, BODIES):                       # a body is referenced by its name
        return value.name
    if isinstance(value, (tuple, list)) and any(
            isinstance(v, (str,) + BODIES) for v in value):  # ("rod", "last"), rod lists
        return [to_toml(v, f"{key}[{i}]", side_arrays) for i, v in enumerate(value)]
    if dataclasses.is_dataclass(value):
        return {f.name: to_toml(getattr(value, f.name), f"{key}.{f.name}", side_arrays)
                for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {k: to_toml(v, f"{key}.{k}", side_arrays) for k, v in value.items()}
    arr = np.asarray(value)
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"{key} = {value!r} cannot be written to a scenario file: expected "
                         "numbers, strings, booleans or arrays of numbers")
    if side_arrays is not None and arr.size > INLINE_LIMIT:
        side_arrays[key] = arr
        return {"file": None, "key": key}                # the writer fills in the file name
    return arr.tolist()


def is_side_reference(value):
    """True for a side-file reference table { file = "...", key = "..." } (key optional)."""
    return isinstance(value, dict) and "file" in value and set(value) <= {"file", "key"}


def load_side_array(ref, base_dir, where):
    """The array that a side-file reference points to; ScenarioError naming `where` if it cannot
    be read. .npz needs a key; .npy and .csv (comma-separated numbers, '#' comments) do not;
    meshes (.obj, .stl, .ply, read with trimesh) give their "vertices" (n, 3) [m] (the default)
    or "faces" (m, 3) (vertex indices), chosen by key."""
    name = ref["file"]
    if not isinstance(name, str) or not name:
        raise ScenarioError(f"{where}: file = {name!r} is not allowed: must be a file name")
    path = name if os.path.isabs(name) else os.path.join(base_dir, name)
    if not os.path.exists(path):
        raise ScenarioError(f"{where}: side file {name!r} not found (looked for {path})")
    ext = os.path.splitext(name)[1].lower()
    key = ref.get("key")
    try:
        if ext == ".npz":
            if key is None:
                raise ScenarioError(f"{where}: a .npz side file needs key = \"...\" (the array's name)")
            with np.load(path) as data:
                if key not in data:
                    raise ScenarioError(f"{where}: key = {key!r} not found in {name!r} "
                                        f"(it holds: {', '.join(sorted(data.files)) or 'nothing'})")
                return data[key]
        if ext == ".npy":
            return np.load(path)
        if ext == ".csv":
            return np.loadtxt(path, delimiter=",", ndmin=1)
        if ext in MESH_EXTENSIONS:
            return _mesh_array(path, name, key, where)
    except ScenarioError:
        raise
    except Exception as err:   # any reader failure is reported with the file and field
        raise ScenarioError(f"{where}: cannot read side file {name!r}: {err}") from None
    raise ScenarioError(f"{where}: side file {name!r} is not allowed: the extension must be "
                        f"one of .npz, .npy, .csv, {', '.join(MESH_EXTENSIONS)}")


MESH_EXTENSIONS = (".obj", ".stl", ".ply")
"""Mesh side files, read with trimesh (vertex positions and faces, no processing)."""


def _mesh_array(path, name, key, where):
    """Vertices (n, 3) or faces (m, 3) of a mesh file (a vertex-only .obj is a point list)."""
    import trimesh

    key = key or "vertices"
    if key not in ("vertices", "faces"):
        raise ScenarioError(f"{where}: key = {key!r} is not allowed for the mesh {name!r}: must "
                            "be 'vertices' or 'faces'")
    mesh = trimesh.load(path, process=False)
    if not hasattr(mesh, key):
        raise ScenarioError(f"{where}: the mesh {name!r} has no {key} (it holds "
                            f"{type(mesh).__name__})")
    return np.asarray(getattr(mesh, key))


def resolve(value, base_dir, where):
    """Replace side-file references inside a TOML value by their arrays (recursively)."""
    if is_side_reference(value):
        return load_side_array(value, base_dir, where)
    if isinstance(value, dict):
        return {k: resolve(v, base_dir, f"{where}.{k}") for k, v in value.items()}
    return value
