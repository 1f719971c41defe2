"""The one checker of the results-file layout (layout.py, docs/results_files.md): every reader
(`load_results`, `describe` and so `softmech info`, the pictures' `read_results` and so `softmech
view` and `render`, `ResultsWriter.open` / `reopen` and so `run --resume`) opens a file through
`reader.check_format`, which calls `check_layout` before anything else is read. A crafted or
damaged file is refused there with one ValueError naming the file, the dataset or attribute,
what it holds and what was expected -- never a TypeError or IndexError deep in a reader, and
never numbers read back silently wrong (issue 32: a 2-D /time, a series shorter than /time, a
complex series, `dt = "abc"` were read or crashed before).

What is checked, in this order (so that a foreign or forged file gets the most telling message):

1. root attribute `format` is "softmech-results" and `format_version` an integer this softmech
   reads (1 or 2);
2. no dataset declares far more bytes than it stores (unwritten chunks: a tiny file claiming
   giant arrays), from the metadata alone;
3. every link is a hard link inside the file (an external or soft link could make a reader open
   another file), at most MAX_OBJECTS objects; every attribute anywhere is a plain value (text,
   a boolean, a real number or a real numeric array; not complex, compound, opaque or empty),
   every `units` attribute is text; every dataset holds real numbers (float or integer; not
   complex, boolean, compound or bytes), text only at /scene_toml, /settings_json and
   /derived/<name>;
4. root attributes: complete (bool), dt (finite, > 0) [s], duration (finite, >= 0) [s], worlds
   (integer >= 1), scheme, scene, created, softmech_version (text);
5. /time: 1-D, resizable and chunked (the writer appends to it), finite and non-decreasing;
   /scene_toml: a scalar UTF-8 string; /settings_json: a scalar UTF-8 string holding a JSON
   object;
6. /rods/<rod>: n_nodes, n_elems (integers >= 1), closed (bool), consistent (n_nodes = n_elems +
   1 for an open rod, = n_elems for a closed one); radius (1 or B, n_elems) and rest_lengths
   (n_elems,), finite and > 0 (a version 1 file may lack them); the revolution attributes all
   or none;
   /bodies/<body>: shape (one of SHAPES), fixed (bool), mass, inertia (3, 3), principal_axes
   (3, 3) and the shape's sizes; /shells/<shell>: faces (m, 3) or edges (m, 2) of integer
   node indices into its positions, radius (m,), thickness; /joints/<joint>: kind, a_body,
   b_body (text, naming a body of the file), a_node, b_node (integers, within a rod's nodes),
   a_point, b_point (3,); every number of these descriptions finite and at most MAX_MAGNITUDE;
7. every time series (/rods, /bodies, /shells, /recorders): float, (B, n, ...) with B = worlds,
   resizable along the samples and chunked, n at least len(/time) (an incomplete file may hold
   samples appended after the last /time: /time is written last, the commit marker) and equal to
   it once the run is complete; the sample shape of the built-in fields (positions (n_nodes, 3),
   directors (n_elems, 3, 3), com (3,), energies (), ...; a rigid body has one node);
   /derived/<name>: real numbers or text; the values of the positions and directors series
   finite and at most MAX_MAGNITUDE (check_values) where they are read: by load_results as it
   reads them, by check_layout(values=True) for resume;
8. the checkpoint that `--resume` would use (/checkpoint, else a fully written
   /checkpoint_tmp): n_samples in [1, len(/time)], steps >= 0, time_origin and time finite; a
   group per body holding finite float arrays (B, ...), its positions, velocities and directors
   of the body's shape.

Other series' values are not checked (a user recorder may return NaN); every chunk is
checksummed (Fletcher-32), so a torn chunk fails when read, in `reader.damaged_file_errors`.
"""
import json

import h5py
import numpy as np

from softmech import _checks
from softmech.resultsfile import layout
from softmech.resultsfile import layout_values as lv

MAX_EXPANSION = 1100
"""Most bytes a dataset may declare per stored byte: zlib (the files' gzip filter) expands at
most ~1032 times. A dataset that declares more holds unwritten chunks -- a tiny file claiming
giant arrays, refused before anything is read."""

MAX_OBJECTS = 1_000_000
"""Most groups and datasets a results file may hold (the wing, the largest scene, has ~10^4)."""

