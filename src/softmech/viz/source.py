"""What the renders and plots read: recorded time series with the rods' radii, from an HDF5
results file (read_results; layout format_version 1 of softmech results files) or from a run
in memory (from_results), and the bodies at one recorded sample (bodies_at).

The file is read by softmech.resultsfile's reader (plus the rods' radii and units).
"""
from dataclasses import dataclass, field

import numpy as np

from softmech import _checks
from softmech.viz.geometry import AXES, RodBody

@dataclass
class RenderData:
    """results: sm.Results ('time' (n,) [s], '<rod>.<field>' (B, n, ...)), with a `units` dict
    (field -> unit); radius: rod -> (B, n_elems) [m]; closed: rod -> bool; rods: their names in
    scene order; attrs: the file's attributes (scene, dt, ...)."""
    results: dict
    radius: dict
    closed: dict
    rods: tuple
    attrs: dict = field(default_factory=dict)

    @property
    def time(self):
        return np.asarray(self.results["time"])

    @property
    def worlds(self):
        return min(np.shape(r)[0] for r in self.radius.values())

    @property
    def name(self):
        """The scene's name (attrs['scene']), or 'scene'."""
        return str(self.attrs.get("scene") or "scene")


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


def read_results(path, fields=None):
    """RenderData from an HDF5 results file (softmech.resultsfile: /time, /rods/<rod>/<field>
    (B, n, ...) time series, /rods/<rod>/radius (B, n_elems)). fields: names of the rod time
    series to read (None: all), e.g. ('positions',)."""
    import h5py

    from softmech.resultsfile import load_results
    from softmech.resultsfile.reader import check_format

    results = load_results(path, derived=False, fields=fields)
    results.units = {}
    radius, closed = {}, {}
    with h5py.File(check_format(path), "r") as f:
        attrs = {k: _text(v.item() if hasattr(v, "item") and np.ndim(v) == 0 else v)
                 for k, v in f.attrs.items()}
        for rod in results.rods:
            group = f[f"rods/{rod}"]
            radius[rod] = group["radius"][()]
            closed[rod] = bool(group.attrs.get("closed", False))
            for name, ds in group.items():
                if f"{rod}.{name}" in results and "units" in ds.attrs:
                    results.units[name] = _text(ds.attrs["units"])
    return RenderData(results, radius, closed, tuple(results.rods), attrs)


def from_results(results, radius, *, closed=None, attrs=None):
    """RenderData of a run in memory: results (sm.Results), radius {rod: (B or 1, n_elems) [m]}
    (sim.rod_params(rod)['radius']), closed {rod: bool} (default all open)."""
    rods = tuple(radius)
    closed = {rod: bool((closed or {}).get(rod, False)) for rod in rods}
    return RenderData(results, {k: np.atleast_2d(v) for k, v in radius.items()}, closed, rods,
                      dict(attrs or {}))


def check_world(data, world):
    """Validated world index in 0..B-1."""
    world = _checks.integer("world", world, 0)
    if world >= data.worlds:
        raise ValueError(f"world = {world} is not allowed: the results have {data.worlds} "
                         f"worlds (0..{data.worlds - 1})")
    return world


def rods_with_positions(data):
    """The rods whose node positions were recorded; ValueError if none."""
    rods = [rod for rod in data.rods if f"{rod}.positions" in data.results]
    if not rods:
        raise ValueError("no rod recorded 'positions' (B, n, n_nodes, 3): record them to render "
                         "3D views (sm.Every(..., fields=('<rod>.positions', ...)))")
    return rods


def bodies_at(data, sample, world=0):
    """RodBody list (one per rod with recorded positions) at recorded sample index `sample`
    of world `world`; directors are used when recorded."""
    out = []
    for k, rod in enumerate(data.rods):
        key = f"{rod}.positions"
        if key not in data.results:
            continue
        x = data.results[key][world, sample]
        radius = data.radius[rod][world % len(data.radius[rod])]
        d = data.results.get(f"{rod}.directors")
        out.append(RodBody.make(rod, x, radius, None if d is None else d[world, sample],
                                closed=data.closed[rod], index=k))
    return out


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


def ground_height(data, world=0, up="z", tolerance=0.25):
    """0.0 when the rods rest on the plane through the origin normal to `up` (their lowest
    surface point is within `tolerance` x the largest radius of it: ground contact), else
    None."""
    k = AXES[_checks.choice("up", up, AXES)]
    lowest, largest = np.inf, 0.0
    for rod in rods_with_positions(data):
        x = data.results[f"{rod}.positions"][world]
        r = data.radius[rod][world % len(data.radius[rod])]
        lowest = min(lowest, float(x[..., k].min()) - float(r.max()))
        largest = max(largest, float(r.max()))
    return 0.0 if abs(lowest) <= tolerance * largest else None
