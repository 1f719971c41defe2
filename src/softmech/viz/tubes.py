"""3D views of bodies as shaded tubes with matplotlib (no POV-Ray needed): a still picture and the
frames of an animation (joined into a video by softmech.viz.video.write_video).

    bodies = [RodBody.make("snake", positions, radius)]        # positions (N, 3) [m]
    plot_tubes("snake.png", bodies, floor=0.0)
    write_video(tube_frames(frames, times=t, floor=0.0), "snake.mp4", fps=25)

Any body with a triangle mesh (softmech.viz.geometry) is drawn, see-through when its opacity
is below 1; faces are flat-shaded by a light
above and beside the camera (Lambert + Blinn-Phong highlight). Coordinates are shown with the
view's up axis vertical. matplotlib sorts polygons by depth (painter's algorithm), which is
exact for separate convex pieces and good enough for tubes; the floor is always drawn first.
"""
import numpy as np

from softmech import _checks
from softmech.viz.figures import figure, save
from softmech.viz.geometry import (RodBody, View, bounds_of, face_normals, rod_normals,
                                   tube_meshes)
from softmech.viz.frame_workers import MAX_WORKERS, frames_in_order
from softmech.viz.painter import FramePainter
from softmech.viz.solids import sphere_meshes

FLOOR_COLORS = ((0.86, 0.86, 0.84), (0.70, 0.71, 0.72))


def _size(size_px):
    w, h = size_px
    return _checks.integer("width", w, 16), _checks.integer("height", h, 16)


def nice_step(length, target=10):
    """A round length (1, 2 or 5 x 10^k) [m] dividing `length` into about `target` parts."""
    raw = max(float(length), 1e-12) / target
    power = 10.0 ** np.floor(np.log10(raw))
    return float(power * min((1, 2, 5, 10), key=lambda m: abs(np.log(m * power / raw))))


def floor_extent(lo, hi, view, margin=0.08):
    """Horizontal extent ((a0, a1), (c0, c1)) [m] of the floor under the box (lo, hi): the box
    grown by `margin` of its larger side, snapped to whole checker squares; and the square [m]."""
    a, c, _ = view.basis()
    span = max((hi - lo) @ a, (hi - lo) @ c)
    square = nice_step(span, 8)
    pad = margin * span + square
    out = []
    for axis in (a, c):
        x0, x1 = lo @ axis - pad, hi @ axis + pad
        out.append((square * np.floor(x0 / square), square * np.ceil(x1 / square)))
    return tuple(out), square


def shade(normals, color, light, eye, ambient=0.35):
    """RGB (F, 3) of faces with unit normals (F, 3) and base colour `color` (RGB (3,), or one
    per face (F, 3)): ambient + Lambert diffuse from the unit light direction + a Blinn-Phong
    highlight towards the unit eye direction."""
    halfway = light + eye
    halfway /= np.linalg.norm(halfway)
    diffuse = np.clip(normals @ light, 0.0, 1.0)
    highlight = 0.35 * np.clip(normals @ halfway, 0.0, 1.0) ** 30
    rgb = np.asarray(color) * (ambient + (1.0 - ambient) * diffuse)[:, None]
    return np.clip(rgb + highlight[:, None], 0.0, 1.0)


