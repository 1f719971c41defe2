"""Built-in scenes of discrete shells, integrated implicitly (MAT-DiSMech's examples, ref. 004
section 7.1). The paper's parameter values were lost in the text extraction of
shared/references/004; the values below are ours and say so; the set-ups are the paper's.

manta: a diamond-shaped sheet (wingspan = length = 0.3 m, 3 mm thick, E = 1 MPa), neutrally
buoyant in water, flaps its wings by the rest angles of the hinges on its centre line, which
follow a sine (1 Hz, amplitude 0.6 rad) whose phase lags by pi from the leading to the trailing
edge (a wave running backwards), against the water's drag (ShellDrag, C_d = 1.5). It swims
forward (+y) at a nearly constant height, symmetric about its centre line.

parachute: a flat regular hexagon canopy (side 0.5 m, 0.2 mm thick, E = 10 MPa) with six rope
rods (discrete rods, 1 mm radius, E = 1 GPa) from its corners to a 0.3 kg payload (a point mass
at the ropes' shared end node), released from rest under gravity in air (ShellDrag, C_d = 1.0,
1.2 kg/m^3). The canopy bows into an inverted bowl and the fall slows towards a terminal speed.
"""
from dataclasses import dataclass

import numpy as np

import softmech as sm
from softmech import _checks
from softmech.bodies import meshes
from softmech.scenarios.templates import GenericInfo, generic_info

MANTA = {"span": 0.3, "length": 0.3, "thickness": 3e-3, "youngs_modulus": 1e6,
         "density": 1000.0, "fluid_density": 1000.0, "drag_coefficient": 1.5,
         "frequency": 1.0, "amplitude": 0.6, "phase_lag": np.pi, "ramp_time": 1.0,
         "n_elems": 12, "dt": 0.01, "duration": 5.0}
"""Parameters of `manta` (SI); n_elems: mesh divisions across the span."""

PARACHUTE = {"side": 0.5, "thickness": 2e-4, "canopy_modulus": 1e7, "density": 1200.0,
             "rope_length": 0.8, "rope_radius": 1e-3, "rope_modulus": 1e9, "payload": 0.3,
             "drag_coefficient": 1.0, "air_density": 1.2, "height": 10.0, "n_elems": 4,
             "rope_elems": 8, "dt": 5e-3, "duration": 2.0}
"""Parameters of `parachute` (SI); n_elems: rings of the hexagon's mesh."""


