"""The static description of a scene in a results file, written once when the file is created
and read by the pictures (softmech.viz.source), so that they can draw every body from the file
alone (layout.py; docs/results_files.md):

    /rods/<rod>       attrs n_nodes, n_elems, closed; radius (B, n_elems) [m], rest_lengths [m];
                      the meridian of an axisymmetric shell also revolution_body (its root
                      body, "" for none), revolution_axis (3,), revolution_origin (3,) [m]
                      (the symmetry axis, lab frame at t = 0)
    /bodies/<body>    attrs shape, fixed; mass [kg], inertia (3, 3) [kg m^2], principal_axes,
                      radius / length / lengths [m], vertices (n, 3) [m] and faces (m, 3)
    /joints/<joint>   attrs kind, a_body, a_node, b_body, b_node; a_point, b_point (3,) [m]
    /shells/<shell>   faces (m, 3) and thickness [m] (a discrete shell), or edges (m, 2) and
                      radius (m,) [m] (a network of discrete rods): node indices into its
                      positions series

`bodies_of(sim)`, `joints_of(sim)` and `revolutions_of(sim)` give the same dicts from a live
simulation as `read_bodies(f)`, `read_joints(f)` and `read_revolutions(f)` from a file.
"""
import numpy as np

from softmech.bodies.rigid_body import describe
from softmech.recording import rods_of
from softmech.resultsfile import layout
from softmech.terms.joints import JOINT_TYPES

BODY_ATTRS = ("shape", "fixed")
"""Attributes of /bodies/<body>; its other description entries are datasets."""
END_ATTRS = ("body", "node")
"""Attributes of a joint end (a_body, a_node, ...); its point is a dataset (a_point)."""


def bodies_of(sim):
    """{rigid body name: its description (softmech.bodies.rigid_body.describe)}, scene order."""
    return {b.name: describe(b) for b in sim.rigid_bodies}


def joints_of(sim):
    """{joint name: {kind, a, b}} (softmech.terms.joints: describe) of the joints of `sim`."""
    rods = {r.name: r for r in sim.rods}            # once, not per joint (thousands: the wing)
    bodies = {b.name: b for b in sim.rigid_bodies}
    return {t.name: t.describe(rods, bodies) for t in sim.terms if isinstance(t, JOINT_TYPES)}


def revolutions_of(sim):
    """{meridian rod: {"body": root body name or None, "axis": (3,), "origin": (3,) [m]}} of
    the axisymmetric shells (softmech.terms.axisym_shell.AxisymmetricShell) of `sim`."""
    from softmech.terms.axisym_shell import AxisymmetricShell

    return {t.rod: {"body": t.body, "axis": np.asarray(t.axis, float),
                    "origin": np.asarray(t.origin, float)}
            for t in sim.terms if isinstance(t, AxisymmetricShell)}


def read_revolutions(f):
    """{meridian rod: {body, axis, origin}} from the open h5py file `f` ({} if none)."""
    out = {}
    for name, g in f.get("rods", {}).items():
        if "revolution_axis" in g.attrs:
            body = _plain(g.attrs["revolution_body"])
            out[name] = {"body": body or None,
                         "axis": np.asarray(g.attrs["revolution_axis"], float),
                         "origin": np.asarray(g.attrs["revolution_origin"], float)}
    return out


def write_description(f, sim):
    """Write the rods, rigid bodies and joints of `sim` into the open h5py file `f`."""
    for rod in rods_of(sim):
        g = f.create_group(f"rods/{rod.name}")
        g.attrs.update({"n_nodes": rod.n_nodes, "n_elems": rod.n_elems,
                        "closed": bool(rod.closed)})
        _datasets(g, {"radius": sim.rod_params(rod.name)["radius"],
                      "rest_lengths": np.asarray(rod.rest_lengths, dtype=float)})
    for rod, rev in revolutions_of(sim).items():
        f[f"rods/{rod}"].attrs.update({"revolution_body": rev["body"] or "",
                                       "revolution_axis": rev["axis"],
                                       "revolution_origin": rev["origin"]})
    for shell in getattr(sim, "shells", ()):
        g = f.create_group(f"shells/{shell.name}")
        _datasets(g, mesh_of(shell))
    for name, body in bodies_of(sim).items():
        g = f.create_group(f"bodies/{name}")
        g.attrs.update({k: body[k] for k in BODY_ATTRS})
        _datasets(g, {k: v for k, v in body.items() if k not in BODY_ATTRS})
    for name, joint in joints_of(sim).items():
        g = f.create_group(f"joints/{name}")
        g.attrs["kind"] = joint["kind"]
        for side in ("a", "b"):
            g.attrs.update({f"{side}_{k}": joint[side][k] for k in END_ATTRS})
            _datasets(g, {f"{side}_point": joint[side]["point"]})


def mesh_of(body):
    """What draws a shell or a rod network: {"faces": (m, 3)} (a triangle mesh, with its
    "thickness" [m]) or {"edges": (m, 2), "radius": (m,) [m]} (a network of rod edges), node
    indices into its positions."""
    triangles = getattr(body, "triangles", None)
    if triangles is not None:
        return {"faces": np.asarray(triangles, np.int64),
                "thickness": np.asarray(getattr(body, "thickness", 0.0), float)}
    edges = np.asarray(body.edges, np.int64)
    return {"edges": edges,
            "radius": np.broadcast_to(np.asarray(body.radius, float), (len(edges),)).copy()}


def read_shells(f):
    """{shell name: mesh_of description} from the open h5py file `f` ({} if none)."""
    return {name: {k: ds[()] for k, ds in g.items() if not layout.is_series(ds)}
            for name, g in f.get("shells", {}).items()}


def _datasets(group, values):
    for key, value in values.items():
        group.create_dataset(key, data=value)
        group[key].attrs["units"] = layout.UNITS[key]


def _plain(value):
    value = value.item() if isinstance(value, np.generic) else value
    return value.decode() if isinstance(value, bytes) else value


def read_bodies(f):
    """{rigid body name: description} from the open h5py file `f` ({} for version 1)."""
    out = {}
    for name, g in f.get("bodies", {}).items():
        body = {k: _plain(g.attrs[k]) for k in BODY_ATTRS}
        body.update({k: ds[()] for k, ds in g.items() if not layout.is_series(ds)})
        out[name] = body
    return out


def read_joints(f):
    """{joint name: {kind, a, b}} from the open h5py file `f` ({} for version 1)."""
    out = {}
    for name, g in f.get("joints", {}).items():
        out[name] = {"kind": _plain(g.attrs["kind"])}
        for side in ("a", "b"):
            out[name][side] = {k: _plain(g.attrs[f"{side}_{k}"]) for k in END_ATTRS}
            out[name][side]["point"] = g[f"{side}_point"][()]
    return out