class TubeAxes:
    """A matplotlib 3D axes showing bodies in fixed limits (the box of all frames), with an
    optional checker floor; `draw(bodies)` replaces what is shown. Used by plot_tubes and
    tube_frames."""

    def __init__(self, ax, lo, hi, *, view=View(), floor=None, sides=16, axes_labels=True):
        from mpl_toolkits.mplot3d.art3d import Poly3DCollection

        self._poly = Poly3DCollection
        self.ax, self.view, self.sides = ax, view, _checks.integer("sides", sides, 3)
        a, c, u = view.basis()
        self.basis = np.stack([a, c, u])          # rows: the plotted X, Y, Z axes
        lo, hi = np.asarray(lo, float), np.asarray(hi, float)
        if floor is not None:
            floor = float(_checks.finite("floor", floor))
            lo, hi = lo.copy(), hi.copy()
            k = int(np.argmax(u))
            lo[k] = min(lo[k], floor)
        self.eye = view.direction(lo, hi)
        right = np.cross(-self.eye, u)
        right /= np.linalg.norm(right)
        self.light = 0.75 * self.eye + 0.9 * u - 0.45 * right
        self.light /= np.linalg.norm(self.light)
        P = self.basis
        plo, phi = P @ lo, P @ hi
        if floor is not None:
            (x, y), square = floor_extent(lo, hi, view)
            plo[:2], phi[:2] = (x[0], y[0]), (x[1], y[1])
            self._draw_floor(x, y, floor, square)
        span = np.maximum(phi - plo, 1e-9)
        ax.set_xlim(plo[0], phi[0])
        ax.set_ylim(plo[1], phi[1])
        ax.set_zlim(plo[2], phi[2])
        ax.set_box_aspect(span, zoom=1.0)
        ax.computed_zorder = False                # the floor is drawn below everything
        azimuth = np.degrees(np.arctan2(self.eye @ c, self.eye @ a))
        ax.view_init(elev=view.elevation, azim=azimuth)
        names = ["xyz"[int(np.argmax(row))] for row in P]
        self.labelled = bool(axes_labels)
        if axes_labels:
            for k, axis in enumerate((ax.xaxis, ax.yaxis, ax.zaxis)):
                axis.set_pane_color((0.97, 0.97, 0.97, 1.0))
                axis.set_label_text(f"{names[k]} [m]", fontsize=TICK_FONT + 1)
                # mplot3d moves a label out along the other axes by a share of their
                # ranges: beside a thin box it would sit on the tick labels
                others = max(span[j] for j in range(3) if j != k)
                axis.labelpad = LABEL_PAD * min(8.0, span.max() / others)
                axis.set_tick_params(labelsize=TICK_FONT, pad=0)
                if abs(P[k] @ self.eye) > 0.98:           # seen end-on (a side view): no room
                    axis.set_ticks([])
                    axis.set_label_text("")
        else:
            ax.set_axis_off()
        self.artists = []
        self.known_normals = {}
        """{id(rod): its normals (N, 3)} of RodBodies of frames to come (remember_normals)."""

    def remember_normals(self, frames):
        """Compute at once the normals (geometry.rod_normals) of the rods of all `frames` (a
        list of lists of bodies) that are drawn as tubes, grouped by node count, and keep
        them for triangles(): the same numbers as one frame at a time, whose Python loop over
        the nodes cost ~2 ms a frame for the snake. The frames must stay alive (the normals
        are found by the rods' id)."""
        px = self.pixels_per_metre()
        groups = {}
        for bodies in frames:
            for b in bodies:
                if isinstance(b, RodBody) and b.directors is None and not (
                        not b.closed and self._width(b, px) < HAIRLINE_PX):
                    groups.setdefault((len(b.positions), b.closed), []).append(b)
        for rods in groups.values():
            self.known_normals.update(zip(map(id, rods), rod_normals(rods)))

    def space_ticks(self):
        """A few round ticks on each axis, as many as its drawn length has room for (TICK_ROOM
        label sizes apart along the axis, at most 7; none on an axis drawn too short, such as
        the short side of a flat box), so that tick labels never overlap. Call it again when
        the axes change size (fit_box)."""
        from matplotlib.ticker import MaxNLocator, NullLocator

        if not self.labelled:
            return
        ax = self.ax
        limits = np.array([ax.get_xlim3d(), ax.get_ylim3d(), ax.get_zlim3d()])
        for k, axis in enumerate((ax.xaxis, ax.yaxis, ax.zaxis)):
            if not axis.get_label_text():                 # an end-on axis: no ticks
                continue
            ends = np.repeat(limits[:, :1].T, 2, axis=0)
            ends[1, k] = limits[k, 1]
            dx, dy = np.abs(np.diff(_pixels(ax, ends), axis=0)[0])
            length = max(float(np.hypot(dx, dy)), 1e-9)
            # labels along a slanted axis are apart by (dx, dy) / bins: one of them must
            # exceed the label's width or height, with room to spare
            label_w, label_h = _label_size(fig_dpi(ax))
            need = TICK_ROOM * min(label_w * length / max(dx, 1e-9),
                                   label_h * length / max(dy, 1e-9))
            bins = min(6, int(length // need))
            axis.set_major_locator(MaxNLocator(bins, steps=[1, 2, 2.5, 5, 10]) if bins
                                   else NullLocator())

    def _draw_floor(self, x, y, height, square):
        nx = max(1, int(round((x[1] - x[0]) / square)))
        ny = max(1, int(round((y[1] - y[0]) / square)))
        xs, ys = np.linspace(x[0], x[1], nx + 1), np.linspace(y[0], y[1], ny + 1)
        quads, colors = [], []
        for i in range(nx):
            for j in range(ny):
                quads.append([(xs[i], ys[j], height), (xs[i + 1], ys[j], height),
                              (xs[i + 1], ys[j + 1], height), (xs[i], ys[j + 1], height)])
                colors.append(FLOOR_COLORS[(i + j + int(round(x[0] / square))
                                            + int(round(y[0] / square))) % 2])
        self.ax.add_collection3d(self._poly(quads, facecolors=colors, edgecolors="none",
                                            zorder=0))

    def pixels_per_metre(self):
        """Drawn size [px] of one metre of the scene: the axes' width over the box's largest
        extent (the box is drawn at equal aspect)."""
        ax = self.ax
        span = max(np.ptp(ax.get_xlim3d()), np.ptp(ax.get_ylim3d()), np.ptp(ax.get_zlim3d()))
        return ax.get_window_extent().width / max(span, 1e-12)

    @staticmethod
    def _width(body, px):
        """Drawn width [px] of a rod (its largest diameter) or a sphere, at px pixels per metre;
        None for other bodies."""
        if isinstance(body, RodBody):
            return 2.0 * float(np.max(body.radius)) * px
        if getattr(body, "description", {}).get("shape") == "sphere":
            return 2.0 * float(body.description["radius"]) * px
        return None

    def _sides(self, body, px):
        """Sides of a body's mesh: self.sides, fewer for a rod or sphere drawn smaller than
        DETAIL_PX (one side per pixel of its width, at least 4): a feathered wing's ~2,800 joint
        markers, a few pixels wide each, cost seconds per frame at full detail and look the
        same with a coarse mesh."""
        width = self._width(body, px)
        if width is None or width >= DETAIL_PX:
            return self.sides
        return int(min(max(width, 4.0), self.sides))

    def hairlines(self, bodies):
        """The rods among `bodies` thinner than HAIRLINE_PX when drawn, as line segments:
        (segments (S, 2, 3) in the plotted axes [m], colours (S, 4) RGBA, widths (S,) [pt]: as
        wide as the rod, at least 0.5 pt) or None when there is none; and the other bodies. A
        tube a pixel wide shows no surface, and a feathered wing's ~2,800 barbs drawn as tubes
        cost seconds per frame."""
        px = self.pixels_per_metre()
        thin, kept = [], []
        for b in bodies:
            hair = isinstance(b, RodBody) and not b.closed and self._width(b, px) < HAIRLINE_PX
            (thin if hair else kept).append(b)
        if not thin:
            return None, bodies
        points = 72.0 / float(self.ax.figure.dpi)
        segments = np.concatenate([np.stack([(b.positions[:-1] @ self.basis.T),
                                             (b.positions[1:] @ self.basis.T)], axis=1)
                                   for b in thin])
        count = [len(b.positions) - 1 for b in thin]
        colors = np.repeat([(*b.color, b.opacity) for b in thin], count, axis=0)
        widths = np.repeat([max(0.5, 2.0 * float(np.max(b.radius)) * px * points)
                            for b in thin], count)
        return (segments, colors, widths), kept

    def triangles(self, bodies):
        """The flat-shaded triangles of the meshes of `bodies` (all bodies at once: one normal
        and shading pass; spheres' meshes in one batch per size, solids.sphere_meshes, after
        the other bodies', rods' rotation-minimizing frames in batches, geometry.tube_meshes):
        (triangles (F, 3, 3) in the plotted axes [m], face colours (F, 4)
        RGBA, edge colours (F, 4): the face colour on opaque bodies, transparent on
        see-through ones, hidden (F,) bool: the face is on an opaque closed surface (a body
        whose `watertight` is True), so that it is hidden when it faces away from the
        camera)."""
        px = self.pixels_per_metre()
        rods, others, spheres = [], [], {}
        for body in bodies:
            sides = self._sides(body, px)
            if isinstance(body, RodBody):
                rods.append((body, sides))
            elif getattr(body, "description", {}).get("shape") == "sphere":
                spheres.setdefault(sides, []).append(body)
            else:
                others.append((body, sides))
        shown = [b for b, _ in rods] + [b for b, _ in others]
        normals = [self.known_normals.get(id(b)) for b, _ in rods]
        missing = [k for k, n in enumerate(normals) if n is None]
        if missing:
            for k, n in zip(missing, rod_normals([rods[k][0] for k in missing])):
                normals[k] = n
        meshes = tube_meshes(shown[:len(rods)], [s for _, s in rods], normals) + [
            body.mesh(sides) for body, sides in others]
        counts = [len(f) for _, f in meshes]
        for sides, group in spheres.items():
            meshes.append(sphere_meshes(group, sides))
            shown += group
            counts += [len(meshes[-1][1]) // len(group)] * len(group)
        if not meshes:
            return np.empty((0, 3, 3)), np.empty((0, 4)), np.empty((0, 4)), np.empty(0, bool)
        offsets = np.cumsum([0] + [len(v) for v, _ in meshes[:-1]])
        vertices = np.concatenate([v for v, _ in meshes])
        faces = np.concatenate([f + k for (_, f), k in zip(meshes, offsets)])
        looks = np.array([(*b.color, getattr(b, "opacity", 1.0), getattr(b, "watertight", False))
                          for b in shown], float)                 # RGB, opacity, closed
        base = np.repeat(looks, counts, axis=0)
        rgb = shade(face_normals(vertices, faces), base[:, :3], self.light, self.eye)
        rgba = np.column_stack([rgb, base[:, 3]])
        opaque = base[:, 3] >= 1.0
        # edges in the face colour hide the hairline seams between antialiased triangles
        # of opaque bodies; on see-through ones they would draw a wire mesh: none there
        edges = np.where(opaque[:, None], rgba, 0.0)
        return (vertices @ self.basis.T)[faces], rgba, edges, opaque & (base[:, 4] > 0)

    def draw(self, bodies):
        """Show `bodies` (replacing the previous ones); returns the new artists. Rods drawn
        thinner than HAIRLINE_PX are lines (hairlines), drawn before the tubes."""
        from mpl_toolkits.mplot3d.art3d import Line3DCollection

        for artist in self.artists:
            artist.remove()
        lines, bodies = self.hairlines(list(bodies))
        self.artists = []
        if lines is not None:
            segments, colors, widths = lines
            collection = Line3DCollection(segments, colors=colors, linewidths=widths, zorder=1)
            self.ax.add_collection3d(collection)
            self.artists.append(collection)
        triangles, colors, edges, _ = self.triangles(bodies)
        if not len(triangles):
            return self.artists
        collection = self._poly(triangles, facecolors=colors, edgecolors=edges,
                                linewidths=0.25, zorder=2)
        self.ax.add_collection3d(collection)
        self.artists.append(collection)
        return self.artists


def _tube_figure(lo, hi, size_px, dpi, view, floor, sides, title, axes_labels):
    width, height = _size(size_px)
    fig, _ = figure(rows=0, size=(width / dpi, height / dpi), layout=None)
    fig.set_dpi(dpi)
    # the 3D box leaves wide empty margins inside its axes: let the axes overhang the figure
    top = 0.93 if title is not None else 1.0
    ax = fig.add_axes((-0.12, -0.14, 1.24, top + 0.2), projection="3d")
    tubes = TubeAxes(ax, lo, hi, view=view, floor=floor, sides=sides, axes_labels=axes_labels)
    for _ in range(2):                  # the ticks depend on the size, the size on the labels
        tubes.space_ticks()
        if not fit_box(fig, ax, (0.0, 0.0, 1.0, top), labels=axes_labels):
            break                       # unchanged: another round would find the same
    tubes.space_ticks()
    text = fig.text(0.5, 0.975, title or "", ha="center", va="top", fontsize="medium")
    return fig, tubes, text


DETAIL_PX = 24.0
"""Rods and spheres drawn narrower than this [px] get coarser meshes (TubeAxes._sides)."""
HAIRLINE_PX = 1.5
"""Rods drawn narrower than this [px] are drawn as lines, not tubes (TubeAxes.hairlines)."""
TICK_FONT = 7
"""Font size [pt] of the 3D views' tick labels (their axis labels: one point more)."""
LABEL_PAD = 9.0
"""Distance of a 3D view's axis label from its axis [pt] (mplot3d's labelpad) in a cubic box."""
TICK_ROOM = 1.6
"""Least distance between neighbouring tick labels of a 3D view, in label sizes along the
axis (1: they would touch)."""


def fig_dpi(ax):
    return float(ax.figure.dpi)


def _label_size(dpi):
    """(width, height) [px] of a tick label of ~5 characters ("-0.25") at TICK_FONT."""
    return 5 * 0.6 * TICK_FONT * dpi / 72.0, 1.3 * TICK_FONT * dpi / 72.0


def _pixels(ax, points):
    """Display coordinates (n, 2) [px] of 3D points (n, 3) in the data coordinates of `ax`."""
    from mpl_toolkits.mplot3d import proj3d

    xs, ys, _ = proj3d.proj_transform(*np.asarray(points, float).T, ax.get_proj())
    return ax.transData.transform(np.column_stack([xs, ys]))


def _extent(fig, ax, labels):
    """(x0, y0, x1, y1) [figure fraction] of what the 3D axes `ax` draws: the projection of
    its box (its x, y, z limits) and, if `labels`, its tick labels and axis labels."""
    limits = (ax.get_xlim3d(), ax.get_ylim3d(), ax.get_zlim3d())
    corners = np.array([[x, y, z] for x in limits[0] for y in limits[1] for z in limits[2]])
    pixels = [_pixels(ax, corners)]
    if labels:
        fig.draw_without_rendering()      # places the tick labels and axis labels
        renderer = fig.canvas.get_renderer()
        for axis in (ax.xaxis, ax.yaxis, ax.zaxis):
            box = axis.get_tightbbox(renderer)
            if box is not None and box.width > 0:
                pixels.append(box.get_points())
    fx, fy = fig.transFigure.inverted().transform(np.concatenate(pixels)).T
    return fx.min(), fy.min(), fx.max(), fy.max()


def fit_box(fig, ax, region, margin=0.02, labels=False):
    """Shrink (or grow back up to its first size) and move the 3D axes `ax` so that what it
    draws (_extent: its box, tick labels and axis labels) fills `region` (x0, y0, x1, y1) of
    the figure [figure fraction] less `margin`: a tall scene (a hanging pendulum) would
    otherwise be cut by the overhanging axes, and its labels (if `labels`: the axes show
    them) clipped. A drawing that fits is left as it is. Returns whether the axes moved."""
    e0, e1, e2, e3 = _extent(fig, ax, labels)
    x0, y0, x1, y1 = region[0] + margin, region[1] + margin, region[2] - margin, region[3] - margin
    scale = min(1.0, (x1 - x0) / max(e2 - e0, 1e-9), (y1 - y0) / max(e3 - e1, 1e-9))
    if scale >= 1.0 and e0 >= x0 and e2 <= x1 and e1 >= y0 and e3 <= y1:
        return False
    box = ax.get_position()
    cx, cy = 0.5 * (e0 + e2), 0.5 * (e1 + e3)
    left = 0.5 * (x0 + x1) - (cx - box.x0) * scale
    bottom = 0.5 * (y0 + y1) - (cy - box.y0) * scale
    ax.set_position((left, bottom, box.width * scale, box.height * scale))
    return True


def plot_tubes(path, bodies, *, view=View(), floor=None, title=None, size_px=(960, 540),
               dpi=100, sides=16, axes_labels=True, bounds=None):
    """Still picture (PNG) of bodies (a list of RodBody, ...) as shaded tubes; floor: height
    [m] of a checker floor along view.up, or None; bounds: (lo, hi) [m] of the view (default
    the bodies' box). Writes `path` and returns it."""
    lo, hi = bounds if bounds is not None else bounds_of([bodies])
    fig, tubes, _ = _tube_figure(lo, hi, size_px, dpi, view, floor, sides, title, axes_labels)
    tubes.draw(bodies)
    return save(fig, path, dpi=dpi)


def tube_frames(frames, *, times=None, view=View(), floor=None, title="", size_px=(960, 544),
                dpi=100, sides=12, axes_labels=True, progress=None, workers=None):
    """Frames of an animation: frames is a list (one per picture) of lists of bodies, times
    (len(frames),) [s] is shown as a clock after `title`. The limits cover all frames. Yields
    RGBA uint8 arrays (height, width, 4); progress: a callable called once per frame (e.g. a
    tqdm bar's update). The frames are painted over a background drawn once
    (softmech.viz.painter.FramePainter): the same bodies and colours as plot_tubes draws,
    ~5-10x faster; by worker processes beside each other when the video is long enough
    (workers: see softmech.viz.frame_workers.frames_in_order; the same pictures)."""
    frames = list(frames)
    lo, hi = bounds_of(frames)
    if times is not None:
        times = _checks.finite("times", times, shape=(len(frames),))
    fig, tubes, text = _tube_figure(lo, hi, size_px, dpi, view, floor, sides, title, axes_labels)
    if workers is not None:
        workers = _checks.integer("workers", workers, 1, MAX_WORKERS)
    tubes.remember_normals(frames)
    return _painted(fig, tubes, text, frames, times, title, progress, workers)


def _painted(fig, tubes, text, frames, times, title, progress, workers):
    """The frames painted in order (a generator: nothing is drawn before it is asked)."""
    clocks = [None] * len(frames)
    if times is not None:
        clocks = [f"{title}    t = {t:6.2f} s".strip() for t in times]
    fixed = f"{title}    t = ".lstrip()
    painter = FramePainter(fig, tubes, text, clock=None if times is None else
                           (fixed, clocks[0]))
    for picture in frames_in_order(lambda i: painter.paint(frames[i], clocks[i]), len(frames),
                                   workers):
        yield picture
        if progress is not None:
            progress()
