"""The authors' walker: Zhang et al. 2019's own bio-hybrid walker as their public code builds it
(mattialab/elastica, source/Walker.cpp and the FLAGWALKER blocks of source/ExternalContact.h,
mm-g-s units there, SI here), for issue 28's question whether softmech's walker
(softmech.scenarios.walker, one rod wide) differs from the paper because it is a different
machine. build_walker(model="paper") builds it.

Their frame has the beams along -y and the walker walking towards +y; here the beams run along
+x from the long legs to the short ones and the walker walks towards +x (x = y_theirs + 14 mm,
y = x_theirs: a mirror image of a walker that is mirror-symmetric across its width).

Skeleton (E = `youngs_modulus`, theirs 319.4 kPa, "original 3.194"; rho = 1120 kg/m^3; nu = 0.5):
  * two beams, 14 mm, 16 elements, 3.5 mm apart in y, their centrelines 3.5 mm up. Their mass
    is that of radius 0.8786 mm at half the density ("factorW = 0.5 ... account for irregular
    shape"); their stiffness that radius over the four elements at each end (over the legs) and
    the equivalent radius 0.5842 mm in the eight middle ones ("to match the experimental
    bending stiffness", Pagan-Diaz et al. 2018). Here the rod's radius is the stiffness radius
    and the density is scaled by (0.8786 / r_e)^2 so that every element has their mass;
  * four legs, radius 1.75 mm, hanging from the beams' nodes 2 and 14 (x = 1.75 and 12.25 mm):
    the long legs 3.4 mm at the back, the short legs (`short_pillar`, theirs 2.8 mm) at the
    front: their tips start 0.6 mm above the ground and the walker lands tilted 3.3 degrees
    forward. Theirs are rods of six elements; here each leg is a rigid cylinder (a leg's own
    bending under a 1 mN tip load is 5.6 um, EI = 2.4e-6 N m^2 over 3.4 mm): its flat end
    stands on the ground by its rim
    (softmech.kernels.rigid_contact), as theirs by the two corners of its tip;
  * four crosses (rods of radius 0.72 mm, 3.5 mm) tie the two legs of a side at their top and
    two thirds down. Here each pair of legs is held by a fixed joint between them, halfway
    down, and each cross's mass (6.4 mg) is shared by its two legs.
Joints (theirs 5e8 g/s^2 in their units: 5e5 N/m, at their dt = 7.5e-8 s): fixed joints of
LEG_JOINT.

Muscle (rho_m = 1060 kg/m^3, E_m = 10 kPa; buoyant: "the tissue is immersed and suspended in
the fluid", their gravity on the muscle rods is zero; here an upward load rho_m A g cancels it):
  * two rings around the two legs of each side, rectangles 7.6 mm across and 4.6 mm along x,
    radius 0.29 mm, 22 elements, in two layers 0.9 and 1.5 mm up, glued to each other along
    their inner sides (nodes 12-17, theirs in x and y only);
  * four strips, radius 0.227 mm, 5.48 mm, 4 elements, 1.5 mm up, from the front ring's inner
    side to the back one's (their ends on the upper rings' nodes 13-16);
  * every muscle rod contracts with the tension 0.6 mN |sin(pi f t)| + 0.2 mN (their "Amp =
    600" from sigma_m = 3.706 kPa on the strips' section; the rings' too, with gamma = 0.6;
    the constant 0.2 mN, ramped in over 0.2 s, "to make the muscle conform to the scaffold").
    Theirs starts at 0.1 s; here at 0 (the speed is measured after SETTLE_TIME). Their |sin(2 pi
    t / T)| with T = 1 s is their "2 Hz" walker: one contraction per stimulus, as here.
  * the rings touch the legs (sm.RodBodyContact; theirs a penalty against the line through a
    side's two leg axes at 2.04 mm = 1.75 + 0.29, that pushes the legs only along the walking
    direction).
Ground (theirs, ExternalContact.h): kinetic 0.3, static 0.42 below 1e-4 mm/s, a penalty of
1e6 g/s^2 (1e3 N/m) on the legs' tips. Here: the rigid legs' rim contact with the penalty
1e3 N/m (critical damping) and friction that sticks (sm.StickingFriction(0.42, 0.3, k_t), k_t =
`tangential_stiffness`, default 1e3 N/m: a tip held by 0.42 x ~0.5 mN stretches 0.2 um, and the
spring's period on a 43 mg leg, 1.3 ms, is 130 steps of 1e-5 s), which holds a leg without
creep at softmech's time step where their regularized law needs theirs; tangential_stiffness
0 gives the regularized law instead (static below `slip_velocity`, 1e-4 m/s: a leg creeps).

Damping (their Rod::computeDampingForces: f = -nu v per unit length on every node, and -nu w per
element, with nu = 0.13 + 0.3 exp(-t / 0.1) g/(mm s) on the skeleton's rods and 0.05 on the
muscles'): linear damping 0.13 kg/(m s) (`skeleton_damping`) on the beams and the legs (a leg:
0.13 x its length, in N s/m), 0.05 kg/(m s) (`muscle_damping`) on the muscle rods; rotational
1.3e-7 and 5e-8 kg m/s per unit length (their nu in g mm/s). Their start-up transient (0.3
exp(-t / 0.1)) is left out: the walker settles for SETTLE_TIME before its speed is measured.

The walker's speed is that of beam 0's centre of mass (theirs: "avgVel" of rod 0, beam 0).
"""
import numpy as np

