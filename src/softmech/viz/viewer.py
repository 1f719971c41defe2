"""Interactive 3D view of results files (`softmech view`): a plotly figure with every recorded
body (rods as tubes at their true radius, rigid bodies and joints as in the other 3D views:
softmech.viz.source.bodies_at), the ground under bodies that rest on it, a time slider with
play and pause, the rods coloured by a per-node or per-element field (softmech.viz.fields) with
a colour bar, and the time series of a chosen quantity beside the 3D view with a marker at the
shown time. A second results file (compare) is drawn see-through in the same scene and its
series dashed. The page itself (one offline HTML file) is written by softmech.viz.viewer_page.

    from softmech.viz.source import read_results
    fig, notes = view_figure(read_results("output/snake/results.h5"), field="curvature")

Frames: the recorded samples nearest to `fps` frames per simulated second (at most
`max_frames`); only the bodies' vertices (float32) and colours change from frame to frame, so
a 6 s snake at 25 frames/s is about 8 MB of HTML with plotly.js included.
"""
import numpy as np

from softmech import _checks
from softmech.viz.fields import colour_fields, has_field, rod_field
from softmech.viz.geometry import RodBody, View, tube_vertex_nodes
from softmech.viz.groups import body_groups, group_label
from softmech.viz.source import bodies_at, bodies_with_positions, check_world, frame_samples
from softmech.viz.source import ground_height
from softmech.viz.tubes import FLOOR_COLORS, floor_extent

FPS = 25.0
"""Default frames per second of simulated time."""
MAX_FRAMES = 400
"""Default largest number of frames (keeps the page small and the slider usable)."""
SIDES = 12
"""Vertices around a tube's or sphere's circumference."""
GHOST_OPACITY = 0.35
"""Opacity of the bodies of the compared results file."""
COLORSCALE = "Viridis"
LINE_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
               "#7f7f7f", "#bcbd22", "#17becf")
"""Colours of the series' lines (a compared file's line has its original's colour, dashed)."""
SERIES_DEFAULTS = ("com", "total_energy")
"""The time series shown when none is chosen: the first of these that some body recorded."""


def frame_plan(time, fps=FPS, max_frames=MAX_FRAMES):
    """Sample indices shown as frames and a note saying how many of the samples they are:
    the samples nearest to `fps` frames per simulated second (softmech.viz.source.frame_samples),
    thinned evenly to at most `max_frames`, always with the last sample. Returns (indices
    (m,) int, note str, '' when every sample is shown)."""
    max_frames = _checks.integer("max_frames", max_frames, 2)
    time = np.asarray(time)
    samples = np.unique(np.append(frame_samples(time, fps), len(time) - 1))
    if len(samples) > max_frames:
        samples = np.unique(samples[np.round(np.linspace(0, len(samples) - 1,
                                                         max_frames)).astype(int)])
    note = ""
    if len(samples) < len(time):
        note = (f"showing {len(samples)} of {len(time)} samples ({fps:g} frames per simulated "
                f"second" + (f", at most {max_frames}" if len(samples) == max_frames else "")
                + ")")
    return samples, note


def series_keys(data, name):
    """Results keys of the time series `name`: '<body>.<field>' as given, or a bare field name:
    that field of every body that recorded it (scene order), or a user recorder. Each must be
    one value or one 3-vector per sample, (B, n) or (B, n, 3). ValueError listing the allowed
    names otherwise."""
    results = data.results
    allowed = sorted(k for k, v in results.items() if k != "time" and _is_series(v))
    if name in allowed and "." in name:
        return [name]
    bodies = tuple(data.rods) + tuple(data.solids) + tuple(data.meshes)
    keys = [f"{b}.{name}" for b in bodies if f"{b}.{name}" in allowed]
    if not keys and name in allowed:
        keys = [name]
    if not keys:
        bare = sorted({k.split(".", 1)[-1] for k in allowed})
        raise ValueError(f"series = {name!r} is not allowed: must be a time series of one value "
                         f"or one 3-vector per sample, one of {bare} (every body that recorded "
                         f"it) or {allowed}")
    return keys


def _is_series(value):
    shape = np.shape(value)
    return len(shape) == 2 or (len(shape) == 3 and shape[2] == 3)


def default_series(data):
    """The first of SERIES_DEFAULTS recorded by some body, else None (no series panel)."""
    for name in SERIES_DEFAULTS:
        if any(k.endswith("." + name) for k in data.results):
            return name
    return None


JOINTS = "joints"
"""The legend entry of the joints' markers and gap lines."""


