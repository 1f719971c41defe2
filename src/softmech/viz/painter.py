"""Fast frames of a 3D tube animation (softmech.viz.tubes.tube_frames): what does not move (the
axes, panes, ticks, labels and floor) is drawn once, and each frame paints only its bodies over
a copy of that background, on the same Agg canvas, in the same order and colours as a full draw
of the 3D axes (softmech.viz.tubes.TubeAxes.draw):

1. the hairlines (rods thinner than HAIRLINE_PX) as one line collection;
2. every triangle of every mesh, farthest first (mplot3d's painter's algorithm: sorted by the
   mean projected depth of its corners, Poly3DCollection's default "average" z-sort), in a
   single call to the renderer's draw_gouraud_triangles with the face colour at all three
   corners (flat shading); Agg widens each triangle by half a pixel, which closes the seams
   between neighbours that the full draw hides with edges in the face colour;
   the faces of closed opaque surfaces turned away from the camera are left out (the front
   of the same surface covers them: back-face culling, about half the triangles);
3. the clock: the changing end of the title line (the fixed start is in the background),
   stamped into the frame from glyph sprites rendered once (softmech.viz.glyphs).

    painter = FramePainter(fig, tubes, text, clock=("snake    t = ", "snake    t =   0.00 s"))
    rgba = painter.paint(bodies, "snake    t =   0.40 s")    # uint8 (height, width, 4)

(fig: an Agg canvas; tubes: a softmech.viz.tubes.TubeAxes on it; text: its title line.)

The full draw makes a Path object and a 3D projection per triangle and redraws every tick
label; painting skips both (~10x faster per frame for thousands of triangles, see
docs/benchmarks.md, "Videos").
"""
import numpy as np

from softmech.viz.glyphs import TextStamp


def restore(canvas, background):
    """Put `background` (uint8 (height, width, 4), a copy of the Agg canvas's buffer) back
    into the canvas: one copy of the whole buffer, ~2x faster than restore_region's."""
    np.copyto(np.asarray(canvas.buffer_rgba()), background)


def split_clock(text, fixed, first):
    """Turn the centred Text `text` (of a figure on an Agg canvas; a figure text, or an axes
    title once the figure has been drawn) into its fixed start, left-aligned where `first`
    starts when centred; returns a new Text for the rest, right-aligned where `first` ends, in
    the same coordinates, font and colour. Drawing the fixed start once (with a background)
    and only the rest per frame looks like the whole line (tests/unit/test_viz_painter.py):
    matplotlib lays out and renders a text glyph by glyph, ~5 ms a frame for a 30-character
    title."""
    from matplotlib.text import Text

    if not first.startswith(fixed):
        raise ValueError(f"clock = ({fixed!r}, {first!r}) is not allowed: the first text "
                         "must start with the fixed one")
    fig = text.figure
    text.set_text(first)
    box = text.get_window_extent(fig.canvas.get_renderer())
    to_text = text.get_transform().inverted()          # display [px] -> the text's own
    (left, _), (right, _) = to_text.transform([(box.x0, box.y0), (box.x1, box.y0)])
    rest = Text(right, text.get_position()[1], "", ha="right", va=text.get_va(),
                fontproperties=text.get_fontproperties(), color=text.get_color(),
                transform=text.get_transform())
    rest.set_figure(fig)
    text.set_text(fixed)
    text.set_ha("left")
    text.set_x(left)
    return rest