import softmech as sm
from softmech import _checks
from softmech.terms.active_muscle import ActiveMuscle
from softmech.terms.contact import sticking_or_regularized

MM = 1e-3
DEFAULTS = {"youngs_modulus": 3.194e5, "short_pillar": 2.8 * MM, "long_pillar": 3.4 * MM,
            "static_friction": 0.42, "friction": 0.3, "tangential_stiffness": 1e3,
            "slip_velocity": 1e-4,
            "skeleton_damping": 0.13, "muscle_damping": 0.05, "muscle_force": 0.6e-3,
            "base_force": 0.2e-3}
"""build_walker(model="paper") parameters (SI units; module docstring): the authors' values."""
RHO, RHO_M, E_M = 1120.0, 1060.0, 1e4
BEAM = dict(length=14.0 * MM, n=16, mass_radius=0.8786 * MM, middle_radius=0.5842 * MM,
            height=3.5 * MM, gap=3.5 * MM, density_factor=0.5)
LEG_RADIUS, LEG_NODES = 1.75 * MM, (2, 14)
CROSS_MASS = RHO * np.pi * (0.72 * MM) ** 2 * 3.5 * MM
RING = dict(across=7.6 * MM, radius=0.29 * MM, heights=(1.5 * MM, 0.9 * MM),
            back=(-0.35 * MM, 4.25 * MM), front=(14.33 * MM, 9.73 * MM), y0=-2.05 * MM)
STRIP = dict(radius=0.227 * MM, n=4)
GLUED_NODES, STRIP_NODES = range(12, 18), range(13, 17)
"""Ring nodes (ring_centerline's numbering, theirs) glued between the layers, and holding the
strips: their x_theirs 3.38, 2.29, 1.21, 0.12 mm, symmetric about the walker's midline."""
LEG_JOINT = dict(stiffness=1e3, damping=1e-2, rotational_stiffness=1e-4,
                 rotational_damping=1e-8)
