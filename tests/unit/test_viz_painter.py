"""The fast video path (issue 31): frames painted over a background drawn once
(softmech.viz.painter) show what a full draw of the 3D axes shows, the batched meshes are the
per-body ones, and the videos have the frames and duration asked for."""
import numpy as np
import pytest

from softmech.viz import tubes, video
from softmech.viz.geometry import BoxBody, RodBody, View, bounds_of, tube_mesh, tube_meshes
from softmech.viz.painter import FramePainter
from softmech.viz.solids import SolidBody, half_size, body_mesh, sphere_meshes


def scene(shift=0.0):
    """Every kind of body: open rods (with and without directors), a ring, spheres of two
    sizes, a cylinder, a box, a see-through ghost and a rod thin enough to be a hairline."""
    s = np.linspace(0.0, 1.0, 21)
    helix = np.stack([0.25 * np.cos(5 * s) + shift, 0.25 * np.sin(5 * s), 0.4 * s + 0.05], 1)
    th = 2 * np.pi * np.arange(16) / 16
    ring = np.stack([0.15 * np.cos(th) + 0.6, 0.15 * np.sin(th), np.full(16, 0.1)], 1)
    line = np.stack([np.linspace(-0.4, 0.4, 9), np.full(9, -0.3), np.full(9, 0.05)], 1)
    frames = np.broadcast_to([[0.0, 1, 0], [0, 0, 1], [1, 0, 0]], (8, 3, 3))  # d3 along x
    return [RodBody.make("helix", helix, 0.04, index=0),
            RodBody.make("ring", ring, 0.03, closed=True, index=1),
            RodBody.make("bar", line, 0.02, frames, index=2),
            RodBody.make("hair", line + [0, 0.5, 0], 1e-4, index=3),
            RodBody.make("ghost", helix + [0.3, 0.2, 0], 0.05, index=4, opacity=0.4),
            SolidBody.make("ball", {"shape": "sphere", "radius": 0.06}, (-0.3, 0.2, 0.1)),
            SolidBody.make("bead", {"shape": "sphere", "radius": 0.01}, (0.0, 0.0, 0.3)),
            SolidBody.make("can", {"shape": "cylinder", "radius": 0.05, "length": 0.2},
                           (0.4, -0.2, 0.1), index=5),
            BoxBody.make("wall", (-0.5, 0.35, 0.0), (-0.4, 0.45, 0.3))]


CLOCK = ("scene    t = ", "scene    t =   0.00 s")


def both_ways(bodies, size=(320, 192)):
    """(full draw, painted frame, background) of `bodies` with the clock at 0: RGB uint8
    (h, w, 3) each."""
    args = (*bounds_of([bodies]), size, 100, View(), 0.0, 12, "scene", True)
    fig, axes, text = tubes._tube_figure(*args)
    axes.draw(bodies)
    text.set_text(CLOCK[1])
    fig.canvas.draw()
    full = np.asarray(fig.canvas.buffer_rgba())[..., :3].copy()
    fig, axes, text = tubes._tube_figure(*args)
    painter = FramePainter(fig, axes, text, clock=CLOCK)
    background = painter.paint([], CLOCK[1])
    return full, painter.paint(bodies, CLOCK[1])[..., :3], background[..., :3]


def test_a_painted_frame_shows_what_the_full_draw_shows():
    """Same bodies, colours and places: the painted frame differs from the full draw only along
    outlines (the full draw's 0.25 pt face-coloured edges; Agg's widening of each triangle),
    under 2 % of the pixels by more than 16/255 (measured: 1.1 % here, ~0.5 % on the built-in
    scenes at 640x368); and the bodies cover as many pixels as in the full draw, to within the
    widening: -3 % to +12 % (measured +8.7 % here, where most bodies are a few pixels wide and
    grow by about one; ~1 % on the built-in scenes). A frame without its bodies, or with the
    back faces in front, would fail both."""
    full, painted, background = both_ways(scene())
    differs = np.abs(full.astype(int) - painted.astype(int)).max(axis=-1) > 16
    assert differs.mean() < 0.02
    covered = [np.abs(a.astype(int) - background.astype(int)).max(axis=-1) > 16
               for a in (full, painted)]
    assert covered[0].mean() > 0.01                           # the bodies are in the picture
    assert 0.97 < covered[1].sum() / covered[0].sum() < 1.12


