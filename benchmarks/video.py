"""Video rendering, before and after (issue 31: "video rendering >= 5x faster"): the tubes video
of several scenes written from saved results files, by the code at a baseline revision (default
`main`) and by the working tree, in alternating child processes of the same run.

    python benchmarks/video.py [--scenes snake2d snake elbow ...] [--frames 100] [--repeats 2]
                               [--baseline main] [--runs DIR]

"snake2d" is `softmech run snake`'s own video (the README demo): the 2D top view
(softmech.viz.snake.top_view_frames, 960x480 pixels) of the 6 s run in real time, all its 151
frames (--frames does not apply), as SnakeReport.video writes it.

Each scene's results.h5 is made once by `softmech run SCENE --duration T` (the working tree's)
into --runs (default /tmp/softmech-video-bench; kept between calls, delete it to remake them).
A child process (`--worker`) reads it and times softmech.commands.render.render_video -- what
`softmech run` does for its video (softmech.commands.report_base.tube_video: Video.write) and
`softmech render --video`: the figure, the bodies of every frame, the drawing, the H.264
encoding and the file; not the imports of matplotlib and imageio, nor reading the file --,
for `--frames` frames at 25 frames/s and the run's 640x368 pixels (shells revolved into
surfaces, as the underwater reports do). Printed: per-frame milliseconds (the whole video's wall
time over its frames; min and median over the repeats), the ratio baseline / new, the frame
count and the video's duration read back from the file; and the CPU time per frame of the
child and its children (ffmpeg, frame workers: user + system), which the load of a shared
machine disturbs less than the wall time (frames drawn in parallel cost more CPU, not less).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

SCENES = {"snake2d": 6.0, "snake": 6.0, "elbow": 0.3, "poseidron": 0.5, "parachute": 0.3, "wing": 0.02}
"""Scenes measured and their simulated time [s] (the wing's joint markers and barbs are the
densest scene: ~2,900 bodies per frame)."""

HERE = os.path.dirname(os.path.abspath(__file__))


def worker(results, frames, out, top_view=False):
    """Time one video of `results` with the softmech on sys.path; prints a JSON line."""
    from softmech.commands import render
    from softmech.viz.geometry import View
    from softmech.viz.source import ground_height, read_results
    from softmech.viz.underwater import revolve_shells

    import imageio.v2  # noqa: F401  (imported by the plots before a run's video: not timed)
    import matplotlib.figure  # noqa: F401
    import mpl_toolkits.mplot3d  # noqa: F401

    data = revolve_shells(read_results(results))      # read by the report before Video.write
    if top_view:
        return top_view_worker(data, out)
    floor = ground_height(data, 0, "z")
    span = float(data.time[-1] - data.time[0])
    speed = span * 25.0 / (frames - 0.5)              # frame_samples: `frames` frames
    cpu, start = _cpu(), time.perf_counter()
    path = render.render_video(data, out, "tubes", 0, View(), floor, render.VIDEO_SIZE + (9, 0.3),
                               25.0, speed, progress=False)
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "cpu": _cpu() - cpu, "path": path}))


def top_view_worker(data, out):
    """softmech run snake's video (SnakeReport.video): the top view of every frame at 25/s."""
    from softmech.commands.report_base import video_frames
    from softmech.viz.snake import top_view_frames
    from softmech.viz.video import write_video

    rod = "snake"
    t, x = data.time, data.results[f"{rod}.positions"][0]
    radius = float(data.radius[rod][0].max())
    cpu, start = _cpu(), time.perf_counter()
    frame_time, positions = video_frames(t, x, 1.0 / 25.0)
    path = write_video(top_view_frames(frame_time, positions, radius=radius, time=t,
                                       com=data.results[f"{rod}.com"][0]),
                       os.path.join(out, "snake.mp4"), fps=25.0)
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "cpu": _cpu() - cpu, "path": path}))


