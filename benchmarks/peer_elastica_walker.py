"""The authors' own walker in the authors' own code (issue 28): build Zhang et al. 2019's C++
Elastica (mattialab/elastica, the repository the paper links; not part of softmech, not on a
package index) with three small patches, run its walker, and print how it moves, beside
softmech's rebuild of the same walker (softmech.scenarios.walker_paper).

    python benchmarks/peer_elastica_walker.py --source PATH/TO/elastica --duration 1.6 \
        [--period 1.0] [--friction-scale 1] [--workdir DIR] [--track FILE]

--source: a checkout of mattialab/elastica (its `source/` and `makefiles/`); it is copied to
--workdir (default a temporary folder) and built there with g++ (`make walker`, the
repository's own flags plus -DNDEBUG, which only drops asserts and the per-step NaN scan).
Patches, none of which changes the physics:
  * Walker.cpp: the simulated time from the environment (WALKER_T, default their 10 s);
  * ExternalContact.h: the muscle period T from the environment (WALKER_PERIOD, default their
    1 s: |sin(2 pi t / T)| contracts 2 / T times a second, their "2 Hz" walker), and a factor
    on both friction coefficients (WALKER_MU_SCALE, default 1: theirs, bit for bit);
  * Polymer.cpp: every 0.01 s one line of walker_track.txt: time [s], the middle node (8) of
    beams 0 and 1 (x, y, z) and the tip node (6) of legs 2-5 (x, y, z), their mm.
--track FILE: skip the build and the run, read a walker_track.txt written before.

Their frame: mm, g, s; the beams along -y, the walker walking towards +y (their fitness is
beam 0's mean velocity along +y over 0.5-2 s); legs 2 and 4 are the short (front) legs at the
beams' node 2 (y = -1.75 mm), 3 and 5 the long (back) legs at node 14 (y = -12.25 mm). Their
dt is 7.5e-8 s: about 25-50 min of one core per simulated second here.
"""
import argparse
import os
import shutil
import subprocess
import tempfile
import time

import numpy as np

PATCHES = {
    "source/Walker.cpp": [(
        "  const REAL timeSimulation = 10.0;  // ms",
        '  const REAL timeSimulation = getenv("WALKER_T") ? atof(getenv("WALKER_T")) : 10.0;')],
    "source/ExternalContact.h": [(
        "      const REAL T = 1.0;\n      const REAL w = 2.0 * M_PI / T;\n"
        "      const REAL Kattach = 1.0e8;",
        '      static const REAL T = getenv("WALKER_PERIOD") ? atof(getenv("WALKER_PERIOD"))'
        " : 1.0;\n      const REAL w = 2.0 * M_PI / T;\n      const REAL Kattach = 1.0e8;"), (
        "    const REAL muKinetic = 0.3;\n    const REAL muStaticF = 0.42;",
        '    static const REAL muScale = getenv("WALKER_MU_SCALE") ?'
        ' atof(getenv("WALKER_MU_SCALE")) : 1.0;\n    const REAL muKinetic = 0.3 * muScale;\n'
        "    const REAL muStaticF = 0.42 * muScale;")],
    "source/Polymer.cpp": [(
        "    step += 1;\n",
        "    step += 1;\n#ifdef FLAGWALKER\n"
        "    {  // softmech benchmarks/peer_elastica_walker.py: a track every 0.01 s\n"
        "      static double dumpTimer = 1.0;\n"
        '      static std::ofstream track("walker_track.txt");\n'
        "      dumpTimer += dt;\n"
        "      if (dumpTimer >= 0.01) {\n"
        "        dumpTimer = 0.0;\n"
        "        track << time;\n"
        "        for (int r = 0; r < 2; r++)\n"
        '          track << " " << rodptrs[r]->x[8][0] << " " << rodptrs[r]->x[8][1] << " "'
        " << rodptrs[r]->x[8][2];\n"
        "        for (int r = 2; r < 6; r++)\n"
        '          track << " " << rodptrs[r]->x[6][0] << " " << rodptrs[r]->x[6][1] << " "'
        " << rodptrs[r]->x[6][2];\n"
        "        track << std::endl;\n"
        "      }\n    }\n#endif\n")],
}
"""file -> [(their text, patched text)]: each must occur exactly once in their file."""


