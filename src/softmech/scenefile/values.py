"""Values between Python builder arguments and TOML: numbers, strings, booleans, arrays (inline
lists or side-file references), rods (by name) and friction laws (sub-tables)."""
import dataclasses
import os
import zipfile

import numpy as np

from softmech.bodies.cosserat_rod import CosseratRod
from softmech.bodies.rigid_body import RigidBody
from softmech.implicit.body import ImplicitBody
from softmech.io import MAX_ARRAY_BYTES, npy_header_problem
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


MAX_SIDE_ARRAY_BYTES = MAX_ARRAY_BYTES
"""Largest array a .npy / .npz side file may declare (1 GiB): a tiny file whose header claims a
giant shape (or a zip bomb) is refused before anything is allocated."""


def side_file_path(name, base_dir, where, allow_outside=False):
    """The path of a file named in a scenario file (a side file, a shell's mesh): relative to
    base_dir (the scenario file's folder). Unless allow_outside, the file must lie inside that
    folder: a path that leaves it (through '..', an absolute path or a symbolic link) is a
    ScenarioError (a file from someone else must not read the user's other files)."""
    if not isinstance(name, str) or not name:
        raise ScenarioError(f"{where}: file = {name!r} is not allowed: must be a file name")
    path = name if os.path.isabs(name) else os.path.join(base_dir, name)
    if not allow_outside:
        root = os.path.realpath(base_dir)
        real = os.path.realpath(path)
        if os.path.commonpath([root, real]) != root:
            raise ScenarioError(
                f"{where}: file = {name!r} is not allowed: it lies outside the scenario file's "
                f"folder {root} (through '..', an absolute path or a link); move it beside the "
                "file, or trust the file and allow outside paths (load_scenario(..., "
                "allow_outside_files=True), or --allow-outside-files on the command line)")
    if not os.path.exists(path):
        raise ScenarioError(f"{where}: side file {name!r} not found (looked for {path})")
    return path


def load_side_array(ref, base_dir, where, allow_outside=False):
    """The array that a side-file reference points to; ScenarioError naming `where` if it cannot
    be read. .npz needs a key; .npy and .csv (comma-separated numbers, '#' comments) do not;
    meshes (.obj, .stl, .ply, read with trimesh) give their "vertices" (n, 3) [m] (the default)
    or "faces" (m, 3) (vertex indices), chosen by key. The path rules are side_file_path's; no
    pickled objects are read, and a NumPy header declaring more data than the file holds, or
    more than MAX_SIDE_ARRAY_BYTES, is refused before allocating."""
    name = ref["file"]
    path = side_file_path(name, base_dir, where, allow_outside)
    ext = os.path.splitext(name)[1].lower()
    key = ref.get("key")
    try:
        if ext == ".npz":
            if key is None:
                raise ScenarioError(f"{where}: a .npz side file needs key = \"...\" (the array's name)")
            with zipfile.ZipFile(path) as archive:
                members = {m[:-4]: m for m in archive.namelist() if m.endswith(".npy")}
                if key not in members:
                    raise ScenarioError(f"{where}: key = {key!r} not found in {name!r} "
                                        f"(it holds: {', '.join(sorted(members)) or 'nothing'})")
                info = archive.getinfo(members[key])
                with archive.open(info) as stream:
                    _check_npy_header(stream, info.file_size, f"{name}[{key!r}]", where)
            with np.load(path, allow_pickle=False) as data:
                return data[key]
        if ext == ".npy":
            with open(path, "rb") as stream:
                _check_npy_header(stream, os.path.getsize(path), name, where)
            return np.load(path, allow_pickle=False)
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


def _check_npy_header(stream, size, name, where):
    """Refuse a side file whose .npy header declares Python objects, or more data than the file
    holds or than MAX_SIDE_ARRAY_BYTES (softmech.io.npy_header_problem), before NumPy
    allocates the array."""
    problem, _, _ = npy_header_problem(stream, size, MAX_SIDE_ARRAY_BYTES)
    if problem:
        raise ScenarioError(f"{where}: side file {name!r}{problem}")


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


def resolve(value, base_dir, where, allow_outside=False):
    """Replace side-file references inside a TOML value by their arrays (recursively)."""
    if is_side_reference(value):
        return load_side_array(value, base_dir, where, allow_outside)
    if isinstance(value, dict):
        return {k: resolve(v, base_dir, f"{where}.{k}", allow_outside) for k, v in value.items()}
    return value
