"""Videos from rendered frames: MP4 (H.264 through imageio-ffmpeg's bundled ffmpeg), or an
animated GIF when MP4 writing fails (no ffmpeg binary, no encoder).

    path = write_video(frames, "output/snake/snake.mp4", fps=25)    # -> ".../snake.mp4" or ".gif"

frames: an iterable of images, each a uint8 array of shape (height, width, 3) (RGB) or
(height, width, 4) (RGBA, the alpha ignored: an Agg canvas's own buffer, copied whole, is
~100x cheaper to take than its RGB channels); use `figure_frames` to turn a matplotlib figure
that is redrawn per frame into such images.
"""
import itertools
import warnings

import numpy as np

from softmech import _checks
from softmech.io import atomic_output


def figure_frames(fig, update, n_frames, artists=None, workers=None, clock=None):
    """Yield fig rendered after update(i) for i in range(n_frames): RGBA uint8 (height, width,
    4), opaque (the canvas's buffer as it is: its RGB channels alone would be a strided copy,
    ~2-4 ms a frame).
    fig must be drawn on an Agg canvas (matplotlib.backends.backend_agg.FigureCanvasAgg).

    artists: the artists that update() changes (and nothing else changes): the rest of the
    figure is then drawn once and only these are redrawn per frame (blitting, ~10x faster).
    clock: None, or (text, fixed, ends): a centred one-line Text of fig (an axes title, a
    figure text) that shows fixed + ends[i] in frame i (ends: n_frames strings). Its fixed
    start is drawn once, where the centred line fixed + ends[0] starts, and each frame's end
    is stamped right-aligned where that line ends, from glyph sprites rendered once
    (painter.split_clock, glyphs.TextStamp: ~0.05 ms a frame, where matplotlib took ~2 ms to
    draw a text). update(i) must set everything else frame i shows (not build on frame
    i - 1): the frames may be drawn by worker processes (workers: see
    softmech.viz.frame_workers.frames_in_order)."""
    from softmech.viz.frame_workers import frames_in_order
    from softmech.viz.glyphs import TextStamp
    from softmech.viz.painter import restore, split_clock

    if clock is not None:
        text, fixed, ends = clock
        if len(ends) != n_frames:
            raise ValueError(f"clock has {len(ends)} ends, expected one per frame "
                             f"(n_frames = {n_frames})")
    if not n_frames:
        return
    canvas = fig.canvas
    if artists or clock is not None:
        for a in artists or []:
            a.set_visible(False)
        if clock is not None:
            # drawn transparent, not hidden: an axes title is placed by its own extent
            alpha = text.get_alpha()
            text.set_text(fixed + ends[0])
            text.set_alpha(0.0)
        canvas.draw()                           # the rest of the figure, once
        for a in artists or []:
            a.set_visible(True)
    if clock is not None:
        text.set_alpha(alpha)
        rest = split_clock(text, fixed, fixed + ends[0])
        fig.draw_artist(text)                   # the fixed start, with the background
        stamp = TextStamp(rest)
    if artists:
        background = np.array(canvas.buffer_rgba())

    def draw(i):
        update(i)
        if artists:
            restore(canvas, background)
            for a in artists:
                fig.draw_artist(a)
        else:
            canvas.draw()
        frame = np.array(canvas.buffer_rgba())
        if clock is not None:
            stamp.draw(frame, ends[i])
        return frame

    yield from frames_in_order(draw, n_frames, workers)