"""Fixed joints of a leg to its beam (the hips) and of the two legs of a side (the crosses): k
[N/m] (1 um under 1 mN), k_r [N m/rad], dampings; their explicit limit on a beam element (1.2
mg; rotary 2.3e-13 kg m^2) is above 6e-5 s. A hip's k_r is theirs (HIP_SPRING)."""
HIP_SPRING, HIP_ARM = 50.0, 1e-3
"""Their hip (ExternalContact.h, "Perpendicular"): a spring of 1e-4 x 5e8 g/s^2 = 50 N/m pulls
the leg's tip to where a leg normal to the beam would have it, and acts on both elements as a
couple with a 1 mm arm: k_r = 50 N/m x leg length x 1 mm (1.7e-4 N m/rad for the long legs)."""
MUSCLE_JOINT = dict(stiffness=100.0, damping=1e-3)
"""Spherical joints of the strips to the rings and of the ring layers [N/m], [N s/m]."""
RING_CONTACT = dict(stiffness=300.0, damping=1e-3)
"""Ring-leg contact: ~4 um of overlap under the rings' ~1 mN."""
RING_SLAB = dict(stiffness=100.0, damping=1e-3)
"""The planes that hold a ring at its height (hold_height): ~1 um under a 0.1 mN vertical load."""
GROUND_STIFFNESS = 1e3
"""[N/m] the ground's penalty on a leg's rim (theirs 1e6 g/s^2), critically damped."""
NU_ROTATION = 1e-6
"""[m^2] their rotational damping per unit length over their linear one: both are nu in mm-g-s,
g/(mm s) and g mm/s, i.e. 1e-6 x nu kg m/s for nu kg/(m s)."""
SPACING = 15 * MM
"""[m] between the walkers in y (8.4 mm wide each)."""


def paper_parameters(overrides):
    """DEFAULTS with `overrides`, checked by name and range."""
    unknown = sorted(set(overrides) - set(DEFAULTS))
    if unknown:
        raise ValueError(f"{unknown[0]} is not allowed with model='paper': not one of its "
                         f"parameters ({sorted(DEFAULTS)})")
    p = dict(DEFAULTS, **overrides)
    for k in ("youngs_modulus", "short_pillar", "long_pillar", "slip_velocity"):
        _checks.positive(k, p[k])
    _checks.nonnegative("tangential_stiffness", p["tangential_stiffness"])
    for k in ("friction", "static_friction", "skeleton_damping", "muscle_damping",
              "muscle_force", "base_force"):
        _checks.nonnegative(k, p[k])
    if p["static_friction"] < p["friction"]:
        raise ValueError(f"static_friction = {p['static_friction']!r} is not allowed: must be >= "
                         f"friction (the kinetic coefficient) = {p['friction']!r}")
    low = max(RING["heights"]) + RING["radius"]
    for k in ("short_pillar", "long_pillar"):
        if not low < p[k] < BEAM["height"]:
            raise ValueError(f"{k} = {p[k]!r} is not allowed with model='paper': must be in "
                             f"({low:g}, {BEAM['height']:g}) m (below the beams, below the "
                             f"upper rings)")
    return p


def beam_sections():
    """(radius (n,), density (n,)) of a beam: the stiffness radius per element and the density
    that gives each element the mass of mass_radius at half the skeleton's density."""
    n = BEAM["n"]
    r = np.full(n, BEAM["mass_radius"])
    r[4:12] = BEAM["middle_radius"]
    return r, BEAM["density_factor"] * RHO * (BEAM["mass_radius"] / r) ** 2


def ring_centerline(sides, height, y_shift):
    """Nodes (22, 3) [m] of a closed rectangular ring at `height` whose sides across the walker
    are at x = sides (outer, inner) [m]: 7 segments across (y), 4 along (x), starting at the
    outer side's corner (theirs), the inner side (facing the other ring) being nodes 11-18."""
    outer, inner = sides
    y = RING["y0"] + y_shift + RING["across"] * np.arange(8) / 7
    xs = outer + (inner - outer) * np.arange(1, 4) / 4
    side1 = [(outer, v) for v in y]                  # nodes 0-7
    side2 = [(x, y[-1]) for x in xs]                 # 8-10
    side3 = [(inner, v) for v in y[::-1]]            # 11-18
    side4 = [(x, y[0]) for x in xs[::-1]]            # 19-21
    return np.array([(a, b, height) for a, b in side1 + side2 + side3 + side4])


