"""Plots of the underwater robots (softmech.scenarios.poseidron): surge velocity, mantle radius
and cavity volume against time, eq. 29's turning radius and rate, the power budget and the loads
on the root (plot_power), and the mantle drawn as the
surface of revolution of its meridian (revolve_shells, which `softmech render` and the scene's
report of `softmech run`, softmech.commands.underwater_report, use)."""
import numpy as np

from softmech.bodies.axisym_shell import cavity_volume
from softmech.viz.figures import figure, save


def axis_track(root_x, root_Q, axis, origin_body):
    """The mantle's symmetry axis carried by the root body: (unit axis (n, 3), a point of it
    (n, 3) [m]) per sample, lab frame. root_x (n, 3) [m], root_Q (n, 3, 3) user frame rows,
    axis (3,) lab at t = 0, origin_body (3,): the axis point in the root's user frame."""
    a0 = root_Q[0] @ np.asarray(axis, dtype=float)            # the axis in the root's frame
    return (np.einsum("nji,j->ni", root_Q, a0),
            np.asarray(root_x) + np.einsum("nji,j->ni", root_Q, np.asarray(origin_body)))


def mantle_geometry(root_x, root_Q, mantle_x, axis, origin_body):
    """Per sample: (radius of the meridian's middle node [m] -- mid-way along the actuated
    interval --, cavity volume U [m^3]); root_x (n, 3) [m],
    root_Q (n, 3, 3) user frame rows, mantle_x (n, m, 3) [m], axis (3,) lab at t = 0 (turned
    with the root), origin_body (3,): the axis point in the root's user frame."""
    radius, volume = [], []
    for x, a, o in zip(mantle_x, *axis_track(root_x, root_Q, axis, origin_body)):
        rel = x - o
        r = np.linalg.norm(rel - np.outer(rel @ a, a), axis=1)
        radius.append(r[len(r) // 2])
        volume.append(cavity_volume(x, o, a))
    return np.array(radius), np.array(volume)


def surface_of_revolution(meridian, origin, axis, sides=24):
    """The shell of revolution swept by a meridian about its axis, as a triangle mesh:
    (vertices (..., n_nodes * sides, 3) [m], faces (2 (n_nodes - 1) sides, 3)). meridian
    (..., n_nodes, 3) [m]; origin (..., 3) [m] a point of the axis, axis (..., 3) unit, lab
    frame (leading dimensions: samples); sides >= 3 copies of the meridian turned by 2 pi k /
    sides about the axis (Rodrigues' formula, so each node keeps its radius and height).
    Vertex k * n_nodes + i is node i of copy k; each quad between two copies and two nodes
    is cut into two triangles, oriented so that most normals point away from the axis (the
    renderer shades by the normal: an inward one draws the outside dark)."""
    from softmech import _checks

    sides = _checks.integer("sides", sides, 3)
    x = np.asarray(meridian, dtype=float)
    a = np.asarray(axis, dtype=float)[..., None, :]
    rel = x - np.asarray(origin, dtype=float)[..., None, :]
    along = np.sum(rel * a, axis=-1, keepdims=True) * a
    across, turn = rel - along, np.cross(a, rel)
    phi = 2 * np.pi * np.arange(sides) / sides
    c, s_ = np.cos(phi)[:, None, None], np.sin(phi)[:, None, None]
    # v cos(phi) + (a x v) sin(phi) + a (a.v)(1 - cos(phi)) = along + across cos + turn sin
    copies = (np.asarray(origin, dtype=float)[..., None, None, :] + along[..., None, :, :]
              + c * across[..., None, :, :] + s_ * turn[..., None, :, :])
    n = x.shape[-2]
    vertices = copies.reshape(x.shape[:-2] + (sides * n, 3))
    k, i = np.meshgrid(np.arange(sides), np.arange(n - 1), indexing="ij")
    k, i = k.ravel(), i.ravel()
    here, there = k * n + i, ((k + 1) % sides) * n + i
    faces = np.concatenate([np.stack([here, there, here + 1], axis=1),
                            np.stack([there, there + 1, here + 1], axis=1)])
    first = vertices.reshape(-1, sides * n, 3)[0]                  # the first sample decides
    p = first[faces]
    normal = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    centre = p.mean(axis=1) - np.asarray(origin, dtype=float).reshape(-1, 3)[0]
    a0 = np.asarray(axis, dtype=float).reshape(-1, 3)[0]
    outward = np.sum(normal * (centre - np.outer(centre @ a0, a0)), axis=1)
    if np.sum(outward < 0) > np.sum(outward > 0):
        faces = faces[:, [0, 2, 1]]
    return vertices, faces.astype(np.int64)


def revolve_mantle(data, rod, body, axis, origin, sides=24):
    """RenderData (softmech.viz.source) with the meridian rod `rod` drawn as its surface of
    revolution: the rod is replaced by a triangle mesh "<rod>_surface" swept about the axis
    (axis (3,) unit and origin (3,) [m]: lab frame at t = 0), which the rigid body `body`
    carries (None: fixed in the lab), at every world and sample. Unchanged if the rod's
    positions, or the body's positions and directors, were not recorded."""
    import dataclasses

    need = [f"{rod}.positions"] + ([] if body is None else [f"{body}.positions",
                                                            f"{body}.directors"])
    if not all(k in data.results for k in need):
        return data
    meridian = np.asarray(data.results[need[0]])                    # (B, n, m, 3)
    surfaces = []
    for b in range(meridian.shape[0]):
        n = meridian.shape[1]
        if body is None:
            a, o = np.tile(np.asarray(axis, float), (n, 1)), np.tile(np.asarray(origin, float), (n, 1))
        else:
            root_x = np.asarray(data.results[need[1]])[b, :, 0]
            root_Q = np.asarray(data.results[need[2]])[b, :, 0]
            origin_body = root_Q[0] @ (np.asarray(origin) - root_x[0])
            a, o = axis_track(root_x, root_Q, axis, origin_body)
        vertices, faces = surface_of_revolution(meridian[b], o, a, sides)
        surfaces.append(vertices)
    name = f"{rod}_surface"
    results = dict(data.results.items())
    results[f"{name}.positions"] = np.stack(surfaces)
    return dataclasses.replace(data, results=results,
                               rods=tuple(r for r in data.rods if r != rod),
                               meshes={**data.meshes, name: {"faces": faces}},
                               revolutions={k: v for k, v in data.revolutions.items() if k != rod})


def revolve_shells(data, sides=24):
    """RenderData with every axisymmetric shell's meridian that the data describe
    (data.revolutions: rod -> {body, axis, origin}, from the results file or the simulation)
    drawn as its surface of revolution (revolve_mantle); what `softmech render` and `softmech
    run`'s stills and videos draw."""
    for rod, rev in dict(data.revolutions).items():
        data = revolve_mantle(data, rod, rev["body"], rev["axis"], rev["origin"], sides)
    return data


def plot_turning(time, radius, rate, path, title):
    """Eq. 29 against time, as Renda et al. Fig. 17: turning radius r [-] (log scale; inf while
    swimming straight) and rate |w| [rad/s]; returns path."""
    fig, axes = figure(2)
    finite = np.isfinite(radius) & (radius > 0)
    axes[0].semilogy(time[finite], radius[finite], color="C0")
    axes[0].axhline(0.3, color="k", ls="--", lw=1, label="~0.3: Renda et al. Fig. 17")
    axes[0].set_ylabel("turning radius r [-]")
    axes[0].legend(loc="upper right")
    axes[0].set_title(f"{title}: turning radius and rate (Renda et al. 2018 eq. 29)")
    axes[1].plot(time, rate, color="C3")
    axes[1].set_ylabel("turning rate |w| [rad/s]")
    axes[1].set_xlabel("time t [s]")
    return save(fig, path, dpi=120)


def plot_power(time, data, steady_from, path, title):
    """Renda et al. Figs. 14-15 against time: eq. 26's P_out and eq. 27's P_in [mW] (data
    "power_out", "power_in", (B, n)) with the steady window from `steady_from` [s] shaded, and
    the force along the axis that the arms and the mantle exert on the root [N]
    ("root_load_arms", "root_load_mantle"); returns path."""
    fig, axes = figure(2)
    axes[0].plot(time, 1e3 * data["power_in"][0], color="C3", label="P_in (actuation, eq. 27)")
    axes[0].plot(time, 1e3 * data["power_out"][0], color="C0", label="P_out (drag, eq. 26)")
    axes[0].axvspan(steady_from, time[-1], color="0.9", label="steady window (efficiency)")
    axes[0].set_ylabel("power [mW]")
    axes[0].legend(loc="upper left")
    axes[0].set_title(f"{title}: power budget and loads on the root (Renda et al. Figs. 14-15)")
    axes[1].plot(time, data["root_load_arms"][0], color="C2", label="arms (joints)")
    axes[1].plot(time, data["root_load_mantle"][0], color="C1", label="mantle")
    axes[1].axhline(0.0, color="k", lw=0.5)
    axes[1].set_ylabel("force on the root along the axis [N]")
    axes[1].set_xlabel("time t [s]")
    axes[1].legend(loc="upper left")
    return save(fig, path, dpi=120)