class FramePainter:
    """Paints the frames of one TubeAxes: the background (the figure without bodies or text)
    is drawn at construction, so the axes' limits, size and view must not change afterwards."""

    def __init__(self, fig, tubes, text, clock=None):
        """fig: a Figure on an Agg canvas; tubes: the TubeAxes on it; text: the figure's
        centred title line. clock: None (the text does not change: drawn with the background)
        or (fixed, first): every frame's text starts with `fixed`, and `first` is the first
        frame's whole text. The fixed start is then drawn with the background, where the
        centred `first` starts, and each frame draws only the rest, right-aligned where
        `first` ends (matplotlib lays out and renders a text glyph by glyph: a 30-character
        title costs ~5 ms a frame, as much as the bodies of a small scene)."""
        from matplotlib.collections import LineCollection
        from matplotlib.transforms import IdentityTransform

        self.fig, self.tubes = fig, tubes
        for artist in tubes.artists:
            artist.remove()
        tubes.artists = []
        self.fixed, self.clock = "", None
        if clock is not None:
            self.fixed, self.clock = clock[0], split_clock(text, *clock)
        fig.canvas.draw()                      # also sets the axes' projection matrix
        self.background = np.array(fig.canvas.buffer_rgba())
        if clock is not None:                  # the clock's changing end, from glyph sprites
            self.clock = TextStamp(self.clock)
        ax = tubes.ax
        self.projection = ax.get_proj()        # data coordinates -> normalised view (4, 4)
        self.to_pixels = ax.transData          # normalised view (x, y) -> display [px]
        self.clip = ax.bbox
        self.lines = LineCollection([], transform=IdentityTransform(), zorder=1)
        self.lines.set_figure(fig)
        self.lines.set_clip_box(self.clip)

    def project(self, points):
        """Display coordinates (..., 2) [px] and depths (...,) of points (..., 3) in the
        axes' data coordinates (mplot3d's projection: larger depth = farther away)."""
        p = np.asarray(points, float)
        homogeneous = np.concatenate([p, np.ones(p.shape[:-1] + (1,))], axis=-1)
        w = homogeneous @ self.projection.T
        view = w[..., :3] / w[..., 3:]
        xy = self.to_pixels.transform(view[..., :2].reshape(-1, 2)).reshape(p.shape[:-1] + (2,))
        return xy, view[..., 2]

    def paint(self, bodies, text=None):
        """The frame showing `bodies` and, with a clock, `text` as its title line (starting
        with the clock's fixed start): RGBA uint8 (height, width, 4), opaque (the canvas's
        buffer copied whole: its RGB channels alone would be a strided copy costing ~2 ms a
        frame at 640x368, as much as painting a small scene)."""
        if text is not None and (self.clock is None or not text.startswith(self.fixed)):
            raise ValueError(f"text = {text!r} is not allowed: the painter was made for "
                             f"a fixed title" + ("" if self.clock is None else
                                                 f" starting {self.fixed!r}"))
        canvas = self.fig.canvas
        restore(canvas, self.background)
        renderer = canvas.get_renderer()
        lines, bodies = self.tubes.hairlines(list(bodies))
        if lines is not None:
            segments, colors, widths = lines
            self.lines.set_segments(self.project(segments)[0])
            self.lines.set_color(colors)
            self.lines.set_linewidths(widths)
            self.lines.draw(renderer)
        triangles, colors, _, closed = self.tubes.triangles(bodies)
        if len(triangles):
            self._draw_triangles(renderer, triangles, colors, closed)
        frame = np.array(canvas.buffer_rgba())
        if text is not None:
            self.clock.draw(frame, text[len(self.fixed):])
        return frame

    def _draw_triangles(self, renderer, triangles, colors, closed):
        """Triangles (F, 3, 3) [data coordinates] in face colours (F, 4), farthest first,
        leaving out those of closed surfaces (closed (F,) bool) that face away from the
        camera: the front of the same surface covers them."""
        from matplotlib.transforms import IdentityTransform

        xy, depth = self.project(triangles)
        # counter-clockwise outward faces seen from outside turn counter-clockwise on the
        # picture (display y up): a clockwise one is seen from behind
        edge1, edge2 = xy[:, 1] - xy[:, 0], xy[:, 2] - xy[:, 0]
        facing = edge1[:, 0] * edge2[:, 1] - edge1[:, 1] * edge2[:, 0] >= 0.0
        shown = np.flatnonzero(facing | ~closed)
        order = shown[np.argsort(depth[shown].mean(axis=-1))[::-1]]  # as Poly3DCollection
        gc = renderer.new_gc()
        gc.set_clip_rectangle(self.clip)
        corner_colors = np.repeat(colors[order][:, None, :], 3, axis=1)
        renderer.draw_gouraud_triangles(gc, xy[order], corner_colors, IdentityTransform())
        gc.restore()