def build(source, workdir):
    """Copy `source` to workdir, patch it (PATCHES), `make walker`; returns the executable."""
    for part in ("source", "makefiles"):
        shutil.copytree(os.path.join(source, part), os.path.join(workdir, part),
                        dirs_exist_ok=True)
    for name, edits in PATCHES.items():
        path = os.path.join(workdir, name)
        text = open(path).read()
        for old, new in edits:
            if text.count(old) != 1:
                raise SystemExit(f"{name}: the text to patch is not there once: {old[:60]!r}")
            text = text.replace(old, new)
        open(path, "w").write(text)
    mk = os.path.join(workdir, "makefiles")
    # their Makefile lists no headers: a patched header would not rebuild the objects
    subprocess.run(["make", "clean"], cwd=mk, check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["make", "walker", "CC=g++", "CPPFLAGS=-O3 -DNDEBUG -w"], cwd=mk, check=True,
                   stdout=subprocess.DEVNULL)
    return os.path.join(mk, "walker")


def run(exe, workdir, duration, period, friction_scale):
    """Run the walker for `duration` [s] with muscle period `period` [s] and friction
    coefficients times `friction_scale`; returns the track."""
    out = os.path.join(workdir, "run")
    os.makedirs(out, exist_ok=True)
    env = dict(os.environ, WALKER_T=str(duration), WALKER_PERIOD=str(period),
               WALKER_MU_SCALE=str(friction_scale))
    t0 = time.time()
    subprocess.run([exe], cwd=out, env=env, check=True, stdout=subprocess.DEVNULL)
    print(f"their walker, {duration:g} s simulated: {time.time() - t0:.0f} s wall")
    return os.path.join(out, "walker_track.txt")


def report(track, period):
    """Print beam 0's mean velocity along +y (their walking direction) over their window
    0.5-2 s (what of it the run covers) and its displacement per contraction, and each leg's
    tip slide per contraction [um] (contractions end at 0.1 + k T / 2 s, their muscle's zeros)."""
    d = np.atleast_2d(np.loadtxt(track))
    t, beam_y = d[:, 0], d[:, 2]
    tips_y = d[:, [8, 11, 14, 17]]
    t1 = min(2.0, t[-1])
    if t1 > 0.5:
        a, b = np.interp([0.5, t1], t, beam_y)
        print(f"beam 0, mean velocity along +y over 0.5-{t1:.2f} s: "
              f"{1e3 * (b - a) / (t1 - 0.5):+.1f} um/s (their fitness window 0.5-2 s)")
    marks = np.arange(0.1, t[-1] + 1e-9, 0.5 * period)
    print(f"contractions end at {np.round(marks, 3).tolist()} s")
    steps = np.diff(np.interp(marks, t, beam_y))
    print(f"  beam 0 per contraction [um] {np.round(1e3 * steps, 1).tolist()}")
    for k, name in enumerate(("leg 2 (front)", "leg 3 (back)", "leg 4 (front)", "leg 5 (back)")):
        slides = np.diff(np.interp(marks, t, tips_y[:, k]))
        print(f"  {name} tip per contraction [um] {np.round(1e3 * slides, 1).tolist()}")
    z = d[:, 3]
    print(f"beam 0 middle height: {z.min():.3f}-{z.max():.3f} mm (start {z[0]:.3f})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", help="a checkout of mattialab/elastica")
    ap.add_argument("--duration", type=float, default=1.6, help="simulated time [s]")
    ap.add_argument("--period", type=float, default=1.0,
                    help="their muscle period T [s] (1: their 2 Hz walker)")
    ap.add_argument("--friction-scale", type=float, default=1.0,
                    help="factor on their mu_s 0.42 and mu_k 0.3 (0: no friction)")
    ap.add_argument("--workdir", help="build and run folder (default: a temporary one)")
    ap.add_argument("--track", help="report a walker_track.txt written before (no build, no run)")
    args = ap.parse_args()
    if args.track:
        report(args.track, args.period)
        return
    if not args.source:
        ap.error("--source (a checkout of mattialab/elastica) or --track is needed")
    workdir = args.workdir or tempfile.mkdtemp(prefix="elastica_walker_")
    exe = build(args.source, workdir)
    report(run(exe, workdir, args.duration, args.period, args.friction_scale), args.period)


if __name__ == "__main__":
    main()
