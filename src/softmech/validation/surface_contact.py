"""Validation cases of a rod's plane contact on its surface (GroundContact(rod, surface=True),
softmech.kernels.surface_contact; group `contact` of `softmech validate`).

The model is a penalty on every element's two end spheres: a node of stiffness k_i (k inside,
k/2 at an open end) that carries a load F_i sinks delta_i = F_i / k_i, its stated depth. The
cases check that depth against static equilibrium (an arc balanced on one node: F = M g, Hooke)
and that a pile of rods dropped into a box of five planes comes to rest with no node deeper
than the whole pile's weight over the stiffness. tests/validation/test_surface_contact.py calls
the same functions.
"""
import numpy as np

import softmech as sm
from softmech.terms.surface_contact import node_stiffness
from softmech.validation.common import compile_stable, rel_error, result, validation_case

G = 9.81
ROD = dict(density=1000.0, youngs_modulus=1e7, shear_modulus=1e7 / 1.5)
STIFF = dict(density=1000.0, youngs_modulus=1e9, shear_modulus=1e9 / 1.5)
"""The arc's material: stiff enough that its own sag (~4e-6 m at the neighbours of the lowest
node) is far below the gap l^2 / (2 R) that keeps them off the plane."""


def arc_scene(surface=True, *, n=20, radius=0.01, length=0.5, angle=np.pi / 2, k=1e4):
    """A rod curved at rest into a circular arc of `angle` [rad] (n elements, length [m]),
    convex side down, its middle node touching the plane z = 0, frictionless contact of
    stiffness k [N/m] (surface=True: the surface model; False: the element centres with the
    same k). Returns (scene, bottom node index, weight M g [N])."""
    R = length / angle
    phi = np.linspace(-angle / 2, angle / 2, n + 1)
    centerline = np.stack([R * np.sin(phi), np.zeros_like(phi), radius + R * (1 - np.cos(phi))],
                          axis=1)
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(name="arc", centerline=centerline, normal=(0, 1, 0),
                                 radius=radius, rest_curvature="initial", **STIFF)
    scene.add(sm.Gravity((0, 0, -G)))
    # damping to reach the static state sooner; it acts on velocities only, so the equilibrium
    # (and the depth checked) does not depend on it
    scene.add(sm.LinearDamping(rod, 5.0))
    extra = dict(surface=True) if surface else {}
    scene.add(sm.GroundContact(rod, stiffness=k, damping=5.0, **extra))
    # the rod's mass is that of its rest lengths, the chords of the arc (0.03 % below L here)
    chords = np.linalg.norm(np.diff(centerline, axis=0), axis=1).sum()
    weight = STIFF["density"] * np.pi * radius**2 * chords * G
    return scene, n // 2, weight


@validation_case("depth of the lowest node δ [m]", "Hooke and static equilibrium: the arc rests on "
                 "one node, which carries its whole weight, δ = M g / k", fast=True)
def arc_rests_on_its_lowest_node():
    """A rod curved at rest into a quarter circle (L = 0.5 m, r = 1 cm, n = 20, E = 1 GPa),
    convex side down, rests on the plane on its middle node (its neighbours are l^2 / (2 R) =
    0.98 mm higher, more than the depth): that node carries the whole weight M g, so its sphere
    sinks delta = M g / k_i with k_i = k = 1e4 N/m (an interior node: half of each of its two
    elements' k), 0.15 mm. Settled for 1.5 s (dt 0.9 x the stability estimate). Measured: the lowest node's depth below r;
    error relative; tolerance 1e-6: an exact static equilibrium, met once the motion (period
    ~0.04 s, damped) has decayed; the residual measured is 7e-10. Also required: no other
    node touches, and the contact force reported by Simulation.contact_forces is M g."""
    scene, bottom, weight = arc_scene()
    sim = compile_stable(scene, 0.9)
    sim.run(1.5)
    x = sim.get_state("arc")["positions"][0]
    depth = 0.01 - x[:, 2]
    expected = weight / 1e4
    force = sim.contact_forces("arc")[0]
    others = np.delete(depth, bottom)
    err = rel_error(depth[bottom], expected)
    ok = others.max() < 0 and abs(force[:, 2].sum() - weight) <= 1e-6 * weight
    return result("arc_rests_on_its_lowest_node", depth[bottom], expected, err, 1e-6,
                  f"lowest node {depth[bottom]:.6e} m vs M g / k = {expected:.6e} m; the others "
                  f"at least {-others.max():.3e} m clear; contact force {force[:, 2].sum():.6g} N "
                  f"vs weight {weight:.6g} N", passed=ok and err <= 1e-6)


