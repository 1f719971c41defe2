"""The frames of a video drawn by worker processes beside each other, handed back in order.

    for picture in frames_in_order(draw, n_frames):       # draw(i) -> uint8 (h, w, channels)
        encoder.write(picture)

The first frames are drawn here (1 + PACE_FRAMES); when the rest would take long enough
(AUTO_MIN_SECONDS at their pace, which is slow enough: AUTO_MIN_PACE) and the machine has more
than one core, the process forks WORKERS-many children, each a copy of this one at that moment
(its figure, background and bodies: nothing is rebuilt or pickled), and child k draws frames
m + k, m + k + n, ... (m = 1 + PACE_FRAMES; with an explicit count: m = 1) with the same
`draw`; this process receives them in order through one pipe per child and yields them while
the children draw the next ones. A forked child draws on its own copy of the same canvas in the same state,
so its pictures are the serial ones, pixel for pixel (tests/unit/test_viz_frame_workers.py).
`draw(i)` must therefore depend only on i, not on the frames drawn before (every frame function
of softmech.viz sets all it shows: the painter restores the background, blitted artists are
set from their frame's data).

Except on Linux (Windows cannot fork; macOS's frameworks are not fork-safe), frames are drawn
serially.
"""
import os
import signal
import time

import numpy as np

from softmech import _checks

MAX_WORKERS = 4
"""Most worker processes (a frame is ~1 MB in flight per worker)."""
AUTO_MIN_SECONDS = 0.5
"""With workers=None, workers are forked only when the frames after the first would take at
least this long [s] drawn serially at the first frame's pace: forking a process holding
matplotlib and the results (~20-100 ms per child on a 2-core machine) does not pay for
shorter videos."""
PACE_FRAMES = 3
"""With workers=None, frames 1 ... PACE_FRAMES are drawn here first: the quickest of them sets
the pace (AUTO_MIN_PACE)."""
AUTO_MIN_PACE = 0.005
"""... and only when the quickest of frames 1 ... PACE_FRAMES took at least this long [s] (the
first pays one-time costs): a frame drawn faster is
drawn about as fast as the encoder takes it (x264 `ultrafast`: 2-5 ms a frame of 640x368 to
960x480 here), so that workers cannot shorten the video, and handing each frame over
(~2 MB through a pipe, twice copied) costs more CPU than drawing it (the snake's top view
under load 7: 2.8-3.7 s serial against 3.2-5.3 s with 2 workers, docs/benchmarks.md)."""


def can_fork():
    """True on Linux with the "fork" start method; elsewhere frames are drawn serially
    (Windows cannot fork, and macOS's system frameworks are not safe in a forked child: its
    default start method is "spawn")."""
    import multiprocessing
    import sys

    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def available_workers():
    """Cores this process may run on (its CPU affinity; os.cpu_count where that is unknown),
    at most MAX_WORKERS; 1 where it cannot fork (can_fork)."""
    if not can_fork():
        return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:                      # no affinity on this platform
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_WORKERS))


def frames_in_order(draw, n_frames, workers=None):
    """Yield draw(0), draw(1), ..., draw(n_frames - 1) (uint8 arrays, all of one shape).

    workers: None (as many as available_workers(), when the frames left after frame
    PACE_FRAMES would take at least AUTO_MIN_SECONDS serially and the quickest of frames
    1 ... PACE_FRAMES took at least AUTO_MIN_PACE), 1 (serial:
    every frame drawn here) or a count >= 2 (that many forked workers whatever the length,
    fewer when fewer frames are left; serial where processes cannot be forked)."""
    n_frames = _checks.integer("n_frames", n_frames, 1)
    if workers is not None:
        workers = _checks.integer("workers", workers, 1, MAX_WORKERS)
    start = time.perf_counter()
    yield draw(0)
    pace, done = time.perf_counter() - start, 1
    if workers is None:
        # the first frame pays one-time costs (caches, the first paths drawn): the quicker
        # of the next PACE_FRAMES is the video's pace (one frame alone, on a loaded machine,
        # is often preempted: a 2 ms frame then took over 5 ms and workers were forked)
        times = []
        while done < min(1 + PACE_FRAMES, n_frames - 1):
            start = time.perf_counter()
            yield draw(done)
            times.append(time.perf_counter() - start)
            done += 1
        pace = min(times, default=pace)
    rest = n_frames - done
    if workers is None:
        slow = pace >= AUTO_MIN_PACE and pace * rest >= AUTO_MIN_SECONDS
        workers = available_workers() if slow else 1
    elif not can_fork():
        workers = 1
    workers = min(workers, rest)
    if workers <= 1:
        for i in range(done, n_frames):
            yield draw(i)
        return
    yield from _forked(draw, n_frames, workers, first=done)


def _forked(draw, n_frames, workers, first=1):
    """Frames first ... n_frames - 1, drawn by `workers` forked children in turn."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    pipes, children = [], []
    try:
        for k in range(workers):
            receive, send = context.Pipe(duplex=False)
            # the child closes the read ends it inherits (its own and the earlier children's):
            # with the parent gone, no one reads, so its next write fails and it exits
            child = context.Process(target=_work, daemon=True,
                                    args=(draw, range(first + k, n_frames, workers), send,
                                          pipes + [receive]))
            child.start()
            send.close()                        # the child's end: EOF here when it exits
            pipes.append(receive)
            children.append(child)
        for i in range(first, n_frames):
            pipe = pipes[(i - first) % workers]
            header = pipe.recv()
            if header[0] == "error":
                raise header[1]
            _, shape, dtype = header
            yield np.frombuffer(pipe.recv_bytes(), dtype=dtype).reshape(shape)
    finally:                                    # done, or the consumer stopped early
        for child in children:
            if child.is_alive():
                child.terminate()
            child.join()
        for pipe in pipes:
            pipe.close()


def _work(draw, indices, pipe, inherited):
    """A worker: draw the frames `indices` in order and send each (a header, then its bytes);
    an error is sent in a frame's place (the parent raises it). `inherited`: the read ends
    the fork copied into this process, closed first so that only the parent reads `pipe`
    (were a sibling to hold it, workers blocked on full pipes would outlive a killed parent,
    waiting for each other)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C stops the parent, which ends us
    for end in inherited:
        end.close()
    try:
        for i in indices:
            frame = np.ascontiguousarray(draw(i))
            pipe.send(("frame", frame.shape, frame.dtype.str))
            pipe.send_bytes(frame.reshape(-1).data)          # bytes, not rows
    except BrokenPipeError:                     # the parent is gone: no one to report to
        return
    except Exception as err:                    # noqa: BLE001 (handed to the parent)
        try:
            pipe.send(("error", err))
        except Exception:                       # an error that does not pickle
            pipe.send(("error", RuntimeError(f"frame worker: {type(err).__name__}: {err}")))
    finally:
        pipe.close()
