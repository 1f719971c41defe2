"""`softmech render RESULTS_FILE`: pictures, videos and plots from an HDF5 results file.

    softmech render out/results.h5                       # 3D still (tubes) at the last sample
    softmech render out/results.h5 --style povray --time 2.5
    softmech render out/results.h5 --video --fps 25      # movie (real time; --speed to change)
    softmech render out/results.h5 --plots --plot snake.angular_momentum

A still is written when --time is given or when neither --video nor a plot is asked for.
Files go to --output (default: a folder 'render' next to the results file); --json prints
{"files": [...], ...} on stdout. Exit codes: 0 success, 2 bad input or POV-Ray missing.
"""
import json
import os
import sys

from softmech import _checks
from softmech.progress import progress_bar
from softmech.text import plural
from softmech.viz.geometry import AXES, View

STYLES = ("tubes", "povray")
STILL_SIZE, VIDEO_SIZE = (960, 540), (640, 368)
"""Default sizes [px] (width, height); video sides are multiples of 16 (H.264 blocks)."""


def add_arguments(parser):
    """Options of `softmech render` on an argparse parser."""
    parser.description = ("Render 3D stills, videos and plots from an HDF5 results file "
                          "(positions at /rods/<rod>/positions and /bodies/<body>/positions).")
    parser.add_argument("results", metavar="RESULTS_FILE", help="HDF5 results file (.h5)")
    parser.add_argument("--style", choices=STYLES, default="tubes",
                        help="3D style: matplotlib tubes (default) or POV-Ray (photorealistic; "
                             "needs the povray program)")
    parser.add_argument("--time", type=float, metavar="T", default=None,
                        help="still at the sample nearest to T [s] (default: the last)")
    parser.add_argument("--video", action="store_true", help="write a movie (.mp4, or .gif)")
    parser.add_argument("--fps", type=float, default=25.0, help="video frames per second (25)")
    parser.add_argument("--speed", type=float, default=1.0,
                        help="simulated seconds per second of video (default 1: real time)")
    parser.add_argument("--plot", action="append", metavar="FIELD", default=[],
                        help="plot a recorded field against time ('com' or 'snake.com'); "
                             "repeatable")
    parser.add_argument("--plots", action="store_true",
                        help="the standard plots: energies, centre of mass, velocities")
    parser.add_argument("--world", type=int, metavar="K", default=0, help="world shown (0)")
    parser.add_argument("--output", metavar="DIR", default=None,
                        help="output folder (default: 'render' next to RESULTS_FILE)")
    parser.add_argument("--width", type=int, default=None,
                        help=f"picture width [px] (still {STILL_SIZE[0]}, video {VIDEO_SIZE[0]})")
    parser.add_argument("--height", type=int, default=None,
                        help=f"picture height [px] (still {STILL_SIZE[1]}, video "
                             f"{VIDEO_SIZE[1]})")
    parser.add_argument("--quality", type=int, default=9,
                        help="POV-Ray quality 0..11 (9: full, with shadows)")
    parser.add_argument("--antialias", type=float, default=0.3,
                        help="POV-Ray antialiasing threshold in [0, 3] (0: off)")
    parser.add_argument("--up", choices=sorted(AXES), default="z",
                        help="vertical axis of the pictures (z)")
    parser.add_argument("--elevation", type=float, default=25.0,
                        help="camera elevation [deg] (25)")
    parser.add_argument("--azimuth", type=float, default=None,
                        help="camera azimuth [deg] around the up axis (default: across the "
                             "longer side of the scene)")
    parser.add_argument("--floor", default="auto", metavar="auto|none|HEIGHT",
                        help="checker floor: auto (where the rods touch the ground plane "
                             "through the origin), none, or its height [m]")
    parser.add_argument("--quiet", action="store_true", help="no progress bar and no summary")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object (files written) on stdout at the end")


def _options(args):
    """Every option validated before any work (ValueError naming the option)."""
    from softmech.viz.povray import check_settings

    _checks.choice("--style", args.style, STYLES)
    still = args.time is not None or not (args.video or args.plot or args.plots)
    size = {}
    for kind, default in (("still", STILL_SIZE), ("video", VIDEO_SIZE)):
        size[kind] = check_settings(args.width or default[0], args.height or default[1],
                                    args.quality, args.antialias)
    _checks.positive("--fps", args.fps)
    _checks.positive("--speed", args.speed)
    view = View(up=args.up, elevation=args.elevation, azimuth=args.azimuth)
    floor = args.floor
    if floor not in ("auto", "none"):
        try:
            floor = float(_checks.finite("--floor", float(floor)))
        except (TypeError, ValueError):
            raise ValueError(f"--floor = {args.floor!r} is not allowed: must be auto, none or "
                             "a height in metres") from None
    return still, size, view, floor


