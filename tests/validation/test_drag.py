"""Viscous (resistive-force) drag, softmech.terms.drag.ViscousDrag: a straight rod settling
under gravity reaches the terminal velocity of resistive-force theory (Gray & Hancock 1955;
Lighthill 1975, ch. 3). With weight per length f = (0, 0, -rho A g) and the rod's unit tangent t,
the drag per length -c_t (v.t) t - c_n (v - (v.t) t) balances f when

    v = (f.t) t (1/c_t - 1/c_n) + f / c_n,

i.e. for a rod inclined at theta from the horizontal (t = (cos theta, 0, sin theta)):
    v_x = -rho A g sin(theta) cos(theta) (1/c_t - 1/c_n)     (the sideways glide of a settling rod)
    v_z = -rho A g (sin(theta)^2 (1/c_t - 1/c_n) + 1/c_n)
A uniform rod under uniform drag feels no torque, so it translates without rotating; the
approach is exponential with time constant at most rho A / min(c_t, c_n) = 0.1 s here, so after
3 s (30 time constants) the velocity equals the terminal one to ~1e-13 relative. Tolerance 1e-9
relative: the run's round-off, far below any modelling error.
"""
import numpy as np
import pytest

import softmech as sm

from softmech.validation.fluids import C_N, RADIUS, RHO, G, settling_rod_resistive_force_velocity


@pytest.mark.parametrize("theta", [0.0, np.pi / 6, np.pi / 2])
def test_settling_rod_reaches_the_resistive_force_terminal_velocity(theta):
    """softmech.validation.fluids.settling_rod_resistive_force_velocity at three inclinations:
    every node at the terminal velocity to 1e-9, no rotation (1e-7 rad/s)."""
    record = settling_rod_resistive_force_velocity(theta)
    assert record["passed"], record["detail"]


def test_isotropic_drag_and_per_world_coefficients():
    """tangential defaults to normal (isotropic: v = f / c for any orientation); per-world
    coefficients give each world its own terminal speed."""
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(start=(0, 0, 0), direction=(1, 0, 1), normal=(0, 1, 0),
                                 length=0.5, n_elems=8, radius=RADIUS, density=RHO,
                                 youngs_modulus=1e6, shear_modulus=1e6 / 1.5)
    scene.add(sm.Gravity((0, 0, -G)))
    scene.add(sm.ViscousDrag(rod, normal=C_N, name="drag"))
    sim = scene.compile(worlds=2, dt=2e-4, strict=True)
    sim.params["drag.normal"] = np.array([C_N, 2 * C_N])
    sim.params["drag.tangential"] = np.array([C_N, 2 * C_N])
    sim.run(3.0)
    vz = sim.get_state()["velocities"][:, :, 2]
    w = RHO * np.pi * RADIUS**2 * G
    np.testing.assert_allclose(vz[0], -w / C_N, rtol=1e-9)
    np.testing.assert_allclose(vz[1], -w / (2 * C_N), rtol=1e-9)


def test_drag_rejects_bad_coefficients():
    with pytest.raises(ValueError, match="drag.normal"):
        sm.ViscousDrag("rod", normal=-1.0)
    with pytest.raises(ValueError, match="drag.tangential"):
        sm.ViscousDrag("rod", normal=1.0, tangential=float("nan"))


def test_two_drag_terms_on_one_rod_add_up_and_rods_keep_their_own():
    """Drag coefficients are packed in layers (terms on different rods share one, two on the
    same rod take two): ViscousDrag c and ViscousDrag 2c on one rod settle it at w / (3 c), and
    a second rod with its own term at w / c (1e-9, as above)."""
    scene = sm.Scene()
    rods = [scene.add_cosserat_rod(name=f"rod{i}", start=(0, i, 0), direction=(1, 0, 0),
                                   normal=(0, 1, 0), length=0.5, n_elems=8, radius=RADIUS,
                                   density=RHO, youngs_modulus=1e6, shear_modulus=1e6 / 1.5)
            for i in range(2)]
    scene.add(sm.Gravity((0, 0, -G)))
    scene.add(sm.ViscousDrag(rods[0], normal=C_N, name="drag_a"))
    scene.add(sm.ViscousDrag(rods[0], normal=2 * C_N, name="drag_b"))
    scene.add(sm.ViscousDrag(rods[1], normal=C_N, name="drag_c"))
    sim = scene.compile(dt=2e-4, strict=True)
    sim.run(3.0)
    w = RHO * np.pi * RADIUS**2 * G
    np.testing.assert_allclose(sim.get_state("rod0")["velocities"][0][:, 2], -w / (3 * C_N),
                               rtol=1e-9)
    np.testing.assert_allclose(sim.get_state("rod1")["velocities"][0][:, 2], -w / C_N,
                               rtol=1e-9)
