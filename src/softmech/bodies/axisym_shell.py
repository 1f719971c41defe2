"""Axisymmetric Cosserat shells (Renda et al., IJRR 2018 section 3; Renda et al. 2015): the
meridian rod that carries one, its profiles, and its cavity volume.

Design. Under axisymmetry a Cosserat (Reissner) shell of revolution is a planar Cosserat rod
-- its meridian (generatrix) X -> (r(X), z(X)) with the director angle theta(X) -- plus the hoop
strains, which depend on r and theta only (Renda 2018 eq. 7, Simo & Fox 1989). So the mantle is
an ordinary explicit Cosserat rod of the engine (its nodes, frames, inertia, recording, joints,
videos are the rods'), one meridian standing for the whole ring, whose section is chosen so
that the rod's own law *is* the meridional part of the shell law, and a term
(softmech.terms.axisym_shell.AxisymmetricShell) adds the hoop part, the cavity pressure, the
radial actuation and the clamp to the root body. A separate body kind would have duplicated
the rod's motion kernels for a 2-D subset of them.

Section of the meridian rod for a shell of thickness h (= 2 h_s of Renda), Young's modulus E,
Poisson ratio nu, density rho, at rest radius r0 (per element): a `general` section
(softmech.bodies.sections) holding the whole ring,

    A = 2 pi r0 h,   I1 = I2 = A h^2 / 12,   J = I1 + I2,
    E_rod = E / (1 - nu^2) (plane stress),   G_rod = G (shear coefficient 1),   rho_rod = rho,

so the rod has E_rod A = 2 pi r0 C, E_rod I = 2 pi r0 D, G_rod A = 2 pi r0 G h (Renda's H = 2 h_s
G beta), mass rho A = 2 pi r0 rho h and rotary inertia rho I = 2 pi r0 rho h^3 / 12 per meridian
length: the full ring's (C = E h / (1 - nu^2), D = E h^3 / (12 (1 - nu^2))). The material's own
density and moduli stay on the rod (within softmech._checks' physical bounds); the ring's size
lives in the section. The rod's radius (contact, drawings) is h / sqrt(3), whose circle has the
same bending-to-stretching ratio a^2 / 4 = h^2 / 12. The rod frames are d3 = meridian tangent,
d2 = hoop direction, d1 = d2 x d3 (in the meridian plane).
"""
import numpy as np

from softmech import _checks
from softmech.bodies import sections


def meridian_rod(name, r, z, *, thickness, density, youngs_modulus, poisson_ratio=0.0,
                 axis=(0.0, 0.0, 1.0), origin=(0.0, 0.0, 0.0), radial=(1.0, 0.0, 0.0)):
    """Keyword arguments of Scene.add_cosserat_rod for the meridian of a shell of revolution.

    r, z: the meridian's nodes, radius from the axis and height along it [m], (n + 1,) each,
    every element at a positive mid radius; thickness h [m], density [kg/m^3], youngs_modulus
    [Pa], poisson_ratio in [0, 0.5); axis (3,) (unit after normalising), origin (3,) [m] a point
    of it, radial (3,) the direction (normal to the axis) of the meridian's plane. Lab frame."""
    r = _checks.finite(f"{name}.r", r)
    z = _checks.finite(f"{name}.z", z)
    if r.ndim != 1 or r.shape != z.shape or len(r) < 3:
        raise ValueError(f"{name}: r and z must be 1-D arrays of the same length >= 3 "
                         f"(got shapes {r.shape}, {z.shape})")
    if np.any(r < 0):
        raise ValueError(f"{name}.r has entries < 0 (radii must be >= 0)")
    h = float(_checks.physical(f"{name}.thickness", thickness, _checks.LENGTH, shape=()))
    rho = float(_checks.physical(f"{name}.density", density, _checks.DENSITY, shape=()))
    E = float(_checks.physical(f"{name}.youngs_modulus", youngs_modulus, _checks.MODULUS,
                               shape=()))
    nu = _checks.poisson_ratio(f"{name}.poisson_ratio", poisson_ratio, 0.0, 0.5,
                               open_low=False, open_high=True)
    a = _checks.unit_vector(f"{name}.axis", axis)
    e_r = np.asarray(radial, dtype=float) - np.dot(radial, a) * a
    if np.linalg.norm(e_r) < 1e-9:
        raise ValueError(f"{name}.radial = {radial!r} is not allowed: must not be parallel to the axis")
    e_r /= np.linalg.norm(e_r)
    r0 = 0.5 * (r[1:] + r[:-1])
    if np.any(r0 <= 0):
        raise ValueError(f"{name}: every element needs a positive mid radius (got min {r0.min()})")
    centerline = np.asarray(origin, dtype=float) + r[:, None] * e_r + z[:, None] * a
    d3 = np.diff(centerline, axis=0)
    d3 /= np.linalg.norm(d3, axis=1)[:, None]
    d2 = np.broadcast_to(np.cross(a, e_r), d3.shape)
    directors = np.stack([np.cross(d2, d3), d2, d3], axis=1)
    return dict(name=name, centerline=centerline, directors=directors,
                section=ring_section(r0, h), radius=np.full(len(r0), h / np.sqrt(3.0)),
                density=rho, youngs_modulus=E / (1.0 - nu * nu),
                shear_modulus=E / (2.0 * (1.0 + nu)), shear_coefficient=1.0,
                rest_curvature="initial")


