"""The three kinds of data of a compiled scene, kept apart (docs/architecture.md):

* Model (read-only during a run): the bodies -- counts, connectivity, rest geometry, materials,
  inertia -- in `RodBodies`, plus each term's own packed arrays (its argument tuple, defined
  beside its kernel in softmech.kernels). Per-world values have one lane per world.
* State (what restarts a run bit for bit, nothing derived): `State`, plus the clock
  (time origin, steps taken) kept by softmech.simulation.Simulation.
* Workspace (scratch and accumulators, allocated once per compiled scene): `Workspace` holds
  what several terms and the integrator share -- the force and couple accumulators and the
  current element lengths; a term's private scratch lives in its own argument tuple.

Block layout (the engine's internal order; user-facing shapes (B, n, ...) are converted at the
boundary by softmech.packing): worlds are grouped into blocks of W lanes, each block advanced by
one thread. Inside a block every per-node / per-element quantity is stored flat as
``a[component, i * W + lane]``, so element-wise passes are one contiguous loop over
``k = i * W + lane`` (vectorized across elements when W == 1 and across worlds when W > 1), and
neighbours sit at ``k +- W``. Leading axis: n_blocks.

Several rods are concatenated: rod r owns n_elems[r] + 1 node slots from rod_node_off[r],
n_elems[r] + closed[r] element slots from rod_elem_off[r] and n_elems[r] - 1 + closed[r] Voronoi
slots from rod_vor_off[r] (offsets in units of W lanes). A closed rod's last node slot and last
element slot are ghosts: copies of node 0 and element 0 refreshed after every drift and kick, so
the element and Voronoi passes need no wrap-around indexing.

Rigid bodies (softmech.bodies.rigid_body) are a second body kind with arrays of their own
(RigidBodies, and the rb_ fields of State and Workspace), one slot per body in the same layout.

Discrete elastic rods (softmech.bodies.der_rod, Bergou et al. 2008) are a third kind, the
der_ fields (DerBodies, State, Workspace): nodes with positions and velocities shaped like the
rods', one twist angle and twist rate per edge, and each edge's reference frame (first
director a1 and the tangent it was last transported to) and each bending-twisting spring's
reference twist, which DER updates by time-parallel transport after every drift
(softmech.kernels.der_motion) and which are therefore state, not derived quantities.

Field names say where a value lives: rod_ (per rod), node_ (per node slot), elem_ (per element
slot), vor_ (per Voronoi slot, i.e. interior node), ghost_ (ghost-slot tables), rb_ (per rigid
body), der_ (discrete elastic rods: der_node_ per node, der_edge_ per edge, der_spring_ per
bending-twisting spring).
"""
from collections import namedtuple

RodBodies = namedtuple("RodBodies", [
    # topology, shape (n_rods,) int64, shared by all blocks
    "rod_node_off", "rod_elem_off", "rod_vor_off", "rod_n_elems", "rod_closed",
    # constitutive law per rod, (n_rods, 4) float64: [stretch_current (0/1): n /= e,
    # bend_current (0/1): m /= eps^3, exact_log_jacobian (0/1), viscous (0/1): Kelvin-Voigt on]
    "rod_law",
    # per node slot, (n_blocks, n_nodes*W) or (n_blocks, 3, n_nodes*W)
    "node_mass",          # m [kg]
    "node_inv_mass",      # 1/m [1/kg]
    "node_body_acc",      # body acceleration field (gravity) [m/s^2], (n_blocks, 3, n_nodes*W)
    # per element slot
    "elem_rest_len",      # l^ [m]
    "elem_inv_rest_len",  # [1/m]
    "elem_J",             # mass second moment rho I l^ [kg m^2], (n_blocks, 3, n_elems*W)
    "elem_inv_J",         # [1/(kg m^2)]
    "elem_S",             # shear/stretch stiffness diag (alpha G A, alpha G A, E A) [N]
    "elem_rest_sigma",    # rest shear/stretch strain [-], (n_blocks, 3, n_elems*W)
    "elem_kv_tau",        # Kelvin-Voigt retardation time [s]
    "elem_radius",        # cross-section radius [m]
    # per Voronoi slot (interior node)
    "vor_rest_len",       # D^ [m]
    "vor_inv_rest_len",   # [1/m]
    "vor_B",              # bend/twist stiffness diag (E I1, E I2, G I3) [N m^2]
    "vor_rest_kappa",     # rest curvature [1/m], (n_blocks, 3, n_vor*W)
    "vor_kv_tau",         # [s]
    # ghost slots of closed rods: node slot <- node slot, element slot <- element slot, (n_ghosts,)
    "ghost_node", "ghost_node_src", "ghost_elem", "ghost_elem_src",
])
"""Model of the Cosserat rod body kind, block layout."""

