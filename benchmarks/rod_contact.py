"""Rod-rod contact benchmarks (softmech.terms.rod_contact), not collected by pytest.

    python benchmarks/rod_contact.py bundle     # 36 rods x 20 elements: softmech vs PyElastica 1.0
    python benchmarks/rod_contact.py scaling    # broad phase: 1,000 / 3,000 / 10,000 short rods
    python benchmarks/rod_contact.py sticking   # the bundle: CoulombFriction vs StickingFriction
    python benchmarks/rod_contact.py            # bundle and scaling

bundle: 36 straight rods (L = 0.2 m, 20 elements, r = 5 mm, rho = 1000 kg/m^3, E = 1 MPa,
G = E / 1.5) on a 6 x 6 square lattice (spacing 2.2 r), each tilted by a twist of 0.1 rad about
the bundle's axis (a twisted bundle of straight rods), squeezed by an initial radial velocity
of -(x, y) * 5 /s; no gravity, no damping other than the contact's. Contact between every pair
of rods: k = 1e3 N/m, damping 0.1 kg/s, no friction (PyElastica's RodRodContact has none).
PyElastica is set up the documented way (one simulator, `detect_contact_between(a,
b).using(ea.RodRodContact, k=, nu=)` for all 630 pairs, PositionVerlet, `stepper.step`).
Same dt = 1e-5 s. Reports microseconds per step (best of 3) and the ratio.

scaling: N rods of 4 elements (L = 0.04 m, r = 5 mm) with random orientations on a cubic
lattice of spacing 0.05 m (constant number density) falling with random velocities (0.3 m/s)
into an open box (a floor and four walls: fixed rigid boxes; GroundContact is not used: it packs
a per-entry table over every element slot, N^2 memory for 10,000 rods on one ground); every rod
in one RodContact and one RodBodyContact with the box. Reports the build time (scene, compile,
state) and microseconds per step with and without the contact terms, and their cost per element.
"""
import sys
import time

import numpy as np

import softmech as sm

R, L, N_ELEMS, E, RHO, DT = 0.005, 0.2, 20, 1e6, 1000.0, 1e-5
K, NU = 1e3, 0.1


def bundle_rods(n_side=6, spacing=2.2 * R, twist=0.1):
    """(start, direction, normal, initial velocity) of each rod of the twisted bundle."""
    out = []
    c = (n_side - 1) / 2
    for i in range(n_side):
        for j in range(n_side):
            p = np.array([(i - c) * spacing, (j - c) * spacing, 0.0])
            rot = np.array([[np.cos(twist), -np.sin(twist), 0], [np.sin(twist), np.cos(twist), 0],
                            [0, 0, 1.0]])
            top = rot @ p + [0, 0, L]
            d = (top - p) / np.linalg.norm(top - p)
            normal = np.cross(d, [1.0, 0, 0]) if abs(d[0]) < 0.9 else np.cross(d, [0, 1.0, 0])
            normal /= np.linalg.norm(normal)
            out.append((p, d, normal, -5.0 * np.array([p[0], p[1], 0.0])))
    return out


def best_of(fn, repeats=3):
    return min(fn() for _ in range(repeats))


def softmech_bundle(n_steps, contact=True):
    rods = bundle_rods()

    def once():
        scene = sm.Scene()
        for k, (p, d, n, _) in enumerate(rods):
            scene.add_cosserat_rod(name=f"r{k}", start=p, direction=d, normal=n, length=L,
                                   n_elems=N_ELEMS, radius=R, density=RHO, youngs_modulus=E,
                                   shear_modulus=E / 1.5)
        if contact:
            scene.add(sm.RodContact(stiffness=K, damping=NU))
        sim = scene.compile(dt=DT)
        for k, (_, _, _, v) in enumerate(rods):
            sim.set_state(f"r{k}", velocities=np.broadcast_to(v, (1, N_ELEMS + 1, 3)))
        sim.step(10)
        t0 = time.perf_counter()
        sim.step(n_steps)
        once.sim = sim
        return (time.perf_counter() - t0) / n_steps * 1e6
    us = best_of(once)
    from softmech.terms.rod_contact import contact_stats
    return us, (contact_stats(once.sim)[0] if contact else None)


