"""Rod cross-sections: area, second moments of area, torsion constant and the outer radius.

A cross-section is given to a rod (Scene.add_cosserat_rod, Scene.add_der_rod) as `section=`:
one of the helpers below or the same as a plain table ({"shape": "rectangle", "side1": ...},
which is how scenario files write it). Dimensions are numbers or per-element arrays (n,) [m].

Axes: "1" is the rod's first director d1 (its `normal`; a discrete rod's first material
director m1), "2" is d2 = d3 x d1. For every shape

    A                      area [m^2]
    I1 = int y2^2 dA       second moment about d1 [m^4]: resists bending about d1 (kappa1 of a
                           Cosserat rod), i.e. the centreline moving along d2
    I2 = int y1^2 dA       second moment about d2 [m^4]
    J                      Saint-Venant torsion constant [m^4]: torsional stiffness G J
    I1 + I2                polar moment [m^4]: the rotary inertia about the tangent, rho l (I1+I2)
    radius                 the circle that contact, drag, added mass shape factors and drawings
                           see [m]; the circumscribed one unless the rod's `radius=` overrides it

J equals the polar moment only for circles and circular tubes; for other shapes it is smaller
(warping), so the rod's torsional stiffness and its rotary inertia about the tangent differ.
"""
import numpy as np

from softmech import _checks

SHAPES = {
    "circle": ("radius",),
    "ellipse": ("semi_axis1", "semi_axis2"),
    "rectangle": ("side1", "side2"),
    "tube": ("outer_radius", "inner_radius"),
    "general": ("area", "second_moment1", "second_moment2", "torsion_constant", "radius"),
}
"""Shape -> its dimensions (every one a number or per-element array, > 0)."""
NOT_LENGTHS = ("area", "second_moment1", "second_moment2", "torsion_constant")
"""Dimensions in m^2 or m^4, not m: outside _checks.LENGTH's bounds (radii and sides are
within them)."""


def circle(radius):
    """Solid circle of `radius` [m]: A = pi r^2, I1 = I2 = pi r^4 / 4, J = pi r^4 / 2."""
    return {"shape": "circle", "radius": radius}


def ellipse(semi_axis1, semi_axis2):
    """Solid ellipse with semi-axes a along d1 and b along d2 [m]: A = pi a b, I1 = pi a b^3 / 4,
    I2 = pi a^3 b / 4, J = pi a^3 b^3 / (a^2 + b^2) (Saint-Venant's exact solution; Timoshenko &
    Goodier, Theory of Elasticity, 3rd ed. 1970, sec. 105)."""
    return {"shape": "ellipse", "semi_axis1": semi_axis1, "semi_axis2": semi_axis2}


def rectangle(side1, side2):
    """Solid rectangle with side1 along d1 and side2 along d2 [m]: A = s1 s2, I1 = s1 s2^3 / 12,
    I2 = s2 s1^3 / 12, J = beta(a / b) a b^3 (a the longer side, b the shorter;
    `saint_venant_beta`). A DisMech strip of width w and thickness h whose normal is
    perpendicular to its face is rectangle(side1=h, side2=w)."""
    return {"shape": "rectangle", "side1": side1, "side2": side2}


def tube(outer_radius, inner_radius):
    """Circular tube (annulus) [m]: A = pi (ro^2 - ri^2), I1 = I2 = pi (ro^4 - ri^4) / 4,
    J = pi (ro^4 - ri^4) / 2 (exact for an annulus); inner_radius < outer_radius."""
    return {"shape": "tube", "outer_radius": outer_radius, "inner_radius": inner_radius}


def general(area, second_moment1, second_moment2, torsion_constant, radius):
    """Any other section, from its constants: area [m^2], I1, I2 about d1, d2 through the
    centroid [m^4] (principal axes along d1, d2), Saint-Venant torsion constant J [m^4] and the
    radius [m] of the circle that contact, drag and drawings see."""
    return {"shape": "general", "area": area, "second_moment1": second_moment1,
            "second_moment2": second_moment2, "torsion_constant": torsion_constant,
            "radius": radius}