class _Run:
    """One results file in the view: its RenderData, label, frame samples, field values and
    the legend entry of each body (its group: softmech.viz.groups)."""

    def __init__(self, data, label, times, world, field, opacity):
        self.data, self.label, self.opacity = data, label, opacity
        self.world = check_world(data, world)
        t = data.time
        self.samples = [int(np.argmin(np.abs(t - s))) for s in times]
        self.values = {rod: rod_field(data, rod, field, self.world)
                       for rod in data.rods if field and has_field(data, rod, field)}
        groups = body_groups(tuple(data.rods) + tuple(data.solids) + tuple(data.meshes))
        self.legend = {body: group_label(group, members)
                       for group, members in groups.items() for body in members}
        self.group = {body: k for k, members in enumerate(groups.values()) for body in members}

    def _named(self, text):
        return text if not self.label else f"{text} ({self.label})"

    def meshes(self, k):
        """{trace name: (vertices (V, 3) float32 [m], faces (F, 3), colour, intensity (V,) or
        None, opacity, legend entry)} of the bodies at frame k; a legend entry is the body's
        group (a body's own name when alone in it) or JOINTS."""
        out = {}
        for body in bodies_at(self.data, self.samples[k], self.world):
            vertices, faces = body.mesh(SIDES)
            intensity = None
            if isinstance(body, RodBody) and body.name in self.values:
                nodes = tube_vertex_nodes(len(body.positions), sides=SIDES, closed=body.closed)
                intensity = self.values[body.name][0][self.samples[k]][nodes]
            name = self._named(body.name)
            out[name] = (vertices.astype(np.float32), faces, body.color, intensity,
                         self.opacity, self._named(self.legend.get(body.name, JOINTS)))
        return out


