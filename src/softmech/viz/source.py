"""What the renders and plots read: recorded time series with the rods' radii and the rigid
bodies' and joints' descriptions, from an HDF5 results file (read_results; layout
format_version 1 or 2 of softmech results files) or from a run in memory (from_results,
from_simulation), and the bodies at one recorded sample (bodies_at).

The file is read by softmech.resultsfile's reader (plus the rods' radii, the bodies and joints
(softmech.resultsfile.description) and units).
"""
from dataclasses import dataclass, field

import numpy as np

from softmech import _checks
from softmech.viz.geometry import AXES, RodBody
from softmech.viz.groups import group_colors
from softmech.viz.solids import SolidBody, body_mesh, half_size, joint_bodies, place


@dataclass
class RenderData:
    """results: sm.Results ('time' (n,) [s], '<body>.<field>' (B, n, ...)), with a `units`
    dict (field -> unit); radius: rod -> (B, n_elems) [m]; closed: rod -> bool; rods: their
    names in scene order; attrs: the file's attributes (scene, dt, ...); solids: rigid body ->
    its description (softmech.bodies.rigid_body.describe), scene order; joints: joint ->
    {kind, a, b} (softmech.terms.joints: describe); rest_lengths: rod -> (n_elems,) [m] where
    known (files written by softmech; the viewer's 'stretch'); meshes: shell or rod network ->
    its mesh (softmech.resultsfile.description.mesh_of: faces, or edges and radius);
    revolutions: meridian rod of an axisymmetric shell -> {body (None: axis fixed in the lab),
    axis (3,), origin (3,) [m]} (description.revolutions_of; drawn by
    softmech.viz.underwater.revolve_shells)."""
    results: dict
    radius: dict
    closed: dict
    rods: tuple
    attrs: dict = field(default_factory=dict)
    solids: dict = field(default_factory=dict)
    joints: dict = field(default_factory=dict)
    rest_lengths: dict = field(default_factory=dict)
    meshes: dict = field(default_factory=dict)
    revolutions: dict = field(default_factory=dict)
    path: str = None
    """The results file read (None: a run in memory), named by the errors about what it lacks."""

    @property
    def time(self):
        return np.asarray(self.results["time"])

    @property
    def worlds(self):
        series = [np.shape(v)[0] for k, v in self.results.items() if "." in k and np.ndim(v) >= 2]
        return min(series or [np.shape(r)[0] for r in self.radius.values()])

    @property
    def origin(self):
        """How errors name where the data came from: "results file '...': " or ""."""
        return f"results file {self.path!r}: " if self.path else ""

    @property
    def name(self):
        """The scene's name (attrs['scene']), or 'scene'."""
        return str(self.attrs.get("scene") or "scene")


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


def read_results(path, fields=None):
    """RenderData from an HDF5 results file (softmech.resultsfile: /time, /rods/<rod>/<field>
    and /bodies/<body>/<field> (B, n, ...) time series, /rods/<rod>/radius (B, n_elems), the
    rigid bodies' and joints' descriptions). fields: names of the time series to read (None:
    all), e.g. ('positions', 'directors')."""
    import h5py

    from softmech.resultsfile import load_results
    from softmech.resultsfile.description import (
        read_bodies,
        read_joints,
        read_revolutions,
        read_shells,
    )
    from softmech.resultsfile.reader import damaged_file_errors

    results = load_results(path, derived=False, fields=fields)   # checks the layout
    results.units = {}
    radius, closed, rest = {}, {}, {}
    with damaged_file_errors(path), h5py.File(path, "r") as f:
        attrs = {k: _text(v.item() if hasattr(v, "item") and np.ndim(v) == 0 else v)
                 for k, v in f.attrs.items()}
        for rod in results.rods:
            group = f[f"rods/{rod}"]
            if "radius" not in group:
                raise ValueError(f"results file {path!r} is not allowed: /rods/{rod} has no "
                                 "radius (a version 1 file that stored a rigid body as a rod); "
                                 "run the scene again to draw it")
            radius[rod] = group["radius"][()]
            closed[rod] = bool(group.attrs.get("closed", False))
            if "rest_lengths" in group:
                rest[rod] = group["rest_lengths"][()]
        for group_name, owners in (("rods", results.rods), ("bodies", results.rigid_bodies),
                                   ("shells", results.shells)):
            for owner in owners:
                for name, ds in f[f"{group_name}/{owner}"].items():
                    if f"{owner}.{name}" in results and "units" in ds.attrs:
                        results.units[name] = _text(ds.attrs["units"])
        solids, joints, meshes = read_bodies(f), read_joints(f), read_shells(f)
        revolutions = read_revolutions(f)
    return RenderData(results, radius, closed, tuple(results.rods), attrs, solids, joints,
                      rest, meshes, revolutions, path=str(path))


