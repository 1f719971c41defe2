"""Validation cases of contact between bodies (group `contact` of `softmech validate`): rods on
rigid bodies (softmech.terms.rod_body_contact; given as triangle meshes:
softmech.validation.mesh_contact) and rods on rods (softmech.terms.rod_contact),
penalty k eps + normal damping + regularized Coulomb friction (Zhang et al., Nat. Commun.
10:4825, 2019, eq. 7), against Hooke's law, beam theory and Amontons-Coulomb. Ground contact and
friction of rods are in the `rods` group (softmech.validation.contact), except the plane contact
on a rod's surface (piles of rods in a box; softmech.validation.surface_contact), here, as are
the two crossing ropes (softmech.validation.crossing_ropes) and a rod rolling on a box with
friction at the contact point (softmech.validation.friction_point).
tests/validation/test_rod_body_contact.py and test_rod_contact.py call the same functions.
"""
import numpy as np

import softmech as sm
from softmech.terms.rod_body_contact import body_contact_forces, body_contact_stats
from softmech.validation.common import rel_error, result, validation_case
from softmech.validation.crossing_ropes import CASES as CROSSING_CASES
from softmech.validation.friction_point import CASES as FRICTION_POINT_CASES
from softmech.validation.mesh_contact import CASES as MESH_CASES
from softmech.validation.sticking import CASES as STICKING_CASES
from softmech.validation.surface_contact import CASES as SURFACE_CASES

G = 9.81
ROD = dict(density=1000.0, youngs_modulus=1e8, shear_modulus=1e8 / 1.5)


@validation_case("overlap of each element ε [m]", "Hooke: n springs k in parallel carry the weight, "
                 "ε = m g / (n k)", fast=True)
def rod_on_box_carries_its_weight():
    """A straight rod (n = 10 elements, r = 1 cm, L = 0.5 m) resting along the top face of a
    fixed box (contact stiffness k = 1e4 N/m per element), damped to rest over 1 s: every
    element's overlap is eps = m g / (n k) (n springs in parallel carry the weight; Hooke) and
    the nodes share the weight as a line load (end nodes half). Measured: the largest overlap
    of the nodes. Error relative; tolerance 1e-9: an exact discrete equilibrium, settled to
    round-off. Also required: node forces equal their shares to 1e-9 and all n elements touch."""
    n, r, L, k = 10, 0.01, 0.5, 1e4
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(name="rod", start=(-0.25, 0.1, 0.1 + r), direction=(1, 0, 0),
                                 normal=(0, 0, 1), length=L, n_elems=n, radius=r, **ROD)
    scene.add_box(name="table", position=(0, 0, 0.05), lengths=(1, 1, 0.1), fixed=True)
    scene.add(sm.Gravity((0, 0, -G)))                 # a fixed obstacle needs no density
    scene.add(sm.RodBodyContact(stiffness=k, damping=1.0))
    scene.add(sm.LinearDamping(rod, 0.5))
    sim = scene.compile(dt=2e-5)
    sim.run(1.0)
    weight = ROD["density"] * np.pi * r * r * L * G
    eps = weight / (n * k)
    overlap = 0.1 + r - sim.get_state("rod")["positions"][0, :, 2]
    worst = overlap[np.argmax(np.abs(overlap - eps))]
    share = np.full(n + 1, weight / n)
    share[[0, -1]] /= 2
    forces = body_contact_forces(sim, "rod")[0, :, 2]
    force_error = float(np.max(np.abs(forces / share - 1)))
    touching = int(body_contact_stats(sim)[0, 1])
    error = rel_error(worst, eps)
    return result("rod_on_box_carries_its_weight", worst, eps, error, 1e-9,
                  f"overlap {worst:.9e} m vs m g/(n k) = {eps:.9e} m; node forces within "
                  f"{force_error:.1e} of their shares; {touching} of {n} elements touch",
                  passed=error <= 1e-9 and force_error <= 1e-9 and touching == n)


@validation_case("mid-span deflection δ [m]", "built-in beam under a central load, Gere & "
                 "Timoshenko App. G (+ shear term)")