def bundle_simulation(friction, warm_steps=2000):
    """The bundle with every pair of rods in one RodContact with `friction`, compiled and run
    for warm_steps (the squeeze brings the rods into contact after ~1,800 steps)."""
    rods = bundle_rods()
    scene = sm.Scene()
    for k, (p, d, n, _) in enumerate(rods):
        scene.add_cosserat_rod(name=f"r{k}", start=p, direction=d, normal=n, length=L,
                               n_elems=N_ELEMS, radius=R, density=RHO, youngs_modulus=E,
                               shear_modulus=E / 1.5)
    scene.add(sm.RodContact(stiffness=K, damping=NU, friction=friction))
    sim = scene.compile(dt=DT)
    for k, (_, _, _, v) in enumerate(rods):
        sim.set_state(f"r{k}", velocities=np.broadcast_to(v, (1, N_ELEMS + 1, 3)))
    sim.step(warm_steps)
    return sim


def sticking(rounds=9, n_steps=100):
    """Cost per step of the bundle with the regularized law and with friction that sticks
    (mu_s = 0.5, mu_k = 0.4, k_t = K), in one process, alternating rounds of n_steps: min and
    median over the rounds [us/step]."""
    from softmech.terms.rod_contact import contact_stats
    sims = {"CoulombFriction": bundle_simulation(sm.CoulombFriction(0.5, 0.4)),
            "StickingFriction": bundle_simulation(sm.StickingFriction(
                0.5, 0.4, tangential_stiffness=K, tangential_damping=0.01))}
    times = {name: [] for name in sims}
    before = {name: contact_stats(sim)[0][2] for name, sim in sims.items()}
    for _ in range(rounds):
        for name, sim in sims.items():
            t0 = time.perf_counter()
            sim.step(n_steps)
            times[name].append((time.perf_counter() - t0) / n_steps * 1e6)
    for name, values in times.items():
        stats = contact_stats(sims[name])[0]
        print(f"bundle 36 rods x {N_ELEMS}, {name:16s}: min {min(values):8.1f} us/step, median "
              f"{np.median(values):8.1f} ({rounds} rounds of {n_steps} steps, alternating; "
              f"contacts at the start {before[name]:.0f}, at the end {stats[2]:.0f})")
    print(f"sticking / regularized: min {min(times['StickingFriction']) / min(times['CoulombFriction']):.2f}, "
          f"median {np.median(times['StickingFriction']) / np.median(times['CoulombFriction']):.2f}")
    # a steady contact: the validation's rod resting across two clamped rods (3 rods, 26
    # elements, 2 crossings), held at tan(alpha) = 0.4
    from softmech.validation.sticking import rail_friction, rails_simulation
    sims = {"CoulombFriction": rails_simulation([0.4], [sm.CoulombFriction(0.5, 0.5)]),
            "StickingFriction": rails_simulation([0.4], [rail_friction(0.5, 0.5)])}
    times = {name: [] for name in sims}
    for sim in sims.values():
        sim.step(5000)
    for _ in range(rounds):
        for name, sim in sims.items():
            t0 = time.perf_counter()
            sim.step(20 * n_steps)
            times[name].append((time.perf_counter() - t0) / (20 * n_steps) * 1e6)
    for name, values in times.items():
        print(f"rod across two rods, {name:16s}: min {min(values):8.2f} us/step, median "
              f"{np.median(values):8.2f} (contacts {contact_stats(sims[name])[0][2]:.0f})")
    print(f"sticking / regularized: min {min(times['StickingFriction']) / min(times['CoulombFriction']):.2f}, "
          f"median {np.median(times['StickingFriction']) / np.median(times['CoulombFriction']):.2f}")


def pyelastica_bundle(n_steps):
    import elastica as ea

    class Sim(ea.BaseSystemCollection, ea.Contact):
        pass

    def build():
        sim = Sim()
        rods = []
        for p, d, n, v in bundle_rods():
            rod = ea.CosseratRod.straight_rod(N_ELEMS, p, d, n, L, R, RHO, youngs_modulus=E,
                                              shear_modulus=E / 1.5)
            rod.velocity_collection[:] = v[:, None]
            sim.append(rod)
            rods.append(rod)
        for a in range(len(rods)):
            for b in range(a + 1, len(rods)):
                sim.detect_contact_between(rods[a], rods[b]).using(ea.RodRodContact, k=K, nu=NU)
        sim.finalize()
        return sim

    def once():
        sim = build()
        stepper = ea.PositionVerlet()
        t = 0.0
        for _ in range(10):
            t = stepper.step(sim, t, DT)
        t0 = time.perf_counter()
        for _ in range(n_steps):
            t = stepper.step(sim, t, DT)
        return (time.perf_counter() - t0) / n_steps * 1e6
    return best_of(once)


