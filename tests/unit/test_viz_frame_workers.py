"""Frames drawn by forked worker processes (softmech.viz.frame_workers): the same pictures as
drawn serially, pixel for pixel, in order; errors of a worker raised here; bad counts refused."""
import numpy as np
import pytest

from softmech.viz import frame_workers, tubes
from softmech.viz.frame_workers import frames_in_order

needs_fork = pytest.mark.skipif(not frame_workers.can_fork(),
                                reason="frames are drawn serially here (not Linux)")


def moving_scene(k):
    """A helix sliding along x, a ball and a hairline: every kind of drawing the painter does."""
    from softmech.viz.geometry import RodBody
    from softmech.viz.solids import SolidBody

    s = np.linspace(0.0, 1.0, 21)
    helix = np.stack([0.25 * np.cos(5 * s + k) + 0.05 * k, 0.25 * np.sin(5 * s), 0.4 * s], 1)
    return [RodBody.make("helix", helix, 0.04),
            RodBody.make("hair", helix + [0.0, 0.4, 0.0], 1e-4, index=3),
            SolidBody.make("ball", {"shape": "sphere", "radius": 0.06}, (-0.3, 0.2, 0.1 * k))]


def tube_pictures(workers):
    frames = [moving_scene(k) for k in range(7)]
    return list(tubes.tube_frames(frames, times=np.arange(7) * 0.1, floor=0.0,
                                  size_px=(160, 96), workers=workers))


@needs_fork
def test_forked_tube_frames_are_the_serial_ones(monkeypatch):
    """7 frames painted by 2 and 3 forked workers (frames handed back in turn) equal, pixel
    for pixel, the frames painted one after another in this process; and they differ from
    each other (the clock and bodies move), so that a worker repeating a frame would fail.
    The workers were forked (counted), and not for workers=1."""
    forks = []
    forked_frames = frame_workers._forked
    monkeypatch.setattr(frame_workers, "_forked",
                        lambda draw, n, workers, **kw: forks.append(workers) or
                        forked_frames(draw, n, workers, **kw))
    serial = tube_pictures(1)
    assert forks == []
    assert all(not np.array_equal(a, b) for a, b in zip(serial, serial[1:]))
    for workers in (2, 3):
        forked = tube_pictures(workers)
        assert len(forked) == len(serial)
        assert all(np.array_equal(a, b) for a, b in zip(serial, forked))
    assert forks == [2, 3]


@needs_fork
def test_forked_top_view_frames_are_the_serial_ones():
    """The snake's 2D top view (blitted artists, softmech.viz.video.figure_frames) drawn by
    workers equals its serial frames."""
    from softmech.viz import snake

    t = np.linspace(0.0, 1.0, 6)
    s = np.linspace(0.0, 1.0, 11)
    positions = np.stack([np.stack([s + 0.1 * tk, 0.05 * np.sin(6 * s + tk), 0 * s], 1)
                          for tk in t])
    com = positions.mean(axis=1)

    def pictures(workers):
        return list(snake.top_view_frames(t, positions, radius=0.02, time=t, com=com,
                                          size_px=(192, 96), workers=workers))

    serial = pictures(1)
    assert all(not np.array_equal(a, b) for a, b in zip(serial, serial[1:]))
    forked = pictures(2)
    assert len(serial) == 6 and all(np.array_equal(a, b) for a, b in zip(serial, forked))


@needs_fork
def test_a_workers_error_is_raised_here():
    """An error while a worker draws its frame is raised by the parent, in that frame's turn,
    after the frames before it."""
    def draw(i):
        if i == 3:
            raise KeyError("frame 3 failed")
        return np.full((4, 4, 4), i, np.uint8)

    seen = []
    with pytest.raises(KeyError, match="frame 3 failed"):
        for frame in frames_in_order(draw, 6, workers=2):
            seen.append(int(frame[0, 0, 0]))
    assert seen == [0, 1, 2]


def test_serial_when_asked_and_bad_counts_refused():
    """workers=1 draws every frame in this process, in order; counts outside 1..MAX_WORKERS
    and a frame count < 1 are refused naming the field."""
    calls = []

    def draw(i):
        calls.append(i)
        return np.zeros((2, 2, 4), np.uint8)

    assert len(list(frames_in_order(draw, 5, workers=1))) == 5 and calls == list(range(5))
    for bad in (0, frame_workers.MAX_WORKERS + 1, 1.5):
        with pytest.raises(ValueError, match=f"workers = {bad!r} is not allowed"):
            next(frames_in_order(draw, 5, workers=bad))
    with pytest.raises(ValueError, match="n_frames = 0 is not allowed"):
        next(frames_in_order(draw, 0))
    with pytest.raises(ValueError, match="workers = 0 is not allowed"):
        tubes.tube_frames([moving_scene(0)], workers=0)