BOX = (0.17, 0.022)
"""Half widths [m] of the box (walls at x = +-BOX[0], y = +-BOX[1]): a trough 2.2 rod diameters
wide, so that the rods dropped along it stack, each upper one in a groove (between two rods or
a rod and a wall)."""


def pile_scene(surface=True, *, n_rods=4, k=2e3, damping=2.0, n=12, radius=0.01, length=0.3):
    """n_rods rods (n elements, r [m], L [m]) dropped one above the other, along the box and
    slightly crossed, into a box: the floor z = 0 and four walls x = +-BOX[0], y = +-BOX[1], each
    a GroundContact plane of stiffness k [N/m] (surface=True: the surface model; False: the
    element centres), kinetic friction 0.5 on the floor; the rods touch each other (RodContact,
    Coulomb friction 0.5) and are damped (LinearDamping 1 kg/(m s): their own dissipation, so
    that their vibrations die out). Returns (scene, names, total weight [N])."""
    scene = sm.Scene()
    names = []
    rng = np.random.default_rng(3)
    for i in range(n_rods):
        angle = rng.uniform(-0.02, 0.02)
        d = np.array([np.cos(angle), np.sin(angle), 0.02 * (-1) ** i])
        d /= np.linalg.norm(d)
        centre = np.array([rng.uniform(-0.01, 0.01), 0.6 * radius * (-1) ** i,
                           2.5 * radius + 3.0 * radius * i])
        rod = scene.add_cosserat_rod(name=f"rod{i}", start=tuple(centre - 0.5 * length * d),
                                     direction=tuple(d),
                                     normal=(-np.sin(angle), np.cos(angle), 0.0), length=length,
                                     n_elems=n, radius=radius, **ROD)
        names.append(rod.name)
        scene.add(sm.LinearDamping(rod, 1.0, name=f"damping_{rod.name}"))
        extra = dict(surface=True) if surface else {}
        planes = [((0, 0, 0), (0, 0, 1), sm.IsotropicFriction(0.5, rolling=False))] + [
            (tuple(-np.asarray(BOX + (0.0,)) * np.asarray(u)), u, None) for u in
            ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0))]
        for j, (point, normal, friction) in enumerate(planes):
            scene.add(sm.GroundContact(rod, stiffness=k, damping=damping, plane_point=point,
                                       plane_normal=normal, name=f"plane{j}_{rod.name}",
                                       friction=(friction if surface or friction is None else
                                                 sm.IsotropicFriction(0.5)), **extra))
    scene.add(sm.Gravity((0, 0, -G)))
    scene.add(sm.RodContact(stiffness=2e3, damping=2.0,
                            friction=sm.CoulombFriction(static=0.5, kinetic=0.5)))
    weight = n_rods * ROD["density"] * np.pi * radius**2 * length * G
    return scene, names, weight


def kinetic_energy(sim, names):
    """Translational kinetic energy [J] of the rods' nodes, world 0: sum m_i |v_i|^2 / 2."""
    return float(sum(0.5 * np.sum(sim._node_mass(n)[0] * np.sum(
        sim.get_state(n)["velocities"][0] ** 2, axis=1)) for n in names))


