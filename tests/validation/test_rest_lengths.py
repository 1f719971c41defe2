"""Rods whose rest shape is not their initial shape: `add_cosserat_rod(rest_lengths=...)` and
`add_der_rod(rest_lengths=...)`.

The usual cable setup: a cable of rest length S hung between two pins a span D < S apart, started
on a circular arc of length S through the pins, sags to the elastic catenary (Irvine, *Cable
Structures*, MIT Press 1981, eqs. 2.5-2.8; w the weight per unstretched length, H the horizontal
tension, V = w S / 2 each pin's vertical reaction):

    D = H S / (E A) + (2 H / w) asinh(w S / (2 H))                 (solved for H)
    sag = w S^2 / (8 E A) + (sqrt(H^2 + V^2) - H) / w             (lowest point below the pins)

The cable's mass must come from its rest length S, not from the chords it starts on.
"""
import numpy as np
import pytest
from scipy.optimize import brentq

import softmech as sm

D, S, R, E, RHO, G = 1.0, 1.2, 2e-3, 1e6, 1000.0, 9.81
N = 60


def elastic_catenary_sag(D, S, w, EA):
    """Sag [m] of the elastic catenary (module docstring) of span D, rest length S [m], weight
    w [N/m] per unstretched length, axial stiffness EA [N]."""
    H = brentq(lambda H: H * S / EA + 2 * H / w * np.arcsinh(w * S / (2 * H)) - D, 1e-6, 1e3)
    V = w * S / 2
    return w * S**2 / (8 * EA) + (np.sqrt(H**2 + V**2) - H) / w


def arc_through_pins(D, S, n):
    """Nodes (n + 1, 3) [m] on the circular arc of length S hanging (z < 0) between (-D/2, 0, 0)
    and (D/2, 0, 0): S = 2 rho theta, D = 2 rho sin(theta)."""
    theta = brentq(lambda t: np.sin(t) / t - D / S, 1e-9, np.pi - 1e-9)
    rho = D / (2 * np.sin(theta))
    phi = np.linspace(-theta, theta, n + 1)
    return np.stack([rho * np.sin(phi), np.zeros(n + 1), rho * (np.cos(theta) - np.cos(phi))],
                    axis=1)


def hang(rest_lengths, duration=30.0):
    scene = sm.Scene()
    rod = scene.add_cosserat_rod(name="cable", centerline=arc_through_pins(D, S, N),
                                 normal=(0, 1, 0), radius=R, density=RHO, youngs_modulus=E,
                                 rest_lengths=rest_lengths)
    scene.add(sm.Pin(rod, "first", name="left"))
    scene.add(sm.Pin(rod, "last", name="right"))
    scene.add(sm.Gravity((0, 0, -G)))
    scene.add(sm.LinearDamping(rod, 0.05, rotational_coefficient=1e-7))
    sim = scene.compile(dt=5e-5, strict=True)
    sim.run(duration)
    return rod, sim


def test_cable_with_its_arc_as_rest_length_hangs_as_the_elastic_catenary():
    # rest lengths S / N (the arc's), the nodes on chords 0.0077 % shorter; the damped cable
    # (velocities decay as exp(-gamma t / (rho A)), 4 /s) settles within 30 s to Irvine's sag.
    # Measured: +0.027 % at 60 elements (+0.069 % at 30, +0.016 % at 120: the discretisation's
    # error, converging); the bending stiffness (E I / (H D^2) = 2e-4 at the pins' hinges) is
    # below it. Tolerance 0.1 %; the cable's stretch (strain 0.45 %) changes the sag by 1.9 %
    # (the inextensible catenary's 0.2923 m against 0.2978 m), so the test sees the elasticity.
    rod, sim = hang(np.full(N, S / N))
    area = np.pi * R**2
    w = RHO * area * G
    expected = elastic_catenary_sag(D, S, w, E * area)
    z = sim.get_state("cable")["positions"][0][:, 2]
    assert -z.min() == pytest.approx(expected, rel=1e-3)
    # settled: the nodes barely move
    assert np.abs(sim.get_state("cable")["velocities"][0]).max() < 1e-4 * np.sqrt(G * D)
    # the mass is the rest length's: rho A S, not rho A (sum of chords)
    masses = sim._engine().ctx.discrete["cable"]["node_mass"][0]
    assert masses.sum() == pytest.approx(RHO * area * S, rel=1e-12)