def saint_venant_beta(aspect, terms=200):
    """beta(a / b) of a rectangle's torsion constant J = beta a b^3 (a >= b), from the series
    beta = 1/3 - (64 / pi^5) (b / a) sum_{n odd} tanh(n pi a / (2 b)) / n^5 (Timoshenko &
    Goodier 1970, sec. 109, eq. (163)); `terms` odd n (the tail is below 1e-10). aspect >= 1."""
    aspect = np.asarray(aspect, dtype=float)
    n = 2.0 * np.arange(terms) + 1.0
    shape = aspect.shape
    ratio = aspect.reshape(-1, 1)
    series = np.sum(np.tanh(n * np.pi * ratio / 2.0) / n**5, axis=1)
    return (1.0 / 3.0 - 64.0 / np.pi**5 * series / ratio[:, 0]).reshape(shape)


def _dimensions(field, spec, n, of):
    """{dimension: (n,) array > 0} of a section table, every dimension checked by name."""
    if not isinstance(spec, dict):
        raise ValueError(f"{field} = {_checks._show(spec)} is not allowed: must be a section "
                         "(softmech.sections.circle / ellipse / rectangle / tube / general, or "
                         "a table {shape = ..., <dimensions>})")
    shape = _checks.choice(f"{field}.shape", spec.get("shape"), SHAPES)
    names = SHAPES[shape]
    unknown = sorted(set(spec) - set(names) - {"shape"})
    if unknown:
        raise ValueError(f"{field}.{unknown[0]} is not allowed for shape {shape!r}: its "
                         f"dimensions are {', '.join(names)}")
    missing = [k for k in names if k not in spec]
    if missing:
        raise ValueError(f"{field}: shape {shape!r} needs {', '.join(names)} "
                         f"(missing: {', '.join(missing)})")
    dims = {k: _checks.per_element(f"{field}.{k}", spec[k], n, of=of,
                                   bounds=None if k in NOT_LENGTHS else _checks.LENGTH)
            for k in names}
    return shape, dims


def section_constants(field, spec, n, of=None):
    """Checked constants of a section for n elements: {"area": (n,) [m^2], "second_moments":
    (n, 2) [m^4] (I1, I2), "torsion_constant": (n,) [m^4], "radius": (n,) [m]}.

    field: the argument's name for messages (e.g. "rod 'strip'.section"); of: what sets n."""
    shape, d = _dimensions(field, spec, n, of)
    if shape == "circle":
        r = d["radius"]
        area = np.pi * r**2
        i1 = i2 = area * r**2 / 4.0
        torsion, radius = 2.0 * i1, r
    elif shape == "ellipse":
        a, b = d["semi_axis1"], d["semi_axis2"]
        area = np.pi * a * b
        i1, i2 = np.pi * a * b**3 / 4.0, np.pi * a**3 * b / 4.0
        torsion = np.pi * a**3 * b**3 / (a**2 + b**2)
        radius = np.maximum(a, b)
    elif shape == "rectangle":
        s1, s2 = d["side1"], d["side2"]
        area = s1 * s2
        i1, i2 = s1 * s2**3 / 12.0, s2 * s1**3 / 12.0
        long, short = np.maximum(s1, s2), np.minimum(s1, s2)
        torsion = saint_venant_beta(long / short) * long * short**3
        radius = 0.5 * np.hypot(s1, s2)
    elif shape == "tube":
        ro, ri = d["outer_radius"], d["inner_radius"]
        if np.any(ri >= ro):
            raise ValueError(f"{field}.inner_radius = {_checks._show(spec['inner_radius'])} is "
                             f"not allowed: must be < outer_radius "
                             f"({_checks._show(spec['outer_radius'])})")
        area = np.pi * (ro**2 - ri**2)
        i1 = i2 = np.pi * (ro**4 - ri**4) / 4.0
        torsion, radius = 2.0 * i1, ro
    else:
        area, i1, i2 = d["area"], d["second_moment1"], d["second_moment2"]
        torsion, radius = d["torsion_constant"], d["radius"]
        if np.any(torsion > i1 + i2):
            raise ValueError(f"{field}.torsion_constant = {_checks._show(spec['torsion_constant'])}"
                             " is not allowed: must be <= second_moment1 + second_moment2 (the "
                             "polar moment bounds Saint-Venant's constant)")
    for name, value in (("area", area), ("second moments", np.stack([i1, i2])),
                        ("torsion constant", torsion)):
        if not np.all(np.isfinite(value) & (value > 0)):
            raise ValueError(f"{field} = {_checks._show(spec)} is not allowed: its {name} is "
                             "0, inf or not representable in float64 (dimensions too small or "
                             "too large)")
    return {"area": area, "second_moments": np.stack([i1, i2], axis=-1),
            "torsion_constant": torsion, "radius": radius}