def _cpu():
    """CPU time [s] of this process and its waited-for children (user + system)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def probe(path):
    """(frames, duration [s]) of a video file, read back with imageio's ffmpeg."""
    import imageio.v2 as imageio

    reader = imageio.get_reader(path, format="FFMPEG")
    try:
        meta = reader.get_meta_data()
        return reader.count_frames(), float(meta["duration"])
    finally:
        reader.close()


def make_results(scene, duration, runs):
    path = os.path.join(runs, scene, "results.h5")
    if not os.path.exists(path):
        print(f"making {path} (softmech run {scene} --duration {duration})", flush=True)
        subprocess.run([sys.executable, "-m", "softmech.cli", "run", scene, "--duration",
                        str(duration), "--output", os.path.dirname(path), "--force", "--quiet"],
                       check=True, stdout=subprocess.DEVNULL)
    return path


def baseline_source(revision, folder):
    """The src/ folder of `revision` exported into `folder` (git archive); returns its path."""
    root = os.path.dirname(HERE)
    archive = subprocess.run(["git", "-C", root, "archive", revision, "src"], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
    return os.path.join(folder, "src")


def timed(src, results, frames, top_view=False):
    """(seconds, CPU seconds, frames in the file, duration [s] of the file) of one video by
    the code in src."""
    with tempfile.TemporaryDirectory() as out:
        env = dict(os.environ, PYTHONPATH=src, MPLBACKEND="Agg")
        line = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", results,
                               "--frames", str(frames), "--out", out]
                              + (["--top-view"] if top_view else []), env=env, check=True,
                              capture_output=True, text=True).stdout.strip().splitlines()[-1]
        report = json.loads(line)
        return (report["seconds"], report["cpu"], *probe(report["path"]))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scenes", nargs="+", default=list(SCENES), choices=list(SCENES))
    p.add_argument("--frames", type=int, default=100)
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--baseline", default="main", help="git revision of the 'before' code")
    p.add_argument("--runs", default=os.path.join(tempfile.gettempdir(),
                                                  "softmech-video-bench"))
    p.add_argument("--worker", metavar="RESULTS", help=argparse.SUPPRESS)
    p.add_argument("--out", help=argparse.SUPPRESS)
    p.add_argument("--top-view", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.worker:
        return worker(a.worker, a.frames, a.out, a.top_view)
    if a.frames < 2 or a.repeats < 1:
        p.error(f"--frames = {a.frames} must be >= 2 and --repeats = {a.repeats} >= 1")
    new = os.path.join(os.path.dirname(HERE), "src")
    print(f"load average at the start: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as folder:
        old = baseline_source(a.baseline, folder)
        print(f"\n| scene | frames | video | before ({a.baseline}) [ms/frame] | after "
              "[ms/frame] | before / after (min; median) | CPU before / after [ms/frame] |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        loads = []
        for scene in a.scenes:
            top_view = scene == "snake2d"
            name = "snake" if top_view else scene
            results = make_results(name, SCENES[scene], a.runs)
            times = {"before": [], "after": []}
            cpu = {"before": [], "after": []}
            for _ in range(a.repeats):                  # alternate: the load hits both
                for key, src in (("before", old), ("after", new)):
                    seconds, used, count, duration = timed(src, results, a.frames, top_view)
                    times[key].append(1e3 * seconds / count)
                    cpu[key].append(1e3 * used / count)
            b, n = min(times["before"]), min(times["after"])
            mb, mn = statistics.median(times["before"]), statistics.median(times["after"])
            cb, cn = min(cpu["before"]), min(cpu["after"])
            print(f"| {scene} | {count} | {duration:.2f} s | {b:.1f} (median {mb:.1f}) | "
                  f"{n:.1f} (median {mn:.1f}) | **{b / n:.1f}×**; {mb / mn:.1f}× | "
                  f"{cb:.1f} / {cn:.1f} ({cb / cn:.1f}×) |", flush=True)
            loads.append(f"{scene} {os.getloadavg()[0]:.2f}")
    print(f"\nload average after each scene: {', '.join(loads)}")


if __name__ == "__main__":
    sys.exit(main())