def test_see_through_and_open_surfaces_keep_their_back_faces():
    """Culling leaves out only the back faces of opaque closed surfaces: a ghost's (opacity
    < 1) and an open mesh's back faces are drawn."""
    fig, axes, _ = tubes._tube_figure(np.zeros(3), np.ones(3), (160, 96), 100, View(), None,
                                      8, None, False)
    sheet = SolidBody.make("sheet", {"shape": "general", "vertices": np.eye(3),
                                     "faces": np.array([[0, 1, 2]])}, np.zeros(3))
    bodies = scene()
    _, colors, _, hidden = axes.triangles(bodies)
    opaque_closed = {"helix", "ring", "bar", "hair", "ball", "bead", "can", "wall"}
    counts = [len(b.mesh(axes._sides(b, axes.pixels_per_metre()))[1]) for b in bodies]
    assert hidden.sum() == sum(c for b, c in zip(bodies, counts) if b.name in opaque_closed)
    assert np.all(hidden <= (colors[:, 3] >= 1.0))
    for kept in (sheet, bodies[4]):                           # the open sheet, the ghost
        assert not axes.triangles([kept])[3].any()


def test_batched_meshes_are_the_single_ones():
    """tube_meshes (rods of different lengths, open and closed, with and without directors,
    transported and meshed together, the shorter padded) and sphere_meshes give each body's own
    mesh."""
    rng = np.random.default_rng(3)
    rods = [RodBody.make(f"r{n}", np.cumsum(rng.normal(size=(n, 3)), axis=0), 0.1,
                         closed=closed) for n, closed in ((5, False), (12, False), (9, True),
                                                          (9, True), (2, False))]
    turned = [np.linalg.qr(rng.normal(size=(3, 3)))[0] for _ in range(4)]
    rods += [RodBody.make(f"d{k}", np.cumsum(rng.normal(size=(5, 3)), axis=0), 0.1, turned)
             for k in range(2)]
    sides = [8, 6, 8, 5, 4, 6, 6]
    for rod, k, (v, f) in zip(rods, sides, tube_meshes(rods, sides)):
        v1, f1 = tube_mesh(rod.positions, rod.radius, rod.directors, sides=k, closed=rod.closed)
        assert np.array_equal(f, f1) and np.allclose(v, v1, atol=1e-12)
    balls = [SolidBody.make(f"b{k}", {"shape": "sphere", "radius": 0.1 * (k + 1)},
                            rng.normal(size=3), np.linalg.qr(rng.normal(size=(3, 3)))[0])
             for k in range(3)]
    v, f = sphere_meshes(balls, 6)
    singles = [b.mesh(6) for b in balls]
    assert np.allclose(v, np.concatenate([s[0] for s in singles]), atol=1e-15)
    offsets = np.cumsum([0] + [len(s[0]) for s in singles[:-1]])
    assert np.array_equal(f, np.concatenate([s[1] + k for s, k in zip(singles, offsets)]))


@pytest.mark.parametrize("description", [{"shape": "sphere", "radius": 0.3},
                                         {"shape": "cylinder", "radius": 0.2, "length": 0.1},
                                         {"shape": "cylinder", "radius": 0.2, "length": 0.9},
                                         {"shape": "box", "lengths": [0.3, 0.1, 0.5]}])
def test_half_size_without_a_mesh_is_the_mesh_one(description):
    vertices = body_mesh(description, 8)[0]
    assert half_size(description) == 0.5 * float(np.min(np.ptp(vertices, axis=0)))


def test_a_video_has_its_frames_and_duration(tmp_path):
    """tube_frames through write_video: as many frames as bodies lists, lasting frames / fps
    (read back with ffmpeg), each showing the bodies (pixels away from the first frame's
    background), and the frames differ as the bodies move."""
    import imageio.v2 as imageio

    frames = [scene(0.1 * k) for k in range(6)]
    path = video.write_video(tubes.tube_frames(frames, times=np.arange(6) * 0.2, floor=0.0,
                                               size_px=(320, 192)), str(tmp_path / "v.mp4"),
                             fps=5)
    assert path.endswith(".mp4")
    with imageio.get_reader(path, format="FFMPEG") as reader:
        assert reader.count_frames() == 6
        assert reader.get_meta_data()["duration"] == pytest.approx(6 / 5, abs=0.05)
        pictures = [reader.get_data(i) for i in range(6)]
    assert pictures[0].shape == (192, 320, 3)
    assert np.abs(pictures[0].astype(int) - pictures[5].astype(int)).max(axis=-1).mean() > 1


