"""`softmech view RESULTS.h5`: an interactive 3D view of a results file in the web browser.

    softmech view output/snake/results.h5                        # opens it in the browser
    softmech view output/snake/results.h5 --html snake.html      # writes one offline file
    softmech view output/snake/results.h5 --field curvature --series com_velocity
    softmech view output/a/results.h5 --compare output/b/results.h5

Every recorded body (rods as tubes at their true radius, rigid bodies, joints, the ground under
bodies resting on it), a time slider with play and pause, the camera turned, panned and zoomed
with the mouse, the rods coloured by --field with a colour bar, and the time series --series
beside the 3D view (softmech.viz.viewer). The page is one HTML file with plotly.js embedded:
it opens offline with a double click (softmech.viz.viewer_page; `#frame=K` at the end of its
address shows frame K). Without --html the page is written to a temporary file and opened in
the default browser. Exit codes: 0 success, 2 bad input.
"""
import json
import os
import sys
import tempfile

from softmech import _checks
from softmech.viz.geometry import AXES, View
from softmech.viz.viewer import FPS, MAX_FRAMES


def add_arguments(parser):
    """Options of `softmech view` on an argparse parser."""
    parser.description = ("Interactive 3D view of a results file (time slider, play/pause, "
                          "camera, colour by a field, a time series beside it) as one offline "
                          "HTML page, opened in the web browser or written with --html.")
    parser.add_argument("results", metavar="RESULTS.h5", help="HDF5 results file")
    parser.add_argument("--html", metavar="OUT.html", default=None,
                        help="write the page to this file instead of opening it in the browser")
    parser.add_argument("--field", metavar="NAME", default=None,
                        help="colour the rods by this per-node or per-element field: computed "
                             "'curvature' [1/m] or 'stretch' [1], or any such recorded series "
                             "(e.g. 'velocities', shown by its length); default: body colours")
    parser.add_argument("--series", metavar="NAME", default=None,
                        help="time series beside the 3D view: a field of every body that "
                             "recorded it ('com', 'total_energy') or one body's ('snake.com'); "
                             "default: com, else total_energy")
    parser.add_argument("--compare", metavar="OTHER.h5", default=None,
                        help="a second results file, drawn see-through in the same scene at "
                             "the same times (its series dashed)")
    parser.add_argument("--world", type=int, metavar="K", default=0, help="world shown (0)")
    parser.add_argument("--fps", type=float, default=FPS,
                        help=f"frames per second of simulated time ({FPS:g}; fewer make a "
                             "smaller page)")
    parser.add_argument("--max-frames", type=int, dest="max_frames", default=MAX_FRAMES,
                        help=f"most frames in the page ({MAX_FRAMES})")
    parser.add_argument("--up", choices=sorted(AXES), default="z",
                        help="vertical axis of the scene (z)")
    parser.add_argument("--quiet", action="store_true", help="no summary")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object (the page's path, frames, notes) on stdout")


def execute(args):
    """Write (and, without --html, open) the page; returns 0. Bad input: ValueError."""
    from softmech.viz.source import read_results
    from softmech.viz.viewer import view_figure
    from softmech.viz.viewer_page import open_page, write_page

    fps = float(_checks.positive("--fps", args.fps))
    max_frames = _checks.integer("--max-frames", args.max_frames, 2)
    if args.html is not None and not args.html.endswith((".html", ".htm")):
        raise ValueError(f"--html = {args.html!r} is not allowed: the page's name ends in .html")
    data = read_results(args.results)
    compare = None if args.compare is None else read_results(args.compare)
    fig, notes = view_figure(data, field=args.field, series=args.series, compare=compare,
                             compare_label=_label(args.compare), world=args.world, fps=fps,
                             max_frames=max_frames, view=View(up=args.up))
    path = args.html
    if path is None:
        handle, path = tempfile.mkstemp(prefix=f"softmech-view-{data.name}-", suffix=".html")
        os.close(handle)
    path = write_page(fig, path, title=f"softmech view: {data.name}")
    opened = open_page(path) if args.html is None else False
    frames = len(fig.frames)
    if args.json:
        print(json.dumps({"file": path, "frames": frames, "notes": notes,
                          "bytes": os.path.getsize(path), "opened": opened}))
    elif not args.quiet:
        size = os.path.getsize(path) / 1e6
        print(f"softmech view: wrote {path} ({size:.1f} MB, {frames} frames)")
        for note in notes:
            print(f"  {note}")
        if args.html is None:
            print("  opened in the web browser" if opened else
                  "  no web browser found: open the file above in one", file=sys.stdout)
    return 0


def _label(path):
    """How the legend names the compared file: its folder's name (output/<run>/results.h5),
    or its own name."""
    if path is None:
        return "compared"
    folder = os.path.basename(os.path.dirname(os.path.abspath(path)))
    return folder if os.path.basename(path) == "results.h5" and folder else os.path.basename(path)