def write_video(frames, path, fps=25.0, encoder="fast"):
    """Write frames to `path` (an .mp4 name); if MP4 writing fails, write the same frames as an
    animated GIF next to it (same name, .gif) and warn. Returns the path written.
    encoder: "fast" (frames drawn in milliseconds: the encoder's pace matters) or "compact"
    (frames that take seconds: smaller files), see ENCODERS.

    Frames go to the encoder as they come, so that a generator's drawing runs beside ffmpeg's
    encoding (a second process). The first FALLBACK_FRAMES are also kept for the fallback:
    ffmpeg fails there (no binary, no H.264 encoder) before it has taken a few frames; a
    failure after them raises a RuntimeError (the frames drawn since are gone; keeping every
    frame cost ~1 ms a frame of fresh memory and ~150 MB for the snake's video). An error
    raised by `frames` itself is raised as it is (no fallback)."""
    if not str(path).endswith(".mp4"):
        raise ValueError(f"path = {path!r} is not allowed: must end with .mp4 (the GIF fallback "
                         "takes the same name with .gif)")
    fps = float(fps)
    if not fps > 0:
        raise ValueError(f"fps = {fps!r} is not allowed: must be > 0")
    _checks.choice("encoder", encoder, ENCODERS)
    _find_ffmpeg()          # looked up beside the drawing of the first frame
    source = iter(frames)
    first = next(source, None)
    if first is None:
        raise ValueError("frames is empty: a video needs at least one frame")
    shape = np.shape(first)
    if len(shape) != 3 or shape[2] not in (3, 4):
        raise ValueError(f"the first frame has shape {shape}, expected (height, width, 3) "
                         "(RGB) or (height, width, 4) (RGBA)")
    # kept for the fallback: only the frames the GIF shows (every step-th)
    step, kept, failed, count = _gif_step(fps), [first], [], [1]

    def tee():
        yield first
        while True:
            try:
                frame = next(source)
                if np.shape(frame) != shape:   # ffmpeg reads fixed-size frames
                    raise ValueError(f"frame {count[0]} has shape {np.shape(frame)}, expected "
                                     f"{shape} like the first")
            except StopIteration:
                return
            except Exception as err:        # the frames' own error, not the encoder's
                failed.append(err)
                raise
            if count[0] < FALLBACK_FRAMES and count[0] % step == 0:
                kept.append(frame)
            count[0] += 1
            yield frame

    try:
        with atomic_output(path) as tmp:
            _write_mp4(tee(), tmp, fps, encoder=encoder)
        return path
    except Exception as err:          # any failure of the ffmpeg route: fall back to a GIF
        if failed:
            raise failed[0]
        if count[0] > FALLBACK_FRAMES:
            raise RuntimeError(f"could not write {path} ({type(err).__name__}: {err}) after "
                               f"{count[0]} frames") from err
        gif = path[:-4] + ".gif"
        warnings.warn(f"could not write {path} ({type(err).__name__}: {err}); writing {gif} "
                      "instead", RuntimeWarning, stacklevel=2)
        rest = [f for k, f in enumerate(source, count[0]) if k % step == 0]  # not yet drawn
        _write_gif(kept + rest, gif, fps, step)
        return gif


FALLBACK_FRAMES = 25
"""Frames kept for the GIF fallback (write_video): ffmpeg reads one frame before it opens its
encoder, so a missing encoder breaks the pipe by the second or third frame."""
ENCODERS = {"fast": ("ultrafast", 20), "compact": ("veryfast", 15)}
"""x264's settings for write_video's `encoder`: (speed preset, constant rate factor: 0 best
... 51 worst, its default 23), measured on the frames of the snake's top view, the snake 3D
and the parachute videos (docs/benchmarks.md, "Videos": the encoder):

- "fast" (the default), for frames drawn in a few milliseconds (matplotlib: tube_frames, the
  top views), where the encoder is the slowest part of a video: `ultrafast` at 20 takes
  ~35-40 % less CPU than `veryfast` at 15, for a higher SSIM and PSNR against a lossless
  encode on each of the three videos (0.99962-0.99972 against 0.99923-0.99955; +5 dB), in
  files 2.4-2.8x larger (0.45 MB for the snake's 6 s top view);
- "compact", for frames that take seconds each (POV-Ray), where the encoder's pace does not
  matter: `veryfast` at 15 (nearly lossless for these pictures: what imageio's quality = 7
  of before meant), the smaller files."""


def _write_mp4(frames, path, fps, encoder="fast"):
    """Encode frames (RGB (h, w, 3) or RGBA (h, w, 4) uint8, all of the first one's shape)
    into the H.264 file `path` through imageio-ffmpeg's ffmpeg binary with the x264 settings
    ENCODERS[encoder], each frame's bytes written to its stdin as they are (an RGBA frame
    needs no RGB copy: ffmpeg drops the alpha), by a second thread (_send_beside) while this
    one draws the next frames. The command line of imageio's FFMPEG writer with those settings
    (the same bytes in the file, tests/unit/test_viz_painter.py), without its fork."""
    import subprocess
    import tempfile
    from fractions import Fraction

    source = iter(frames)
    first = next(source)
    height, width, depth = np.shape(first)
    preset, quality = ENCODERS[encoder]
    cmd = [_find_ffmpeg().result(), "-y", "-f", "rawvideo", "-vcodec", "rawvideo",
           "-s", f"{width}x{height}", "-pix_fmt", ("rgb24", "rgba")[depth == 4],
           "-r", str(Fraction(fps).limit_denominator()), "-i", "-", "-an",
           "-vcodec", "libx264", "-pix_fmt", "yuv420p", "-crf", str(quality)]
    if width % 16 or height % 16:
        # yuv420p + sides that are multiples of 16 (H.264's macro blocks) play in browsers
        # and default players: other sizes are scaled up to them (as imageio did)
        cmd += ["-vf", f"scale={-(-width // 16) * 16}:{-(-height // 16) * 16}"]
    cmd += ["-v", "error", "-preset", preset, path]
    # a plain Popen (imageio's writer passes preexec_fn, which forbids vfork) is a vfork:
    # ~1 ms, where a fork of this process, with matplotlib and the results in memory, took
    # 50-150 ms
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                   stderr=log)
        _widen(process.stdin)

        def send(frame):
            process.stdin.write(np.ascontiguousarray(frame, dtype=np.uint8).data)

        try:
            _send_beside(itertools.chain([first], source), send)
            process.stdin.close()
            code = process.wait()
        finally:
            if process.poll() is None:          # an error while drawing or writing
                process.kill()
                process.wait()
        if code != 0:
            log.seek(0)
            raise RuntimeError(f"ffmpeg exited with code {code}: "
                               f"{log.read().decode(errors='replace').strip()}")