def ring_section(r0, thickness):
    """The `general` section (softmech.bodies.sections) of a whole ring of shell, mid radius r0
    (n,) [m], thickness h [m]: A = 2 pi r0 h [m^2], I1 = I2 = A h^2 / 12 [m^4], J = I1 + I2,
    radius h / sqrt(3) [m] (the module docstring)."""
    area = 2.0 * np.pi * np.asarray(r0, dtype=float) * thickness
    moment = area * thickness**2 / 12.0
    return sections.general(area=area, second_moment1=moment, second_moment2=moment,
                            torsion_constant=2.0 * moment,
                            radius=np.full(area.shape, thickness / np.sqrt(3.0)))


def cylinder_profile(radius, length, n_elems):
    """(r, z) of a cylinder's meridian [m], z from 0 to length, (n_elems + 1,) each."""
    return np.full(n_elems + 1, float(radius)), np.linspace(0.0, float(length), n_elems + 1)


def mantle_profile(cap_radius=0.031, cap_angle=np.pi / 4, cylinder_length=0.094, n_elems=40):
    """(r, z) of Renda's mantle (section 6.1): a half sphere of radius T_s truncated by the rigid
    cup at polar angle pi/4, then a cylinder of length 94 mm (L_s = T_s pi/4 + 94 mm = 118 mm).
    X runs from the cup (z = 0, pointing forward = +z) backwards to the nozzle (z < 0); nodes
    spaced evenly in arc length, (n_elems + 1,) each [m]."""
    arc = cap_radius * (np.pi / 2 - cap_angle)
    X = np.linspace(0.0, arc + cylinder_length, n_elems + 1)
    phi = cap_angle + np.minimum(X, arc) / cap_radius     # polar angle on the sphere
    r = cap_radius * np.sin(phi)
    z = cap_radius * np.cos(phi) - cap_radius * np.cos(cap_angle) - np.maximum(X - arc, 0.0)
    return r, z


def cavity_volume(positions, origin, axis):
    """Volume between the meridian (positions (..., n + 1, 3) [m]) and the axis [m^3], (...):
    the frustums pi/3 (r_i^2 + r_i r_i+1 + r_i+1^2) |dz| summed with the sign of the profile
    (Renda eq. 15's U = int pi r^2 dz, exact for the discrete surface; the kernel's formula)."""
    a = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    rel = np.asarray(positions) - np.asarray(origin, dtype=float)
    z = rel @ a
    r = np.linalg.norm(rel - z[..., None] * a, axis=-1)
    ra, rb = r[..., :-1], r[..., 1:]
    U = (np.pi / 3 * (ra * ra + ra * rb + rb * rb) * np.diff(z, axis=-1)).sum(axis=-1)
    return np.abs(U)