def from_results(results, radius, *, closed=None, attrs=None, solids=None, joints=None,
                 meshes=None, revolutions=None):
    """RenderData of a run in memory: results (sm.Results), radius {rod: (B or 1, n_elems) [m]}
    (sim.rod_params(rod)['radius']), closed {rod: bool} (default all open), solids {rigid body:
    description} and joints {joint: {kind, a, b}} (default none; from_simulation fills all);
    meshes {shell: mesh_of description}; revolutions {meridian rod: {body, axis, origin}}."""
    rods = tuple(radius)
    closed = {rod: bool((closed or {}).get(rod, False)) for rod in rods}
    return RenderData(results, {k: np.atleast_2d(v) for k, v in radius.items()}, closed, rods,
                      dict(attrs or {}), dict(solids or {}), dict(joints or {}),
                      meshes=dict(meshes or {}), revolutions=dict(revolutions or {}))


def from_simulation(sim, results, *, attrs=None):
    """RenderData of `results` (sm.Results of sim.run) with everything else read from `sim`:
    the rods' radii and closedness, the rigid bodies, the joints and the shells' meshes."""
    from softmech.resultsfile.description import (
        bodies_of,
        joints_of,
        mesh_of,
        revolutions_of,
    )
    from softmech.recording import rods_of

    rods = rods_of(sim)
    return from_results(results, {r.name: sim.rod_params(r.name)["radius"] for r in rods},
                        closed={r.name: r.closed for r in rods}, attrs=attrs,
                        solids=bodies_of(sim), joints=joints_of(sim),
                        meshes={s.name: mesh_of(s) for s in getattr(sim, "shells", ())},
                        revolutions=revolutions_of(sim))


def check_world(data, world):
    """Validated world index in 0..B-1."""
    world = _checks.integer("world", world, 0)
    if world >= data.worlds:
        raise ValueError(f"world = {world} is not allowed: the results have {data.worlds} "
                         f"worlds (0..{data.worlds - 1})")
    return world


def bodies_with_positions(data):
    """The rods and rigid bodies whose positions were recorded, in scene order; ValueError if
    none."""
    names = [b for b in tuple(data.rods) + tuple(data.solids) + tuple(data.meshes)
             if f"{b}.positions" in data.results]
    if not names:
        raise ValueError(f"{data.origin}no body recorded 'positions' (B, n, n_nodes, 3): record "
                         "them to render 3D views (sm.Every(..., fields=('<body>.positions', "
                         "...)))")
    return names


def rigid_pose(data, body, world=0):
    """(positions (n, 3) [m], directors (n, 3, 3)) of rigid body `body` over the samples of
    world `world`. A sphere needs no recorded directors (the lab frame is used); any other
    shape does: ValueError naming the field to record."""
    x = np.asarray(data.results[f"{body}.positions"])[world, :, 0]
    d = data.results.get(f"{body}.directors")
    if d is not None:
        return x, np.asarray(d)[world, :, 0]
    if data.solids[body]["shape"] != "sphere":
        raise ValueError(f"{data.origin}rigid body {body!r} ({data.solids[body]['shape']}) needs "
                         f"its recorded directors to be drawn: record '{body}.directors'")
    return x, np.broadcast_to(np.eye(3), (len(x), 3, 3))


