"""Friction at the contact point (issue 30; softmech.kernels.contact_point): the scenes and
measurements of its validation, shared by `softmech validate --only contact` (CASES) and
tests/validation/test_friction_point.py.

Friction of rod-rod (sm.RodContact) and rod-body (sm.RodBodyContact) contact acts at one point p
on the surfaces, equal and opposite on both sides, each rod receiving it at its centreline plus
the couple of its lever p - c, and the slip velocity is that of the two sections' material
points at p. Hence (i) the contact's forces and couples have no net force and no net torque
about any point, so total angular momentum is conserved by the contact (exactly per evaluation;
over a run to the integrator's O(dt^2)), and (ii) a rod rolls on a body or on another rod
without slipping, as a rigid cylinder does.
"""
import numpy as np

import softmech as sm
from softmech.bodies.meshes import icosphere
from softmech.validation.common import rel_error, result, validation_case
from softmech.validation.mesh_contact import box_mesh

G = 9.81


def contact_balance(sim, call, kernel):
    """The contact kernel `kernel` of the engine call `call` alone at the current state of a
    one-world simulation: (total force [N], total torque about the origin [N m] of what it puts
    on the rods' nodes and elements and on the rigid bodies, and the size of the largest single
    torque term (the rods' x x f, the rods' couples, the bodies' x x F and torques) [N m])."""
    engine = sim._engine()
    a = engine.call_args(call)
    outs = [a.node_force, a.elem_couple] + ([a.rb_force, a.rb_torque]
                                            if hasattr(a, "rb_force") else [])
    for out in outs:
        out[...] = 0.0          # the next force pass rewrites them
    kernel(a, 0, 1, sim.time)
    x, f = a.x[0], a.node_force[0]                           # (3, n_node_slots): W = 1
    Q = a.Q[0].reshape(3, 3, -1)                             # rows d1 d2 d3 per element slot
    couples = np.einsum("jie,je->ei", Q, a.elem_couple[0])   # Q^T C, lab frame
    terms = [np.cross(x.T, f.T).sum(axis=0), couples.sum(axis=0)]
    force = f.sum(axis=1)
    if hasattr(a, "rb_force"):
        Qb = a.rb_Q[0].reshape(3, 3, -1)
        terms += [np.cross(a.rb_x[0].T, a.rb_force[0].T).sum(axis=0),
                  np.einsum("jie,je->i", Qb, a.rb_torque[0])]
        force = force + a.rb_force[0].sum(axis=1)
    return force, sum(terms), max(np.linalg.norm(t) for t in terms)


def momenta(sim, names):
    """Total linear [kg m/s] and angular momentum about the origin [kg m^2/s] (3,) of the named
    rods and bodies of world 0 (orbital and spin, softmech.diagnostics)."""
    d = [sim.diagnostics(name) for name in names]
    return (sum(x["linear_momentum"][0] for x in d), sum(x["angular_momentum"][0] for x in d))


IMPACT_ROD = dict(radius=0.01, density=1000.0, youngs_modulus=1e7, shear_modulus=1e7 / 1.5)


