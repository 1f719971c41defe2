"""The flapping wing of the paper's own code against softmech's wing (issue 28): why the paper's
shoulder muscles of "~10 N" make a stroke there and not on a pigeon's wing.

    python benchmarks/wing_paper_code_inertia.py

Zhang et al. 2019 link their code (mattialab/elastica; source/Wing.cpp, read, not copied, not
run). Its wing is rescaled from the pigeon's: lengths x2.5, times x4, density kept, units mm, g,
s, so a force is 2.44x and a moment of inertia 2.5^5 = 97.7x the bird's. This script lays out
the code's rods as straight segments with the code's lengths, radii (per element where the code
tapers them), densities and directions at the start (every rod in the plane z = 150 mm, the
span along -y), sums each element's mass m and m d^2 about a dorsoventral flapping axis through
the shoulder (AXES: two readings), and converts to the bird's scale. Feathers and barbs are lumped
along their shafts (the barbs' masses from the code's per-barb mass and counts). It is an
estimate: the rods' exact positions after the first step and the flapping axis's tilt are not
reproduced (+-30 %).

The stroke's inertial torque scales with the wing's moment of inertia at the same kinematics,
so the torque softmech's pigeon wing needs (0.54 N m, docs/musculoskeletal.md, "Why the
shoulder muscles are not 10 N") is rescaled by the two inertias and divided by the code's
shoulder-muscle moment arm about that axis (computed here from its origins and insertion).
"""
import numpy as np

RHO_BONE = 1.75e-3 / 2.0          # g/mm^3: human bone, halved for hollow bird bone (the code's)
RHO_FEATHER = 0.0025e-3           # g/mm^3 (the code's feathers and barbs)
SCALE_L, SCALE_T = 2.5, 4.0       # the code's rescaling: L = 2.5 L_hat, t = 4 t_hat
SHOULDER = np.array([0.0, 0.0, 150.0])
SOFTMECH_WING_INERTIA = 3.5e-4    # kg m^2, softmech's wing about the shoulder (musculoskeletal.md)
PIGEON_INERTIA = (2.6e-4, 3.2e-4)  # kg m^2, van den Berg & Rayner 1995
SOFTMECH_TORQUE_NEEDED = 0.54     # N m, the inertial torque of softmech's (pigeon) wingbeat
PECTORALIS_PEAK = 18e6            # g mm/s^2 = 18 N in the code's units (its "PullMu" schedule)
PECTORALIS_ON = (0.11, 0.235 + 0.125 / 2.0)   # s, code time: the pull's schedule, start and end


def unit(v):
    v = np.asarray(v, dtype=float)
    return v / np.linalg.norm(v)


def rod(origin, direction, length, radii, density):
    """(masses [g], positions [mm]) of a straight rod's elements: radii (n,) [mm] per element."""
    radii = np.asarray(radii, dtype=float)
    n = len(radii)
    dl = length / n
    centres = np.asarray(origin) + np.outer((np.arange(n) + 0.5) * dl, unit(direction))
    return density * np.pi * radii ** 2 * dl, centres


def tapered(n, middle, heads, tail_factor=1.0):
    """Radii per element: `middle`, with heads[i] at element i and tail_factor heads[i] at n-1-i."""
    r = np.full(n, float(middle))
    for i, h in enumerate(heads):
        r[i] = h
        r[n - 1 - i] = tail_factor * h
    return r


def paper_code_wing():
    """{part: (masses, positions)} of the code's wing at the start (code units: g, mm)."""
    r0 = 8.4
    humerus_dir = unit((0.8, -1.0, 0.0))
    radius_dir = unit((0.2, -1.0, 0.0))
    # the radius's frame: d1 = (0, 0, 1) (its normal), d3 its tangent, d2 = d3 x d1
    d2 = np.cross(radius_dir, (0.0, 0.0, 1.0))
    hand_dir = unit(np.cos(0.7744) * radius_dir - np.sin(0.7744) * d2)
    elbow = SHOULDER + 150.0 * humerus_dir
    parts = {
        "humerus": rod(SHOULDER, humerus_dir, 150.0,
                       tapered(10, r0, [18 - 9.6 * i * i / 4 for i in range(2)], 0.8), RHO_BONE),
        "radius": rod(elbow + (8.4, 0, 0), radius_dir, 180.0,
                      tapered(12, 0.7 * r0, [9 - 3.12 * i * i / 4 for i in range(2)]), RHO_BONE),
        "ulna": rod(elbow - (1.1 * 8.4, 0, 0), radius_dir, 180.0,
                    tapered(12, 3.0, [8 - 5 * i * i / 4 for i in range(2)]), RHO_BONE),
    }
    wrist = elbow + (8.4, 0, 0) + 185.0 * radius_dir
    parts["carpometacarpus"] = rod(wrist, hand_dir, 90.0,
                                   tapered(10, 0.3 * r0, [5 - 2.48 * i * i / 9 for i in range(3)]),
                                   RHO_BONE)
    major = tapered(10, 0.7 * r0, [10 - 4 * i * i / 9 for i in range(3)])
    parts["carpometacarpus, major"] = rod(wrist - (1.7 * 8.4, 0, 0), hand_dir, 90.0, major,
                                          RHO_BONE)
    digit = wrist + 90.0 * hand_dir
    parts["digit"] = rod(digit, hand_dir, 75.0, [12 - 2.5 * i for i in range(5)], RHO_BONE)
    # a feather: shaft 460 mm, r = 2.5 mm; 2 x 77 barbs along 70-378 mm and 2 x 19 at its tip
    barb = RHO_FEATHER * np.pi * 1.5 ** 2 * 60.0
    shaft = RHO_FEATHER * np.pi * 2.5 ** 2 * 460.0
    side = 2 * 77 * barb
    tip = 2 * barb * sum(1 + j / 20.0 for j in range(19))

    def feather(origin, direction):
        d = unit(direction)
        s = np.linspace(0.0, 460.0, 47)[1:] - 5.0
        m = np.full(len(s), shaft / len(s))
        m[(s > 70) & (s < 378)] += side / np.count_nonzero((s > 70) & (s < 378))
        m[np.argmin(np.abs(s - 378))] += tip
        return m, origin + np.outer(s, d)

    def rotated(v, deg):
        a = np.radians(deg)
        return (np.cos(a) * v[0] - np.sin(a) * v[1], np.sin(a) * v[0] + np.cos(a) * v[1], 0.0)

    primaries = [feather(digit + (k / 9.0) * 75.0 * hand_dir, rotated(hand_dir, 7.7 * k))
                 for k in range(10)]
    secondaries = [feather(elbow + (20.0 * (k + 1)) * radius_dir,
                           rotated(radius_dir, 122 + 6.9 * k)) for k in range(9)]
    for name, group in (("primaries (10)", primaries), ("secondaries (9)", secondaries)):
        parts[name] = (np.concatenate([m for m, _ in group]), np.concatenate([x for _, x in group]))
    return parts