def test_an_error_while_drawing_is_not_hidden_by_the_gif_fallback(tmp_path):
    def frames():
        yield np.zeros((32, 32, 3), np.uint8)
        raise KeyError("drawing failed")

    with pytest.raises(KeyError, match="drawing failed"):
        video.write_video(frames(), str(tmp_path / "v.mp4"), fps=5)
    with pytest.raises(ValueError, match="empty"):
        video.write_video(iter([]), str(tmp_path / "v.mp4"))


def test_the_clock_is_split_where_the_whole_line_was():
    """The title line drawn as its fixed start (background) and its changing end (each frame)
    looks like the whole centred line: under 1 % of the title band's pixels differ by more
    than 64/255 (glyphs may move by a fraction of a pixel). A text not starting with the fixed
    start is refused."""
    bodies = scene()
    full, painted, _ = both_ways(bodies)
    band = slice(0, 24)                                  # the title line's rows
    differs = np.abs(full[band].astype(int) - painted[band].astype(int)).max(axis=-1) > 64
    assert differs.mean() < 0.01
    fig, axes, text = tubes._tube_figure(*bounds_of([bodies]), (160, 96), 100, View(), None,
                                         8, "scene", False)
    painter = FramePainter(fig, axes, text, clock=CLOCK)
    with pytest.raises(ValueError, match="starting 'scene    t = '"):
        painter.paint(bodies, "other    t =   1.00 s")


def test_the_encoder_writes_what_imageios_writer_wrote(tmp_path):
    """write_video's own ffmpeg pipe (a vfork, frames' bytes as they are) writes the same file,
    byte for byte, as imageio's FFMPEG writer given the same x264 settings, for each encoder
    (video.ENCODERS), from RGB frames and from the same frames as RGBA (the alpha dropped by
    ffmpeg); a size that is not a multiple of 16 is scaled up to one as imageio did; and the
    two encoders write different files. An unknown encoder is refused."""
    import imageio.v2 as imageio

    rng = np.random.default_rng(0)
    for height, width in ((48, 64), (40, 56)):
        rgb = [rng.integers(0, 4, (height, width, 3), dtype=np.uint8) * 64 for _ in range(4)]
        rgba = [np.concatenate([f, np.full((height, width, 1), 255, np.uint8)], -1)
                for f in rgb]
        files = {}
        for encoder, (preset, quality) in video.ENCODERS.items():
            ours = [video.write_video(iter(f), str(tmp_path / f"{name}.mp4"), fps=5,
                                      encoder=encoder)
                    for name, f in (("rgb", rgb), ("rgba", rgba))]
            with imageio.get_writer(str(tmp_path / "imageio.mp4"), format="FFMPEG", mode="I",
                                    fps=5.0, codec="libx264", quality=None,
                                    pixelformat="yuv420p", macro_block_size=16,
                                    output_params=["-crf", str(quality), "-preset", preset]
                                    ) as writer:
                for frame in rgb:
                    writer.append_data(frame)
            files[encoder] = (tmp_path / "imageio.mp4").read_bytes()
            assert all(open(p, "rb").read() == files[encoder] for p in ours)
        assert files["fast"] != files["compact"]
    with pytest.raises(ValueError, match="encoder = 'best' is not allowed"):
        video.write_video(iter(rgb), str(tmp_path / "v.mp4"), encoder="best")


def test_a_frame_of_another_size_is_refused(tmp_path):
    """ffmpeg reads frames of the first one's size: another size is the frames' error (raised
    as it is, no GIF), and so is a first frame that is not an image."""
    frames = [np.zeros((32, 32, 4), np.uint8), np.zeros((32, 48, 4), np.uint8)]
    with pytest.raises(ValueError, match=r"frame 1 has shape \(32, 48, 4\), expected"):
        video.write_video(iter(frames), str(tmp_path / "v.mp4"), fps=5)
    assert not list(tmp_path.iterdir())
    with pytest.raises(ValueError, match=r"first frame has shape \(32, 32\)"):
        video.write_video(iter([np.zeros((32, 32), np.uint8)]), str(tmp_path / "v.mp4"))