def add_paper_walker(scene, k, p, frequency):
    """Walker k of the authors' design (module docstring) with parameters p, stimulated at
    `frequency` [Hz], y shifted by k SPACING; returns the name of beam 0 (its speed)."""
    y0 = k * SPACING
    r_beam, rho_beam = beam_sections()
    beams = [scene.add_cosserat_rod(
        name=f"beam{j}_{k}", start=(0.0, y0 + j * BEAM["gap"], BEAM["height"]),
        direction=(1, 0, 0), normal=(0, 0, 1), length=BEAM["length"], n_elems=BEAM["n"],
        radius=r_beam, density=rho_beam, youngs_modulus=p["youngs_modulus"])
        for j in (0, 1)]
    for beam in beams:
        add_damping(scene, beam, p["skeleton_damping"])
    legs = [leg for side in ("back", "front") for leg in add_legs(scene, k, p, beams, side)]
    rings = {side: add_rings(scene, k, p, side, y0, frequency) for side in ("back", "front")}
    add_strips(scene, k, p, rings["front"][0], rings["back"][0], frequency)
    scene.add(sm.RodBodyContact(rods=[r.name for side in rings.values() for r in side],
                                bodies=[leg.name for leg in legs], **RING_CONTACT,
                                name=f"ring_contact_{k}"))
    return beams[0].name


def add_legs(scene, k, p, beams, side):
    """The two legs of walker k's `side` ("back": long_pillar at the beams' node 2, "front":
    short_pillar at node 14): rigid cylinders fixed to the beams (the hips) and to each other
    (the crosses), on the ground, damped (module docstring). Returns the two bodies."""
    node, length = ((LEG_NODES[0], p["long_pillar"]) if side == "back"
                    else (LEG_NODES[1], p["short_pillar"]))
    mass = RHO * np.pi * LEG_RADIUS ** 2 * length + CROSS_MASS
    pair = []
    for j, beam in enumerate(beams):
        centre = beam.positions[node] - (0, 0, 0.5 * length)
        leg = scene.add_cylinder(name=f"{side}_leg{j}_{k}", position=centre, direction=(0, 0, 1),
                                 normal=(1, 0, 0), radius=LEG_RADIUS, length=length, mass=mass)
        hip = dict(LEG_JOINT, rotational_stiffness=HIP_SPRING * length * HIP_ARM)
        scene.add(sm.FixedJoint((beam, node), (leg, (0.0, 0.0, 0.5 * length)), **hip,
                                name=f"{side}_hip{j}_{k}"))
        friction = sticking_or_regularized(p["static_friction"], p["friction"], mass=mass,
                                           tangential_stiffness=p["tangential_stiffness"],
                                           slip_velocity=p["slip_velocity"])
        scene.add(sm.GroundContact(leg, stiffness=GROUND_STIFFNESS,
                                   damping=2.0 * np.sqrt(GROUND_STIFFNESS * mass),
                                   friction=friction, name=f"{leg.name}_ground"))
        add_damping(scene, leg, p["skeleton_damping"], length)
        pair.append((leg, centre))
    # the crosses: the two legs held together where they touch, halfway down
    (a, ca), (b, cb) = pair
    mid = 0.5 * (ca + cb)
    scene.add(sm.FixedJoint((a, mid - ca), (b, mid - cb), **LEG_JOINT, name=f"{side}_cross_{k}"))
    return a, b


def add_rings(scene, k, p, side, y0, frequency):
    """The two layers of walker k's `side` ring (upper first): muscles held at their heights and
    glued to each other along their inner sides (module docstring)."""
    layers = []
    for layer, h in enumerate(RING["heights"]):
        ring = scene.add_cosserat_rod(
            name=f"{side}_ring{layer}_{k}", centerline=ring_centerline(RING[side], h, y0),
            closed=True, normal=(0, 0, 1), rest_curvature="initial", radius=RING["radius"],
            density=RHO_M, youngs_modulus=E_M)
        add_muscle(scene, ring, RING["radius"], p, frequency)
        hold_height(scene, ring, h)
        layers.append(ring)
    below = (-(RING["heights"][0] - RING["heights"][1]), 0.0, 0.0)    # along d1 = z
    for i in GLUED_NODES:
        scene.add(sm.SphericalJoint((layers[0], i, below), (layers[1], i), **MUSCLE_JOINT,
                                    name=f"{side}_ring_glue{i}_{k}"))
    return layers