def bundle():
    us_sm, stats = softmech_bundle(2000)
    us_free, _ = softmech_bundle(2000, contact=False)
    print(f"bundle 36 rods x {N_ELEMS} elements, dt = {DT:g} s: softmech {us_sm:8.1f} us/step "
          f"(without contact {us_free:.1f}; at the end: box pairs {stats[1]:.0f}, contacts "
          f"{stats[2]:.0f}, max eps/(2r) {stats[0]:.3f})")
    try:
        us_pe = pyelastica_bundle(200)
    except ImportError:
        print("PyElastica not installed (pip install -e .[bench])")
        return
    print(f"                                           PyElastica {us_pe:8.1f} us/step   ratio "
          f"{us_pe / us_sm:6.1f}x")


BOX_WALL = 0.02
"""Thickness [m] of the box's floor and walls."""


def box_scene(n_rods, contact, seed=0):
    """N short rods (4 elements, L = 0.04 m, r = 5 mm, random orientations) on a cubic lattice of
    spacing 0.05 m above the floor of an open box (a fixed floor and four fixed walls, rigid
    boxes), falling under gravity with random velocities (0.3 m/s); with `contact`, one
    RodContact among all rods and one RodBodyContact of all rods with the box."""
    rng = np.random.default_rng(seed)
    side = int(np.ceil(n_rods ** (1 / 3)))
    scene = sm.Scene()
    length, spacing = 0.04, 0.05
    for k in range(n_rods):
        i, j, m = k % side, (k // side) % side, k // side**2
        d = rng.normal(size=3)
        d /= np.linalg.norm(d)
        normal = np.cross(d, rng.normal(size=3))
        normal /= np.linalg.norm(normal)
        centre = spacing * np.array([i, j, m + 1], dtype=float)
        scene.add_cosserat_rod(name=f"r{k}", start=centre - 0.5 * length * d, direction=d,
                               normal=normal, length=length, n_elems=4, radius=R, density=RHO,
                               youngs_modulus=E, shear_modulus=E / 1.5)
    inner = spacing * side + 0.02              # the box's inner width [m]
    lo = -0.5 * spacing - 0.01
    middle = lo + 0.5 * inner
    height = spacing * (side + 1)
    walls = {"floor": ((middle, middle, -0.5 * BOX_WALL), (inner, inner, BOX_WALL)),
             "wall_x0": ((lo - 0.5 * BOX_WALL, middle, 0.5 * height), (BOX_WALL, inner, height)),
             "wall_x1": ((lo + inner + 0.5 * BOX_WALL, middle, 0.5 * height), (BOX_WALL, inner, height)),
             "wall_y0": ((middle, lo - 0.5 * BOX_WALL, 0.5 * height), (inner, BOX_WALL, height)),
             "wall_y1": ((middle, lo + inner + 0.5 * BOX_WALL, 0.5 * height), (inner, BOX_WALL, height))}
    for name, (centre, lengths) in walls.items():
        scene.add_box(name=name, position=centre, lengths=lengths, density=RHO, fixed=True)
    scene.add(sm.Gravity())
    if contact:
        scene.add(sm.RodContact(stiffness=K, damping=NU))
        scene.add(sm.RodBodyContact(stiffness=K, damping=NU))
    sim = scene.compile(dt=DT)
    for r in scene.rods:
        sim.set_state(r.name, velocities=np.broadcast_to(rng.normal(scale=0.3, size=3), (1, 5, 3)))
    return sim


def scaling(sizes=(1000, 3000, 10000)):
    print("broad phase: N rods x 4 elements falling into a box (constant density), one world, "
          "one thread")
    print(f"{'N':>7} {'build':>8} {'with contact':>14} {'without':>10} {'contact':>10} "
          f"{'per element':>12}")
    for n in sizes:
        row = []
        for contact in (True, False):
            t0 = time.perf_counter()
            sim = box_scene(n, contact)
            sim.step(5)
            build = time.perf_counter() - t0
            steps = max(20, 200000 // n)
            t0 = time.perf_counter()
            sim.step(steps)
            row.append((time.perf_counter() - t0) / steps * 1e6)
            if contact:
                built = build
        c = row[0] - row[1]
        print(f"{n:7d} {built:6.1f} s {row[0]:11.0f} us {row[1]:7.0f} us {c:7.0f} us "
              f"{1e3 * c / (4 * n):9.1f} ns", flush=True)


if __name__ == "__main__":
    what = sys.argv[1:] or ["bundle", "scaling"]
    if "bundle" in what:
        bundle()
    if "sticking" in what:
        sticking()
    if "scaling" in what:
        scaling()
