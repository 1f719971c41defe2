"""Scalar values along a rod that colour it in the interactive viewer (softmech.viz.viewer):
a recorded per-node or per-element time series of a results file, or a quantity computed from
the recorded positions.

    recorded  any rod series of shape (B, n, n_nodes or n_elems) or (B, n, n_nodes or n_elems, 3)
              (a vector is shown by its length), e.g. velocities [m/s], contact_force [N],
              angular_velocities [rad/s]
    computed  stretch [1]: element length / rest length - 1 (positive: stretched), per element;
              curvature [1/m]: the discrete curvature |kappa b| / Voronoi length at the interior
              nodes (Bergou et al., "Discrete elastic rods", SIGGRAPH 2008, eq. 1), 0 at the
              ends of an open rod

Every value is returned at the nodes (softmech.viz.geometry.to_nodes), shape (n, n_nodes), so
that a tube's vertices take their node's value (tube_vertex_nodes).
"""
import numpy as np

from softmech.viz.geometry import to_nodes

COMPUTED = {"stretch": "1", "curvature": "1/m"}
"""Fields computed from the recorded positions -> their units."""


def colour_fields(data):
    """Names of the fields that can colour the rods of `data` (softmech.viz.source.RenderData):
    the computed ones whose inputs are recorded, then every recorded per-node or per-element
    series of some rod, sorted."""
    names = set()
    for rod in data.rods:
        if f"{rod}.positions" not in data.results:
            continue
        n_nodes = data.results[f"{rod}.positions"].shape[2]
        names.add("curvature")
        if rod in data.rest_lengths:
            names.add("stretch")
        for key, value in data.results.items():
            if key.startswith(f"{rod}.") and _along_rod(value, n_nodes, data.closed[rod]):
                names.add(key.split(".", 1)[1])
    names.discard("positions")
    names.discard("directors")
    computed = [n for n in COMPUTED if n in names]
    return computed + sorted(names - set(computed))


def _along_rod(value, n_nodes, closed):
    """True for a series (B, n, m) or (B, n, m, 3) with m = n_nodes or n_elems."""
    shape = np.shape(value)
    n_elems = n_nodes if closed else n_nodes - 1
    return (len(shape) in (3, 4) and shape[2] in (n_nodes, n_elems)
            and (len(shape) == 3 or shape[3] == 3))


def rod_field(data, rod, name, world=0):
    """Field `name` of rod `rod` in world `world` at the nodes: (values (n, n_nodes), units).
    ValueError naming the field and the ones allowed if `name` cannot colour this rod (the
    viewer then draws that rod in its own colour: see has_field)."""
    x = np.asarray(data.results[f"{rod}.positions"])[world]          # (n, n_nodes, 3) [m]
    closed = data.closed[rod]
    if name == "stretch":
        if rod not in data.rest_lengths:
            raise ValueError(f"field = 'stretch' is not allowed for rod {rod!r}: its rest "
                             "lengths are not in the results")
        edges = (np.roll(x, -1, axis=1) - x) if closed else np.diff(x, axis=1)
        length = np.linalg.norm(edges, axis=-1)
        return to_nodes("stretch", length / data.rest_lengths[rod] - 1.0, x.shape[1],
                        closed), COMPUTED["stretch"]
    if name == "curvature":
        return _curvature(x, closed), COMPUTED["curvature"]
    key = f"{rod}.{name}"
    if key not in data.results or not _along_rod(data.results[key], x.shape[1], closed):
        raise ValueError(f"field = {name!r} is not allowed for rod {rod!r}: must be one of "
                         f"{colour_fields(data)} (a recorded per-node or per-element series, "
                         "or a computed one)")
    value = np.asarray(data.results[key])[world]
    if value.ndim == 3:
        value = np.linalg.norm(value, axis=-1)
    units = getattr(data.results, "units", {}).get(name, "")
    return to_nodes(name, value, x.shape[1], closed), units


def has_field(data, rod, name):
    """True if field `name` can colour rod `rod` (rod_field would succeed)."""
    if f"{rod}.positions" not in data.results:
        return False
    if name in COMPUTED:
        return name != "stretch" or rod in data.rest_lengths
    key = f"{rod}.{name}"
    return key in data.results and _along_rod(data.results[key],
                                              data.results[f"{rod}.positions"].shape[2],
                                              data.closed[rod])


def _curvature(x, closed):
    """Discrete curvature [1/m] at the nodes of centrelines x (n, N, 3): |kappa b_i| =
    2 |e_(i-1) x e_i| / (|e_(i-1)| |e_i| + e_(i-1) . e_i), divided by the Voronoi length
    (|e_(i-1)| + |e_i|) / 2; 0 at the two end nodes of an open rod. Shape (n, N)."""
    if closed:
        e_prev, e_next = x - np.roll(x, 1, axis=1), np.roll(x, -1, axis=1) - x
    else:
        e_prev, e_next = x[:, 1:-1] - x[:, :-2], x[:, 2:] - x[:, 1:-1]
    a, b = np.linalg.norm(e_prev, axis=-1), np.linalg.norm(e_next, axis=-1)
    denominator = np.maximum(a * b + np.sum(e_prev * e_next, axis=-1), 1e-300)
    kb = 2.0 * np.linalg.norm(np.cross(e_prev, e_next), axis=-1) / denominator
    kappa = kb / np.maximum(0.5 * (a + b), 1e-300)
    if closed:
        return kappa
    out = np.zeros(x.shape[:2])
    out[:, 1:-1] = kappa
    return out