def test_the_box_of_many_bodies_is_the_box_of_their_own():
    """bounds_of boxes the solids together (lab-frame spheres such as joint markers from their
    centres and radii, SolidBody.bounds_of_many): exactly (bit for bit) the box of every
    body's own bounds(), so that a video's view is the same; one rotated sphere far out on
    each side checks that those are still meshed."""
    from softmech.viz.solids import joint_bodies

    rng = np.random.default_rng(5)
    turned = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    turned *= np.linalg.det(turned)
    frames = []
    for k in range(4):
        bodies = scene(0.1 * k)
        bodies += joint_bodies("j", {"kind": "ball", "a": {"body": "helix", "node": 3},
                                     "b": {"body": "ball", "point": [0.0, 0.0, 0.0]}},
                               {b.name: b for b in bodies})
        bodies += [SolidBody.make(f"m{i}", {"shape": "sphere", "radius": r}, p)
                   for i, (r, p) in enumerate(zip(rng.uniform(0.01, 0.1, 30),
                                                  rng.normal(size=(30, 3))))]
        frames.append(bodies)
    frames[1].append(SolidBody.make("far", {"shape": "sphere", "radius": 0.5},
                                    (9.0, -9.0, 9.0), turned))
    boxes = [b.bounds() for bodies in frames for b in bodies]
    lo, hi = bounds_of(frames)
    assert np.array_equal(lo, np.min([b[0] for b in boxes], axis=0))
    assert np.array_equal(hi, np.max([b[1] for b in boxes], axis=0))
    assert hi[0] > 9.0 and lo[1] < -9.0


def test_an_encoder_failing_late_is_an_error_not_a_short_gif(tmp_path, monkeypatch):
    """The GIF fallback keeps the first FALLBACK_FRAMES frames only: an encoder that fails
    within them gives the whole GIF (every frame drawn, those not yet drawn too); one that
    fails after them raises, naming the frame count, rather than writing a GIF without the
    frames already handed over."""
    import imageio.v2 as imageio

    def failing_after(n):
        def encoder(frames, path, fps, encoder="fast"):
            for k, _ in enumerate(frames):
                if k + 1 == n:
                    raise BrokenPipeError("encoder gone")
        return encoder

    frames = [np.full((16, 16, 4), 6 * k, np.uint8) for k in range(40)]
    monkeypatch.setattr(video, "_write_mp4", failing_after(3))
    with pytest.warns(RuntimeWarning, match="encoder gone"):
        path = video.write_video(iter(frames), str(tmp_path / "v.mp4"), fps=15)
    assert len(imageio.mimread(path)) == 40                    # 15 frames/s: all shown
    monkeypatch.setattr(video, "_write_mp4", failing_after(video.FALLBACK_FRAMES + 2))
    with pytest.raises(RuntimeError, match=f"after {video.FALLBACK_FRAMES + 2} frames"):
        video.write_video(iter(frames), str(tmp_path / "w.mp4"), fps=15)


def test_normals_of_all_frames_at_once_are_each_frames_own():
    """TubeAxes.remember_normals (the rods of a whole video transported together) gives
    exactly the normals of each frame's own rod_normals, and frames painted with them are
    the frames painted without, pixel for pixel; hairlines and rods with directors are not
    transported."""
    from softmech.viz.geometry import rod_normals

    frames = [scene(0.05 * k) for k in range(4)]
    args = (*bounds_of(frames), (320, 192), 100, View(), 0.0, 12, "scene", True)
    fig, axes, text = tubes._tube_figure(*args)
    axes.remember_normals(frames)
    remembered = axes.known_normals
    assert {b.name for f in frames for b in f if id(b) in remembered} == {"helix", "ring",
                                                                         "ghost"}
    for bodies in frames:
        rods = [b for b in bodies if id(b) in remembered]
        assert all(np.array_equal(remembered[id(r)], n) for r, n in zip(rods, rod_normals(rods)))
    with_them = FramePainter(fig, axes, text, clock=CLOCK)
    pictures = [with_them.paint(f, CLOCK[1]) for f in frames]
    fig, axes, text = tubes._tube_figure(*args)
    without = FramePainter(fig, axes, text, clock=CLOCK)
    assert all(np.array_equal(p, without.paint(f, CLOCK[1])) for p, f in zip(pictures, frames))