MAX_TEXT_BYTES = 64 * 2**20
"""Largest /scene_toml or /settings_json (scenario files are limited to 64 MiB too)."""

MAX_MAGNITUDE = 1e100
"""Largest magnitude of a description's number and of a recorded position or frame entry (the
divergence guard's bound on coordinates [m]): pictures compute lengths and frames from them,
which overflow beyond (a joint point at 1e300 m made a NaN frame, found by the fuzz)."""

DRAWN_FIELDS = ("positions", "directors")
"""Time series the pictures draw: load_results checks their values (check_values)."""

SHAPES = ("sphere", "cylinder", "box", "general")
"""Rigid-body shapes (softmech.bodies.rigid_body.SHAPES)."""

TEXT_DATASETS = ("scene_toml", "settings_json")
STATIC = {"rods": {"radius", "rest_lengths"},
          "bodies": {"mass", "inertia", "principal_axes", "radius", "length", "lengths",
                     "vertices", "faces"},
          "shells": {"faces", "thickness", "edges", "radius"}}
"""Datasets of /<group>/<owner> that are descriptions, not time series."""

NODE_FIELDS = ("positions", "velocities", "contact_force", "rod_contact_force")
VECTOR_FIELDS = ("com", "com_velocity", "linear_momentum", "angular_momentum")
SCALAR_FIELDS = ("translational_energy", "rotational_energy", "bending_energy",
                 "twisting_energy", "shear_energy", "stretch_energy", "total_energy")


def check_layout(path, f, *, values=False):
    """ValueError naming `path`, the dataset or attribute, its content and what is expected,
    unless the open h5py file `f` follows the results layout (the module's docstring lists the
    checks); with `values`, also the values of the DRAWN_FIELDS series (check_values: resume,
    which does not read them otherwise). Returns {"time": (n,) float64 [s], "settings": dict,
    "scene_toml": str}: what was read to check it, so that readers need not read it again.
    h5py's own ValueErrors (a damaged datatype: "Insufficient precision in available types")
    are refused naming the file."""
    try:
        return _Checker(path, f, values).run()
    except ValueError as err:
        if str(err).startswith(f"results file {str(path)!r}"):
            raise
        raise ValueError(f"results file {str(path)!r} is not allowed: h5py cannot read an "
                         f"object in it ({err}); expected a softmech results file (a damaged "
                         "or forged file)") from None


def check_values(path, where, value):
    """ValueError naming the file and dataset `where` unless the recorded series `value`
    (positions [m] or directors) is finite and of magnitude at most MAX_MAGNITUDE: the run
    that wrote it stopped at its last finite state (divergence guard), so anything else is a
    damaged file. Called by load_results on the DRAWN_FIELDS it reads."""
    bad = ~(_magnitude(value) <= MAX_MAGNITUDE)
    if np.any(bad):
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"results file {str(path)!r} is not allowed: {where} holds "
                         f"{float(value[index])!r} at index {index}; expected finite numbers of "
                         f"magnitude at most {MAX_MAGNITUDE:g}")


def _magnitude(value):
    """|value| as float64: MAX_MAGNITUDE does not fit a float16 (numpy would warn, casting)."""
    return np.abs(np.asarray(value, dtype=np.float64))


def declares_too_much(obj):
    """True for a dataset that declares more than MAX_EXPANSION times the bytes it stores (plus
    1 MiB): reading it would allocate memory that no file of this size can fill."""
    if not isinstance(obj, h5py.Dataset) or obj.dtype.kind == "O" or obj.shape is None:
        return False
    return obj.size * obj.dtype.itemsize > MAX_EXPANSION * obj.id.get_storage_size() + 2**20


def sample_shape(group, field, n_nodes, n_elems):
    """Per-sample shape of built-in field `field` of a body with n_nodes nodes and n_elems
    elements (None: the node count is not known, or a field whose shape is not fixed here)."""
    if field in VECTOR_FIELDS:
        return (3,)
    if field in SCALAR_FIELDS:
        return ()
    if n_nodes is None:
        return None
    if field in NODE_FIELDS:
        return (n_nodes, 3)
    if field == "directors" and group != "shells":
        return (n_elems, 3, 3)
    return None