def stated_depths(sim, names, k):
    """Per node of every rod, world 0: (depth below the floor [m], the penalty's stated depth
    F_i / k_i [m] from the floor contact's normal force F_i and the node's stiffness k_i), both
    (n_nodes_total,); nodes off the floor have a negative depth and F_i = 0."""
    depth, stated = [], []
    for n in names:
        x = sim.get_state(n)["positions"][0]
        rod = next(r for r in sim.rods if r.name == n)
        k_i = node_stiffness(rod.n_nodes, rod.closed, k)[0]
        fz = sim.contact_forces(n)[0][:, 2]     # the walls push along x and y only
        depth.append(rod_radius(sim, n) - x[:, 2])
        stated.append(fz / k_i)
    return np.concatenate(depth), np.concatenate(stated)


def rod_radius(sim, name):
    """The (uniform) radius [m] of rod `name`, world 0."""
    return float(sim.rod_params(name)["radius"][0, 0])


@validation_case("deepest node below the floor δ [m]", "the penalty's stated depth: a node that "
                 "carries F_i sinks F_i / k_i (Hooke), and the floor carries the pile's weight")
def rods_piled_in_a_box_come_to_rest(duration=1.0):
    """Four rods (L = 0.3 m, r = 1 cm, n = 12, E = 10 MPa, damped) dropped one above the other
    into a trough 0.34 m long and 4.4 cm wide (2.2 diameters: they stack in two layers; floor and
    four walls are surface contact planes, k = 2000 N/m, damping 2 kg/s, floor friction 0.5;
    rod-rod contact k = 2000 N/m, Coulomb 0.5) pile up and come to rest within `duration` [s].
    Stated depth: a node carrying F_i on the floor sinks F_i / k_i (k_i = k, k/2 at a rod's
    end). Measured: the deepest node; reference: its stated depth from its contact force
    (Simulation.contact_forces); error relative; tolerance 1e-3, the damping force of the
    residual motion. Also required: every node within its stated depth (same tolerance,
    + 1e-9 m), the floor's total force equal to the weight W within 1e-3, the rods'
    translational kinetic energy below 1e-5 W r (1e-5 of the energy of lifting the pile by one
    radius; measured 4e-9 J = 1e-7 W r from 0.6 s to 5 s: the regularized friction's residual
    chatter, node speeds ~2e-4 m/s), and every node inside the box."""
    r, k = 0.01, 2e3
    scene, names, weight = pile_scene(k=k, radius=r)
    sim = scene.compile(dt=2e-5, strict=True)
    sim.run(duration)
    depth, stated = stated_depths(sim, names, k)
    i = int(np.argmax(depth))
    floor = float(sum(sim.contact_forces(n)[0][:, 2].sum() for n in names))
    energy = kinetic_energy(sim, names)
    inside = all(np.all(np.abs(sim.get_state(n)["positions"][0, :, :2]) < BOX) for n in names)
    within = bool(np.all(depth <= stated * (1 + 1e-3) + 1e-9))
    ok = (within and energy < 1e-5 * weight * r and inside
          and abs(floor - weight) <= 1e-3 * weight)
    err = rel_error(depth[i], stated[i])
    return result("rods_piled_in_a_box_come_to_rest", depth[i], stated[i], err, 1e-3,
                  f"deepest node {depth[i]:.4e} m (stated F/k {stated[i]:.4e} m, radius {r} m; "
                  f"every node within its stated depth: {within}); floor force {floor:.6g} N vs "
                  f"weight {weight:.6g} N; kinetic energy {energy:.2e} J (bound "
                  f"{1e-5 * weight * r:.1e} J); inside the box: {inside}",
                  passed=ok and err <= 1e-3)


CASES = {f.__name__: f for f in (arc_rests_on_its_lowest_node, rods_piled_in_a_box_come_to_rest)}
"""Case name -> function returning its record."""