AXES = {"fore-aft (x)": np.array([1.0, 0.0, 0.0]),
        "normal to the humerus in the wing's plane": unit((1.0, 0.8, 0.0))}
"""Two readings of the dorsoventral flapping axis through the shoulder (the code's wing lies in
the plane z = 150 mm at the start; its body axis is not stated)."""


def moment_arm(origin, insertion, axis):
    """|moment arm| [mm] about the shoulder's `axis` of a muscle line origin -> insertion."""
    u = unit(np.asarray(insertion) - origin)
    return abs(np.dot(np.cross(np.asarray(insertion) - SHOULDER, u), axis))


def inertia(masses, positions, axis):
    """sum m d^2 [g mm^2] about the line through the shoulder along `axis` (unit)."""
    r = positions - SHOULDER
    d = r - np.outer(r @ axis, axis)
    return float(np.sum(masses * np.sum(d * d, axis=1)))


def main():
    parts = paper_code_wing()
    names = list(AXES)
    print("| part | mass, code [g] | " + " | ".join(f"I about {n}, code [g mm^2]" for n in names)
          + " |")
    print("|---|---:|" + "---:|" * len(names))
    total_m, total_i = 0.0, np.zeros(len(names))
    for name, (m, x) in parts.items():
        i = np.array([inertia(m, x, AXES[n]) for n in names])
        total_m += m.sum()
        total_i += i
        print(f"| {name} | {m.sum():.2f} | " + " | ".join(f"{v:.3g}" for v in i) + " |")
    print(f"| total | {total_m:.1f} | " + " | ".join(f"{v:.3g}" for v in total_i) + " |")
    print(f"\nbird scale (/2.5^3, /2.5^5): wing mass {total_m / SCALE_L ** 3:.1f} g; softmech's "
          f"wing {SOFTMECH_WING_INERTIA:.1e} kg m^2, a pigeon's {PIGEON_INERTIA[0]:.1e}-"
          f"{PIGEON_INERTIA[1]:.1e}")
    insertion = SHOULDER + 120.0 * unit((0.8, -1.0, 0.0))  # the humerus's node 8 of 10
    for n, i_code in zip(names, total_i):
        bird = i_code * 1e-9 / SCALE_L ** 5                 # kg m^2
        arms = [moment_arm(np.array(o), insertion, AXES[n]) / SCALE_L
                for o in ((20, 20, 200), (-15, -15, 100))]
        torque = SOFTMECH_TORQUE_NEEDED * bird / SOFTMECH_WING_INERTIA
        print(f"about {n}: I = {bird:.2e} kg m^2 ({SOFTMECH_WING_INERTIA / bird:.1f}x lighter than "
              f"softmech's); shoulder muscles' arms {arms[0]:.1f}, {arms[1]:.1f} mm; the same "
              f"wingbeat needs {torque:.3f} N m = {torque / (1e-3 * np.mean(arms)):.1f} N at them")
        # tau = 4 I phi / T^2 (the rest-to-rest budget of docs/musculoskeletal.md) read
        # backwards: the largest swing its pectoralis gives this wing, inertia alone, with its
        # peak force held over its whole schedule (an upper bound)
        force = PECTORALIS_PEAK * 1e-6 / SCALE_L ** 4 * SCALE_T ** 2     # N, bird scale
        duration = (PECTORALIS_ON[1] - PECTORALIS_ON[0]) / SCALE_T         # s, bird scale
        phi = force * 1e-3 * arms[1] * duration ** 2 / (4.0 * bird)
        print(f"  its pectoralis ({force:.1f} N at the bird's scale, on for "
              f"{1e3 * duration:.0f} ms) can swing it by at most {np.degrees(phi):.0f} deg "
              f"(the bird: ~105 deg)")
    print(f"(softmech's wing: {SOFTMECH_TORQUE_NEEDED} N m = "
          f"{SOFTMECH_TORQUE_NEEDED / 0.017:.0f} N at its 17 mm)")


if __name__ == "__main__":
    main()