def add_strips(scene, k, p, front, back, frequency):
    """Walker k's four strips from the front upper ring's inner nodes STRIP_NODES to the back
    one's, jointed to them (module docstring)."""
    for n, i in enumerate(STRIP_NODES):
        a, b = front.positions[i], back.positions[i]
        strip = scene.add_cosserat_rod(name=f"strip{n}_{k}", start=a, direction=b - a,
                                       normal=(0, 0, 1), length=float(np.linalg.norm(b - a)),
                                       n_elems=STRIP["n"], radius=STRIP["radius"],
                                       density=RHO_M, youngs_modulus=E_M)
        add_muscle(scene, strip, STRIP["radius"], p, frequency)
        scene.add(sm.SphericalJoint((strip, "first"), (front, i), **MUSCLE_JOINT,
                                    name=f"{strip.name}_front"))
        scene.add(sm.SphericalJoint((strip, "last"), (back, i), **MUSCLE_JOINT,
                                    name=f"{strip.name}_back"))


def add_damping(scene, body, nu, length=None):
    """Their damping (module docstring) on a rod (nu [kg/(m s)] per unit length, and nu x 1e-6
    kg m/s per unit length on its rotation: their nu in g mm/s) or on a rigid leg of `length`
    [m] (the same per unit length times its length, in N s/m and N m s)."""
    scale = 1.0 if length is None else length
    scene.add(sm.LinearDamping(body, nu * scale, rotational_coefficient=NU_ROTATION * nu * scale,
                               name=f"{body.name}_damping"))


def hold_height(scene, ring, height):
    """Keep a ring at its height: two frictionless planes touching it from below and above
    (surface penalty contacts, RING_SLAB). Their contact force on the muscle has no vertical
    part (ExternalContact.h: Vector3(cForce[0], cForce[1], 0.0)); here the legs, which the walker
    tilts by ~3 degrees, would otherwise push the front ring down and off the legs (measured:
    both rings sank 1.3 mm in 0.4 s and the front one slid under its legs)."""
    r = RING["radius"]
    for name, z, normal in (("floor", height - r, 1.0), ("ceiling", height + r, -1.0)):
        scene.add(sm.GroundContact(ring, **RING_SLAB, surface=True, plane_point=(0.0, 0.0, z),
                                   plane_normal=(0.0, 0.0, normal),
                                   name=f"{ring.name}_{name}"))


def add_muscle(scene, rod, radius, p, frequency):
    """A muscle rod's tension muscle_force |sin(pi f t)| + base_force (ramped in over 0.2 s),
    its buoyancy (an upward rho_m A g) and its damping (module docstring)."""
    area = np.pi * radius ** 2
    scene.add(ActiveMuscle.walker(rod, p["muscle_force"] / area, frequency=frequency,
                                  name=f"{rod.name}_muscle"))
    scene.add(ActiveMuscle(rod, p["base_force"] / area, activation=[0.0, 1.0, 1.0],
                           times=[0.0, 0.2, 1e6], active_coefficients=(1.0,),
                           passive_coefficients=(), incompressible=False,
                           name=f"{rod.name}_base"))
    scene.add(sm.UniformLoad(rod, (0.0, 0.0, RHO_M * area * 9.81), name=f"{rod.name}_buoyant"))
    add_damping(scene, rod, p["muscle_damping"])


def build_paper_walker(frequencies, designs=None, **overrides):
    """The authors' walkers (module docstring), one per frequency [Hz] side by side SPACING apart
    in y; designs: one dict of DEFAULTS' keys per walker (softmech.optimize.walker). Returns
    (scene, names of each walker's beam 0: the rods whose speed is the walker's);
    softmech.scenarios.walker.build_walker(model="paper") wraps it with its WalkerInfo."""
    freqs = np.atleast_1d(np.asarray(frequencies, dtype=float))
    designs = [{}] * len(freqs) if designs is None else designs
    params = [paper_parameters({**overrides, **d}) for d in designs]
    scene = sm.Scene()
    skeletons = [add_paper_walker(scene, k, p, float(f))
                 for k, (f, p) in enumerate(zip(freqs, params))]
    scene.add(sm.Gravity((0.0, 0.0, -9.81)))
    return scene, tuple(skeletons)
