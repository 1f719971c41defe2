"""Validation of friction that sticks (sm.StickingFriction, softmech.kernels.sticking): the
capstan (Euler-Eytelwein), a block, a rod on the ground and a rod across two rods on an incline
(Amontons-Coulomb); the scenes are shared with tests/validation/test_sticking_friction.py."""
import numpy as np

import softmech as sm
from softmech.validation.common import rel_error, result, validation_case
from softmech.validation.mesh_contact import box_mesh, prism_mesh, v_notch_mesh

G = 9.81
MU_CAPSTAN = 0.3
GROOVE = np.radians(30.0)
"""Inclination of the V-groove's faces (surface "groove" of rod_incline_simulation) [rad]."""
"""Friction coefficient of the capstan (static = kinetic): holding ratio exp(0.3 pi) = 2.566."""


def capstan(ratios, mu=0.3, T1=10.0, n_elems=50, duration=0.2, drum_facets=None):
    """A rope (E A = 2.5 kN, radius 1 mm) over the top of a fixed drum of radius R = 0.5 m
    (wrap theta = pi), legs of 0.2 m hanging down, end loads T1 (first end) and T2 = ratio T1
    (last end) ramped over 20 ms; one world per ratio. drum_facets: None for the analytic
    cylinder, or N for a prism mesh of N facets with its vertices on the circle (prism_mesh; the
    rope then touches its vertices). Returns the times and the tangential position of the
    rope's middle [m], (B, n_samples)."""
    R, r, leg = 0.5, 1e-3, 0.2
    ds = (np.pi * R + 2 * leg) / n_elems
    Rc = R + r + ds ** 2 / (8 * R)       # the chords' middles touch the drum
    s = np.linspace(0.0, np.pi * Rc + 2 * leg, n_elems + 1)
    a = np.clip((s - leg) / Rc, 0.0, np.pi)
    below = np.clip(leg - s, 0.0, None) + np.clip(s - leg - np.pi * Rc, 0.0, None)
    centreline = np.stack([Rc * np.cos(a), 0.0 * s, Rc * np.sin(a) - below], axis=1)
    scene = sm.Scene()
    scene.add_cosserat_rod(name="rope", centerline=centreline, normal=(0, 1, 0), radius=r,
                           density=1e4, youngs_modulus=8e8, shear_modulus=8e8 / 1.5)
    if drum_facets is None:
        scene.add_cylinder(name="drum", position=(0, 0, 0), direction=(0, 1, 0),
                           normal=(1, 0, 0), radius=R, length=0.05, density=1000.0, fixed=True)
    else:           # body (x, y, z) -> lab (x, z, -y): the prism's axis along the cylinder's
        v, f = prism_mesh(R, 0.05, drum_facets)
        scene.add_rigid_body(name="drum", position=(0, 0, 0), vertices=v, faces=f,
                             directors=[[1, 0, 0], [0, 0, 1], [0, -1, 0]], fixed=True)
    scene.add(sm.EndLoad("rope", force=(0, 0, -T1), end="first", ramp_time=0.02, name="t1"))
    scene.add(sm.EndLoad("rope", force=(0, 0, -T1), end="last", ramp_time=0.02, name="t2"))
    scene.add(sm.LinearDamping("rope", 0.05))
    # stick spring as stiff as the normal penalty; its damping about critical on a node
    scene.add(sm.RodBodyContact(stiffness=1e5, damping=1.0, friction=sm.StickingFriction(
        mu, mu, tangential_stiffness=1e5, tangential_damping=17.0)))
    sim = scene.compile(dt=2e-6, worlds=len(ratios), strict=True)
    sim.params["t2.force"] = np.array([[0.0, 0.0, -T1 * q] for q in ratios])
    out = sim.run(duration, record=sm.Every(0.01, ("rope.positions",)))
    return out["time"], -out["rope.positions"][:, :, n_elems // 2, 0]


def block(tan_alpha, mu_s, mu_k, duration, lengths=(0.1, 0.1, 0.01), worlds=1):
    """A box resting on the ground z = 0 (penalty k = 1e5 N/m per corner, started at its
    equilibrium depth), gravity tilted by alpha about y (an incline of angle alpha); returns
    times and the centre's position and velocity down the slope, (n_samples,)."""
    alpha = np.arctan(tan_alpha)
    rho, k = 1000.0, 1e5
    m = rho * np.prod(lengths)
    depth = m * G * np.cos(alpha) / (4 * k)
    scene = sm.Scene()
    scene.add_box(name="block", position=(0, 0, 0.5 * lengths[2] - depth), lengths=lengths,
                  density=rho)
    scene.add(sm.Gravity((G * np.sin(alpha), 0.0, -G * np.cos(alpha))))
    c = 2.0 * np.sqrt(k * m / 4)          # critical on a corner's share of the mass
    scene.add(sm.GroundContact("block", stiffness=k, damping=c, friction=sm.StickingFriction(
        mu_s, mu_k, tangential_stiffness=k, tangential_damping=c)))
    sim = scene.compile(dt=1e-5, strict=True)
    out = sim.run(duration, record=sm.Every(1e-3, ("block.com", "block.com_velocity")))
    return out["time"], out["block.com"][0, :, 0], out["block.com_velocity"][0, :, 0]


def rod_on_incline(tan_alpha, mu_s, mu_k, duration, n_elems=10, surface="ground"):
    """rod_incline_simulation run for `duration` [s]: times and the centre of mass's position
    and velocity down the slope, (n_samples,)."""
    sim = rod_incline_simulation(tan_alpha, mu_s, mu_k, n_elems, surface)
    out = sim.run(duration, record=sm.Every(1e-3, ("rod.com", "rod.com_velocity")))
    return out["time"], out["rod.com"][0, :, 0], out["rod.com_velocity"][0, :, 0]


def rod_incline_simulation(tan_alpha, mu_s, mu_k, n_elems=10, surface="ground"):
    """A straight rod (0.2 m, radius 1 cm, 1000 kg/m^3, E = 1 MPa) lying along x on the plane
    z = 0 with sticking friction, gravity tilted by alpha about y (an incline of angle alpha,
    the rod pointing down the slope): the compiled simulation (dt = 1e-5 s). surface: "ground"
    (a Cosserat rod's GroundContact on its element centres), "surface" (GroundContact(...,
    surface=True): on its surface, the end spheres of its elements), "mesh" (the top face of a fixed 1 m x 1 m x 0.1 m box
    given as a 12-triangle mesh, sm.RodBodyContact), "box" (the same box, analytic) or
    "groove" (a V-groove along x with faces inclined by GROOVE, cut in one mesh block:
    v_notch_mesh, two contacts per element); the same penalty and friction law on each."""
    L, r, rho = 0.2, 0.01, 1000.0
    alpha = np.arctan(tan_alpha)
    m_e = rho * np.pi * r ** 2 * L / n_elems
    # stick spring: its stretch mu_s m_e g / k_t = 31 um is < 0.02 % of L, and its period
    # 2 pi sqrt(m_e / k_t) = 16 ms is resolved by dt = 1e-5 s; damping critical on an element
    k_t = 1e3
    # the penalty surfaces ("surface", "mesh", "box": k = 1e3 N/m per element) start the rod at
    # its equilibrium depth m_e g cos(alpha) / k: started touching with no load, the normal
    # force would build over the penalty's period while the slope's pull, already there,
    # exceeds mu_s N, and the contacts would start sliding (and, for mu_k < tan(alpha), never
    # stop); the element-centre model's normal force is the load's at once
    depth = 0.0 if surface == "ground" else m_e * G * np.cos(alpha) / 1e3
    height = r - depth
    if surface == "groove":     # each face carries m_e g cos(alpha) / (2 cos(GROOVE))
        height = (r - depth / (2 * np.cos(GROOVE))) / np.cos(GROOVE)
    scene = sm.Scene()
    scene.add_cosserat_rod(name="rod", start=(0, 0, height), direction=(1, 0, 0),
                           normal=(0, 0, 1), length=L, n_elems=n_elems, radius=r, density=rho,
                           youngs_modulus=1e6, shear_modulus=1e6 / 1.5)
    scene.add(sm.Gravity((G * np.sin(alpha), 0.0, -G * np.cos(alpha))))
    friction = sm.StickingFriction(mu_s, mu_k, tangential_stiffness=k_t,
                                   tangential_damping=2 * np.sqrt(k_t * m_e))
    if surface in ("ground", "surface"):
        scene.add(sm.GroundContact("rod", stiffness=1e3, damping=1.0, friction=friction,
                                   **({"surface": True} if surface == "surface" else {})))
    else:
        if surface == "mesh":
            v, f = box_mesh((1.0, 1.0, 0.1))
            scene.add_rigid_body(name="table", position=(0, 0, -0.05), vertices=v, faces=f,
                                 fixed=True)
        elif surface == "groove":
            v, f = v_notch_mesh(GROOVE, 0.5, 0.1, 1.0)
            scene.add_rigid_body(name="notch", position=(0, 0, 0), vertices=v, faces=f,
                                 fixed=True)
        else:
            scene.add_box(name="table", position=(0, 0, -0.05), lengths=(1, 1, 0.1), fixed=True)
        scene.add(sm.RodBodyContact(stiffness=1e3, damping=1.0, friction=friction))
    return scene.compile(dt=1e-5, strict=True)


@validation_case("holding ratio T2/T1 [-]", "Euler–Eytelwein capstan: T₂/T₁ = e^{μθ} "
                 "(Johnson, Contact Mechanics, 1985, sec. 8.3)")
def capstan_holds_at_the_euler_eytelwein_ratio():
    """A rope over a fixed drum (capstan: theta = pi, mu = 0.3) loaded with T2 / T1 = 0.98 and
    1.02 exp(mu theta): held in the first world (moved < 0.01 mm in the last 50 ms), slipping
    in the second (> 30 mm): the holding ratio lies in [0.98, 1.02] exp(mu theta). Reported:
    the bracket's middle; error 0 if both hold, else 1; tolerance 2 % (the bracket's half
    width)."""
    return capstan_record("capstan_holds_at_the_euler_eytelwein_ratio")


def capstan_record(case, drum_facets=None):
    """The record of a capstan case (capstan, mu = MU_CAPSTAN, theta = pi): T2 / T1 = 0.98 and
    1.02 exp(mu theta) in two worlds; held if the first moved < 0.01 mm in the last 50 ms,
    slipped if the second moved > 30 mm; the bracket's middle reported, error 0 if both, else
    1; tolerance 2 % (the bracket's half width)."""
    ratio = np.exp(MU_CAPSTAN * np.pi)
    t, x = capstan([0.98 * ratio, 1.02 * ratio], drum_facets=drum_facets)
    held = abs(x[0, -1] - x[0, -6]) < 1e-5
    slipped = x[1, -1] - x[1, -6] > 3e-2
    return result(case, ratio, ratio, 0.0 if held and slipped else 1.0, 0.02,
                  f"last 50 ms: {1e3 * abs(x[0, -1] - x[0, -6]):.3g} mm at 0.98 e^(mu theta), "
                  f"{1e3 * (x[1, -1] - x[1, -6]):.3g} mm at 1.02 e^(mu theta)")


@validation_case("sliding acceleration [m/s²]", "Amontons–Coulomb on an incline: holds for "
                 "tan α < μₛ, else a = g (sin α − μₖ cos α)", fast=True)
def block_sticks_then_slides_on_an_incline():
    """A plate (10 x 10 x 1 cm, mu_s = 0.5, mu_k = 0.3, sticking friction) on the ground with
    gravity tilted by alpha: at tan(alpha) = 0.45 it must stay (moved < 0.1 mm), at 0.6 slide
    with a = g (sin(alpha) - mu_k cos(alpha)) (least-squares slope of v from 0.1 s to 0.3 s).
    Error relative on a (1 when it did not hold); tolerance 1 %."""
    _, x, _ = block(0.45, 0.5, 0.3, 0.3)
    held = float(np.max(np.abs(x - x[0])))
    t, _, v = block(0.6, 0.5, 0.3, 0.3)
    alpha = np.arctan(0.6)
    window = t >= 0.1
    slope = float(np.polyfit(t[window], v[window], 1)[0])
    expected = G * (np.sin(alpha) - 0.3 * np.cos(alpha))
    error = rel_error(slope, expected) if held < 1e-4 else 1.0
    return result("block_sticks_then_slides_on_an_incline", slope, expected, error, 0.01,
                  f"held at tan 0.45: moved {held:.3g} m; a = {slope:.4f} vs {expected:.4f} m/s^2")


def rails_simulation(tan_alphas, frictions, n_elems=8, worlds=1):
    """Short rods lying across pairs of parallel rods (rod-rod contact, sm.RodContact): per
    friction law of `frictions` a slider (0.2 m along x, radius R = 1 cm, n_elems elements)
    resting across two rails (0.18 m along y, radius R, clamped at both ends, crossing the
    slider's elements at their middles, x = +-0.0625 m), in its own RodContact term
    (`contact<k>`: k = 1e4 N/m, gamma = 20 N s/m, about 0.6 of critical on half the slider, so
    that the normal force settles within ~30 ms), 0.5 m apart in y; all rods stiff (E = 100 MPa:
    the slider's bending modes above 1 kHz). The slider's weight rho A g is tilted by alpha
    about y (an incline of angle alpha, the slider pointing down the slope; a UniformLoad
    `weight<k>` on the slider only, so that the rails do not sag under their own weight), one
    tan(alpha) per slider; it starts at its equilibrium depth, each crossing carrying half its
    normal load. The compiled simulation (dt = 1e-5 s; `worlds` worlds)."""
    R, rho, k = 0.01, 1000.0, 1e4
    rod = dict(radius=R, density=rho, normal=(0, 0, 1), youngs_modulus=1e8,
               shear_modulus=1e8 / 1.5)
    scene = sm.Scene()
    for i, (tan_alpha, friction) in enumerate(zip(tan_alphas, frictions)):
        y0, alpha = 0.5 * i, np.arctan(tan_alpha)
        weight = rho * np.pi * R ** 2 * G                    # per length [N/m]
        depth = weight * 0.2 * np.cos(alpha) / (2 * k)
        scene.add_cosserat_rod(name=f"slider{i}", start=(-0.1, y0, 2 * R - depth),
                               direction=(1, 0, 0), length=0.2, n_elems=n_elems, **rod)
        scene.add(sm.UniformLoad(f"slider{i}", force_per_length=(
            weight * np.sin(alpha), 0.0, -weight * np.cos(alpha)), name=f"weight{i}"))
        for side, x in (("a", -0.0625), ("b", 0.0625)):
            name = f"rail{i}{side}"
            scene.add_cosserat_rod(name=name, start=(x, y0 - 0.09, 0.0), direction=(0, 1, 0),
                                   length=0.18, n_elems=9, **rod)
            scene.add(sm.Clamp(name, "first", name=f"clamp_{name}_first"))
            scene.add(sm.Clamp(name, "last", name=f"clamp_{name}_last"))
        scene.add(sm.RodContact([f"slider{i}", f"rail{i}a", f"rail{i}b"], stiffness=k,
                                damping=20.0, friction=friction, name=f"contact{i}"))
    return scene.compile(dt=1e-5, worlds=worlds, strict=True)


def rail_friction(mu_s, mu_k):
    """StickingFriction of the rails scenes: k_t = 1e4 N/m (as stiff as the normal penalty:
    stretch mu_s F_n / k_t = 15 um at F_n = 0.3 N per crossing; its period on a node of the
    slider, 2 pi sqrt(m / k_t) = 5.6 ms, resolved by dt = 1e-5 s), c_t = 2 sqrt(k_t m) on a
    node (7.85 g): about critical."""
    m_node = 1000.0 * np.pi * 0.01 ** 2 * 0.2 / 8
    return sm.StickingFriction(mu_s, mu_k, tangential_stiffness=1e4,
                               tangential_damping=2.0 * np.sqrt(1e4 * m_node))


def rod_across_rails(tan_alpha, mu_s, mu_k, duration):
    """rails_simulation with one slider run for `duration` [s]: times and its centre of mass's
    position and velocity down the slope, (n_samples,)."""
    sim = rails_simulation([tan_alpha], [rail_friction(mu_s, mu_k)])
    out = sim.run(duration, record=sm.Every(1e-3, ("slider0.com", "slider0.com_velocity")))
    return out["time"], out["slider0.com"][0, :, 0], out["slider0.com_velocity"][0, :, 0]


def holds_then_slides(case, run, mu, tolerance):
    """The record of an incline case with mu_s = mu_k = mu: run(tan_alpha) -> (times, position,
    velocity down the slope) of 0.3 s. At tan(alpha) = 0.98 mu it must come to rest (moved
    < 1 um in the last 0.1 s), at 1.02 mu slide with a = g (sin(alpha) - mu cos(alpha))
    (least-squares slope of v from 0.1 s to the end). Error relative on a (1 when it did not
    hold)."""
    t, x, _ = run(0.98 * mu)
    late = t >= t[-1] - 0.1
    still = float(np.ptp(x[late]))
    t, _, v = run(1.02 * mu)
    alpha = np.arctan(1.02 * mu)
    window = t >= 0.1
    slope = float(np.polyfit(t[window], v[window], 1)[0])
    expected = G * (np.sin(alpha) - mu * np.cos(alpha))
    error = rel_error(slope, expected) if still < 1e-6 else 1.0
    return result(case, slope, expected, error, tolerance,
                  f"held at 0.98 mu_s: moved {still:.3g} m in the last 0.1 s; a = {slope:.5f} "
                  f"vs {expected:.5f} m/s^2 at 1.02 mu_s")


def rod_incline_record(case, surface):
    """holds_then_slides for the incline's rod (rod_on_incline, mu_s = mu_k = 0.5, 0.3 s) on
    `surface` (rod_incline_simulation), tolerance 0.1 %."""
    return holds_then_slides(case, lambda tan_alpha: rod_on_incline(tan_alpha, 0.5, 0.5, 0.3,
                                                                    surface=surface), 0.5, 1e-3)


@validation_case("sliding acceleration [m/s²]", "Amontons–Coulomb on an incline, a Cosserat "
                 "rod on the ground: holds for tan α < μₛ, else a = g (sin α − μₖ cos α)",
                 fast=True)
def rod_sticks_then_slides_on_an_incline():
    """A straight rod lying down the slope (GroundContact on a Cosserat rod, sticking friction,
    mu_s = mu_k = 0.5), holds_then_slides. Tolerance 0.1 %: every element slides at mu_k N with
    the same N, so the model's a is the formula's up to round-off (measured 6e-13)."""
    return rod_incline_record("rod_sticks_then_slides_on_an_incline", "ground")


@validation_case("sliding acceleration [m/s²]", "Amontons–Coulomb on an incline, a Cosserat "
                 "rod on the ground by its surface: holds for tan α < μₛ, else a = g (sin α − "
                 "μₖ cos α)", fast=True)
def rod_surface_sticks_then_slides_on_an_incline():
    """rod_sticks_then_slides_on_an_incline with the rod's surface on the ground
    (GroundContact(surface=True): each element's end spheres, an anchor on each; softmech.
    kernels.surface_sticking), started at its equilibrium depth. Tolerance 0.1 %: the friction
    acts at the nodes and every end sphere slides at mu_k times its normal force (measured
    5.6e-13)."""
    return rod_incline_record("rod_surface_sticks_then_slides_on_an_incline", "surface")


@validation_case("sliding acceleration [m/s²]", "Amontons–Coulomb on an incline, a rod on a "
                 "triangle-mesh face: holds for tan α < μₛ, else a = g (sin α − μₖ cos α)")
def rod_sticks_then_slides_on_a_mesh():
    """The rod of rod_sticks_then_slides_on_an_incline on the top face of a fixed box given as
    a 12-triangle mesh (RodBodyContact with sticking friction, mu_s = mu_k = 0.5: softmech.
    kernels.rod_mesh_sticking), holds_then_slides. Tolerance 0.1 %: on a body friction acts at
    the contact point, r below the axis, and its couples bend this soft rod (E = 1 MPa), tilting
    the elements against the face (measured -2.30e-4, the analytic box's to 3e-10; ~1e-5 with
    E = 100 MPa)."""
    return rod_incline_record("rod_sticks_then_slides_on_a_mesh", "mesh")


@validation_case("sliding acceleration [m/s²]", "Amontons–Coulomb along a V-groove of one "
                 "mesh: holds for tan α < μₛ / cos β, else a = g (sin α − μₖ cos α / cos β)")
def rod_sticks_then_slides_in_a_mesh_groove():
    """The rod of rod_sticks_then_slides_on_an_incline lying along a V-groove cut in one mesh
    block (faces inclined by beta = GROOVE = 30 deg; two contacts per element, each with its
    own anchors: softmech.kernels.rod_mesh_sticking), mu_s = mu_k = 0.5, gravity tilted by
    alpha along the groove. Each face pushes with N = m g cos(alpha) / (2 cos(beta)) (the
    wedge), so friction holds up to 2 mu N = mu m g cos(alpha) / cos(beta): holds_then_slides
    with mu / cos(beta) (held at tan(alpha) = 0.98 mu / cos(beta), sliding at 1.02 with a = g
    (sin(alpha) - mu cos(alpha) / cos(beta))). Tolerance 0.1 %, as on the mesh face."""
    mu = 0.5
    return holds_then_slides("rod_sticks_then_slides_in_a_mesh_groove",
                             lambda tan_alpha: rod_on_incline(tan_alpha, mu, mu, 0.3,
                                                              surface="groove"),
                             mu / np.cos(GROOVE), 1e-3)


@validation_case("holding ratio T2/T1 [-]", "Euler–Eytelwein capstan on a 64-facet mesh drum: "
                 "T₂/T₁ = e^{μθ} (the polygon's ratio 0.09 % above)")
def capstan_holds_on_a_faceted_drum():
    """capstan_holds_at_the_euler_eytelwein_ratio with the drum given as a 64-facet prism mesh
    (vertices on the circle): the rope turns at 32 vertices by delta = 2 pi / 64 each, where it
    holds up to (1 + mu tan(delta/2)) / (1 - mu tan(delta/2)): the polygon's ratio, that to the
    32nd power, is 2.5685, 0.09 % above exp(mu pi). Held at 0.98, slipping at 1.02 exp(mu pi);
    error 0 if both, else 1; tolerance 2 % (the bracket's half width)."""
    return capstan_record("capstan_holds_on_a_faceted_drum", drum_facets=64)


@validation_case("sliding acceleration [m/s²]", "Amontons–Coulomb on an incline, a rod across "
                 "two rods (rod–rod contact): holds for tan α < μₛ, else a = g (sin α − μₖ cos α)",
                 fast=True)
def rod_sticks_then_slides_across_rods():
    """A short rod lying across two clamped rods (RodContact with sticking friction, mu_s =
    mu_k = 0.5, rails_simulation), its weight tilted along it, holds_then_slides. The slider
    moves ~4 mm in 0.3 s, so each crossing stays on one pair of elements and slides at mu_k F_n,
    and the two F_n carry m g cos(alpha) on average (measured 1 - 1.5e-5). Tolerance 2 %: a is
    the small difference g (sin - mu cos), 50 times smaller than either term, so a tilt delta
    of the contact normals along the slope moves a by ~ g cos(alpha) (1 + mu^2) delta, 1.25 %
    of a per 1e-4 rad, and the normals tilt: (i) the slider's elastic sag (while friction
    acted at the centrelines: a 0.43 % above the formula, 1.46 % with a slider 4 times softer,
    ~1 / E); (ii) since friction acts at the contact point, r below the slider's axis (issue
    30), its moment mu_k N r about the slider's centre transfers ~0.04 N of normal load from
    the upper crossing to the lower one (a braking car's dive) and bends the slider by the
    couples at the crossings; the penalty (k), the rails and the slider give way, tilting the
    slider at the crossings by ~1e-4 rad (measured: the two crossing elements' pitch sums to
    -2.55e-4 rad, -0.82e-4 before). Measured a 1.40 % above the formula (1.21 % with rails 4
    times stiffer, 1.07 % with a slider 4 times stiffer: compliance, not the time step: the
    same at dt = 5e-6 and 2.5e-6 s); the slider's contact force along the slope is 0.49986 of
    the one across it (0.49996 before). The rigid-slider formula does not model (ii)."""
    return holds_then_slides("rod_sticks_then_slides_across_rods",
                             lambda tan_alpha: rod_across_rails(tan_alpha, 0.5, 0.5, 0.3), 0.5,
                             2e-2)


CASES = {f.__name__: f for f in (capstan_holds_at_the_euler_eytelwein_ratio,
                                 block_sticks_then_slides_on_an_incline,
                                 rod_sticks_then_slides_on_an_incline,
                                 rod_surface_sticks_then_slides_on_an_incline,
                                 rod_sticks_then_slides_on_a_mesh,
                                 rod_sticks_then_slides_in_a_mesh_groove,
                                 capstan_holds_on_a_faceted_drum,
                                 rod_sticks_then_slides_across_rods)}