def test_without_rest_lengths_the_arc_is_the_rest_shape_and_a_stretched_start_contracts():
    # default rest lengths: the chords, so the started arc is stress-free lengthwise; a rest
    # length 10 % shorter than the chords pulls the cable up (less sag than the catenary of
    # the arc's length), and a rest length of the span itself keeps it nearly taut
    _, free = hang(None, duration=10.0)
    _, shorter = hang(np.full(N, 0.9 * S / N), duration=10.0)
    sag = [-sim.get_state("cable")["positions"][0][:, 2].min() for sim in (free, shorter)]
    assert sag[1] < 0.8 * sag[0]


def test_rest_lengths_are_validated():
    scene = sm.Scene()
    with pytest.raises(ValueError, match=r"rod 'cable'.rest_lengths .*shape \(3,\)"):
        scene.add_cosserat_rod(name="cable", start=(0, 0, 0), direction=(1, 0, 0), length=1.0,
                               n_elems=4, normal=(0, 1, 0), radius=R, density=RHO,
                               youngs_modulus=E, rest_lengths=[0.25, 0.25, 0.25])
    with pytest.raises(ValueError, match="rod 'cable'.rest_lengths"):
        scene.add_cosserat_rod(name="cable", start=(0, 0, 0), direction=(1, 0, 0), length=1.0,
                               n_elems=4, normal=(0, 1, 0), radius=R, density=RHO,
                               youngs_modulus=E, rest_lengths=[0.25, 0.25, 0.0, 0.25])


def hang_discrete(n, rest_lengths):
    """The cable of `hang` as a discrete rod of n edges pinned at its end nodes, in static
    equilibrium (ImplicitSimulation.solve_static: Newton on the force balance)."""
    scene = sm.Scene()
    rod = scene.add_der_rod(name="cable", centerline=arc_through_pins(D, S, n), radius=R,
                            density=RHO, youngs_modulus=E, rest_lengths=rest_lengths)
    scene.add(sm.FixNodes(rod, [0, n], name="pins"))
    scene.add(sm.Gravity((0, 0, -G)))
    sim = scene.compile(dt=1e-2)
    sim.solve_static()
    return rod, sim


def test_discrete_cable_with_its_arc_as_rest_length_hangs_as_the_elastic_catenary():
    # The same cable and reference (Irvine's elastic catenary, module docstring) as a discrete
    # elastic rod. Measured: +0.059 % at 30 edges, +0.017 % at 60, +0.006 % at 120 (converging
    # at about second order). Tolerance 0.1 % at 60 edges, as for the Cosserat rod; the
    # elasticity moves the sag by 1.9 %, so the test sees it.
    rod, sim = hang_discrete(N, np.full(N, S / N))
    area = np.pi * R**2
    expected = elastic_catenary_sag(D, S, RHO * area * G, E * area)
    z = sim.get_state("cable")["positions"][0][:, 2]
    assert -z.min() == pytest.approx(expected, rel=1e-3)
    # the mass and the springs' Voronoi lengths are the rest lengths', not the chords'
    assert rod.node_mass.sum() == pytest.approx(RHO * area * S, rel=1e-12)
    assert rod.voronoi_lengths == pytest.approx(np.full(N - 1, S / N), rel=1e-12)
    # without rest lengths the chords are the rest shape: at 60 edges 0.0049 % shorter than
    # the arc (1 - sin(a)/a per edge, a = its half angle), and so is the mass
    chords, _ = hang_discrete(N, None)
    assert chords.node_mass.sum() < RHO * area * S * (1 - 3e-5)


def test_discrete_rest_lengths_are_validated():
    common = dict(name="cable", start=(0, 0, 0), direction=(1, 0, 0), length=1.0, n_elems=4,
                  radius=R, density=RHO, youngs_modulus=E)
    # the message names what sets the edge count (the scenario-file fuzz changed n_elems)
    with pytest.raises(ValueError, match=r"der_rod 'cable'.rest_lengths has shape \(3,\), "
                                         r"expected a scalar or shape \(4,\): one value per "
                                         r"element of der_rod 'cable'.n_elems = 4"):
        sm.Scene().add_der_rod(**common, rest_lengths=[0.25, 0.25, 0.25])
    with pytest.raises(ValueError, match=r"der_rod 'cable'.rest_lengths = .* is not allowed"):
        sm.Scene().add_der_rod(**common, rest_lengths=[0.25, 0.25, 0.0, 0.25])