RigidBodies = namedtuple("RigidBodies", [
    # per rigid-body slot (one slot per body and lane), (n_blocks, n_rb*W) or (n_blocks, 3, n_rb*W)
    "rb_inv_mass",        # 1/m [1/kg] (0 for a fixed body)
    "rb_body_acc",        # body acceleration field (gravity) [m/s^2] (0 for a fixed body)
    "rb_J",               # principal moments of inertia [kg m^2]
    "rb_inv_J",           # [1/(kg m^2)] (0 for a fixed body)
])
"""Model of the rigid-body kind (softmech.bodies.rigid_body), block layout: the engine's frame of
a body is its principal frame, so J is diagonal."""

DerBodies = namedtuple("DerBodies", [
    # per node slot of the discrete rods, (n_blocks, n*W) or (n_blocks, 3, n*W)
    "der_node_inv_mass",    # 1/m [1/kg] (lumped: half of each adjacent edge's rho A l^)
    "der_body_acc",         # body acceleration field (gravity) [m/s^2], (n_blocks, 3, n*W)
    # per edge slot
    "der_edge_inv_inertia",  # 1/I [1/(kg m^2)] of the edge's twist, I = rho l^ (I1 + I2)
                             # (rho A l^ r^2 / 2 for a solid circle), (n_blocks, 1, m*W)
])
"""Model of the discrete elastic rod kind (softmech.bodies.der_rod), block layout. The elastic
constants and topology are the elasticity term's own arrays
(softmech.kernels.der_kind.DerElasticArgs)."""

State = namedtuple("State", [
    "x",  # node positions [m], (n_blocks, 3, n_nodes*W)
    "v",  # node velocities [m/s]
    "Q",  # element directors, rows d1, d2, d3, row-major (n_blocks, 9, n_elems*W)
    "w",  # element angular velocities in the local frame [rad/s], (n_blocks, 3, n_elems*W)
    "rb_x",  # rigid bodies' centres of mass [m], (n_blocks, 3, n_rb*W)
    "rb_v",  # [m/s]
    "rb_Q",  # principal frames, rows d1, d2, d3 (n_blocks, 9, n_rb*W)
    "rb_w",  # angular velocities in the principal frame [rad/s], (n_blocks, 3, n_rb*W)
    "der_x",  # discrete rods' node positions [m], (n_blocks, 3, n_der_nodes*W)
    "der_v",  # [m/s]
    "der_theta",  # edge twist angles [rad], (n_blocks, 1, n_der_edges*W)
    "der_w",  # edge twist rates [rad/s], (n_blocks, 1, n_der_edges*W)
    "der_a1",  # first reference director of each edge [-], (n_blocks, 3, n_der_edges*W)
    "der_tangent",  # unit tangent a1 was last transported to [-], (n_blocks, 3, n_der_edges*W)
    "der_ref",  # reference twist of each spring [rad], (n_blocks, 1, n_der_springs*W)
])
"""State of the rods and rigid bodies, block layout (with the clock, all a run needs to continue
bit for bit)."""

Workspace = namedtuple("Workspace", [
    "node_force",   # force pass: forces [N]; after the integrator's inertia: accelerations
                    # [m/s^2], (n_blocks, 3, n_nodes*W)
    "elem_couple",  # local couples [N m]; then angular accelerations [rad/s^2], (n_blocks, 3, n_elems*W)
    "elem_len",     # current element length l [m], (n_blocks, n_elems*W)
    "rotation_violations",  # drifts that rotated a frame by > 1 rad, per block, (n_blocks,) int64
    "rb_force",     # rigid bodies: force [N]; after the inertia: acceleration [m/s^2], (n_blocks, 3, n_rb*W)
    "rb_torque",    # principal-frame torque [N m]; then angular acceleration [rad/s^2]
    "der_force",    # discrete rods: node forces [N]; then accelerations [m/s^2], (n_blocks, 3, n*W)
    "der_torque",   # twist moments -dE/dtheta [N m]; then twist accelerations [rad/s^2],
                    # (n_blocks, 1, m*W)
    "der_x_base",   # node positions [m] and velocities [m/s] at the start of the step
    "der_v_base",   # implicit Euler is solving (its base state: the last accepted step's
                    # end), (n_blocks, 3, n*W)
    "der_implicit",  # (1,) int64: 1 when implicit Euler steps the engine (der_x_base and
                     # der_v_base are then its base); 0 under the explicit schemes (a term
                     # reads der_x, der_v there)
])
"""Accumulators and scratch shared by the terms and the integrator, block layout."""


def pick(args_type, *sources, **own):
    """An argument tuple of type `args_type` (a namedtuple of arrays): each field from `own` if
    given there, else from the first source (namedtuple) that has it. Raises if one is missing."""
    values = {}
    for field in args_type._fields:
        if field in own:
            values[field] = own[field]
            continue
        for src in sources:
            if field in src._fields:
                values[field] = getattr(src, field)
                break
        else:
            raise ValueError(f"{args_type.__name__}.{field}: no such array in the model, state "
                             f"or workspace, and not given by the term")
    unknown = set(own) - set(args_type._fields)
    if unknown:
        raise ValueError(f"{args_type.__name__} has no field(s) {sorted(unknown)}")
    return args_type(**values)
