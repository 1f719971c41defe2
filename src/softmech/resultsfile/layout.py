"""The HDF5 results layout (format "softmech-results", version 2): names, units and chunking.

The layout is documented in docs/results_files.md; any HDF5 reader can open the files:

    /                   attrs format, format_version, softmech_version, scene, created, complete,
                        dt [s], duration [s], scheme, worlds
    /scene_toml         scalar UTF-8 string: the scenario file the run used ("" if unknown)
    /settings_json      scalar string: the run settings as JSON
    /time               (n,) float64 [s], resizable along axis 0
    /rods/<rod>         attrs n_nodes, n_elems, closed; radius (B, n_elems) [m],
                        rest_lengths (n_elems,) [m], and time series <field> (B, n, ...)
    /bodies/<body>      a rigid body (version 2): attrs shape, fixed; mass [kg], inertia (3, 3)
                        [kg m^2], principal_axes (3, 3), its sizes (radius, length, lengths [m]),
                        a general body's mesh (vertices (n, 3) [m], faces (m, 3)), and time
                        series <field> (B, n, ...)
    /joints/<joint>     a joint (version 2): attrs kind, a_body, a_node, b_body, b_node;
                        a_point, b_point (3,) [m]
    /recorders/<name>   user-recorded time series (B, n, ...)
    /derived/<name>     optional: quantities derived after the run (reports of `softmech run`)
    /checkpoint         attrs time_origin [s], steps, n_samples; <body>/<state field> (B, ...)

Version 1 (no /bodies, /joints) is read as before: its files are version 2 files of a scene of
rods only.
"""
import re

import numpy as np

FORMAT = "softmech-results"
FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)
"""Versions this softmech reads (and resumes): 1 had rods only."""

UNITS = {
    "time": "s", "positions": "m", "velocities": "m/s", "directors": "1",
    "angular_velocities": "rad/s (local frame; a discrete rod's or shell's angle rates: rad/s)",
    "angles": "rad", "twist": "rad", "twist_rates": "rad/s", "reference_a1": "1",
    "reference_tangent": "1", "reference_twist": "rad", "com": "m", "com_velocity": "m/s",
    "translational_energy": "J", "rotational_energy": "J", "bending_energy": "J",
    "twisting_energy": "J", "shear_energy": "J", "stretch_energy": "J", "total_energy": "J",
    "linear_momentum": "kg m/s", "angular_momentum": "kg m^2/s (about the origin)",
    "contact_force": "N", "rod_contact_force": "N", "radius": "m", "rest_lengths": "m",
    "mass": "kg", "inertia": "kg m^2 (about the centre of mass, body frame)",
    "principal_axes": "1", "length": "m", "lengths": "m", "vertices": "m (body frame)",
    "faces": "1", "edges": "1", "thickness": "m", "a_point": "m (body frame)", "b_point": "m (body frame)",
}
"""Units of every built-in field (the `units` attribute of its dataset)."""

DERIVED_UNITS = {
    "averaging_window": "s", "mean_forward_speed": "m/s", "mean_lateral_speed": "m/s",
    "travel_forward_speed": "m/s", "travel_lateral_speed": "m/s", "travel_heading": "deg",
    "arc_length": "m", "analytic_arc_length": "m", "timoshenko_deflection": "m",
    "euler_bernoulli_deflection": "m", "tip_deflection": "m",
    "tip_drift": "1",
    "self_gap": "1 (closest centrelines / 2 r)", "writhe": "1",
    "net_displacement": "m", "forward_displacement": "m", "mean_speed": "m/s",
    "flexion_angle": "deg", "biceps_section": "m^2", "isometric_force": "1 (F_set / F_max)",
    "isometric_eta": "1 (L / L0)", "isometric_eta_grid": "1 (L / L0)",
    "isometric_force_curve": "1 (F / F_max)", "walker_frequency": "Hz", "walker_speed": "m/s",
    "walker_displacement": "m",
    "surge_velocity": "m/s", "mean_surge_velocity": "m/s", "mantle_radius": "m",
    "cavity_volume": "m^3", "heading_change": "deg",
    "turning_radius": "1 (r / L, Renda eq. 29)", "turning_rate": "rad/s",
}
"""Units of the quantities that `softmech run` derives into /derived (softmech.commands.run's
reports); another derived quantity's units are given to ResultsWriter.write_derived."""

CHECKPOINT = "checkpoint"
CHECKPOINT_TMP = "checkpoint_tmp"
"""A new checkpoint is written under CHECKPOINT_TMP, then renamed: a kill while writing it leaves
the previous checkpoint intact."""

CHUNK_BYTES = 1 << 18
"""Target size of a dataset chunk (256 KiB): large enough for gzip, small enough that appending
a few samples rewrites little."""

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def valid_name(field, name):
    """A dataset name: letters, digits and underscores, not starting with a digit."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(f"{field} = {name!r} is not allowed: must be letters, digits and "
                         "underscores, not starting with a digit")
    return name


def series_path(key, bodies=(), shells=()):
    """Results key -> dataset path: 'time' -> /time, '<rod>.<field>' -> /rods/<rod>/<field>,
    '<body>.<field>' -> /bodies/<body>/<field> for the rigid bodies named in `bodies`,
    /shells/<shell>/<field> for the meshes (shells, rod networks) named in `shells`, a
    recorder name -> /recorders/<name>."""
    if key == "time":
        return "time"
    if "." in key:
        owner, field = key.split(".", 1)
        group = "bodies" if owner in bodies else "shells" if owner in shells else "rods"
        return f"{group}/{owner}/{field}"
    return f"recorders/{key}"


def series_key(path):
    """Inverse of series_path."""
    parts = path.strip("/").split("/")
    if parts == ["time"]:
        return "time"
    if parts[0] in ("rods", "bodies", "shells") and len(parts) == 3:
        return f"{parts[1]}.{parts[2]}"
    if parts[0] == "recorders" and len(parts) == 2:
        return parts[1]
    raise ValueError(f"dataset {path!r} is not a time series of the softmech-results layout")


def chunk_shape(sample_shape, worlds):
    """Chunk of a time series (B, n, *sample_shape): all worlds and as many samples as fit in
    CHUNK_BYTES (at least one); when one sample of all worlds is larger, fewer worlds."""
    per_world = 8 * int(np.prod(sample_shape, dtype=np.int64))
    per_sample = max(per_world * worlds, 1)
    if per_sample > CHUNK_BYTES:
        return (max(1, CHUNK_BYTES // max(per_world, 1)), 1) + tuple(sample_shape)
    return (worlds, max(1, CHUNK_BYTES // per_sample)) + tuple(sample_shape)


def is_series(ds):
    """True for a time series dataset (B, n, ...), resizable along the samples (axis 1), as
    opposed to a static one (a radius, a mesh) or a group."""
    return (getattr(ds, "maxshape", None) is not None and len(ds.maxshape) >= 2
            and ds.maxshape[1] is None)