def view_figure(data, *, field=None, series=None, compare=None, compare_label="compared",
                world=0, fps=FPS, max_frames=MAX_FRAMES, view=View(), title=None):
    """The plotly figure of `softmech view` and notes for the user (a list of lines).

    data: softmech.viz.source.RenderData (read_results). field: colour the rods by this field
    (softmech.viz.fields.colour_fields; None: each body in its own colour). series: the time
    series beside the 3D view (series_keys; None: default_series, or no panel). compare: a
    second RenderData drawn see-through (GHOST_OPACITY), its frames the samples nearest to
    the same times, its series dashed; compare_label names it in the legend. world: which of
    the B worlds. fps, max_frames: the frames (frame_plan). view: the initial camera (its up
    axis and direction; softmech.viz.geometry.View)."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    bodies_with_positions(data)
    if field is not None and not any(has_field(data, rod, field) for rod in data.rods):
        raise ValueError(f"field = {field!r} is not allowed: must be one of {colour_fields(data)}"
                         " (a recorded per-node or per-element rod series, or a computed one)")
    samples, note = frame_plan(data.time, fps, max_frames)
    times = data.time[samples]
    runs = [_Run(data, "", times, world, field, 1.0)]
    if compare is not None:
        bodies_with_positions(compare)
        runs.append(_Run(compare, compare_label, times, world, field, GHOST_OPACITY))
    frames = [{k: v for run in runs for k, v in run.meshes(i).items()}
              for i in range(len(samples))]
    names = list(dict.fromkeys(name for f in frames for name in f))
    series = default_series(data) if series is None else series
    keys = series_keys(data, series) if series is not None else []

    fig = make_subplots(rows=1, cols=2 if keys else 1, column_widths=[0.62, 0.38] if keys else None,
                        specs=[[{"type": "scene"}] + ([{"type": "xy"}] if keys else [])],
                        horizontal_spacing=0.09)
    lo, hi = _bounds(frames)
    floor = ground_height(data, runs[0].world, view.up)
    if floor is not None:
        fig.add_trace(_ground(go, lo, hi, floor, view), row=1, col=1)
        lo[_axis(view)] = min(lo[_axis(view)], floor)
    low, high = _colour_range(runs) if field else (0.0, 1.0)
    units = next(r.values[rod][1] for r in runs for rod in r.values) if field else ""
    dynamic, scaled, listed = [], False, set()
    for name in names:
        dynamic.append(len(fig.data))
        first = next(f[name] for f in frames if name in f)
        show_scale = first[3] is not None and not scaled      # one colour bar, on the first
        scaled = scaled or show_scale
        fig.add_trace(_mesh(go, name, first, low, high, show_scale=show_scale,
                            scale_title=f"{field} [{units}]" if units else str(field),
                            in_legend=first[5] not in listed), row=1, col=1)
        listed.add(first[5])
    fixed_faces = {name: _same_faces(frames, name) for name in names}
    marker = None
    if keys:
        marker = _add_series(go, fig, runs, keys, series)
        dynamic.append(marker)
    fig.frames = [go.Frame(name=str(i), traces=dynamic,
                           data=[_frame_mesh(go, f.get(name), fixed_faces[name]) for name in names]
                           + ([_marker(go, fig, marker, times[i])] if keys else []))
                  for i, f in enumerate(frames)]
    _layout(fig, data, runs, times, lo, hi, view, fps, title, note, field)
    notes = [note] if note else []
    return fig, notes


def _axis(view):
    return "xyz".index(view.up)


def _bounds(frames):
    """(lo, hi) (3,) [m]: the box around every vertex of every frame."""
    vertices = [m[0] for f in frames for m in f.values() if len(m[0])]
    return (np.min([v.min(axis=0) for v in vertices], axis=0).astype(float),
            np.max([v.max(axis=0) for v in vertices], axis=0).astype(float))


def _colour_range(runs):
    """(low, high) of the field over the shown frames of every run (equal: widened by 1)."""
    values = [v[0][run.samples] for run in runs for v in run.values.values()]
    low, high = min(float(v.min()) for v in values), max(float(v.max()) for v in values)
    return (low, high) if high > low else (low - 0.5, high + 0.5)


def _rgb(color):
    return "rgb({:.0f},{:.0f},{:.0f})".format(*(255 * np.asarray(color)))


def _mesh(go, name, mesh, low, high, show_scale, scale_title, in_legend=True):
    """The Mesh3d trace of body `name`, at its first frame, in the legend group of its group
    (one entry per group, on its first body: in_legend; a click shows or hides the group)."""
    vertices, faces, color, intensity, opacity, group = mesh
    style = dict(color=_rgb(color))
    if intensity is not None:
        style = dict(intensity=intensity.astype(np.float32), colorscale=COLORSCALE, cmin=low,
                     cmax=high, showscale=show_scale,
                     colorbar=dict(title=dict(text=scale_title, side="top"), orientation="h",
                                   x=0.03, xanchor="left", y=0.12, len=0.3, thickness=12))
    return go.Mesh3d(x=vertices[:, 0], y=vertices[:, 1], z=vertices[:, 2], i=faces[:, 0],
                     j=faces[:, 1], k=faces[:, 2], name=group, legendgroup=group,
                     showlegend=in_legend, opacity=opacity, hovertext=name, hoverinfo="text",
                     flatshading=False,
                     lighting=dict(ambient=0.45, diffuse=0.8, specular=0.25, roughness=0.6),
                     lightposition=dict(x=1e3, y=1e3, z=3e3), **style)


def _same_faces(frames, name):
    """True if body `name` is in every frame with the same faces (its frames then carry only
    vertices and colours)."""
    meshes = [f.get(name) for f in frames]
    return all(m is not None for m in meshes) and all(
        np.array_equal(m[1], meshes[0][1]) for m in meshes)


def _frame_mesh(go, mesh, fixed_faces):
    """The per-frame update of a body's trace: vertices (and faces when they change, and the
    field's values); an empty mesh when the body is not there (a joint's gap line)."""
    if mesh is None:
        return go.Mesh3d(x=[], y=[], z=[], i=[], j=[], k=[])
    vertices, faces, _, intensity, _, _ = mesh
    extra = {} if fixed_faces else dict(i=faces[:, 0], j=faces[:, 1], k=faces[:, 2])
    if intensity is not None:
        extra["intensity"] = intensity.astype(np.float32)
    return go.Mesh3d(x=vertices[:, 0], y=vertices[:, 1], z=vertices[:, 2], **extra)


def _ground(go, lo, hi, height, view):
    """A checkered floor (Mesh3d) at `height` [m] along view.up under the box (lo, hi)."""
    a, c, u = view.basis()
    (a0, a1), (c0, c1) = floor_extent(lo, hi, view)[0]
    square = floor_extent(lo, hi, view)[1]
    na, nc = max(1, int(round((a1 - a0) / square))), max(1, int(round((c1 - c0) / square)))
    ga, gc = np.meshgrid(np.linspace(a0, a1, na + 1), np.linspace(c0, c1, nc + 1), indexing="ij")
    vertices = ga.reshape(-1, 1) * a + gc.reshape(-1, 1) * c + height * u
    ia, ic = np.meshgrid(np.arange(na), np.arange(nc), indexing="ij")
    v0 = (ia * (nc + 1) + ic).ravel()
    quads = np.stack([v0, v0 + nc + 1, v0 + nc + 2, v0 + 1], -1)
    faces = np.concatenate([quads[:, [0, 1, 2]], quads[:, [0, 2, 3]]])
    checker = ((ia + ic) % 2).ravel()
    colors = [_rgb(FLOOR_COLORS[k]) for k in np.concatenate([checker, checker])]
    return go.Mesh3d(x=vertices[:, 0], y=vertices[:, 1], z=vertices[:, 2], i=faces[:, 0],
                     j=faces[:, 1], k=faces[:, 2], facecolor=colors, name="ground",
                     hoverinfo="skip", showlegend=False, flatshading=True,
                     lighting=dict(ambient=0.9, diffuse=0.1, specular=0.0))


def _add_series(go, fig, runs, keys, name):
    """Lines of the series `keys` of every run (the compared one dashed) in the right panel,
    one colour and one legend entry per group of bodies and component (as the 3D view's
    bodies: "muscle fibres (36).com x"); returns the index of the time marker trace."""
    units = getattr(runs[0].data.results, "units", {}).get(name.split(".")[-1], "")
    low, high, listed = np.inf, -np.inf, set()
    for r, run in enumerate(runs):
        results = run.data.results
        for key in keys:
            if key not in results:
                continue
            body, _, field = key.rpartition(".")
            group = run.group.get(body, len(run.group))
            entry = (run.legend[body] + "." + field) if body in run.legend else key
            y = np.asarray(results[key])[run.world]
            columns = [(y, "")] if y.ndim == 1 else [(y[:, k], f" {'xyz'[k]}") for k in range(3)]
            for c, (values, suffix) in enumerate(columns):
                low, high = min(low, float(values.min())), max(high, float(values.max()))
                label = run._named(entry + suffix)
                fig.add_trace(go.Scatter(x=run.data.time, y=values, mode="lines", name=label,
                                         legendgroup=label, showlegend=label not in listed,
                                         hovertext=key + suffix, hoverinfo="text+x+y",
                                         line=dict(dash="dash" if r else "solid",
                                                   color=LINE_COLORS[(3 * group + c) % 10])),
                              row=1, col=2)
                listed.add(label)
    if not np.isfinite(low):
        low, high = 0.0, 1.0
    fig.add_trace(go.Scatter(x=[runs[0].data.time[0]] * 2, y=[low, high], mode="lines",
                             name="shown time", line=dict(color="black", width=1),
                             showlegend=False, hoverinfo="skip"), row=1, col=2)
    fig.update_xaxes(title_text="time t [s]", row=1, col=2)
    fig.update_yaxes(title_text=f"{name} [{units}]" if units else name, row=1, col=2)
    return len(fig.data) - 1


def _marker(go, fig, marker, t):
    """The time marker's update at time t [s]."""
    return go.Scatter(x=[float(t)] * 2, y=list(fig.data[marker].y))


