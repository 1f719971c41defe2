"""Where the crossing ropes' symmetry breaking comes from (issue 30; physics, not timing): the
ropes of softmech.validation.crossing_ropes made soft (E = 1e7 Pa: a sag of ~5 mm, 2.5 radii)
and undamped, and one such rope alone, pinned at both ends and released under gravity, without
any contact (docs/contact.md, "Two crossing ropes").

Prints, every 0.5 s, the largest departure of each mirror symmetry [m]: the crossing ropes'
(lower rope's y, upper rope's x, lower rope against its x-mirror, upper rope against its
y-mirror), and the lone rope's out-of-plane displacement (x) from a sin-shaped seed of 1e-15 m
(or none), for several element counts and time steps; and the same rope reduced to one Galerkin
mode per transverse direction (an independent model: a beam with axially restrained ends), and
in PyElastica 1.0 when it is installed (pip install -e .[bench]).

    python benchmarks/crossing_ropes_symmetry.py
"""
import time

import numpy as np

import softmech as sm
from softmech.validation import crossing_ropes as C

SOFT = 1e7
"""Young's modulus [Pa] of the soft ropes."""


def crossing(duration=5.0, **options):
    """Undamped soft crossing ropes: (times [s], the four departures [m] (n_samples, 4))."""
    scene = C.crossing_scene(youngs_modulus=SOFT, damping=0.0, **options)
    sim = scene.compile(dt=0.5 * float(scene.time_step_limit().min()), strict=True)
    out = sim.run(duration, record=sm.Every(0.5, ("lower.positions", "upper.positions")))
    lower, upper = out["lower.positions"][0], out["upper.positions"][0]
    fx, fy = np.array([-1.0, 1.0, 1.0]), np.array([1.0, -1.0, 1.0])
    parts = np.stack([np.abs(lower[..., 1]).max(axis=1), np.abs(upper[..., 0]).max(axis=1),
                      np.abs(lower - fx * lower[:, ::-1]).max(axis=(1, 2)),
                      np.abs(upper - fy * upper[:, ::-1]).max(axis=(1, 2))], axis=1)
    return out["time"], parts


def lone_rope(youngs_modulus=SOFT, n_elems=41, dt_fraction=0.5, seed=1e-15, duration=4.0):
    """The upper rope alone (pinned, gravity, undamped, no contact), its interior nodes moved
    out of plane by seed sin(pi s / L) [m]: (times [s], largest |x| [m] of its nodes)."""
    scene = sm.Scene()
    scene.add_cosserat_rod(name="rope", start=(0.0, -0.5 * C.LENGTH, 0.0), direction=(0, 1, 0),
                           normal=(0, 0, 1), length=C.LENGTH, n_elems=n_elems, radius=C.RADIUS,
                           density=C.RHO_UPPER, youngs_modulus=youngs_modulus,
                           shear_modulus=youngs_modulus / 3)
    for end in ("first", "last"):
        scene.add(sm.Pin("rope", end, name=f"pin_{end}"))
    scene.add(sm.Gravity((0.0, 0.0, -C.G)))
    sim = scene.compile(dt=dt_fraction * float(scene.time_step_limit().min()), strict=True)
    x = sim.get_state("rope")["positions"].copy()
    x[0, 1:-1, 0] += seed * np.sin(np.pi * np.arange(1, n_elems) / n_elems)
    sim.set_state("rope", positions=x)
    out = sim.run(duration, record=sm.Every(0.5, ("rope.positions",)))
    return out["time"], np.abs(out["rope.positions"][0, :, :, 0]).max(axis=1)


def galerkin_rope(youngs_modulus=SOFT, seed=1e-15, duration=4.0):
    """The lone rope reduced to one Galerkin mode per transverse direction, w = q sin(pi s / L):
    a simply supported beam whose immovable pins add the stretching tension T = E A pi^2 (q_z^2
    + q_x^2) / (4 L^2) (the classical one-mode model of a beam with axially restrained ends):

        q_z'' + wb^2 q_z + kappa (q_z^2 + q_x^2) q_z = -4 g / pi,
        q_x'' + wb^2 q_x + kappa (q_z^2 + q_x^2) q_x = 0,

    wb^2 = (E I / rho A) (pi / L)^4, kappa = E pi^4 / (4 rho L^4), released from rest at
    q_z = 0, q_x = seed [m]; scipy's DOP853 at rtol 1e-12. Returns (times [s], largest |q_x| [m]
    over the 0.25 s before each)."""
    from scipy.integrate import solve_ivp

    rho = C.RHO_UPPER
    wb2 = youngs_modulus * C.RADIUS**2 / (4 * rho) * (np.pi / C.LENGTH) ** 4
    kappa = youngs_modulus * np.pi**4 / (4 * rho * C.LENGTH**4)

    def rates(t, y):
        z, x, vz, vx = y
        s = wb2 + kappa * (z * z + x * x)
        return [vz, vx, -s * z - 4 * C.G / np.pi, -s * x]

    sol = solve_ivp(rates, (0.0, duration), [0.0, seed, 0.0, 0.0], method="DOP853", rtol=1e-12,
                    atol=1e-22, dense_output=True, max_step=1e-3)
    times = np.arange(0.0, duration + 1e-9, 0.5)
    return times, np.array([np.abs(sol.sol(np.linspace(max(t - 0.25, 0.0), t, 200))[1]).max()
                            for t in times])


