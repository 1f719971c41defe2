"""softmech's wing with the masses and environment of the paper's own wing (issue 28): does the
paper's ~10 N make a stroke there?

    python benchmarks/wing_paper_code_model.py [--force 10] [--barbs 152] [--air] [--gravity]

The paper's code (mattialab/elastica, source/Wing.cpp; read, not run) flaps a wing whose bones
and feathers weigh, at the bird's scale, what wing_paper_code_inertia.py computes (8.2 g in
all, the feathers 0.3 g), with gravity set to zero ("no gravity in this case") and no fluid
loads. This script gives softmech's wing (its pigeon's bone lengths, feathers, muscles and
activation schedule, softmech.scenarios.wing) those masses: each bone the code's bone group's
mass, the rachises and vanes scaled to the code's feathers' total; it removes gravity and, unless
--air, the air; and prints the wing's moment of inertia about the flapping axis, its joint
angles over the wingbeat and their deviation from the bird's ranges (the same measures as
`softmech run wing`). The module constants are set for this process only.
"""
import argparse
import time

import numpy as np

import softmech as sm
from softmech.scenarios import wing as W
from wing_paper_code_inertia import SCALE_L, paper_code_wing

BONE_GROUPS = {"humerus": ("humerus",), "forearm": ("radius", "ulna"),
               "hand": ("carpometacarpus", "carpometacarpus, major", "digit")}
"""softmech's bones -> the code's rods lumped into each."""


def paper_code_masses():
    """({bone: mass [kg]}, feathers' mass [kg]) of the code's wing at the bird's scale."""
    parts = {name: m.sum() * 1e-3 / SCALE_L ** 3 for name, (m, _) in paper_code_wing().items()}
    bones = {bone: sum(parts[p] for p in group) for bone, group in BONE_GROUPS.items()}
    return bones, parts["primaries (10)"] + parts["secondaries (9)"]


def feather_mass(scene):
    """Total mass [kg] of the rachises and barbs of a wing scene (rods named f<k>_...)."""
    return sum(float(np.sum(r.density * np.pi * r.radius ** 2 * r.rest_lengths))
               for r in scene.rods if r.name.startswith("f"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", type=float, default=10.0, help="shoulder muscles' F_max [N]")
    parser.add_argument("--barbs", type=int, default=152)
    parser.add_argument("--air", action="store_true", help="keep softmech's air loads")
    parser.add_argument("--gravity", action="store_true", help="keep gravity")
    parser.add_argument("--dt", type=float, default=3e-7,
                        help="time step [s]: the light rachises' root joints (their rotational "
                             "damping on a light first element's spin inertia, dt < 2 J / c) "
                             "need ~3e-7 s since each rachis has >= 32 elements (2026-12-04); "
                             "the engine's estimate has included the joints' dashpots and "
                             "the muscles' strain-rate damping since (5.2e-7 s at 152 barbs), "
                             "but at it the pectoralis diverges (cause not found), at 4.1e-7 s "
                             "the run holds")
    args = parser.parse_args()
    bones, feathers = paper_code_masses()
    pigeon, _ = W.build_wing(barbs=args.barbs)
    scale = feathers / feather_mass(pigeon)
    W.BONES = tuple((name, length, bones[name], radius) for name, length, _, radius in W.BONES)
    W.RACHIS = dict(W.RACHIS, density=W.RACHIS["density"] * scale)
    W.VANE_MASS *= scale
    scene, info = W.build_wing(barbs=args.barbs, shoulder_force=args.force, drag=args.air)
    if not args.gravity:
        scene.terms[:] = [t for t in scene.terms if not isinstance(t, sm.Gravity)]
    print(f"bones {', '.join(f'{k} {1e3 * v:.2f} g' for k, v in bones.items())}; feathers "
          f"{1e3 * feather_mass(scene):.2f} g (x{scale:.3f}); inertia "
          f"{W.flapping_inertia(scene):.3g} kg m^2 (softmech's pigeon: "
          f"{W.flapping_inertia(pigeon):.3g}); dt {args.dt:.3g} s; "
          f"shoulder {args.force:g} N, air {args.air}, gravity {args.gravity}")
    start, samples = time.perf_counter(), 100
    sim = scene.compile(dt=args.dt)
    angles = []
    for _ in range(samples):
        sim.run(info.duration / samples)
        angles.append(W.joint_angles(sim.get_state("humerus")["directors"][0, 0],
                                     sim.get_state("forearm")["directors"][0, 0]))
    t = info.duration * (np.arange(samples) + 1) / samples
    angles = np.array(angles)
    dv, ap, elbow = angles[t >= info.initiation].T
    print(f"wall {time.perf_counter() - start:.0f} s; initiation's top "
          f"{angles[t < info.initiation, 0].max():.1f} deg; wingbeat: dorsoventral "
          f"{dv.min():.1f} to {dv.max():.1f} deg, anteroposterior excursion {np.ptp(ap):.1f} deg, "
          f"elbow {elbow.min():.1f} to {elbow.max():.1f} deg")
    print("deviation from the bird's ranges [deg]:",
          {k: round(v, 1) for k, v in W.bird_deviation(dv, ap, elbow).items()})
    print("dorsoventral every 5th sample [deg]:", np.round(angles[::5, 0], 1).tolist())


if __name__ == "__main__":
    main()
