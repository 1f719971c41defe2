"""The biceps' cross-section growth at 90 deg against the elbow's geometry (issue 28; Zhang et
al. 2019 report ~28 %, experiments 30-34 %).

    python benchmarks/elbow_geometry.py [--simulate]

1. The physiological excursion: the biceps' path of the upper-limb model of Holzbaur, Murray
   and Delp (Ann. Biomed. Eng. 33:829, 2005; its OpenSim "arm26" file, opensim-models,
   Models/Arm26/arm26.osim), whose last segment runs from a humerus point to the radial
   tuberosity and turns with the elbow: its moment arm -dL/dtheta and the excursion
   L(start) - L(90 deg), beside the scene's straight origin -> insertion line.
2. The incompressible estimate (softmech.scenarios.elbow.geometric_growth) against the belly's
   length (the scene: the paper code's 0.238 m) and the insertion's distance from the elbow,
   and for the bellies the literature's fascicle lengths would give.
3. --simulate: the reduced scene's (7 rods per head) measured growth at 90 deg for some of
   those geometries (~20 s each on one core, more under load).
"""
import argparse

import numpy as np

from softmech.scenarios import elbow

# arm26.osim (Holzbaur et al. 2005), metres, humerus frame (y up the humerus, x anterior):
ARM26_ELBOW = np.array([0.0061, -0.2904, -0.0123])       # r_elbow's offset frame
ARM26_AXIS = np.array([0.0494, 0.0366, 0.99810825])      # r_elbow_flex axis
ARM26_INSERTION = np.array([0.00751, -0.04839, 0.02179])  # BIClong-P9 = BICshort-P6, forearm frame
ARM26_VIA = np.array([0.0228, -0.1754, -0.0063])          # BIClong-P8 = BICshort-P5, humerus
FASCICLES = {"long head, Holzbaur 2005 (optimal fibre length)": 0.1157,
             "short head, Holzbaur 2005": 0.1321,
             "long head, Murray et al. 2000 (J. Biomech. 33:943)": 0.128}


def arm26_length(deg):
    """Length [m] of the biceps' elbow segment (humerus via point -> radial tuberosity) at
    flexion `deg`: Rodrigues' rotation of the insertion about the elbow axis."""
    k = ARM26_AXIS / np.linalg.norm(ARM26_AXIS)
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    a = np.radians(deg)
    rot = np.eye(3) + np.sin(a) * K + (1 - np.cos(a)) * K @ K
    return float(np.linalg.norm(ARM26_ELBOW + rot @ ARM26_INSERTION - ARM26_VIA))


def simulate(belly, insertion, fibers=7):
    """Measured growth at 90 deg of the reduced scene with these geometry constants (belly [m];
    insertion [m], a node of the radius)."""
    import softmech as sm

    saved = elbow.BELLY, elbow.INSERTION
    elbow.BELLY, elbow.INSERTION = belly, insertion
    try:
        scene, info = elbow.build_elbow(fibers=fibers)
    finally:
        elbow.BELLY, elbow.INSERTION = saved
    sim = scene.compile(dt=info.dt)
    fields = ("humerus.positions", "radius.positions") + tuple(f"{f}.positions" for f in info.fibers)
    out = sim.run(duration=0.5, record=sm.Every(0.001, fields))
    angle = elbow.flexion_angle(out["humerus.positions"][0], out["radius.positions"][0])
    section = elbow.belly_section([out[f"{f}.positions"][0] for f in info.fibers],
                                  info.fiber_rest_length, info.fiber_area)
    return elbow.growth_at(angle, section)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulate", action="store_true")
    args = parser.parse_args()
    start = elbow.DEFAULTS["start_angle"]
    print("| flexion [deg] | arm26 moment arm [mm] | scene's moment arm [mm] |")
    print("|---|---|---|")
    h = 0.5
    for deg in (0, 20, 45, 60, 90, 120):
        arm = -(arm26_length(deg + h) - arm26_length(deg - h)) / np.radians(2 * h)
        d = [elbow.insertion_distance(deg + s) for s in (h, -h)]
        print(f"| {deg} | {1e3 * arm:.1f} | {-1e3 * (d[0] - d[1]) / np.radians(2 * h):.1f} |")
    ex26 = arm26_length(start) - arm26_length(90.0)
    exsc = elbow.insertion_distance(start) - elbow.insertion_distance(90.0)
    d0 = elbow.insertion_distance(start)
    print(f"\nexcursion {start:g} -> 90 deg: arm26 {1e3 * ex26:.1f} mm, scene {1e3 * exsc:.1f} mm; "
          f"scene's origin -> insertion {1e3 * d0:.0f} mm, belly {1e3 * elbow.BELLY:.0f} mm")
    step = elbow.FOREARM_LENGTH / elbow.FOREARM_ELEMS
    inserts = [k * step for k in (1, 2, 3)] + [0.04, 0.06]
    print("\nincompressible estimate [%] (stiff tendons), belly (rows) x insertion [mm] (columns)")
    print("| belly [mm] | " + " | ".join(f"{1e3 * i:.1f}" for i in inserts) + " |")
    print("|---" * (len(inserts) + 1) + "|")
    for b in (0.16, 0.191, 0.213, 0.238, 0.26):
        row = [100 * elbow.geometric_growth(belly=b, insertion=i) for i in inserts]
        print(f"| {1e3 * b:.0f} | " + " | ".join(f"{g:.1f}" for g in row) + " |")
    print(f"\nbellies of the literature's fascicle lengths (insertion "
          f"{1e3 * elbow.INSERTION:.0f} mm, stiff tendons):")
    for name, length in FASCICLES.items():
        growth = 100 * elbow.geometric_growth(belly=length)
        print(f"  {name}: {1e3 * length:.1f} mm -> {growth:.1f} %")
    for want in (0.25, 0.28, 0.31):
        belly = (1 + want) / want * exsc
        print(f"{100 * want:.0f} % needs a belly of {1e3 * belly:.0f} mm at the scene's excursion "
              f"({1e3 * (1 + want) / want * ex26:.0f} mm at arm26's)")
    if args.simulate:
        print("\n| belly [mm] | insertion [mm] | estimate [%] | reduced scene [%] |")
        print("|---|---|---|---|")
        for b, i in ((0.213, 2 * step), (0.238, 2 * step), (0.26, 2 * step), (0.238, step),
                     (0.238, 3 * step)):
            estimate = 100 * elbow.geometric_growth(belly=b, insertion=i)
            measured = 100 * simulate(b, i)
            print(f"| {1e3 * b:.0f} | {1e3 * i:.1f} | {estimate:.1f} | {measured:.1f} |", flush=True)


if __name__ == "__main__":
    main()
