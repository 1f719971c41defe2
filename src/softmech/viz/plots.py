"""Plots of recorded time series against time, for any scene, from a Results-like dict: 'time'
(n,) [s] and '<rod>.<field>' arrays (B, n, ...) (sm.Results, or what
softmech.viz.source.read_results returns). One world is shown (`world`, default 0); every rod
and rigid body that recorded the field is drawn.

    plot_energies(results, "energy.png")          # kinetic and elastic energies [J]
    plot_com(results, "com.png")                  # centre of mass x, y, z [m]
    plot_velocities(results, "velocities.png")    # centre-of-mass velocity [m/s]
    plot_field(results, "snake.angular_momentum", "L.png")
    standard_plots(results, "output/")            # those of the three above that were recorded

Shapes: (B, n) is one line; (B, n, 3) three panels x, y, z; (B, n, m) (one value per node or
element) a space-time image; (B, n, m, 3) a space-time image of the vectors' length.
"""
import os

import numpy as np

from softmech import _checks
from softmech.viz.figures import figure, save

ENERGY_FIELDS = ("translational_energy", "rotational_energy", "bending_energy",
                 "twisting_energy", "shear_energy", "stretch_energy", "total_energy")

UNITS = {"positions": "m", "velocities": "m/s", "com": "m", "com_velocity": "m/s",
         "angular_velocities": "rad/s", "directors": "-", "linear_momentum": "kg m/s",
         "angular_momentum": "kg m^2/s", **{f: "J" for f in ENERGY_FIELDS}}
"""Units of the recorded fields (a file's own 'units' attributes take precedence)."""

COMPONENTS = ("x", "y", "z")


def rods_with(results, field):
    """{body: key} of the rods and rigid bodies that recorded `field`; field is 'name' (every
    body) or 'body.name' (that one). Raises ValueError listing what was recorded when none
    did."""
    if "." in field:
        keys = [field] if field in results else []
    else:
        keys = [k for k in results if k.endswith("." + field) and k.count(".") == 1]
    if not keys:
        recorded = sorted({k.split(".", 1)[1] for k in results if "." in k})
        raise ValueError(f"field = {field!r} is not allowed: it was not recorded; recorded "
                         f"fields: {recorded}")
    return {k.split(".", 1)[0]: k for k in keys}


def _series(results, key, world):
    """World `world` of results[key] (B, n, ...) -> (n, ...), checked against 'time'."""
    data = np.asarray(results[key])
    time = np.asarray(results["time"])
    if data.ndim < 2 or data.shape[1] != len(time):
        raise ValueError(f"{key} has shape {data.shape}, expected (worlds, {len(time)}, ...) "
                         "(a time series with the samples of 'time')")
    world = _checks.integer("world", world, 0)
    if world >= data.shape[0]:
        raise ValueError(f"world = {world} is not allowed: {key} has {data.shape[0]} worlds "
                         f"(0..{data.shape[0] - 1})")
    return data[world]


def _unit(results, field):
    name = field.split(".")[-1]
    return getattr(results, "units", {}).get(name) or UNITS.get(name, "")


def _label(name, unit):
    return f"{name} [{unit}]" if unit and unit != "-" else name


def plot_field(results, field, path, *, world=0, title=None):
    """Plot one recorded field of every body (rod or rigid body) that has it against time; writes `path` (PNG) and
    returns it. field: 'com' (all rods) or 'snake.com'. See the module docstring for shapes."""
    keys = rods_with(results, field)
    time = np.asarray(results["time"])
    series = {rod: _series(results, key, world) for rod, key in keys.items()}
    for rod, y in series.items():
        if y.ndim > 3 or (y.ndim == 3 and y.shape[-1] != 3):
            raise ValueError(f"field = {field!r} has samples of shape {y.shape[1:]} ({rod}): "
                             "plots take (), (3,), (m,) or (m, 3) per sample")
    shape = next(iter(series.values())).shape[1:]
    name = field.split(".")[-1]
    unit = _unit(results, field)
    title = title or f"{name} (world {world})"
    if shape not in ((), (3,)):
        return _space_time(series, time, name, unit, title, path)
    styles = line_styles(series)
    if shape == ():
        fig, ax = figure()
        for rod, y in series.items():
            ax.plot(time, y, **styles[rod])
        ax.set_ylabel(_label(name, unit))
        axes = [ax]
    else:
        fig, axes = figure(rows=3, size=(7.0, 6.5))
        for k, ax in enumerate(axes):
            for rod, y in series.items():
                ax.plot(time, y[:, k], **styles[rod])
            ax.set_ylabel(_label(f"{name} {COMPONENTS[k]}", unit))
            ax.grid(True, alpha=0.3)
    axes[-1].set_xlabel("time t [s]")
    axes[0].set_title(title)
    legend(fig, axes[0], len(series))
    return save(fig, path)


def line_styles(bodies):
    """{body: matplotlib line keywords} of the lines of `bodies` (names, in order): one colour
    per group of bodies (softmech.viz.groups.body_groups), labelled once with the group and
    its size ("muscle fibres (36)"), so a legend has at most MOST_GROUPS entries."""
    from softmech.viz.groups import body_groups, group_label

    styles = {}
    for k, (group, members) in enumerate(body_groups(list(bodies)).items()):
        for i, body in enumerate(members):
            styles[body] = dict(color=f"C{k % 10}", lw=1.5 if len(members) == 1 else 1.0,
                                label=group_label(group, members) if i == 0 else "_nolegend_")
    return styles