KILLED_PARENT = """
import os, signal, time
import numpy as np
from softmech.viz.frame_workers import frames_in_order

def draw(i):
    time.sleep(0.01)
    return np.full((256, 256, 4), i % 256, np.uint8)    # 256 kB: more than a pipe holds

frames = frames_in_order(draw, 400, workers=2)
next(frames); next(frames)
os.kill(os.getpid(), signal.SIGKILL)                    # as `softmech run` killed while rendering
"""


@pytest.mark.skipif(not frame_workers.can_fork(), reason="frame workers fork on Linux only")
def test_workers_exit_when_their_parent_is_killed():
    """A run killed while its workers draw (the kill-and-resume tests do that) must not leave
    them behind: each worker holds only its own pipe's write end, so with the parent gone its
    next write fails and it exits. Before, every worker also held the read ends of the others'
    pipes (inherited at fork), so workers blocked on a full pipe waited for each other forever,
    holding the caller's stdout open (subprocess.run below never returned)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", KILLED_PARENT], capture_output=True,
                          timeout=60)
    assert done.returncode == -9, done.stderr.decode()[-2000:]
    assert b"Traceback" not in done.stderr, done.stderr.decode()[-2000:]   # they exit quietly


@needs_fork
def test_automatic_workers_only_for_slow_frames(monkeypatch):
    """workers=None forks workers for frames drawn slower than AUTO_MIN_PACE (when the video
    is long enough: AUTO_MIN_SECONDS, here 0), not for faster ones, whose pace the encoder
    sets: their handing over would cost more than their drawing."""
    import time

    forks = []
    forked_frames = frame_workers._forked
    monkeypatch.setattr(frame_workers, "_forked",
                        lambda draw, n, workers, **kw: forks.append(workers) or
                        forked_frames(draw, n, workers, **kw))
    monkeypatch.setattr(frame_workers, "AUTO_MIN_SECONDS", 0.0)
    # a pace far from a loaded machine's hiccups (a process descheduled for ~10 ms)
    monkeypatch.setattr(frame_workers, "AUTO_MIN_PACE", 0.1)
    monkeypatch.setattr(frame_workers, "available_workers", lambda: 2)

    def draw(seconds):
        def frame(i):
            time.sleep(seconds)
            return np.full((2, 2, 4), i, np.uint8)
        return frame

    fast = list(frames_in_order(draw(0.0), 6))
    assert forks == []
    slow = list(frames_in_order(draw(1.5 * frame_workers.AUTO_MIN_PACE), 6))
    assert forks == [2]
    assert [int(f[0, 0, 0]) for f in fast] == [int(f[0, 0, 0]) for f in slow] == list(range(6))

    # one slow frame among the pace frames (a preempted process) does not fork: the quickest
    # of frames 1 ... PACE_FRAMES sets the pace
    def hiccup(i):
        time.sleep(1.5 * frame_workers.AUTO_MIN_PACE if i == 1 else 0.0)
        return np.full((2, 2, 4), i, np.uint8)

    once = list(frames_in_order(hiccup, 8))
    assert forks == [2] and [int(f[0, 0, 0]) for f in once] == list(range(8))


def test_frames_are_sent_in_order_beside_the_drawing():
    """video._send_beside: every frame sent once, in order, from a second thread; an error of
    send (ffmpeg gone) stops the drawing within the frames already handed and is raised; an
    error of the frames is raised after the frames drawn before it are sent."""
    import threading

    from softmech.viz import video

    sent, threads = [], set()

    def send(frame):
        threads.add(threading.current_thread().name)
        sent.append(frame)

    video._send_beside(iter(range(50)), send)
    assert sent == list(range(50)) and threads == {"softmech-video-writer"}

    drawn = []

    def frames():
        for i in range(1000):
            drawn.append(i)
            yield i

    def broken(frame):
        if frame == 3:
            raise BrokenPipeError("ffmpeg gone")

    with pytest.raises(BrokenPipeError, match="ffmpeg gone"):
        video._send_beside(frames(), broken)
    assert len(drawn) <= 3 + video.HANDED_FRAMES + 2

    def failing():
        yield from range(5)
        raise ValueError("frame 5 is bad")

    sent.clear()
    with pytest.raises(ValueError, match="frame 5 is bad"):
        video._send_beside(failing(), send)
    assert sent == list(range(5))