HANDED_FRAMES = 2
"""Frames drawn ahead of the one being written (_send_beside): ~2 MB each at most."""


def _send_beside(frames, send):
    """send(frame) for each of `frames`, in a second thread while this one makes the next
    frames: the drawing (Python, holding the GIL) goes on while the pipe's write (which
    releases the GIL) copies a frame or waits for ffmpeg to take one (measured: the snake's
    top view 1.7x, its 3D video and the parachute's 1.2x less wall time, docs/benchmarks.md
    "Videos"). At most HANDED_FRAMES frames wait between the two. An error of `frames` is raised after the frames
    already handed are sent; an error of `send` (ffmpeg gone: a broken pipe) stops the drawing
    and is raised."""
    import queue
    import threading

    handed, failed = queue.Queue(maxsize=HANDED_FRAMES), []

    def write():
        try:
            while (frame := handed.get()) is not None:
                send(frame)
        except BaseException as err:     # raised in the drawing thread, below
            failed.append(err)
            while handed.get() is not None:      # the drawing thread's puts never block
                pass

    writer = threading.Thread(target=write, name="softmech-video-writer", daemon=True)
    writer.start()
    try:
        for frame in frames:
            if failed:
                break
            handed.put(frame)
    finally:
        handed.put(None)
        writer.join()
    if failed:
        raise failed[0]


_FFMPEG = []


def _find_ffmpeg():
    """A Future of the ffmpeg executable's path (imageio_ffmpeg.get_ffmpeg_exe, which checks the
    binary by running `ffmpeg -version`: ~40 ms, once per process), looked up in a thread
    started by the first call: write_video starts it before it asks for the first frame, so
    that it runs beside the figure's drawing (a vfork, safe beside threads). An error (no
    imageio_ffmpeg, no binary) is raised by result(), and the next call looks again."""
    if _FFMPEG and _FFMPEG[0].done() and _FFMPEG[0].exception() is not None:
        _FFMPEG.clear()
    if not _FFMPEG:
        from concurrent.futures import ThreadPoolExecutor

        def look_up():
            import imageio_ffmpeg

            return imageio_ffmpeg.get_ffmpeg_exe()

        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="softmech-ffmpeg")
        _FFMPEG.append(pool.submit(look_up))
        pool.shutdown(wait=False)
    return _FFMPEG[0]


PIPE_BYTES = 1 << 20
"""Capacity asked for the pipe to ffmpeg [bytes] (Linux's default: 64 kB; 1 MB is what an
unprivileged process may ask, /proc/sys/fs/pipe-max-size)."""


def _widen(stream):
    """Let the pipe `stream` writes to hold PIPE_BYTES (Linux: fcntl F_SETPIPE_SZ), so that a
    frame of ~1-2 MB crosses in one or two writes rather than ~30, each of which wakes the
    other process (writing the snake's top view to a reader: ~15 % less wall time). Where
    that cannot be asked (not Linux) the pipe keeps its size: the same bytes, more slowly."""
    try:
        import fcntl
    except ImportError:                          # Windows
        return
    try:
        fcntl.fcntl(stream.fileno(), getattr(fcntl, "F_SETPIPE_SZ", 1031), PIPE_BYTES)
    except OSError:                              # a lower limit, or not a pipe
        pass


def _gif_step(fps):
    """Every how many frames the GIF fallback shows one: at most 15 frames per second."""
    return max(1, int(round(fps / 15.0)))


def write_gif(frames, path, fps=25.0):
    """Animated GIF of frames (RGB or RGBA, see write_video; at most 15 frames per second,
    every k-th frame) to `path`."""
    step = _gif_step(fps)
    return _write_gif(list(frames)[::step], path, fps, step)


def _write_gif(shown, path, fps, step):
    """The GIF of the frames `shown`, each lasting `step` frames at fps."""
    import imageio.v2 as imageio

    shown = [np.asarray(frame)[..., :3] for frame in shown]
    with atomic_output(path) as tmp:
        imageio.mimsave(tmp, shown, format="GIF", duration=1000.0 * step / fps, loop=0)
    return path