def clock_figures():
    """(figure, its centred title Text, the fixed start) of the two kinds of clock line: a
    3D view's figure text (va "top") and a 2D view's axes title (va "baseline")."""
    from softmech.viz.figures import figure

    fig, _, text = tubes._tube_figure(np.zeros(3), np.ones(3), (640, 368), 100, View(), 0.0,
                                      12, "snake, world 0", True)
    yield fig, text, "snake, world 0    t = "
    fig, ax = figure(size=(9.6, 4.8), layout=None)
    yield fig, ax.set_title("snake, top view    t = "), "snake, top view    t = "


def stamped_and_drawn(fig, text, fixed, ends, shift=0):
    """For each end: (the frame with the end stamped by a TextStamp, the frame with it drawn
    by matplotlib), RGB uint8 (h, w, 3), over the figure drawn with the fixed start; the
    stamp moved `shift` pixels to the right (to show that the comparison can fail)."""
    from softmech.viz.glyphs import TextStamp
    from softmech.viz.painter import restore, split_clock

    fig.canvas.draw()
    rest = split_clock(text, fixed, fixed + ends[0])
    fig.canvas.draw()
    background = np.array(fig.canvas.buffer_rgba())
    stamp = TextStamp(rest)
    for end in ends:
        restore(fig.canvas, background)
        rest.set_text(end)
        rest.draw(fig.canvas.get_renderer())
        drawn = np.array(fig.canvas.buffer_rgba())[..., :3]
        stamped = background.copy()
        stamp.draw(stamped, end)
        yield np.roll(stamped, shift, axis=1)[..., :3], drawn


def close(stamped, drawn):
    """Whether a picture with stamped text is the one with the text drawn by matplotlib
    (RGB(A) uint8 arrays): see test_a_stamped_clock_is_the_drawn_one."""
    import matplotlib

    differs = np.abs(stamped[..., :3].astype(int) - drawn[..., :3].astype(int)).max(axis=-1)
    if tuple(int(v) for v in matplotlib.__version__.split(".")[:2]) >= (3, 11):
        return differs.max() <= 2
    return (differs > 64).sum() <= 0.02 * (drawn[..., :3].min(axis=-1) < 250).sum()


def test_a_stamped_clock_is_the_drawn_one():
    """The clock's end stamped from glyph sprites (softmech.viz.glyphs) is matplotlib's
    drawing of it: with matplotlib >= 3.11, which places glyphs at whole-pixel advances, no
    pixel differs by more than 2/255 (the rounding of the blend; measured: 1/255); earlier
    versions place glyphs at fractional advances, which the sprites round to whole pixels:
    under 2 % of the pixels the text covers may then differ by more than 64/255. Any digit,
    sign and a character not rendered in advance ("µ"), on both kinds of clock line; a stamp
    one pixel off fails the comparison."""
    ends = [f"{t:6.2f} s" for t in (0.0, 1.23, 45.67, 89.0, -0.5, 123.45)] + ["  7.5 µs"]
    for (fig, text, fixed), again in zip(clock_figures(), clock_figures()):
        pairs = list(stamped_and_drawn(fig, text, fixed, ends))
        assert all(close(s, d) for s, d in pairs)
        assert all(not np.array_equal(a[1], b[1]) for a, b in zip(pairs, pairs[1:]))
        assert not any(close(s, d) for s, d in stamped_and_drawn(*again, ends, shift=1))


def test_a_stamp_takes_one_right_aligned_line():
    from softmech.viz.glyphs import TextStamp

    fig, text, fixed = next(clock_figures())
    fig.canvas.draw()
    with pytest.raises(ValueError, match="ha = 'center'"):
        TextStamp(text)
    from softmech.viz.painter import split_clock
    stamp = TextStamp(split_clock(text, fixed, fixed + "  0.00 s"))
    with pytest.raises(ValueError, match="one line"):
        stamp.draw(np.zeros((368, 640, 4), np.uint8), "1\n2")