def colliding_rods(friction, dt=1e-5):
    """Two free rods (0.2 m, 10 elements, r = 1 cm), no gravity: "hit" along x through the
    origin, "thrown" along y 2 mm above it and 2 cm aside, to be thrown at it obliquely
    (sm.RodContact k = 1e4 N/m, gamma = 0.5 kg/s, `friction`). Returns the compiled simulation
    with the thrown rod at v = (0.3, 0.2, -0.5) m/s."""
    scene = sm.Scene()
    scene.add_cosserat_rod(name="hit", start=(-0.1, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                           length=0.2, n_elems=10, **IMPACT_ROD)
    scene.add_cosserat_rod(name="thrown", start=(0.02, -0.1, 0.022), direction=(0, 1, 0),
                           normal=(0, 0, 1), length=0.2, n_elems=10, **IMPACT_ROD)
    scene.add(sm.RodContact(stiffness=1e4, damping=0.5, friction=friction))
    sim = scene.compile(dt=dt)
    sim.set_state("thrown", velocities=np.broadcast_to([0.3, 0.2, -0.5], (1, 11, 3)))
    return sim


def rod_hits_sphere(friction, dt=1e-5, mesh=False):
    """A free rod (0.2 m, 10 elements, r = 1 cm) along x, thrown at v = (0.3, 0.2, -0.5) m/s at
    a free sphere (R = 3 cm, 500 kg/m^3, spinning at 5 rad/s about z) below it and off its
    axis, no gravity (sm.RodBodyContact k = 1e4 N/m, gamma = 0.5 kg/s, `friction`). mesh=True:
    the sphere is a 320-triangle icosphere mesh body (softmech.kernels.rod_mesh_contact) with
    the sphere's mass and inertia."""
    scene = sm.Scene()
    scene.add_cosserat_rod(name="rod", start=(-0.08, 0.01, 0.042), direction=(1, 0, 0),
                           normal=(0, 0, 1), length=0.2, n_elems=10, **IMPACT_ROD)
    if mesh:
        ball = icosphere(0.03, 2)
        mass = 500.0 * 4 / 3 * np.pi * 0.03**3
        scene.add_rigid_body(name="ball", position=(0.0, 0.0, 0.0), mass=mass,
                             inertia=0.4 * mass * 0.03**2 * np.eye(3), vertices=ball.vertices,
                             faces=ball.triangles, angular_velocity=(0.0, 0.0, 5.0))
    else:
        scene.add_sphere(name="ball", position=(0.0, 0.0, 0.0), radius=0.03, density=500.0,
                         angular_velocity=(0.0, 0.0, 5.0))
    scene.add(sm.RodBodyContact(stiffness=1e4, damping=0.5, friction=friction))
    sim = scene.compile(dt=dt)
    sim.set_state("rod", velocities=np.broadcast_to([0.3, 0.2, -0.5], (1, 11, 3)))
    return sim


ROLL = dict(radius=0.02, length=0.1, n_elems=4, density=1000.0, youngs_modulus=1e7,
            shear_modulus=1e7 / 1.5)
"""The rolling rod: short and thick (a solid cylinder, I = m r^2 / 2 about its axis)."""


def rolling_rod(friction, alpha, duration, *, on="box", dt=None, stiffness=1e4, damping=1.0):
    """A rod (ROLL) lying across the slope on a fixed box (on="box", sm.RodBodyContact; the same
    box as a 12-triangle mesh body: on="mesh") or across two clamped, stiff rails (on="rails":
    rods of radius 1 cm along the slope, 6 cm apart, sm.RodContact), gravity tilted by alpha
    [rad] about y (an incline: the rod rolls along x). dt [s]: 1e-5 on the box, 5e-6 on the
    rails (their own explicit limit, 6.2e-6 s). Returns times [s] and the rod's centre-of-mass
    velocity along the slope [m/s], every 1 ms."""
    if dt is None:
        dt = 5e-6 if on == "rails" else 1e-5
    r = ROLL["radius"]
    scene = sm.Scene()
    length = ROLL["length"]
    rod = {k: v for k, v in ROLL.items() if k not in ("length",)}
    if on in ("box", "mesh"):
        scene.add_cosserat_rod(name="roller", start=(0, -0.5 * length, r), direction=(0, 1, 0),
                               normal=(0, 0, 1), length=length, **rod)
        if on == "box":
            scene.add_box(name="table", position=(0.2, 0, -0.05), lengths=(1.0, 0.4, 0.1),
                          density=1000.0, fixed=True)
        else:
            v, f = box_mesh((1.0, 0.4, 0.1))
            scene.add_rigid_body(name="table", position=(0.2, 0, -0.05), vertices=v, faces=f,
                                 fixed=True)
        scene.add(sm.RodBodyContact(["roller"], ["table"], stiffness=stiffness, damping=damping,
                                    friction=friction))
    else:
        rail_r = 0.01
        for k, y in enumerate((-0.03, 0.03)):
            scene.add_cosserat_rod(name=f"rail{k}", start=(-0.1, y, 0), direction=(1, 0, 0),
                                   normal=(0, 0, 1), length=0.6, n_elems=24, radius=rail_r,
                                   density=1000.0, youngs_modulus=1e9, shear_modulus=1e9 / 1.5)
            scene.add(sm.Clamp(f"rail{k}", "first", name=f"clamp{k}a"))
            scene.add(sm.Clamp(f"rail{k}", "last", name=f"clamp{k}b"))
        scene.add_cosserat_rod(name="roller", start=(0, -0.5 * length, r + rail_r),
                               direction=(0, 1, 0), normal=(0, 0, 1), length=length, **rod)
        scene.add(sm.RodContact(stiffness=stiffness, damping=damping, friction=friction))
    scene.add(sm.Gravity((G * np.sin(alpha), 0.0, -G * np.cos(alpha))))
    sim = scene.compile(dt=dt, strict=True)
    out = sim.run(duration, record=sm.Every(1e-3, ("roller.com_velocity",)))
    return out["time"], out["roller.com_velocity"][0, :, 0]


def rolling_acceleration(t, v, start):
    """Slope [m/s^2] of a least-squares line through v(t) for t >= start."""
    window = t >= start
    return float(np.polyfit(t[window], v[window], 1)[0])


def rolling_reference(alpha, stiffness=1e4):
    """Acceleration [m/s^2] of a solid cylinder (ROLL: I = m r^2 / 2 about its axis) rolling
    without slipping down an incline of angle alpha [rad], each element on its own penalty
    contact of `stiffness` k [N/m] (the box): a = g sin(alpha) / (1 + I / (m rho^2)), with rho
    the distance from the axis to the contact point, r - eps/2, eps = m_e g cos(alpha) / k the
    overlap under each element's weight (the contact point is midway between the surfaces)."""
    r = ROLL["radius"]
    m_e = ROLL["density"] * np.pi * r**2 * ROLL["length"] / ROLL["n_elems"]
    rho = r - 0.5 * m_e * G * np.cos(alpha) / stiffness
    return G * np.sin(alpha) / (1.0 + 0.5 * (r / rho) ** 2)


@validation_case("rolling acceleration [m/s²]", "rigid cylinder rolling without slipping down "
                 "an incline: a = g sin α / (1 + I/(m ρ²)), I = m r²/2, ρ = r − ε/2")
def rod_rolls_down_an_incline():
    """A short thick rod (r = 2 cm, L = 0.1 m, 4 elements) lying across the slope of a fixed box,
    gravity tilted by alpha = 20 deg, regularized Coulomb friction mu_s = mu_k = 0.5 at the
    contact point (sm.RodBodyContact, k = 1e4 N/m per element). Rolling without slipping needs
    the friction m g sin(alpha) I/(m r^2) / (1 + I/(m r^2)) = tan(alpha)/3 of the normal force
    (0.12 < 0.5), so the rod rolls as a solid cylinder (I = m r^2 / 2; e.g. Landau & Lifshitz,
    Mechanics, sec. 32; Goldstein, Classical Mechanics, ch. 1):

        a = g sin(alpha) / (1 + I / (m rho^2)) = 2.235731 m/s^2,

    rho = r - eps/2 the contact point's distance from the axis, eps = m_e g cos(alpha) / k =
    29 um the penalty's overlap (rolling_reference; the rigid cylinder's (2/3) g sin(alpha) =
    2.236812 m/s^2 is 4.8e-4 above it). Measured: the slope of a least-squares line through the
    centre-of-mass velocity along the slope from 0.05 s to 0.2 s. Error relative; tolerance
    1e-4: the regularized law (v_s = 1e-3 m/s: its viscous rate mu N / (m_eff v_s) on a surface
    point, m_eff ~ m_e / 3 for a roll, is then 0.14 / dt) slips at the constant
    w = v_s tan(alpha) / (3 mu_s), which leaves a unchanged once the contact has settled from its
    start (by 0.05 s); measured 2e-5. Before friction acted at the contact point (issue 30), the
    slip was the centreline's velocity: the rod was held like a sliding block (tan(alpha) <
    mu_s), a = -0.001 m/s^2."""
    alpha = np.radians(20.0)
    t, v = rolling_rod(sm.CoulombFriction(0.5, 0.5, slip_velocity=1e-3), alpha, 0.2)
    a = rolling_acceleration(t, v, 0.05)
    expected = rolling_reference(alpha)
    return result("rod_rolls_down_an_incline", a, expected, rel_error(a, expected), 1e-4,
                  f"a = {a:.6f} m/s^2 vs g sin(alpha) / (1 + I/(m rho^2)) = {expected:.6f} m/s^2 "
                  f"(alpha = 20 deg, mu = 0.5; rigid (2/3) g sin(alpha) = "
                  f"{2 / 3 * G * np.sin(alpha):.6f})")


@validation_case("|ΔL| / |L₀| [-]", "conservation of angular momentum: friction equal and "
                 "opposite at one point exerts no net torque", fast=True)
def rods_colliding_with_friction_conserve_angular_momentum():
    """Two free rods colliding obliquely (colliding_rods), regularized Coulomb friction
    mu_s = 0.5, mu_k = 0.4, v_s = 1e-4 m/s, 3,000 steps of 10 us, no gravity: the contact's
    forces and couples have no net torque about any point (friction at one contact point on
    both surfaces, softmech.kernels.contact_point), so the total angular momentum about the
    origin is conserved up to the position-Verlet rotation update's O(dt^2) under couples.
    Reference 0, error |L1 - L0| / |L0|; tolerance 1e-7 (measured 1.0e-9; 0.18 while friction
    acted at the centrelines, before issue 30). Also checked: linear momentum to 1e-12."""
    sim = colliding_rods(sm.CoulombFriction(0.5, 0.4, slip_velocity=1e-4))
    p0, l0 = momenta(sim, ("hit", "thrown"))
    sim.step(3000)
    p1, l1 = momenta(sim, ("hit", "thrown"))
    dl = float(np.linalg.norm(l1 - l0) / np.linalg.norm(l0))
    dp = float(np.linalg.norm(p1 - p0) / np.linalg.norm(p0))
    return result("rods_colliding_with_friction_conserve_angular_momentum", dl, 0.0, dl, 1e-7,
                  f"|dL|/|L0| = {dl:.2e}, |dP|/|P0| = {dp:.2e} over 3,000 steps",
                  passed=dl <= 1e-7 and dp <= 1e-12)


CASES = {f.__name__: f for f in (rod_rolls_down_an_incline,
                                 rods_colliding_with_friction_conserve_angular_momentum)}
"""Case name -> function returning its record."""