def sphere_on_clamped_beam():
    """A sphere of weight W on the middle of a rod clamped at both ends (L = 1 m, r = 1 cm,
    E = 10 MPa, G = E / 3, n = 40): mid-span deflection delta = W L^3 / (192 E I) + W L /
    (4 alpha G A) (beam with both ends built in under a central load, Gere & Timoshenko,
    Mechanics of Materials, App. G; plus the shear term of the constant shear force W / 2 over
    each half span, alpha = the rod's shear coefficient). Small deflection (delta = 1 mm =
    r / 10): the membrane tension of a clamped-clamped beam is negligible. Error relative;
    tolerance 1 % (measured 0.26 %: the load is shared by the two elements either side of the
    middle node). Also required: the contact carries the whole weight (1 %)."""
    L, r, E, n = 1.0, 0.01, 1e7, 40
    I = np.pi * r**4 / 4
    W = 1e-3 * 192 * E * I / L**3          # delta ~ 1 mm
    R = 0.02
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(name="beam", start=(0, 0, 0), direction=(1, 0, 0),
                                 normal=(0, 0, 1), length=L, n_elems=n, radius=r,
                                 density=1000.0, youngs_modulus=E, shear_modulus=E / 3)
    ball = scene.add_sphere(name="ball", position=(0.5, 0, r + R), radius=R, mass=W / G)
    scene.add(sm.Clamp(rod, "first"))
    scene.add(sm.Clamp(rod, "last", name="clamp_last"))
    scene.add(sm.EndLoad(ball, force=(0, 0, -W), name="weight"))   # the beam itself weightless
    scene.add(sm.RodBodyContact(stiffness=1e3, damping=0.05))
    scene.add(sm.LinearDamping(rod, 2.0))
    scene.add(sm.LinearDamping(ball, 0.05, name="rigid_damping"))
    sim = scene.compile(dt=5e-5)
    sim.run(4.0)
    alpha = sim.params["beam.shear_coefficient"][0, 0]
    A = np.pi * r * r
    expected = W * L**3 / (192 * E * I) + W * L / (4 * alpha * (E / 3) * A)
    delta = -float(sim.get_state("beam")["positions"][0, n // 2, 2])
    lift = float(body_contact_forces(sim, "beam")[0, :, 2].sum())
    error = rel_error(delta, expected)
    return result("sphere_on_clamped_beam", delta, expected, error, 1e-2,
                  f"deflection {delta:.6e} m vs {expected:.6e} m ({delta / expected - 1:+.2%}); "
                  f"contact carries {-lift / W:.6f} of the weight",
                  passed=error <= 1e-2 and rel_error(-lift, W) <= 1e-2)


R_ROD = 0.01
STIFF = dict(density=1000.0, youngs_modulus=1e8, shear_modulus=1e8 / 1.5)
COMMON = dict(density=1000.0, youngs_modulus=1e6, shear_modulus=1e6 / 1.5)
MU_S, MU_K, V_S = 0.6, 0.4, 1e-3
"""Coulomb coefficients and slip velocity [m/s] of the rod-on-rail cases. v_s = 1e-3 m/s (1e-4
before issue 30). Friction now acts at the contact point, whose slip includes the sections'
rotation; with v_s = 1e-4 the held slider's contact points chatter (their slip oscillating at
~1e-3 m/s, far above v_s, where the falling branch of mu, mu_s to mu_k between v_s and 2 v_s,
is a negative damping F_n (mu_s - mu_k) / v_s that sustains it) and it creeps at 2.8e-4 m/s,
4.6 v_s tan(theta) / mu_s, the same at dt = 1e-5, 5e-6 and 2.5e-6 s (not a time-step effect);
with mu_k = mu_s it creeps at the law's rate. With v_s = 1e-3 the law works as designed: creep
6.18e-4 m/s against v_s tan(theta) / mu_s = 6.07e-4 (docs/contact.md, where friction acts)."""


def rod_on_rail(theta, duration):
    """A 0.2 m rod (radius R_ROD) lying along a stiff 0.6 m rail (radius 2 R_ROD) clamped at both
    ends (both with 0.025 m elements, in the plane y = 0), its weight tilted by theta [rad] about
    y (the same as an incline of angle theta; a uniform load rho A g on the slider only, so the
    rail does not sag under its own weight: ~0.05 mm under the slider's). RodContact k = 1e4
    N/m, Coulomb mu_s = 0.6, mu_k = 0.4, v_slip = V_S. Returns times [s], the slider's
    centre-of-mass x [m] and x velocity [m/s], every 1 ms."""
    scene = sm.Scene()
    scene.add_cosserat_rod(name="rail", start=(-0.3, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                           length=0.6, n_elems=24, radius=2 * R_ROD, **STIFF)
    scene.add_cosserat_rod(name="slider", start=(-0.2, 0, 3 * R_ROD), direction=(1, 0, 0),
                           normal=(0, 0, 1), length=0.2, n_elems=8, radius=R_ROD, **COMMON)
    weight = COMMON["density"] * np.pi * R_ROD**2 * G
    scene.add(sm.UniformLoad("slider", force_per_length=(weight * np.sin(theta), 0,
                                                         -weight * np.cos(theta)), name="weight"))
    scene.add(sm.Clamp("rail", "first"))
    scene.add(sm.Clamp("rail", "last", name="clamp_last"))
    scene.add(sm.RodContact(stiffness=1e4, damping=2.0,
                            friction=sm.CoulombFriction(MU_S, MU_K, slip_velocity=V_S)))
    sim = scene.compile(dt=1e-5, strict=True)
    out = sim.run(duration, record=sm.Every(1e-3, ("slider.com", "slider.com_velocity")))
    return out["time"], out["slider.com"][0, :, 0], out["slider.com_velocity"][0, :, 0]


@validation_case("sliding acceleration [m/s²]", "Amontons–Coulomb on an incline: "
                 "a = g (sin θ − μₖ cos θ)")
def rod_on_rod_slides_with_kinetic_friction():
    """A rod on a clamped rail (rod_on_rail) with its weight tilted by theta = 35 deg: tan(35
    deg) = 0.70 > mu_s = 0.6, so it slides with a = g (sin(theta) - mu_k cos(theta)) = 2.41
    m/s^2 (Amontons-Coulomb on an incline). Measured: the slope of a least-squares line through
    the velocity from 0.05 s to 0.25 s (after the contact has settled). Error relative;
    tolerance 2 %: the penalty contact's normal force oscillates about m g cos(theta) as the
    slider's elements pass the rail's."""
    theta = np.radians(35.0)
    t, _, v = rod_on_rail(theta, 0.25)
    window = t >= 0.05
    slope = float(np.polyfit(t[window], v[window], 1)[0])
    expected = G * (np.sin(theta) - MU_K * np.cos(theta))
    return result("rod_on_rod_slides_with_kinetic_friction", slope, expected,
                  rel_error(slope, expected), 0.02,
                  f"a = {slope:.4f} m/s^2 vs g (sin - mu_k cos) = {expected:.4f} m/s^2")


@validation_case("largest displacement [m]", "Amontons–Coulomb: static friction holds below "
                 "the friction angle", fast=True)
def rod_on_rod_sticks_below_the_friction_angle():
    """A rod on a clamped rail (rod_on_rail) with its weight tilted by theta = 20 deg: tan(20
    deg) = 0.36 < mu_s = 0.6, so static friction holds it (Amontons-Coulomb). The regularized
    law lets it creep at v = v_s tan(theta) / mu_s (viscous below v_s): measured the largest
    displacement over 0.5 s; reference 0, error absolute [m]; tolerance v_s x 0.5 s = 5e-4 m
    (5 % of r; the creep predicts 3.0e-4 m, measured 3.1e-4 m; a sliding rod would move
    0.07 m). v_s = 1e-3 m/s: V_S (with 1e-4 the slider chatters since issue 30)."""
    t, x, _ = rod_on_rail(np.radians(20.0), 0.5)
    drift = float(np.max(np.abs(x - x[0])))
    return result("rod_on_rod_sticks_below_the_friction_angle", drift, 0.0, drift,
                  V_S * float(t[-1]), f"largest displacement {drift:.3e} m over {t[-1]:.2f} s")


CASES = {**{f.__name__: f for f in (rod_on_box_carries_its_weight, sphere_on_clamped_beam,
                                    rod_on_rod_slides_with_kinetic_friction,
                                    rod_on_rod_sticks_below_the_friction_angle)},
         **MESH_CASES,         # rods on triangle meshes: softmech.validation.mesh_contact
         **STICKING_CASES,     # friction that sticks: softmech.validation.sticking
         **SURFACE_CASES,      # rods' plane contact on their surface: .surface_contact
         **CROSSING_CASES,     # two crossing ropes, symmetric and at rest: .crossing_ropes
         **FRICTION_POINT_CASES}   # friction at the contact point, rolling: .friction_point
"""Case name -> function returning its record."""
