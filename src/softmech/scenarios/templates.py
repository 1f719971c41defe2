"""Templates: the scene-specific analysis that `softmech run` applies to a scenario, and how it
finds what it needs in the scene. A scenario file names its template in [scene] template and
gives the template's parameters in [report]; `info_from(scene, run, report)` checks them and
returns the info object of the template (rod name, dt, duration, and the template's own values
read from the scene, so that an edited file is analysed as edited)."""
from dataclasses import dataclass

from softmech import _checks


@dataclass(frozen=True)
class GenericInfo:
    """What `softmech run` needs of any scene: the rod (or, in a scene of rigid bodies, the
    rigid body) it reports on, worlds, dt [s], duration [s], its number of elements (1 for a
    rigid body)."""
    rod: str
    worlds: int
    dt: float
    duration: float
    n_elems: int


def report_parameters(report, defaults):
    """[report] table -> {key: value} with defaults; ValueError naming an unknown key."""
    unknown = sorted(set(report) - set(defaults))
    if unknown:
        raise ValueError(f"unknown field {unknown[0]!r} (allowed: {', '.join(defaults) or 'none'})")
    return {**defaults, **report}


def find_rod(scene, name, field="rod"):
    """The scene's rod called `name` (ValueError listing the rods if there is none)."""
    for rod in scene.rods:
        if rod.name == name:
            return rod
    raise ValueError(f"{field} = {name!r} is not allowed: no such rod (rods: "
                     f"{sorted(r.name for r in scene.rods)})")


def find_term(scene, name, types, field):
    """The scene's term called `name`, which must be one of `types`."""
    for term in scene.terms:
        if term.name == name:
            if not isinstance(term, types):
                raise ValueError(f"{field} = {name!r} is not allowed: it is a {type(term).__name__}, "
                                 f"expected {' or '.join(t.__name__ for t in types)}")
            return term
    raise ValueError(f"{field} = {name!r} is not allowed: no such term (terms: "
                     f"{sorted(t.name for t in scene.terms)})")


def generic_info(scene, run, report):
    """GenericInfo; [report] may name the rod (default: the first one) or, in a scene of rigid
    bodies, a rigid body (default: the first one when there is no rod), or a discrete rod or
    shell (the first one in a scene of those)."""
    every = scene.rods + scene.rigid_bodies + scene.implicit_bodies
    p = report_parameters(report, {"rod": every[0].name})
    bodies = {b.name: b for b in every}
    if p["rod"] not in bodies:
        raise ValueError(f"rod = {p['rod']!r} is not allowed: no such body (bodies: "
                         f"{sorted(bodies)})")
    body = bodies[p["rod"]]
    n = getattr(body, "n_elems", None)
    return GenericInfo(rod=body.name, worlds=run.worlds, dt=run.dt, duration=run.duration,
                       n_elems=len(body.triangles) if n is None else n)


def uniform(field, values):
    """The single value of a per-element array that must be uniform (analytic comparisons)."""
    values = _checks.finite(field, values)
    if values.size and values.min() != values.max():
        raise ValueError(f"{field} varies along the rod ({values.min():g} to {values.max():g}): "
                         "this template's analytic comparison needs a uniform value")
    return float(values.flat[0])
