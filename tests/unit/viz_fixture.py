"""A small HDF5 results file for the viz tests, written with plain h5py in the layout of
softmech results files (format_version 1) from a real short softmech run, so that these tests do
not depend on the results writer."""
import h5py
import numpy as np

import softmech as sm
from softmech.scenarios import SCENES

FIELDS = ("positions", "directors", "com", "com_velocity", "translational_energy",
          "rotational_energy", "bending_energy", "twisting_energy", "shear_energy",
          "stretch_energy", "total_energy")
UNITS = {"positions": "m", "directors": "1", "com": "m", "com_velocity": "m/s"}


def simulate_snake(worlds=2, n_elems=12, duration=0.3, every=0.02):
    """(results, radius {rod: (B, n_elems)}, sim) of a short snake run."""
    scene, info = SCENES["snake"].build(n_elems=n_elems, duration=duration)
    sim = scene.compile(worlds=worlds, dt=info.dt)
    out = sim.run(duration, record=sm.Every(seconds=every, fields=tuple(
        f"{info.rod}.{f}" for f in FIELDS)))
    return out, {r.name: sim.rod_params(r.name)["radius"] for r in sim.rods}, sim


def write_h5(path, results, radius, sim, scene="snake"):
    """Write results (sm.Results) to path following the layout of context.md."""
    with h5py.File(path, "w") as f:
        f.attrs.update(format="softmech-results", format_version=1, softmech_version="test",
                       scene=scene, created="2026-11-21T00:00:00Z", complete=True, dt=sim.dt,
                       duration=float(results["time"][-1]), scheme="verlet", worlds=sim.worlds)
        f["scene_toml"] = "# test"
        f["settings_json"] = "{}"
        f.create_dataset("time", data=results["time"], maxshape=(None,), chunks=True)
        for rod in sim.rods:
            g = f.create_group(f"rods/{rod.name}")
            g.attrs.update(n_nodes=rod.n_nodes, n_elems=rod.n_elems, closed=rod.closed)
            g["radius"] = np.broadcast_to(radius[rod.name], (sim.worlds, rod.n_elems))
            g["rest_lengths"] = rod.rest_lengths
            for key, value in results.items():
                if key.startswith(rod.name + "."):
                    name = key.split(".", 1)[1]
                    ds = g.create_dataset(name, data=value, chunks=True, compression="gzip",
                                          maxshape=(value.shape[0], None) + value.shape[2:])
                    ds.attrs["units"] = UNITS.get(name, "J")
    return path
