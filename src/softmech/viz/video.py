"""Videos from rendered frames: MP4 (H.264 through imageio-ffmpeg's bundled ffmpeg), or an
animated GIF when MP4 writing fails (no ffmpeg binary, no encoder).

    path = write_video(frames, "output/snake/snake.mp4", fps=25)    # -> ".../snake.mp4" or ".gif"

frames: an iterable of RGB images, each a uint8 array of shape (height, width, 3); use
`figure_frames` to turn a matplotlib figure that is redrawn per frame into such images.
"""
import warnings

import numpy as np

from softmech.io import atomic_output


def figure_frames(fig, update, n_frames, artists=None):
    """Yield fig rendered after update(i) for i in range(n_frames): RGB uint8 (height, width, 3).
    fig must be drawn on an Agg canvas (matplotlib.backends.backend_agg.FigureCanvasAgg).

    artists: the artists that update() changes (and nothing else changes): the rest of the
    figure is then drawn once and only these are redrawn per frame (blitting, ~10x faster)."""
    canvas = fig.canvas
    if artists:
        for a in artists:
            a.set_visible(False)
        canvas.draw()
        background = canvas.copy_from_bbox(fig.bbox)
        for a in artists:
            a.set_visible(True)
    for i in range(n_frames):
        update(i)
        if artists:
            canvas.restore_region(background)
            for a in artists:
                fig.draw_artist(a)
        else:
            canvas.draw()
        yield np.asarray(canvas.buffer_rgba())[..., :3].copy()


def write_video(frames, path, fps=25.0):
    """Write frames to `path` (an .mp4 name); if MP4 writing fails, write the same frames as an
    animated GIF next to it (same name, .gif) and warn. Returns the path written.

    Frames go to the encoder as they come, so that a generator's drawing runs beside ffmpeg's
    encoding (a second process); they are also kept, for the fallback (at most a few hundred
    small images). An error raised by `frames` itself is raised as it is (no fallback)."""
    if not str(path).endswith(".mp4"):
        raise ValueError(f"path = {path!r} is not allowed: must end with .mp4 (the GIF fallback "
                         "takes the same name with .gif)")
    fps = float(fps)
    if not fps > 0:
        raise ValueError(f"fps = {fps!r} is not allowed: must be > 0")
    source = iter(frames)
    first = next(source, None)
    if first is None:
        raise ValueError("frames is empty: a video needs at least one frame")
    kept, failed = [first], []

    def tee():
        yield first
        while True:
            try:
                frame = next(source)
            except StopIteration:
                return
            except Exception as err:        # the frames' own error, not the encoder's
                failed.append(err)
                raise
            kept.append(frame)
            yield frame

    try:
        with atomic_output(path) as tmp:
            _write_mp4(tee(), tmp, fps)
        return path
    except Exception as err:          # any failure of the ffmpeg route: fall back to a GIF
        if failed:
            raise failed[0]
        gif = path[:-4] + ".gif"
        warnings.warn(f"could not write {path} ({type(err).__name__}: {err}); writing {gif} "
                      "instead", RuntimeWarning, stacklevel=2)
        kept.extend(source)             # the frames not drawn before the failure
        write_gif(kept, gif, fps)
        return gif


ENCODER_PRESET = "veryfast"
"""x264's speed preset: ~3x faster encoding than its default ("medium") at the same quality
(constant rate factor), for files ~10-20 % larger; with frames drawn in ~10 ms the default
preset would make the encoder the slowest part of a video."""


def _write_mp4(frames, path, fps):
    import imageio.v2 as imageio

    # yuv420p + even sizes: plays in browsers and default players; frames whose sides are not
    # multiples of 16 are padded by ffmpeg's macro_block_size handling, so keep them multiples.
    writer = imageio.get_writer(path, format="FFMPEG", mode="I", fps=fps, codec="libx264",
                                quality=7, pixelformat="yuv420p", macro_block_size=16,
                                output_params=["-preset", ENCODER_PRESET])
    try:
        for frame in frames:
            writer.append_data(frame)
    finally:
        writer.close()


def write_gif(frames, path, fps=25.0):
    """Animated GIF of frames (at most 15 frames per second, every k-th frame) to `path`."""
    import imageio.v2 as imageio

    step = max(1, int(round(fps / 15.0)))
    kept = list(frames)[::step]
    with atomic_output(path) as tmp:
        imageio.mimsave(tmp, kept, format="GIF", duration=1000.0 * step / fps, loop=0)
    return path