class _Checker:
    def __init__(self, path, f, values=False):
        self.path, self.f, self.values = str(path), f, values

    # ---------------------------------------------------------------------------- messages
    def fail(self, where, holds, expected):
        raise ValueError(f"results file {self.path!r} is not allowed: {where} {holds}; "
                         f"expected {expected}")

    def need(self, group, name, where):
        """group[name], or ValueError naming the missing entry."""
        if name not in group:
            self.fail(where, "is missing", "it in every softmech results file")
        return group[name]

    # -------------------------------------------------------------------------- the checks
    def run(self):
        f = self.f
        self.check_format()
        self.version = int(f.attrs["format_version"])
        self.check_sizes()
        self.check_objects()
        self.check_root_attrs()
        out = self.check_root_datasets()
        self.n = len(out["time"])
        self.complete = bool(f.attrs["complete"])
        self.worlds = int(f.attrs["worlds"])
        self.owners = {}            # (group, name) -> (n_nodes or None, n_elems or None)
        self._by_name = None        # {name: owners' value}, built when first needed
        for group in ("rods", "bodies", "shells", "recorders", "derived", "joints"):
            if group in f and not isinstance(f[group], h5py.Group):
                self.fail(f"/{group}", "is a dataset", "a group")
        for name, g in f.get("rods", {}).items():
            self.check_rod(name, g)
        for name, g in f.get("bodies", {}).items():
            self.check_body(name, g)
        for name, g in f.get("shells", {}).items():
            self.check_shell(name, g)
        for name, ds in f.get("recorders", {}).items():
            self.check_series(f"/recorders/{name}", ds, None)
        for name, ds in f.get("derived", {}).items():
            if not isinstance(ds, h5py.Dataset):
                self.fail(f"/derived/{name}", "is a group", "a dataset")
        for name, g in f.get("joints", {}).items():
            self.check_joint(name, g)
        self.check_checkpoint()
        return out

    def check_format(self):
        fmt, version = self.f.attrs.get("format"), self.f.attrs.get("format_version")
        if lv.text(fmt) != layout.FORMAT:         # also an array, which == would compare per item
            raise ValueError(f"results file {self.path!r} is not allowed: attribute format = "
                             f"{fmt!r}, expected {layout.FORMAT!r} (not a softmech results file)")
        if not lv.is_integer(version) or int(version) not in layout.READABLE_VERSIONS:
            raise ValueError(f"results file {self.path!r} has format_version = {version!r}; "
                             f"this softmech reads versions {list(layout.READABLE_VERSIONS)}")

    def check_sizes(self):
        """No dataset declares far more data than it stores (from the metadata only)."""
        def visit(name, obj):
            try:
                too_much = declares_too_much(obj)
            except ValueError as err:       # a datatype numpy has no type for (damaged)
                self.fail(f"/{name}", f"has a datatype numpy cannot represent ({err})",
                          "real numbers (float or integer)")
            if too_much:
                declared = obj.size * obj.dtype.itemsize
                raise ValueError(f"results file {self.path!r} is not allowed: dataset /{name} "
                                 f"declares shape {obj.shape} ({declared:,} bytes) but stores "
                                 f"{obj.id.get_storage_size():,} bytes (a damaged or forged "
                                 "file)")
        self.f.visititems(visit)

    def check_objects(self):
        """Hard links only, plain attributes, real numeric (or, where expected, text) datasets;
        walked without recursion, at most MAX_OBJECTS objects."""
        todo, count = [("", self.f)], 0
        while todo:
            prefix, group = todo.pop()
            self.check_attrs(prefix or "/", group)
            for name in group:
                if isinstance(name, bytes):     # h5py hands back names it cannot decode
                    self.fail(prefix or "/", f"holds an object named {name!r}",
                              "object names in UTF-8 text (a damaged name)")
                where = f"{prefix}/{name}"
                link = group.get(name, getlink=True)
                if not isinstance(link, h5py.HardLink):
                    self.fail(where, f"is a {type(link).__name__}", "a group or dataset stored "
                              "in the file itself (no soft or external links)")
                count += 1
                if count > MAX_OBJECTS:
                    self.fail("the file", f"holds more than {MAX_OBJECTS:,} objects",
                              "a results file's groups and datasets")
                obj = group[name]
                if isinstance(obj, h5py.Group):
                    todo.append((where, obj))
                    continue
                self.check_attrs(where, obj)
                text = where in ("/scene_toml", "/settings_json") or where.startswith("/derived/")
                if obj.shape is None:
                    self.fail(where, "is an empty (null) dataset", "an array")
                if not (lv.real_dtype(obj.dtype) or text and lv.text_dtype(obj.dtype)):
                    self.fail(where, f"holds dtype {obj.dtype}",
                              "real numbers (float or integer)" + (" or text" if text else ""))

    def check_attrs(self, where, obj):
        for key in obj.attrs:
            try:
                value = obj.attrs[key]
            except Exception as err:    # noqa: BLE001 - h5py raises many kinds for odd types
                self.fail(f"attribute {key!r} of {where}", f"cannot be read ({type(err).__name__})",
                          "text, a boolean or real numbers")
            plain = lv.text(value) is not None or lv.real(value, scalar=False)
            if not plain or key == "units" and lv.text(value) is None:
                self.fail(f"attribute {key!r} of {where}", f"= {lv.show(value)}",
                          "text" if key == "units" else "text, a boolean or real numbers")

    def check_root_attrs(self):
        a, where = self.f.attrs, "root attribute"
        for key in ("complete", "dt", "duration", "worlds", "scheme", "scene", "created",
                    "softmech_version"):
            if key not in a:
                self.fail(f"{where} {key!r}", "is missing", "it in every softmech results file")
        if not lv.is_bool(a["complete"]):
            self.fail(f"{where} complete", f"= {lv.show(a['complete'])}", "True or False")
        for key, low, rule in (("dt", 0.0, "> 0"), ("duration", None, ">= 0")):
            value = a[key]
            ok = lv.number(value) and np.isfinite(value) and (
                value > 0 if low is not None else value >= 0)
            if not ok:
                self.fail(f"{where} {key}", f"= {lv.show(value)}", f"a finite number {rule} [s]")
        if not lv.is_integer(a["worlds"]) or int(a["worlds"]) < 1:
            self.fail(f"{where} worlds", f"= {lv.show(a['worlds'])}", "an integer >= 1")
        for key in ("scheme", "scene", "created", "softmech_version"):
            if lv.text(a[key]) is None:
                self.fail(f"{where} {key}", f"= {lv.show(a[key])}", "text")

    def check_root_datasets(self):
        f = self.f
        time = self.need(f, "time", "/time")
        if not isinstance(time, h5py.Dataset) or time.ndim != 1:
            self.fail("/time", lv.holds(time), "shape (n,): the sample times [s]")
        if time.maxshape != (None,) or time.chunks is None:
            self.fail("/time", f"has maxshape {time.maxshape} and chunks {time.chunks}",
                      "a chunked dataset resizable along its samples (maxshape (None,))")
        t = np.asarray(time[()], dtype=np.float64)
        if not np.all(np.isfinite(t)):
            k = int(np.flatnonzero(~np.isfinite(t))[0])
            self.fail("/time", f"holds {t[k]} at sample {k}", "finite sample times [s]")
        if np.any(np.diff(t) < 0):
            k = int(np.flatnonzero(np.diff(t) < 0)[0])
            self.fail("/time", f"decreases from {float(t[k])!r} to {float(t[k + 1])!r} at "
                      f"sample {k + 1}", "non-decreasing sample times [s]")
        texts = {}
        for name in TEXT_DATASETS:
            ds = self.need(f, name, f"/{name}")
            if not isinstance(ds, h5py.Dataset) or ds.shape != () or not lv.text_dtype(ds.dtype):
                self.fail(f"/{name}", lv.holds(ds), "a scalar string dataset")
            if ds.id.get_storage_size() > MAX_TEXT_BYTES:
                self.fail(f"/{name}", f"stores {ds.id.get_storage_size():,} bytes",
                          f"at most {MAX_TEXT_BYTES:,}")
            value = ds[()]
            text = lv.text(value)
            if text is None:
                self.fail(f"/{name}", f"= {lv.show(value)} (not UTF-8 text)", "UTF-8 text")
            texts[name] = text
        try:
            settings = json.loads(texts["settings_json"])
        except (ValueError, RecursionError) as err:
            self.fail("/settings_json", f"= {lv.show(texts['settings_json'])} is not JSON ({err})",
                      "a JSON object (the run settings)")
        if not isinstance(settings, dict):
            self.fail("/settings_json", f"holds a JSON {type(settings).__name__}",
                      "a JSON object (the run settings)")
        return {"time": t, "settings": settings, "scene_toml": texts["scene_toml"]}

    # ---------------------------------------------------------------------------- bodies
    def group_of(self, kind, name, g):
        where = f"/{kind}/{name}"
        if not isinstance(g, h5py.Group):
            self.fail(where, "is a dataset", "a group")
        return where

    def static(self, where, g, name, shape, *, integer=False, positive=False, required=True):
        """Dataset `name` of group g: of `shape` (None entries: any length), finite reals (or
        integers), > 0 with `positive`; its values, or None when absent and not required."""
        if name not in g:
            if required:
                self.fail(f"{where}/{name}", "is missing", f"shape {lv.shape_text(shape)}")
            return None
        ds = g[name]
        if not isinstance(ds, h5py.Dataset) or ds.ndim != len(shape) or any(
                s is not None and s != n for s, n in zip(shape, ds.shape)):
            self.fail(f"{where}/{name}", lv.holds(ds), f"shape {lv.shape_text(shape)}")
        if integer and ds.dtype.kind not in "iu":
            self.fail(f"{where}/{name}", lv.holds(ds), "integers (node indices)")
        value = ds[()]
        if not np.all(_magnitude(value) <= MAX_MAGNITUDE) or positive and not np.all(value > 0):
            self.fail(f"{where}/{name}", f"holds {lv.show(value)}",
                      f"finite numbers{' > 0' if positive else ''} of magnitude at most "
                      f"{MAX_MAGNITUDE:g}")
        return value

    def attr(self, where, g, key, kind):
        """Attribute `key` of g checked as kind "int", "bool" or "text"; its value."""
        if key not in g.attrs:
            self.fail(f"attribute {key!r} of {where}", "is missing",
                      {"int": "an integer", "bool": "True or False", "text": "text"}[kind])
        value = g.attrs[key]
        ok = {"int": lv.is_integer, "bool": lv.is_bool, "text": lambda v: lv.text(v) is not None}[kind]
        if not ok(value):
            self.fail(f"attribute {key!r} of {where}", f"= {lv.show(value)}",
                      {"int": "an integer", "bool": "True or False", "text": "text"}[kind])
        return lv.text(value) if kind == "text" else value

    def check_rod(self, name, g):
        where = self.group_of("rods", name, g)
        if self.version == 1 and "radius" not in g and not any(
                k in g.attrs for k in ("n_nodes", "n_elems", "closed")):
            # version 1 stored a rigid body's series as a rod without a description: readable,
            # not drawable (viz.source says so)
            self.add_owner("rods", name, (None, None))
            return self.check_group_series("rods", name, g, None, None)
        n_nodes, n_elems = (int(self.attr(where, g, k, "int")) for k in ("n_nodes", "n_elems"))
        closed = bool(self.attr(where, g, "closed", "bool"))
        if n_elems < 1 or n_nodes != n_elems + (0 if closed else 1):
            self.fail(where, f"has n_nodes = {n_nodes}, n_elems = {n_elems}, closed = {closed}",
                      "n_elems >= 1 and n_nodes = n_elems (closed) or n_elems + 1 (open)")
        # version 2 always writes both; version 1 files may lack them (viz.source then says the
        # rod cannot be drawn)
        v2 = self.version >= 2
        radius = self.static(where, g, "radius", (None, n_elems), positive=True, required=v2)
        if radius is not None and len(radius) not in (1, self.worlds):
            self.fail(f"{where}/radius", lv.holds(g["radius"]),
                      f"shape (1, {n_elems}) or ({self.worlds}, {n_elems}) "
                      f"(worlds = {self.worlds})")
        self.static(where, g, "rest_lengths", (n_elems,), positive=True, required=v2)
        keys = ("revolution_body", "revolution_axis", "revolution_origin")
        if any(k in g.attrs for k in keys):
            self.attr(where, g, keys[0], "text")
            for key in keys[1:]:
                value = g.attrs.get(key)
                if not lv.real(value, scalar=False) or np.shape(value) != (3,) or not np.all(
                        np.isfinite(value)):
                    self.fail(f"attribute {key!r} of {where}", f"= {lv.show(value)}",
                              "3 finite numbers (an axisymmetric shell's axis)")
        self.add_owner("rods", name, (n_nodes, n_elems))
        self.check_group_series("rods", name, g, n_nodes, n_elems)

    def check_body(self, name, g):
        where = self.group_of("bodies", name, g)
        shape = self.attr(where, g, "shape", "text")
        if shape not in SHAPES:
            self.fail(f"attribute 'shape' of {where}", f"= {shape!r}", f"one of {list(SHAPES)}")
        self.attr(where, g, "fixed", "bool")
        self.static(where, g, "mass", (), positive=True)
        self.static(where, g, "inertia", (3, 3))
        self.static(where, g, "principal_axes", (3, 3))
        sizes = {"sphere": {"radius": ()}, "cylinder": {"radius": (), "length": ()},
                 "box": {"lengths": (3,)}, "general": {}}[shape]
        for key, size in sizes.items():
            self.static(where, g, key, size, positive=True)
        if shape == "general" and ("vertices" in g or "faces" in g):
            vertices = self.static(where, g, "vertices", (None, 3))
            self.indices(where, g, "faces", 3, len(vertices))
        self.add_owner("bodies", name, (1, 1))
        self.check_group_series("bodies", name, g, 1, 1)

    def check_shell(self, name, g):
        where = self.group_of("shells", name, g)
        positions = g.get("positions")
        n_nodes = None
        if isinstance(positions, h5py.Dataset) and positions.ndim == 4:
            n_nodes = positions.shape[2]
        if "faces" in g:
            self.indices(where, g, "faces", 3, n_nodes)
            self.static(where, g, "thickness", (), required=False)
        else:
            edges = self.indices(where, g, "edges", 2, n_nodes)
            self.static(where, g, "radius", (len(edges),), positive=True)
        self.add_owner("shells", name, (n_nodes, None))
        self.check_group_series("shells", name, g, n_nodes, None)

    def indices(self, where, g, key, width, n_nodes):
        """Node indices (m, width) in [0, n_nodes) (n_nodes None: only >= 0)."""
        value = self.static(where, g, key, (None, width), integer=True)
        bad = (value < 0) | ((value >= n_nodes) if n_nodes is not None else False)
        if np.any(bad):
            self.fail(f"{where}/{key}", f"holds node index {value[bad][0]}",
                      f"indices in [0, {n_nodes}) (the nodes of its positions)"
                      if n_nodes is not None else "indices >= 0")
        return value

    def add_owner(self, group, name, shape):
        """Record body `name` of `group` ("rods", "bodies", "shells") with its (n_nodes or
        None, n_elems or None)."""
        self.owners[(group, name)] = shape
        self._by_name = None

    def owners_by_name(self):
        """{body name: (n_nodes, n_elems)} of self.owners, built once after the last
        add_owner (a file of thousands of bodies and joints: a lookup per joint, not a pass)."""
        if self._by_name is None:
            self._by_name = {o: v for (_, o), v in self.owners.items()}
        return self._by_name

    def check_joint(self, name, g):
        where = self.group_of("joints", name, g)
        self.attr(where, g, "kind", "text")
        for side in ("a", "b"):
            body = self.attr(where, g, f"{side}_body", "text")
            node = int(self.attr(where, g, f"{side}_node", "int"))
            owners = self.owners_by_name()
            if body not in owners:
                self.fail(f"attribute '{side}_body' of {where}", f"= {body!r}",
                          f"a body of the file {sorted(owners)}")
            owner = owners[body]
            if ("rods", body) in self.owners and not -owner[0] <= node < owner[0]:
                self.fail(f"attribute '{side}_node' of {where}", f"= {node}",
                          f"a node of rod {body!r}: in [{-owner[0]}, {owner[0]})")
            self.static(where, g, f"{side}_point", (3,))

    # ------------------------------------------------------------------------ time series
    def check_group_series(self, kind, name, g, n_nodes, n_elems):
        for field, ds in g.items():
            if field not in STATIC[kind]:
                self.check_series(f"/{kind}/{name}/{field}", ds,
                                  sample_shape(kind, field, n_nodes, n_elems))

    def check_series(self, where, ds, sample):
        """A time series (B, n, *sample) (sample None: any) of float samples."""
        if not isinstance(ds, h5py.Dataset):
            self.fail(where, "is a group", "a time series dataset (B, n, ...)")
        expected = (f"a time series ({self.worlds}, n >= {self.n}"
                    + ("".join(f", {s}" for s in sample) if sample is not None else ", ...")
                    + ") of floats, resizable along its samples")
        if ds.ndim < 2 or not layout.is_series(ds) or ds.chunks is None or \
                ds.dtype.kind != "f" or ds.shape[0] != self.worlds or \
                (sample is not None and ds.shape[2:] != tuple(sample)):
            self.fail(where, lv.holds(ds), expected + f" (worlds = {self.worlds})")
        if ds.shape[1] < self.n or self.complete and ds.shape[1] != self.n:
            self.fail(where, f"holds {ds.shape[1]} samples against {self.n} in /time",
                      f"{self.n} samples" + ("" if self.complete else " or more (an incomplete "
                                             "file may hold samples not yet in /time)"))
        if self.values and where.rsplit("/", 1)[-1] in DRAWN_FIELDS:
            check_values(self.path, where, ds[:, :self.n])

    # ------------------------------------------------------------------------- checkpoint
    def check_checkpoint(self):
        for name in (layout.CHECKPOINT, layout.CHECKPOINT_TMP):
            g = self.f.get(name)
            if g is None:
                continue
            where = self.group_of("", name, g)[1:]
            for key, rule in (("n_samples", "int"), ("steps", "int"),
                              ("time_origin", "real"), ("time", "real")):
                if key in g.attrs:
                    value = g.attrs[key]
                    ok = lv.is_integer(value) if rule == "int" else (
                        lv.number(value) and np.isfinite(value))
                    if not ok:
                        self.fail(f"attribute {key!r} of {where}", f"= {lv.show(value)}",
                                  "an integer" if rule == "int" else "a finite number [s]")
            if "n_samples" in g.attrs:          # the one resume uses (writer.checkpoint_group)
                return self.check_resumable(where, g)

    def check_resumable(self, where, g):
        for key in ("steps", "time_origin", "time"):
            if key not in g.attrs:
                self.fail(f"attribute {key!r} of {where}", "is missing", "it in a checkpoint")
        n, steps = int(g.attrs["n_samples"]), int(g.attrs["steps"])
        if not 1 <= n <= self.n or steps < 0:
            self.fail(where, f"has n_samples = {n}, steps = {steps}",
                      f"n_samples in [1, {self.n}] (the samples in /time) and steps >= 0")
        for (kind, owner), (n_nodes, n_elems) in self.owners.items():
            if kind != "recorders" and owner not in g:
                self.fail(f"{where}/{owner}", "is missing", "the state of every body")
        for owner, sub in g.items():
            if owner == "_history":     # an implicit engine's memory (writer.HISTORY): any
                continue                # real arrays, e.g. a sparsity pattern
            if not isinstance(sub, h5py.Group):
                self.fail(f"{where}/{owner}", "is a dataset", "a group of state arrays")
            n_nodes, n_elems = self.owners_by_name().get(owner, (None, None))
            for field, ds in sub.items():
                sample = sample_shape("checkpoint", field, n_nodes, n_elems)
                if not isinstance(ds, h5py.Dataset) or ds.ndim < 1 or \
                        ds.shape[0] != self.worlds or ds.dtype.kind != "f" or \
                        (sample is not None and ds.shape[1:] != sample):
                    self.fail(f"{where}/{owner}/{field}", lv.holds(ds),
                              f"a state array ({self.worlds}"
                              + ("".join(f", {s}" for s in sample) if sample is not None
                                 else ", ...") + ") of floats")
                value = ds[()]
                if not np.all(np.isfinite(value)):
                    self.fail(f"{where}/{owner}/{field}", "holds non-finite values",
                              "a finite state (a checkpoint keeps the last finite one)")
                if field == "directors" and sample is not None:
                    try:        # what set_state will require of it, named here with the file
                        _checks.orthonormal_frames(field, value)
                    except ValueError as err:
                        self.fail(f"{where}/{owner}/{field}", f"holds frames that are not "
                                  f"rotations ({str(err).split('(', 1)[-1].rstrip(')')})",
                                  "orthonormal right-handed frames")