def diamond(span, length, n_x):
    """The manta's planform: a rhombus |x|/(span/2) + |y - length/2|/(length/2) <= 1, cut from a
    right-triangle grid with n_x (even) cells across the span whose left half mirrors its right
    half (a mesh symmetric about the centre line x = 0, which is a line of edges). Returns a
    TriangleMesh."""
    half = max(1, _checks.integer("n_elems", n_x, 2) // 2)
    right = meshes.rectangle(span / 2, length, half, pattern="right", n_y=2 * half)
    n = len(right.vertices)
    mirrored = right.vertices * [-1.0, 1.0, 1.0]
    vertices = np.concatenate([right.vertices, mirrored])
    # the mirrored triangles, turned back to counter-clockwise; nodes on x = 0 are shared
    on_axis = np.abs(right.vertices[:, 0]) < 1e-12
    index = np.where(on_axis, np.arange(n), np.arange(n) + n)
    triangles = np.concatenate([right.triangles, index[right.triangles][:, [0, 2, 1]]])
    c = vertices[triangles].mean(axis=1)
    inside = np.abs(c[:, 0]) / (span / 2) + np.abs(c[:, 1] - length / 2) / (length / 2) <= 1 + 1e-9
    used, triangles = np.unique(triangles[inside], return_inverse=True)
    return meshes.TriangleMesh(vertices[used], triangles.reshape(-1, 3))


def centre_hinges(shell, tolerance=1e-9):
    """Indices of the shell's hinges whose edge lies on the centre line x = 0."""
    x = shell.vertices[shell.hinges[:, :2], 0]
    return np.flatnonzero(np.all(np.abs(x) < tolerance, axis=1))


def build_manta(n_elems=MANTA["n_elems"], worlds=1, *, duration=None, dt=None):
    """The manta scene (module docstring); returns (scene, GenericInfo)."""
    p = MANTA
    duration = p["duration"] if duration is None else float(_checks.positive("duration", duration))
    dt = p["dt"] if dt is None else float(_checks.positive("dt", dt))
    scene = sm.Scene()
    manta = scene.add_shell(name="manta", mesh=diamond(p["span"], p["length"], n_elems),
                            thickness=p["thickness"], youngs_modulus=p["youngs_modulus"],
                            density=p["density"], poisson_ratio=0.5, bending="hinge")
    hinges = centre_hinges(manta)
    # phase lags linearly from 0 at the leading edge (y = length) to phase_lag at the trailing
    y = manta.vertices[manta.hinges[hinges, :2], 1].mean(axis=1)
    amplitude = np.zeros(len(manta.hinges))
    phase = np.zeros(len(manta.hinges))
    amplitude[hinges] = p["amplitude"]
    phase[hinges] = -p["phase_lag"] * (p["length"] - y) / p["length"]
    scene.add(sm.ParameterWave("manta.rest_angle", amplitude, p["frequency"], phase,
                               ramp_time=p["ramp_time"], name="flapping"))
    scene.add(sm.Gravity())
    scene.add(sm.Buoyancy(p["fluid_density"]))
    scene.add(sm.ShellDrag(manta, p["drag_coefficient"], p["fluid_density"], name="water_drag"))
    return scene, GenericInfo(rod="manta", worlds=worlds, dt=dt, duration=duration,
                              n_elems=len(manta.triangles))


def build_parachute(n_elems=PARACHUTE["n_elems"], worlds=1, *, duration=None, dt=None):
    """The parachute scene (module docstring); returns (scene, GenericInfo)."""
    p = PARACHUTE
    n = _checks.integer("n_elems", n_elems, 1)
    duration = p["duration"] if duration is None else float(_checks.positive("duration", duration))
    dt = p["dt"] if dt is None else float(_checks.positive("dt", dt))
    scene = sm.Scene()
    canopy = scene.add_shell(name="canopy", mesh=meshes.hexagon(p["side"], n,
                                                                center=(0, 0, p["height"])),
                             thickness=p["thickness"], youngs_modulus=p["canopy_modulus"],
                             density=p["density"], poisson_ratio=0.3, bending="hinge")
    corners = 1 + 3 * n * (n - 1) + n * np.arange(6)       # ring n, sector starts
    payload = np.array([0.0, 0.0, p["height"] - p["rope_length"]])
    for s, corner in enumerate(corners):
        top = canopy.vertices[corner]
        rope = scene.add_der_rod(name=f"rope{s}", centerline=np.linspace(top, payload,
                                                                         p["rope_elems"] + 1),
                                 radius=p["rope_radius"], density=p["density"],
                                 youngs_modulus=p["rope_modulus"])
        scene.add(sm.JoinNodes(canopy, int(corner), rope, 0, name=f"tie{s}"))
        if s:
            scene.add(sm.JoinNodes("rope0", p["rope_elems"], rope, p["rope_elems"],
                                   name=f"knot{s}"))
    scene.add(sm.PointMass("rope0", p["rope_elems"], p["payload"], name="payload"))
    scene.add(sm.Gravity())
    scene.add(sm.ShellDrag(canopy, p["drag_coefficient"], p["air_density"], name="air_drag"))
    return scene, GenericInfo(rod="canopy", worlds=worlds, dt=dt, duration=duration,
                              n_elems=len(canopy.triangles))


@dataclass(frozen=True)
class ParachuteInfo(GenericInfo):
    """GenericInfo of a parachute, with what its terminal speed needs: the mass that falls
    [kg] (every body and point mass), the drag area C_d A [m^2] of the flat canopy (every
    ShellDrag's coefficient times its shell's area), the fluid's density [kg/m^3] and the
    gravity [m/s^2]; payload: (discrete rod, node) of the payload (the first PointMass)."""
    falling_mass: float = 0.0
    drag_area: float = 0.0
    fluid_density: float = 0.0
    gravity: float = 0.0
    payload: tuple = ("rope0", 0)

    @property
    def terminal_speed(self):
        """Speed [m/s] at which the flat canopy's drag 1/2 rho C_d A v^2 carries the weight
        m g: sqrt(2 m g / (rho C_d A)) (a bowed canopy shows less area: it falls faster)."""
        return float(np.sqrt(2 * self.falling_mass * self.gravity
                             / (self.fluid_density * self.drag_area)))


def parachute_info(scene, run, report):
    """ParachuteInfo of a parachute scene (template "parachute"): [report] names the canopy
    (`rod`, default the first shell); the scene needs a ShellDrag, a Gravity and a PointMass
    (the payload)."""
    base = generic_info(scene, run, report)
    drags = [t for t in scene.terms if isinstance(t, sm.ShellDrag)]
    gravity = [t for t in scene.terms if isinstance(t, sm.Gravity)]
    payloads = [t for t in scene.terms if isinstance(t, sm.PointMass)]
    if not (drags and gravity and payloads):
        raise ValueError("template = 'parachute' is not allowed for this scene: it needs a "
                         "ShellDrag, a Gravity and a PointMass (the payload)")
    bodies = {b.name: b for b in scene.implicit_bodies}
    mass = sum(b.mass if hasattr(b, "tri_area") else float(np.sum(b.node_mass))
               for b in bodies.values()) + sum(t.mass for t in payloads)
    area = sum(t.drag_coefficient * float(bodies[t.implicit_body].tri_area.sum()) for t in drags)
    return ParachuteInfo(**vars(base), falling_mass=float(mass), drag_area=float(area),
                         fluid_density=drags[0].fluid_density,
                         gravity=float(np.linalg.norm(gravity[0].acceleration)),
                         payload=(payloads[0].implicit_body, payloads[0].node))