def execute(args):
    """Render what `args` asks; returns the exit code. Bad input raises ValueError."""
    from softmech.viz import povray
    from softmech.viz.source import check_world, read_results
    from softmech.viz.underwater import revolve_shells

    quiet, as_json = bool(args.quiet), bool(args.json)
    still, size, view, floor = _options(args)
    if args.style == "povray" and (still or args.video):
        try:
            povray.require_povray()
        except povray.PovrayNotAvailable as err:
            print(f"softmech render: error: {err}", file=sys.stderr)
            return 2
    data = revolve_shells(read_results(args.results))   # axisymmetric shells as surfaces
    world = check_world(data, args.world)
    output = os.path.abspath(args.output or os.path.join(
        os.path.dirname(os.path.abspath(args.results)), "render"))
    os.makedirs(output, exist_ok=True)
    if floor == "auto":
        floor = _auto_floor(data, world, view.up, still or args.video)
    elif floor == "none":
        floor = None

    def say(text):
        if not quiet:
            print(text, file=sys.stderr if as_json else sys.stdout, flush=True)

    files = []
    if still:
        files.append(render_still(data, output, args.style, world, args.time, view, floor,
                                  size["still"]))
    if args.video:
        files.append(render_video(data, output, args.style, world, view, floor, size["video"],
                                  args.fps, args.speed, progress=not quiet))
    files += make_plots(data, output, world, args.plot, args.plots)
    say(f"softmech render: wrote {plural(len(files), 'file')} to {output}:")
    for f in files:
        say(f"  {os.path.basename(f)}")
    if as_json:
        print(json.dumps({"results": os.path.abspath(args.results), "output_dir": output,
                          "files": files}))
    return 0


def _auto_floor(data, world, up, needed):
    from softmech.viz.source import ground_height

    return ground_height(data, world, up) if needed else None


def render_still(data, output, style, world, time, view, floor, size):
    """One 3D picture at the sample nearest to `time` [s] (None: the last); returns its path."""
    from softmech.viz import povray, tubes
    from softmech.viz.source import bodies_at, nearest_sample, bodies_with_positions

    bodies_with_positions(data)
    sample = len(data.time) - 1 if time is None else nearest_sample(data.time, time)
    t = float(data.time[sample])
    path = os.path.join(output, f"{data.name}_{style}_t{t:.3f}s.png")
    bodies = bodies_at(data, sample, world)
    width, height, quality, antialias = size
    if style == "povray":
        return povray.render_still(path, bodies, view=view, floor=floor, width=width,
                                   height=height, quality=quality, antialias=antialias)
    return tubes.plot_tubes(path, bodies, view=view, floor=floor, size_px=(width, height),
                            title=f"{data.name}, world {world}, t = {t:.3f} s")


def render_video(data, output, style, world, view, floor, size, fps, speed, progress=True):
    """A movie of world `world` (frames at fps, `speed` simulated seconds per second); returns
    the path written (.mp4, or .gif when MP4 writing fails)."""
    from softmech.viz import povray, tubes
    from softmech.viz.source import bodies_at, frame_samples, bodies_with_positions
    from softmech.viz.video import write_video

    bodies_with_positions(data)
    samples = frame_samples(data.time, fps, speed)
    frames = [bodies_at(data, i, world) for i in samples]
    path = os.path.join(output, f"{data.name}_{style}.mp4")
    width, height, quality, antialias = size
    bar = progress_bar(len(frames), progress, unit="frame", desc=f"{style} video")
    tick = bar.update if bar is not None else None
    try:
        if style == "povray":
            return povray.render_movie(path, frames, fps=fps, view=view, floor=floor,
                                       width=width, height=height, quality=quality,
                                       antialias=antialias, progress=tick)
        pictures = tubes.tube_frames(frames, times=data.time[samples], view=view, floor=floor,
                                     title=f"{data.name}, world {world}",
                                     size_px=(width, height), progress=tick)
        return write_video(pictures, path, fps=fps)
    finally:
        if bar is not None:
            bar.close()


def make_plots(data, output, world, fields, standard):
    """The standard plots (if `standard`) and one plot per field name; returns their paths."""
    from softmech.viz import plots

    for field in fields:                       # all names checked before any plot is drawn
        plots.rods_with(data.results, field)
    files = plots.standard_plots(data.results, output, world=world) if standard else []
    for field in fields:
        files.append(plots.plot_field(data.results, field,
                                      os.path.join(output, field.replace(".", "_") + ".png"),
                                      world=world))
    return files