def top_view(n_frames=6, size_px=(320, 160), **kwargs):
    """A small snake's top-view frames (softmech.viz.snake.top_view_frames)."""
    from softmech.viz import snake

    t = np.linspace(0.0, 1.0, n_frames)
    s = np.linspace(0.0, 1.0, 11)
    positions = np.stack([np.stack([s + 0.1 * tk, 0.05 * np.sin(6 * s + tk), 0 * s], 1)
                          for tk in t])
    return t, snake.top_view_frames(t, positions, radius=0.02, time=t,
                                    com=positions.mean(axis=1), size_px=size_px, **kwargs)


def test_top_view_frames_show_the_drawn_clock(monkeypatch):
    """The top view's frames (body, head and track blitted over a background drawn once,
    the clock's time stamped from glyph sprites): one frame per time, of the size asked for,
    and the frames of matplotlib drawing the time (the path before the stamps) to within
    the stamp's accuracy (`close`); the frames differ from each other (the clock runs)."""
    from softmech.viz import glyphs

    times, frames = top_view()
    frames = list(frames)
    assert len(frames) == len(times) and {f.shape for f in frames} == {(160, 320, 4)}
    assert all(not np.array_equal(a, b) for a, b in zip(frames, frames[1:]))

    class Drawn:
        """matplotlib draws the text over the frame's canvas (what the stamp replaces)."""
        def __init__(self, text):
            self.text = text

        def draw(self, rgba, s):
            self.text.set_text(s)
            self.text.draw(self.text.figure.canvas.get_renderer())
            rgba[...] = np.asarray(self.text.figure.canvas.buffer_rgba())

    monkeypatch.setattr(glyphs, "TextStamp", Drawn)
    drawn = list(top_view()[1])
    assert all(close(f, d) for f, d in zip(frames, drawn))


def test_the_gif_fallback_takes_the_top_view(tmp_path, monkeypatch):
    """Without a working encoder, the top view's frames (RGBA, the clock stamped) are written
    as a GIF of the same size, every frame shown at 15 frames per second."""
    import imageio.v2 as imageio

    def broken(frames, path, fps, encoder="fast"):
        next(iter(frames))
        raise BrokenPipeError("no encoder")

    monkeypatch.setattr(video, "_write_mp4", broken)
    times, frames = top_view()
    with pytest.warns(RuntimeWarning, match="no encoder"):
        path = video.write_video(frames, str(tmp_path / "top.mp4"), fps=15)
    pictures = imageio.mimread(path)
    assert path.endswith(".gif") and len(pictures) == len(times)
    assert pictures[0].shape[:2] == (160, 320)
    _, again = top_view()
    first = next(again)[..., :3]
    assert np.abs(pictures[0][..., :3].astype(int) - first.astype(int)).mean() < 8  # palette


def test_the_fast_encoder_keeps_the_pictures(tmp_path):
    """The "fast" encoder (x264 ultrafast, CRF 20) loses no more than the "compact" one it
    replaced for matplotlib's frames (veryfast, CRF 15): the top view's frames decoded from
    each file differ from the drawn ones by as little on average, to within 5 % (measured
    here: 0.80/255 against 0.81/255), and by under 2/255 (yuv420p, which halves the colour
    resolution, alone costs 0.49/255 on these small frames: CRF 0)."""
    import imageio.v2 as imageio

    drawn = [f[..., :3].astype(int) for f in top_view(n_frames=10)[1]]
    error = {}
    for encoder in video.ENCODERS:
        path = video.write_video(iter(np.array(f) for f in top_view(n_frames=10)[1]),
                                 str(tmp_path / f"{encoder}.mp4"), fps=25, encoder=encoder)
        with imageio.get_reader(path, format="FFMPEG") as reader:
            decoded = [reader.get_data(i).astype(int) for i in range(len(drawn))]
        error[encoder] = np.mean([np.abs(d - f).mean() for d, f in zip(decoded, drawn)])
    assert error["fast"] <= 1.05 * error["compact"] and error["fast"] < 2.0, error