def bodies_at(data, sample, world=0):
    """The bodies at recorded sample index `sample` of world `world`: a RodBody per rod and a
    SolidBody per rigid body with recorded positions (rod directors are used when recorded),
    then each joint's marker and gap line (softmech.viz.solids.joint_bodies). One colour per
    group of bodies (softmech.viz.groups.group_colors; groups in the scene order, rods
    first)."""
    colors = group_colors(tuple(data.rods) + tuple(data.solids) + tuple(data.meshes))
    shown = {}
    for rod in data.rods:
        key = f"{rod}.positions"
        if key not in data.results:
            continue
        x = data.results[key][world, sample]
        radius = data.radius[rod][world % len(data.radius[rod])]
        d = data.results.get(f"{rod}.directors")
        shown[rod] = RodBody.make(rod, x, radius, None if d is None else d[world, sample],
                                  closed=data.closed[rod], color=colors[rod])
    for body, description in data.solids.items():
        if f"{body}.positions" in data.results:
            x, d = rigid_pose(data, body, world)
            shown[body] = SolidBody.make(body, description, x[sample], d[sample],
                                         color=colors[body])
    for name, mesh in data.meshes.items():
        if f"{name}.positions" in data.results:
            shown.update(mesh_bodies(name, mesh, data.results[f"{name}.positions"][world, sample],
                                     colors[name]))
    joints = [b for name, joint in data.joints.items() for b in joint_bodies(name, joint, shown)]
    return list(shown.values()) + joints


def mesh_bodies(name, mesh, x, color):
    """{name: drawable} of a shell (a SolidBody whose "general" mesh is the triangles at the
    node positions x (n, 3) [m]) or of a rod network (a RodBody per edge, each called `name`),
    in `color` (RGB in [0, 1])."""
    if "faces" in mesh:
        description = {"shape": "general", "vertices": x, "faces": mesh["faces"]}
        return {name: SolidBody.make(name, description, np.zeros(3), color=color)}
    return {f"{name}[{i}]": RodBody.make(name, x[list(edge)], mesh["radius"][i:i + 1],
                                         color=color)
            for i, edge in enumerate(mesh["edges"])}


def nearest_sample(time, t):
    """Index of the sample nearest to t [s]; t must lie within the recorded time range."""
    time = np.asarray(time)
    t = float(_checks.finite("time", t))
    lo, hi = float(time[0]), float(time[-1])
    tol = 1e-9 * max(1.0, abs(hi))
    if not lo - tol <= t <= hi + tol:
        raise ValueError(f"time = {t:g} is not allowed: must be within the recorded range "
                         f"[{lo:g}, {hi:g}] s")
    return int(np.argmin(np.abs(time - t)))


def frame_samples(time, fps, speed=1.0):
    """Sample indices of the frames of a video at `fps` frames per second showing `speed`
    seconds of simulated time per second: the samples nearest to t0, t0 + speed / fps, ..."""
    fps = float(_checks.positive("fps", fps))
    speed = float(_checks.positive("speed", speed))
    time = np.asarray(time)
    targets = np.arange(time[0], time[-1] + 1e-9 * max(1.0, abs(time[-1])), speed / fps)
    return [int(np.argmin(np.abs(time - t))) for t in targets]


def ground_height(data, world=0, up="z", tolerance=0.5):
    """0.0 when the bodies rest on the plane through the origin normal to `up` (their lowest
    surface point over all samples is within `tolerance` x the largest rod radius, or half the
    smallest extent of a rigid body, of it: ground contact), else None."""
    k = AXES[_checks.choice("up", up, AXES)]
    lowest, largest = np.inf, 0.0
    for body in bodies_with_positions(data):
        if body in data.meshes:
            x = data.results[f"{body}.positions"][world]
            pad = float(np.max(data.meshes[body].get("radius", 0.0)))
            lowest = min(lowest, float(x[..., k].min()) - pad)
            largest = max(largest, pad, float(np.max(data.meshes[body].get("thickness", 0.0))) / 2)
            continue
        if body in data.radius:
            x = data.results[f"{body}.positions"][world]
            r = data.radius[body][world % len(data.radius[body])]
            lowest = min(lowest, float(x[..., k].min()) - float(r.max()))
            largest = max(largest, float(r.max()))
            continue
        vertices = body_mesh(data.solids[body], 16)[0]
        x, d = rigid_pose(data, body, world)
        lowest = min(lowest, float(place(vertices, x[:, None], d)[..., k].min()))  # (n, V)
        largest = max(largest, half_size(data.solids[body]))
    return 0.0 if abs(lowest) <= tolerance * largest else None
