"""Rod-rod and self contact, softmech.terms.rod_contact.RodContact (Zhang, Chan, Parthasarathy,
Gazzola, Nat. Commun. 10:4825, 2019, "Rod collision", eq. 7: penalty k eps + damping along the
normal between the closest points of two element centrelines; regularized Coulomb friction as
in softmech.kernels.rod_contact).

* closest points of two segments against brute-force sampling (random, parallel, degenerate);
* a rod dropped across a clamped rod never sinks into it by more than 2 % of its radius, and
  comes to rest carried by a contact force equal to its weight;
* a rod thrown at a free rod without gravity or friction: total linear momentum conserved;
* a rod on a clamped rod with gravity tilted by theta sticks for tan(theta) < mu_s and slides
  with a = g (sin(theta) - mu_k cos(theta)) otherwise (Amontons-Coulomb: a block on an incline);
* self contact: a rod curling onto itself (rest curvature of 1.4 turns) never passes through
  itself, and rods at rest (straight, curved, a ring) feel no self-contact force.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import softmech as sm
from softmech.kernels.rod_contact import PARALLEL, segment_parameters
from softmech.terms.rod_contact import contact_stats, node_forces
from softmech.validation import body_contact as BC

COMMON = dict(density=1000.0, youngs_modulus=1e6, shear_modulus=1e6 / 1.5)
STIFF = dict(density=1000.0, youngs_modulus=1e8, shear_modulus=1e8 / 1.5)
"""Stiff rods (sag of the clamped 0.6 m rod under its weight ~1 mm) for the crossing tests."""


# ------------------------------------------------------------------ segment-segment distance
def point_segment_distance(p, c, e):
    """Exact distance of points p (m, 3) to the segment [c, e]."""
    d = e - c
    dd = d @ d
    u = np.zeros(len(p)) if dd == 0 else np.clip((p - c) @ d / dd, 0.0, 1.0)
    return np.linalg.norm(c + u[:, None] * d - p, axis=1)


def closest_distance(a, b, c, e):
    s, u = segment_parameters(*a, *b, *c, *e)
    assert 0.0 <= s <= 1.0 and 0.0 <= u <= 1.0
    return np.linalg.norm(c + u * (e - c) - a - s * (b - a))


coord = st.floats(-1.0, 1.0, allow_nan=False)
vec = st.tuples(coord, coord, coord).map(np.array)


@settings(max_examples=300, deadline=None)
@given(a=vec, b=vec, c=vec, e=vec, kind=st.sampled_from(["random", "parallel", "point", "both"]),
       shift=st.floats(-2.0, 2.0), scale=st.floats(-1.5, 1.5))
def test_segment_closest_points_match_brute_force_sampling(a, b, c, e, kind, shift, scale):
    """d(exact) <= min over 4001 samples s of |x(s) - segment 2| (exact point-segment distance),
    which exceeds the true minimum by at most |b - a| / 8000 (the distance is 1-Lipschitz in
    the sample point); tolerance 1e-12 for round-off. Segments closer to parallel than
    sin^2 = PARALLEL take, by design, the middle of their overlap (segment_parameters), whose
    distance exceeds the minimum by at most |b - a| sin(angle) <= 1e-5 |b - a|: allowed for
    them (hypothesis found a = c, b and e 1.2e-7 apart: the middle is 6e-8 from the shared
    end's distance 0)."""
    if kind == "parallel":        # c, e on a line parallel to a-b (or on it: offset 0 allowed)
        e = c + scale * (b - a)
        c = c + shift * (b - a)
        e = e + shift * (b - a)
    elif kind == "point":
        e = c.copy()
    elif kind == "both":
        b, e = a.copy(), c.copy()
    exact = closest_distance(a, b, c, e)
    s = np.linspace(0.0, 1.0, 4001)
    sampled = point_segment_distance(a + s[:, None] * (b - a), c, e).min()
    d1, d2 = b - a, e - c
    cross2 = np.dot(np.cross(d1, d2), np.cross(d1, d2))
    norms2 = np.dot(d1, d1) * np.dot(d2, d2)
    parallel_rule = norms2 > 0 and cross2 <= PARALLEL * norms2
    slack = np.linalg.norm(d1) * np.sqrt(cross2 / norms2) if parallel_rule else 0.0
    assert exact <= sampled + slack + 1e-12
    assert sampled - exact <= np.linalg.norm(b - a) / 8000 + 1e-12


def test_parallel_overlapping_segments_meet_in_the_middle_of_their_overlap():
    """Two parallel segments at distance 0.1 overlapping on x in [0.5, 1]: the distance is 0.1
    and the contact point is the middle of the overlap (x = 0.75), not an end."""
    a, b = np.array([0.0, 0, 0]), np.array([1.0, 0, 0])
    c, e = np.array([1.5, 0.1, 0]), np.array([0.5, 0.1, 0])
    s, u = segment_parameters(*a, *b, *c, *e)
    assert s == pytest.approx(0.75, abs=1e-14) and u == pytest.approx(0.75, abs=1e-14)
    assert closest_distance(a, b, c, e) == pytest.approx(0.1, abs=1e-15)


# ----------------------------------------------------------------------------- drop and throw
def crossing_rods(height, gravity, friction=None, damping=5.0):
    """A rod (radius R, 0.4 m, 20 elements) across a rod clamped at both ends, `height` [m]
    between their centrelines."""
    scene = sm.Scene()
    scene.add_cosserat_rod(name="base", start=(-0.3, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                           length=0.6, n_elems=30, radius=R, **STIFF)
    scene.add_cosserat_rod(name="drop", start=(0, -0.2, height), direction=(0, 1, 0),
                           normal=(0, 0, 1), length=0.4, n_elems=20, radius=R, **STIFF)
    if gravity:
        scene.add(sm.Gravity((0, 0, -G)))
        scene.add(sm.Clamp("base", "first"))
        scene.add(sm.Clamp("base", "last", name="clamp_last"))
    scene.add(sm.RodContact(stiffness=K, damping=damping, friction=friction))
    return scene


R, G, K = 0.01, 9.81, 2e5


def test_rod_dropped_across_a_clamped_rod_does_not_sink_into_it():
    """Dropped from 5 mm above contact (impact at sqrt(2 g 5 mm) = 0.31 m/s): the overlap eps
    stays below 2 % of R at every step (the kernel's largest eps / (2R) of each force
    evaluation, <= 0.01; k = 2e5 N/m keeps it near 0.06 %). With contact damping and linear
    damping on both rods the pair comes to rest; at 0.6 s the total rod-contact force on the
    dropped rod equals its weight m g within 0.2 % (the residual oscillation, decaying ~e-fold
    per 0.05 s, is ~0.03 % then)."""
    scene = crossing_rods(2 * R + 0.005, gravity=True, damping=100.0)
    scene.add(sm.LinearDamping("drop", 10.0, name="air"))
    scene.add(sm.LinearDamping("base", 10.0, name="air_base"))
    sim = scene.compile(dt=1e-5)
    worst = 0.0
    for _ in range(6000):
        sim.step(10)
        worst = max(worst, contact_stats(sim)[0, 0])
    assert 0.0 < worst <= 0.01, worst            # eps / (2R) <= 1 %  <=>  eps <= 2 % of R
    weight = STIFF["density"] * np.pi * R**2 * 0.4 * G
    lift = node_forces(sim, "drop")[0, :, 2].sum()
    assert lift == pytest.approx(weight, rel=2e-3)


def momentum(sim):
    total = 0.0
    for r in sim.rods:
        total = total + np.einsum("bn,bnk->bk", sim._node_mass(r.name), sim.get_state(r.name)["velocities"])
    return total[0]


@pytest.mark.parametrize("friction", [None, sm.StickingFriction(
    0.5, 0.3, tangential_stiffness=K, tangential_damping=1.0)], ids=["frictionless", "sticking"])
def test_thrown_rod_conserves_total_linear_momentum(friction):
    """No gravity, no other external force: the contact forces, normal and (sticking) friction,
    are equal and opposite, so sum m v is conserved; with sticking friction the hit rod also
    takes over a good part of the thrown rod's tangential momentum. Tolerance 1e-12 |P0| per component:
    round-off of the force sums (~1e-16 |F| per step over 2e4 steps) is ~1e-13 |P0|; the
    collision moves ~40 % of the momentum to the hit rod (asserted, so the test sees a real
    impact)."""
    scene = crossing_rods(2 * R + 0.002, gravity=False, damping=1.0, friction=friction)
    sim = scene.compile(dt=1e-5)
    v0 = np.array([0.05, 0.1, -0.4])
    sim.set_state("drop", velocities=np.broadcast_to(v0, (1, 21, 3)))
    p0 = momentum(sim)
    sim.step(20000)
    p1 = momentum(sim)
    hit = np.einsum("bn,bnk->bk", sim._node_mass("base"), sim.get_state("base")["velocities"])[0]
    assert abs(hit[2]) > 0.3 * abs(p0[2])
    if friction is not None:   # the anchors' friction carried tangential momentum (measured
        assert np.all(np.abs(hit[:2]) > 0.25 * np.abs(p0[:2]))   # 51 %, 40 %; ~0 without)
    np.testing.assert_allclose(p1, p0, rtol=0, atol=1e-12 * np.linalg.norm(p0))


# --------------------------------------------------------------------------- stick and slide
def test_rod_on_an_incline_below_the_friction_angle_sticks():
    """softmech.validation.body_contact.rod_on_rod_sticks_below_the_friction_angle: held by
    static friction, creeping less than v_s t (its docstring)."""
    record = BC.rod_on_rod_sticks_below_the_friction_angle()
    assert record["passed"], record["detail"]


def test_rod_on_an_incline_above_the_friction_angle_slides_with_kinetic_friction():
    """softmech.validation.body_contact.rod_on_rod_slides_with_kinetic_friction: a = g (sin -
    mu_k cos) within 2 % (its docstring)."""
    record = BC.rod_on_rod_slides_with_kinetic_friction()
    assert record["passed"], record["detail"]


# ----------------------------------------------------------------------------- self contact
@pytest.mark.parametrize("self_contact", [True, False])
def test_rod_curling_onto_itself_does_not_pass_through_itself(self_contact):
    """A straight 0.5 m rod whose rest curvature is 1.4 turns, released, curls up in its plane
    within 0.1 s, and its ends strike its own middle at ~m/s speeds. With self contact the
    overlap of non-excluded element pairs (the kernel's eps / (2r) at every 10th step) stays
    below 10 % of 2r, i.e. the centrelines stay more than 0.9 (2r) apart (measured: ~2 %);
    without it (stiffness 1e-12 N/m: the same pairs examined, no force), the rod passes through
    itself, the overlap reaching 2r (control: the test can fail)."""
    L, n, r = 0.5, 50, 0.01
    rest = np.zeros((n - 1, 3))
    rest[:, 0] = 2 * np.pi * 1.4 / L       # bending about d1 = z: curling in the x-y plane
    scene = sm.Scene()
    scene.add_cosserat_rod(name="coil", start=(0, 0, 0), direction=(1, 0, 0), normal=(0, 0, 1),
                           length=L, n_elems=n, radius=r, rest_curvature=rest, **COMMON)
    scene.add(sm.LinearDamping("coil", 0.1))
    scene.add(sm.RodContact(["coil"], stiffness=1e5, damping=0.5, self_contact=True))
    sim = scene.compile(dt=1e-5)
    if not self_contact:
        sim.params["rod_contact.stiffness"] = np.array([1e-12])
    worst = 0.0
    for _ in range(2000):
        sim.step(10)
        worst = max(worst, contact_stats(sim)[0, 0])
    if self_contact:
        assert 0.0 < worst < 0.1, worst
    else:
        assert worst > 0.5, worst


def test_rods_at_rest_feel_no_self_contact_force():
    """Straight, gently curved (rest shape = initial, a quarter circle) and a ring, all with
    elements of half their radius and self contact on: every self-contact force is exactly 0
    and no pair is in contact. (Excluding adjacent elements only would not do: elements two
    apart on the straight rod are 0.01 m apart, less than 2r = 0.04 m.)"""
    scene = sm.Scene()
    r = 0.02
    scene.add_cosserat_rod(name="straight", start=(0, 0, 0), direction=(1, 0, 0),
                           normal=(0, 0, 1), length=0.3, n_elems=30, radius=r, **COMMON)
    phi = np.linspace(0, np.pi / 2, 31)
    arc = np.stack([0.2 * np.cos(phi), 1 + 0.2 * np.sin(phi), 0 * phi], 1)
    scene.add_cosserat_rod(name="arc", centerline=arc, normal=(0, 0, 1), radius=r,
                           rest_curvature="initial", **COMMON)
    scene.add_cosserat_ring(name="ring", center=(0, -1, 0), ring_radius=0.1, n_elems=60,
                            radius=r, density=1000.0, youngs_modulus=1e6)
    scene.add(sm.RodContact(stiffness=1e4, self_contact=True))
    sim = scene.compile(dt=1e-5)
    for name in ("straight", "arc", "ring"):
        np.testing.assert_array_equal(node_forces(sim, name), 0.0)
    assert contact_stats(sim)[0, 2] == 0


# ----------------------------------------------------------------------------- bad input
def two_rods():
    scene = sm.Scene()
    for k, name in enumerate(("a", "b")):
        scene.add_cosserat_rod(name=name, start=(0, 0.1 * k, 0), direction=(1, 0, 0),
                               normal=(0, 0, 1), length=0.5, n_elems=10, radius=0.01, **COMMON)
    return scene


@pytest.mark.parametrize("kwargs, match", [
    (dict(rods=("a", "a"), stiffness=1.0), "listed twice"),
    (dict(rods=("a",), stiffness=1.0), "at least two rods"),
    (dict(rods="a", stiffness=1.0), "must be a list"),
    (dict(stiffness=-1.0), "rod_contact.stiffness"),
    (dict(stiffness=1.0, damping=float("nan")), "rod_contact.damping"),
    (dict(stiffness=1.0, friction=sm.IsotropicFriction(0.5)), "rod_contact.friction"),
    (dict(stiffness=1.0, self_contact=1), "rod_contact.self_contact"),
])
def test_bad_arguments_raise_naming_the_field(kwargs, match):
    with pytest.raises(ValueError, match=match):
        sm.RodContact(**kwargs)


def test_bad_scenes_raise_before_any_work():
    with pytest.raises(ValueError, match="friction.kinetic"):
        sm.CoulombFriction(static=0.5, kinetic=-0.1)
    scene = two_rods()
    scene.add(sm.RodContact(("a", "c"), stiffness=1.0))
    with pytest.raises(ValueError, match="'c' is not a rod of the scene"):
        scene.compile(dt=1e-5)
    scene = two_rods()
    scene.add(sm.RodContact(stiffness=1.0))
    scene.add(sm.RodContact(("b", "a"), stiffness=1.0, name="again"))
    with pytest.raises(ValueError, match="already in 'rod_contact'"):
        scene.compile(dt=1e-5)
    scene = two_rods()
    scene.rods[1].positions[:, 1] = 0.015         # centrelines 15 mm apart, radii sum 20 mm
    scene.add(sm.RodContact(stiffness=1.0, initial_overlap="refuse"))
    with pytest.raises(ValueError, match="overlaps by 0.25"):
        scene.compile(dt=1e-5)
    with pytest.raises(ValueError, match=r"rod_contact.initial_overlap = 'no' is not allowed"):
        sm.RodContact(stiffness=1.0, initial_overlap="no")


def test_an_overlapping_start_is_accepted_with_a_warning_and_pushed_apart():
    """Issue 30: a start that overlaps (a draped rope touching an obstacle by 12 % of its
    radius) is no longer refused by default: it warns, naming the pair, the overlap and the
    first step's penalty force k eps, and the penalty pushes the rods apart. With k = 1 N/m and
    eps = 5 mm the warning states 0.005 N; the rods end further apart than they started."""
    scene = two_rods()
    scene.rods[1].positions[:, 1] = 0.015         # centrelines 15 mm apart, radii sum 20 mm
    scene.add(sm.RodContact(stiffness=1.0))
    with pytest.warns(sm.InitialOverlapWarning, match=r"rods 'a' \(element \d+\) and 'b' "
                      r"\(element \d+\) overlaps by 0.25 \(r_i \+ r_j\).*k eps = 0.005 N "
                      r"\(eps = 0.005 m\)"):
        sim = scene.compile(dt=1e-5)
    gap0 = np.abs(sim.get_state("b")["positions"][0][:, 1] - sim.get_state("a")["positions"][0][:, 1]).min()
    sim.run(0.05)
    gap = np.abs(sim.get_state("b")["positions"][0][:, 1] - sim.get_state("a")["positions"][0][:, 1]).min()
    assert gap > gap0