def legend(fig, ax, n_lines):
    """The legend of the labelled lines of `ax` (none for a single line): inside the axes
    where it covers the fewest points when it has at most 3 entries, else beside the axes, at
    the right of the figure, so that it never hides the data."""
    handles, labels = ax.get_legend_handles_labels()
    if n_lines < 2 or not handles:
        return None
    if len(handles) <= 3:
        return ax.legend(handles, labels, loc="best", fontsize="small")
    return fig.legend(handles, labels, loc="outside right upper", fontsize="small")


def _space_time(series, time, name, unit, title, path):
    """One image per rod: samples (time, vertical) x index along the rod (horizontal)."""
    fig, axes = figure(rows=len(series), size=(7.0, 2.2 + 2.6 * len(series)), sharex=False)
    axes = np.atleast_1d(axes)
    for ax, (rod, y) in zip(axes, series.items()):
        values = np.linalg.norm(y, axis=-1) if y.ndim == 3 else y
        mesh = ax.pcolormesh(np.arange(values.shape[1]), time, values, shading="nearest",
                             cmap="viridis")
        fig.colorbar(mesh, ax=ax, label=_label(("|%s|" if y.ndim == 3 else "%s") % name, unit))
        ax.set_ylabel("time t [s]")
        ax.set_xlabel(f"{rod}: index along the rod")
        ax.grid(False)
    axes[0].set_title(title)
    return save(fig, path)


def plot_energies(results, path, *, world=0, rod=None):
    """Energies [J] of one rod (default: the first that recorded total_energy) against time:
    total, bending + twisting, shear + stretch, kinetic (translation + rotation); the kinetic
    energy again on a log scale below. Writes `path` (PNG), returns it."""
    rods = rods_with(results, "total_energy")
    rod = rod or next(iter(rods))
    _checks.choice("rod", rod, rods)
    e = {f: _series(results, f"{rod}.{f}", world) for f in ENERGY_FIELDS
         if f"{rod}.{f}" in results}
    missing = [f for f in ENERGY_FIELDS if f not in e]
    if missing:
        raise ValueError(f"energies of {rod!r}: fields {missing} were not recorded (record "
                         f"all of {list(ENERGY_FIELDS)})")
    time = np.asarray(results["time"])
    kinetic = e["translational_energy"] + e["rotational_energy"]
    fig, (top, bottom) = figure(rows=2)
    top.plot(time, e["total_energy"], color="k", label="total (kinetic + elastic)")
    top.plot(time, e["bending_energy"] + e["twisting_energy"], color="C0",
             label="bending + twisting")
    top.plot(time, e["shear_energy"] + e["stretch_energy"], color="C1", label="shear + stretch")
    top.plot(time, kinetic, color="C2", label="kinetic (translation + rotation)")
    top.set_ylabel("energy [J]")
    top.set_title(f"Energies of {which_body(results, rod)}, world {world}\n"
                  "(work of external loads not included)", fontsize="medium")
    top.legend(loc="best", fontsize="small")
    positive = kinetic > 0
    if np.any(positive):
        bottom.semilogy(time[positive], kinetic[positive], color="C2")
    bottom.set_ylabel("kinetic energy [J]")
    bottom.set_xlabel("time t [s]")
    for ax in (top, bottom):
        ax.grid(True, alpha=0.3)
    return save(fig, path)


def which_body(results, body):
    """How a plot names one body among all those that recorded something in `results`:
    "radius (bones; 1 of 47 bodies)", "soft (1 of 2 bodies)", or just its name when it is the
    only one (its group: softmech.viz.groups.group_of)."""
    from softmech.viz.groups import group_of

    bodies = {k.split(".", 1)[0] for k in results if k.count(".") == 1}
    if len(bodies) < 2:
        return body
    group = group_of(body)
    role = f"{group}; " if group not in (body, f"{body}*") else ""
    return f"{body} ({role}1 of {len(bodies)} bodies)"


def plot_com(results, path, *, world=0):
    """Centre of mass x, y, z [m] of every rod and rigid body against time; writes `path`, returns it."""
    return plot_field(results, "com", path, world=world,
                      title=f"Centre of mass (world {world})")


def plot_velocities(results, path, *, world=0):
    """Centre-of-mass velocity x, y, z [m/s] of every rod and rigid body against time; writes `path`."""
    return plot_field(results, "com_velocity", path, world=world,
                      title=f"Centre-of-mass velocity (world {world})")


STANDARD = (("energy.png", "total_energy", plot_energies), ("com.png", "com", plot_com),
            ("velocities.png", "com_velocity", plot_velocities))
"""(file name, field it needs, function) of the standard plots."""


def standard_plots(results, output_dir, *, world=0):
    """The standard plots whose fields were recorded, written into output_dir; returns their
    paths. Raises ValueError when none of their fields was recorded."""
    done = []
    for name, field, plot in STANDARD:
        if any(k.endswith("." + field) for k in results):
            done.append(plot(results, os.path.join(output_dir, name), world=world))
    if not done:
        raise ValueError("none of the standard plots' fields (total_energy, com, com_velocity) "
                         "was recorded; plot a recorded field with plot_field")
    return done