def pyelastica_rope(seed=1e-15, duration=3.0, dt=5e-6, n_elems=41):
    """The lone rope in PyElastica 1.0 (the peer, if installed: pip install -e .[bench]): the same
    rod, both end positions held (FixedConstraint, rotation free), gravity, position Verlet, the
    same seed. Returns (times [s], largest |x| [m] of its nodes), or None without PyElastica."""
    try:
        import elastica as ea
    except ImportError:
        return None

    class Rope(ea.BaseSystemCollection, ea.Constraints, ea.Forcing):
        pass

    sim = Rope()
    rod = ea.CosseratRod.straight_rod(
        n_elems, np.array([0.0, -0.5 * C.LENGTH, 0.0]), np.array([0.0, 1.0, 0.0]),
        np.array([0.0, 0.0, 1.0]), C.LENGTH, C.RADIUS, C.RHO_UPPER, youngs_modulus=SOFT,
        shear_modulus=SOFT / 3)
    sim.append(rod)
    sim.constrain(rod).using(ea.FixedConstraint, constrained_position_idx=(0, -1))
    sim.add_forcing_to(rod).using(ea.GravityForces, acc_gravity=np.array([0.0, 0.0, -C.G]))
    sim.finalize()
    rod.position_collection[0, 1:-1] += seed * np.sin(np.pi * np.arange(1, n_elems) / n_elems)
    stepper, t, every = ea.PositionVerlet(), np.float64(0.0), int(round(0.5 / dt))
    times, x = [0.0], [np.abs(rod.position_collection[0]).max()]
    for i in range(1, int(round(duration / dt)) + 1):
        t = stepper.step(sim, t, np.float64(dt))
        if i % every == 0:
            times.append(float(t))
            x.append(np.abs(rod.position_collection[0]).max())
    return np.array(times), np.array(x)


def main():
    start = time.perf_counter()
    print("crossing ropes, E = 1e7 Pa, undamped (lower_y, upper_x, lower vs x-mirror, "
          "upper vs y-mirror) [m]")
    for sizes in ((40, 41), (41, 41)):
        t, parts = crossing(n_lower=sizes[0], n_upper=sizes[1])
        print(f"  n = {sizes}")
        for k in range(len(t)):
            print(f"    t = {t[k]:.1f} s  " + "  ".join(f"{p:.1e}" for p in parts[k]))
    print("one rope alone, pinned, released under gravity, undamped: largest out-of-plane |x| [m]")
    cases = [("E = 1e7, n = 41", {}), ("E = 1e7, n = 41, dt / 2", dict(dt_fraction=0.25)),
             ("E = 1e7, n = 20", dict(n_elems=20)), ("E = 1e7, n = 81", dict(n_elems=81)),
             ("E = 1e7, n = 41, no seed", dict(seed=0.0)),
             ("E = 1e9 (static sag 0.4 r), n = 41", dict(youngs_modulus=1e9))]
    for label, options in cases:
        t, x = lone_rope(**options)
        print(f"  {label:36s} " + "  ".join(f"{v:.1e}" for v in x[:9]))
    print(f"  (samples at t = {', '.join(f'{v:.1f}' for v in t[:9])} s)")
    print("the same rope as one Galerkin mode per direction (galerkin_rope): largest |q_x| [m] "
          "over the 0.25 s before each sample")
    for label, modulus in (("E = 1e7", SOFT), ("E = 1e9", 1e9)):
        t, x = galerkin_rope(modulus)
        print(f"  {label:36s} " + "  ".join(f"{v:.1e}" for v in x[:9]))
    for label, seed in (("PyElastica 1.0, E = 1e7, n = 41", 1e-15), ("  ... no seed", 0.0)):
        peer = pyelastica_rope(seed)
        print(f"  {label:36s} " + ("PyElastica not installed" if peer is None else
                                   "  ".join(f"{v:.1e}" for v in peer[1])))
    print(f"wall {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