def _layout(fig, data, runs, times, lo, hi, view, fps, title, note, field):
    """Scene axes (fixed ranges, true proportions), camera, slider, play/pause, title."""
    span = hi - lo
    centre, half = 0.5 * (lo + hi), 0.5 * np.maximum(span, 0.25 * span.max()) * 1.05
    ranges = [[float(centre[k] - half[k]), float(centre[k] + half[k])] for k in range(3)]
    ratio = half / half.max()
    eye = 2.0 * view.direction(lo, hi) * np.sqrt(ratio)
    axis = {f"{c}axis": dict(range=ranges[k], title=f"{c} [m]", autorange=False)
            for k, c in enumerate("xyz")}
    fig.update_scenes(aspectmode="manual", aspectratio=dict(zip("xyz", map(float, ratio))),
                      camera=dict(eye=dict(zip("xyz", map(float, eye))),
                                  up=dict(zip("xyz", map(float, view.basis()[2])))), **axis)
    play = dict(frame=dict(duration=1000.0 / fps, redraw=True), fromcurrent=True,
                transition=dict(duration=0), mode="immediate")
    pause = dict(frame=dict(duration=0, redraw=False), transition=dict(duration=0),
                 mode="immediate")
    steps = [dict(method="animate", label=f"{t:.3g}",
                  args=[[str(i)], dict(frame=dict(duration=0, redraw=True),
                                       transition=dict(duration=0), mode="immediate")])
             for i, t in enumerate(times)]
    heading = title or f"softmech: {data.name}" + (f", coloured by {field}" if field else "")
    fig.update_layout(
        title=dict(text=heading + (f"<br><sup>{note}</sup>" if note else ""), x=0.02),
        template="plotly_white", margin=dict(l=10, r=10, t=120, b=10), height=760,
        legend=dict(orientation="h", y=1.01, yanchor="bottom", x=0.02),
        updatemenus=[dict(type="buttons", direction="left", x=0.0, y=0.0, xanchor="left",
                          yanchor="top", pad=dict(t=40, r=10), showactive=False,
                          buttons=[dict(label="Play", method="animate", args=[None, play]),
                                   dict(label="Pause", method="animate",
                                        args=[[None], pause])])],
        sliders=[dict(active=0, x=0.12, len=0.85, y=0.0, yanchor="top", pad=dict(t=30),
                      currentvalue=dict(prefix="t = ", suffix=" s", font=dict(color="#222")),
                      steps=steps,
                      font=dict(color="rgba(0,0,0,0)"))])      # 100s of ticks: no labels
