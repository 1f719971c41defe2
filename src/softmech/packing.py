"""Conversion between the user-facing shapes (B, n, ...) and the engine's block layout
(softmech.model), and the assembly of a compiled scene: the rods' model (RodBodies) and the
table of term kernels with their argument tuples (softmech.integrators.driver.Call).

Worlds are grouped in blocks of W lanes (one block per thread): W = 1 for a single world, else
W = min(8, ceil(B / n_threads)). Padding lanes of the last block replicate the last world and
are discarded on output.
"""
import numpy as np

from softmech.bodies.cosserat_rod import LAWS, SECTION_PARAMETERS, discrete_properties, voronoi_lengths
from softmech.bodies.rigid_body import to_engine_frame
from softmech.integrators.driver import STAGES, Call
from softmech.kernels.rod_motion import (ROD_MOTION, RodDriftArgs, RodGhostArgs, RodKickArgs,
                                         RodKickDriftArgs, RodMotionArgs)
from softmech.kernels.rigid_motion import (RIGID_MOTION, RigidClearArgs, RigidDriftArgs,
                                           RigidKickArgs, RigidKickDriftArgs, RigidMotionArgs,
                                           rigid_clear)
from softmech.model import RigidBodies, RodBodies, State, Workspace, pick
from softmech.der_packing import (DerSlots, der_joins, der_networks, der_parameters,
                                  initial_der_state, node_count, pack_der_bodies)
from softmech.shell_packing import shell_node_mass, shell_parameters
from softmech.fluid_mass import in_fluid
from softmech.kernels.der_motion import (DER_MOTION, DerDriftArgs, DerKickArgs,
                                         DerKickDriftArgs, DerMotionArgs)
from softmech.blocks import (MAX_LANES, Lanes, broadcast_worlds, from_blocks,  # noqa: F401
                             per_lane, to_blocks, writable_contiguous)


def add_element_ends(out, n0, ne, W, closed, first, second):
    """Add element forces to their nodes in the block layout: out (n_blocks, 3, slots) [N] gets
    first (n_blocks, 3, ne) on each element's first node and second on its second, the rod's
    nodes starting at slot n0, ne = n_elems * W element slots, W lanes; a closed rod's last
    element ends on node 0. The one scatter of the contact terms' node forces (diagnostics)."""
    out[:, :, n0:n0 + ne] += first
    out[:, :, n0 + W:n0 + W + ne - closed * W] += second[:, :, :ne - closed * W]
    if closed:
        out[:, :, n0:n0 + W] += second[:, :, ne - W:]


class Slots:
    """Where each rod's nodes, elements and Voronoi domains sit in the engine's arrays.

    A rod has n_elems + 1 node slots; an open rod n_elems element slots and n_elems - 1 Voronoi
    slots; a closed rod one ghost element slot more (n_elems + 1) and n_elems Voronoi slots. The
    ghosts (last node slot, last element slot of a closed rod) copy node 0 and element 0.
    """

    def __init__(self, rods):
        self.node, self.elem, self.vor = {}, {}, {}
        n = e = v = 0
        for r in rods:
            self.node[r.name], self.elem[r.name], self.vor[r.name] = n, e, v
            n += r.n_elems + 1
            e += r.n_elems + int(r.closed)
            v += r.n_vor
        self.n_nodes, self.n_elems, self.n_vor = n, e, v

    @staticmethod
    def with_ghost(rod, arr):
        """(B, n, ...) per-node or per-element array of a closed rod -> with a copy of entry 0
        appended (the ghost slot); open rods unchanged."""
        return np.concatenate([arr, arr[:, :1]], axis=1) if rod.closed else arr


class Assembly:
    """What the terms of a scene write while it is assembled (see terms.base.Term.contribute):
    body-level fields of every rod (user-shaped, (B, n, ...)) and the parts -- one per kind of
    compiled term, created on first use by `part(cls)` -- that collect the terms' contributions
    and pack them into their kernels' arrays."""

    def __init__(self, rods, rod_params, worlds, rigid_bodies=(), rigid_params=None,
                 der_rods=(), der_params=None, der_shells=(), der_shell_params=None):
        self.rods = rods
        self.der_rods = list(der_rods)
        """Discrete elastic rods (softmech.der_packing), with their per-world parameters
        (B, ...) in der_params and their body acceleration field (gravity) [m/s^2] per node
        (B, n_nodes, 3) in der_body_acc."""
        self.der_shells = list(der_shells)
        """Discrete shells on the kind (hinge bending: softmech.shell_packing), their natural
        hinge angles (B, n_hinges) in der_shell_params; their node fields below with the
        rods'."""
        self.der_shell_params = der_shell_params or {}
        self.der_shell_index = {s.name: s for s in self.der_shells}
        self.der_index = {r.name: r for r in self.der_rods}
        self.der_params = der_params or {}
        self.der_networks = []
        """The rod-shell joints' networks on the kind (softmech.der_packing.der_networks)."""
        self.der_joint_stiffness = {}
        """Per-world stiffness factors (B,) of the rod-shell joints' springs on the kind
        (sm.RodShellJoint), by parameter name "<joint>.stiffness"."""
        bodies = self.der_rods + self.der_shells
        self.der_body_acc = {r.name: np.zeros((worlds, node_count(r), 3)) for r in bodies}
        self.der_node_mass = {r.name: np.tile(r.node_mass, (worlds, 1)) for r in self.der_rods}
        self.der_node_mass.update({s.name: shell_node_mass(s, worlds) for s in self.der_shells})
        """Each discrete rod's node masses [kg], (B, n_nodes): the lumped masses of the rod and
        what sm.PointMass adds; the integrator's, the stability estimate's and the
        diagnostics' masses."""
        self.der_displaced_mass = {r.name: np.zeros((worlds, node_count(r))) for r in bodies}
        self.der_added_mass = {r.name: np.zeros((worlds, node_count(r))) for r in bodies}
        """Fluid displaced by each discrete rod's nodes and their added mass [kg] (B, n_nodes)
        (sm.Buoyancy, sm.AddedMass): the kick's mass becomes m + m_a and the body acceleration
        g (m - m_f) / (m + m_a) (softmech.fluid_mass.in_fluid)."""
        self.rigid_bodies = list(rigid_bodies)
        self.rigid_index = {b.name: i for i, b in enumerate(self.rigid_bodies)}
        """Slot of each rigid body (its order in the scene)."""
        self.rigid_params = rigid_params or {}
        """Per-world parameters of each rigid body (mass (B,), inertia (B, 3))."""
        self.rigid_body_acc = {b.name: np.zeros((worlds, 3)) for b in self.rigid_bodies}
        """Body acceleration field (gravity) [m/s^2] of each rigid body, (B, 3)."""
        self.worlds = worlds
        self._rods = {r.name: r for r in rods}
        self._rod_params = rod_params
        self.all_rod_params = rod_params
        slots = Slots(rods)
        self.node_offset, self.elem_offset = slots.node, slots.elem
        self.rod_index = {r.name: i for i, r in enumerate(rods)}
        B = worlds
        self.body_acc = {r.name: np.zeros((B, r.n_nodes, 3)) for r in rods}
        self.kv_tau = {r.name: np.zeros((B, r.n_elems)) for r in rods}
        self.axial_tau = {r.name: np.zeros((B, r.n_elems)) for r in rods}
        """Retardation time [s] of a viscosity on the stretch alone, per element (an
        ActiveMuscle's strain-rate damping over the rod's modulus; the time-step limit)."""
        self.axial_modulus = {r.name: np.zeros((B, r.n_elems)) for r in rods}
        """Modulus [Pa] added to the stretch by a term, per element (an ActiveMuscle's
        force-length slope times its maximal stress; the time-step limit)."""
        self.damping_rate = {r.name: np.zeros((B, r.n_elems)) for r in rods}
        self.rotational_damping_rate = {r.name: np.zeros((B, r.n_elems, 3)) for r in rods}
        """Linear damping per unit inertia [1/s] of each element's translation (gamma / (rho A))
        and rotation about d1, d2, d3 (gamma_r l^ / J_a) (softmech.terms.damping; the time-step
        limit: an explicit dashpot c on an inertia m needs dt < 2 m / c)."""
        self.anchor_stiffness = {r.name: np.zeros((B, r.n_elems, 3)) for r in rods}
        """Stiffness K / D [N m] of elastic frame anchors per element (the time-step limit)."""
        self.discrete = {r.name: discrete_properties(r.rest_lengths, rod_params[r.name], r.closed)
                         for r in rods}
        """Derived rod quantities (masses, inertia, stiffnesses; bodies.cosserat_rod.
        discrete_properties), computed once here for packing, the time-step limit and the
        diagnostics."""
        self.added_mass = {r.name: np.zeros((B, r.n_nodes)) for r in rods}
        self.displaced_mass = {r.name: np.zeros((B, r.n_nodes)) for r in rods}
        self.rigid_added_mass = {b.name: np.zeros(worlds) for b in self.rigid_bodies}
        self.rigid_displaced_mass = {b.name: np.zeros(worlds) for b in self.rigid_bodies}
        """Fluid terms (softmech.terms.fluids): added mass m_a and displaced fluid mass m_f [kg]
        per node (B, n_nodes) or rigid body (B,). Inertia belongs to the integrator: the packed
        mass is m + m_a and the body acceleration g (m - m_f) / (m + m_a)
        (softmech.fluid_mass.in_fluid)."""
        self.time_step_limits = []
        """Stability limits [s], (B,) each, of stiff terms (joints, contacts): dt below each."""
        self.parts = {}

    def part(self, cls):
        """The scene's part of type cls (a terms.base.Part subclass), created on first use."""
        if cls not in self.parts:
            self.parts[cls] = cls(self)
        return self.parts[cls]

    def rod(self, name, owner):
        if name not in self._rods:
            raise ValueError(f"{owner}.rod = {name!r} is not allowed: no such rod in the scene "
                             f"(rods: {sorted(self._rods)})")
        return self._rods[name]

    def rod_params(self, name):
        return self._rod_params[name]

    def rigid_body(self, name, owner):
        """The rigid body `name` (softmech.bodies.rigid_body.RigidBody); raises naming `owner`."""
        if name not in self.rigid_index:
            raise ValueError(f"{owner}.body = {name!r} is not allowed: no such rigid body in the "
                             f"scene (bodies: {sorted(self.rigid_index)})")
        return self.rigid_bodies[self.rigid_index[name]]


def point_table(entries, lanes, comps):
    """(index, per-world vector (B or 1, comps)[, profile (3,)]) entries -> (index (n,) int64,
    vectors (n_blocks, n, comps, W), profiles (n, 3)): the layout of point loads and constraints."""
    idx = np.array([e[0] for e in entries], dtype=np.int64)
    if not entries:
        return idx, np.zeros((lanes.n_blocks, 0, comps, lanes.W)), np.zeros((0, 3))
    vec = np.stack([per_lane(np.reshape(e[1], (-1, comps)), lanes) for e in entries], axis=1)
    prof = np.stack([e[-1] for e in entries]) if len(entries[0]) > 2 else np.zeros((len(entries), 3))
    return idx, vec, prof


def lane_table(rows, lanes, width):
    """List of (B, <= width) per-world rows -> (n_blocks, len(rows), width, W), zero padded."""
    out = np.zeros((lanes.n_blocks, len(rows), width, lanes.W))
    for i, row in enumerate(rows):
        padded = np.zeros((lanes.worlds, width))
        padded[:, :row.shape[1]] = row
        out[:, i] = per_lane(padded, lanes)
    return out


def scene_parameters(bodies, terms):
    """The per-world parameters of a scene as built, {'<owner>.<field>': array (1, ...)}: every
    body's (rods, rigid bodies), then every term's (the Simulation's initial `params`)."""
    params = {}
    for owner in list(bodies) + list(terms):
        params.update({f"{owner.name}.{k}": v for k, v in owner.parameters().items()})
    return params


def assemble_terms(rods, terms, params, worlds, rigid_bodies=(), der_rods=(), der_shells=()):
    """Validate per-world parameters and let every term write its contributions: returns the
    Assembly (rod parameters broadcast to B worlds in `all_rod_params`; the discrete rods' in
    `der_params`)."""
    B = worlds
    rod_params = {}
    for r in rods:
        shapes = {"radius": (r.n_elems,), "density": (r.n_elems,), "youngs_modulus": (r.n_elems,),
                  "shear_modulus": (r.n_elems,), "shear_coefficient": (r.n_elems,),
                  "rest_curvature": (r.n_vor, 3), "rest_strain": (r.n_elems, 3)}
        if r.section is not None:
            shapes.update({"area": (r.n_elems,), "second_moments": (r.n_elems, 2),
                           "torsion_constant": (r.n_elems,)})
        rp = {k: broadcast_worlds(f"{r.name}.{k}", params[f"{r.name}.{k}"], B, s) for k, s in shapes.items()}
        positive = ("radius", "density", "youngs_modulus", "shear_modulus", "shear_coefficient")
        for k in positive + (SECTION_PARAMETERS if r.section is not None else ()):
            if np.any(rp[k] <= 0):
                raise ValueError(f"params['{r.name}.{k}'] has entries <= 0 (must be > 0)")
        rod_params[r.name] = rp
    rigid_params = {}
    for b in rigid_bodies:
        mass = broadcast_worlds(f"{b.name}.mass", params[f"{b.name}.mass"], B, ())
        inertia = broadcast_worlds(f"{b.name}.inertia", params[f"{b.name}.inertia"], B, (3,))
        if np.any(mass <= 0) or np.any(inertia <= 0):
            raise ValueError(f"params['{b.name}.mass'] and params['{b.name}.inertia'] must be > 0 "
                             f"(an inertia that is not positive definite)")
        rigid_params[b.name] = {"mass": mass, "inertia": inertia}
    ctx = Assembly(rods, rod_params, B, rigid_bodies, rigid_params, der_rods,
                   der_parameters(der_rods, params, B), der_shells,
                   shell_parameters(der_shells, params, B))
    ctx.der_joins = der_joins(terms, list(der_rods) + list(der_shells))
    ctx.der_networks = der_networks(terms, list(der_rods) + list(der_shells))
    for term in sorted(terms, key=lambda t: not t.modifies_bodies):    # stable: scene order
        p = {k: broadcast_worlds(f"{term.name}.{k}", params[f"{term.name}.{k}"], B,
                                 np.shape(v)[1:]) for k, v in term.parameters().items()}
        term.contribute(ctx, p)
    return ctx


class Engine:
    """A compiled scene's arrays: the rods' model (`bodies`, RodBodies), the State and the
    Workspace, and the table of term kernels (`calls`, softmech.integrators.driver.Call, sorted
    by stage and order). `kinds` are the scene's body kinds with their motion kernels
    (integrators.driver.BodyKind) and `motions` their arrays (`motion`: the rods'
    RodMotionArgs); `T` is the tuple handed to the generated step: (motions, args of call 0,
    args of call 1, ...)."""

    def __init__(self, rods, ctx, lanes, state, workspace, history=None):
        self.rods, self.ctx, self.lanes = rods, ctx, lanes
        self.histories = {} if history is None else history
        """The terms' history (history()): {key: (n_blocks, rows, n*W)}, owned by the
        simulation so that it outlives this engine (a parameter change rebuilds it)."""
        self.slots = Slots(rods)
        self.scratch = []
        """Scratch arrays the terms allocated through zeros() (the term contract tests fill them
        with NaN: a kernel must write its scratch before reading it)."""
        self.sampled = []
        """Rest shapes given as Python functions of time (softmech.function_schedules.
        SampledSchedule): the simulation samples them before each chunk of steps."""
        self.sampled_clock = None
        """The simulation's clock (time origin, steps) when they were last sampled."""
        self.packed_params = {}
        """{"<body>.<name>": softmech.der_packing.PackedParam}: the discrete kind's per-world
        parameters that its kernels read from packed tables (natural curvatures, twists and
        angles), filled as the body-kind calls are built, for the parts that change them."""
        self.state, self.workspace = state, workspace
        self.bodies = pack_rod_bodies(rods, ctx, lanes)
        self.rigid = pack_rigid_bodies(ctx, lanes)
        self.der_rods = ctx.der_rods
        self.der_slots = DerSlots(self.der_rods, ctx.der_joins, ctx.der_shells, ctx.der_networks)
        self.der = pack_der_bodies(ctx, lanes, self.der_slots)
        from softmech.terms.elasticity import RodElasticity  # every rod has it: a body-kind term
        calls = list(RodElasticity(ctx).calls(self)) if rods else []
        if self.der_rods:                       # every discrete rod has it: a body-kind term
            from softmech.terms.der_kind import DerElasticity
            calls.extend(DerElasticity(ctx).calls(self))
        if ctx.der_shells:                      # and every shell of the kind
            from softmech.terms.der_shell import shell_calls
            calls.extend(shell_calls(self))
        if ctx.rigid_bodies:  # clears the rigid bodies' accumulators before every force pass
            calls.append(Call("forces", -1, rigid_clear, self.args(RigidClearArgs), "rigid_clear"))
        for part in ctx.parts.values():
            calls.extend(part.calls(self))
        # stable sort: equal orders keep the order in which the parts were first used
        self.calls = sorted(calls, key=lambda c: (STAGES.index(c.stage), c.order))
        self.kinds, motions = [], []
        """(body kind, with ghost slots) of every kind in the scene: rods, then rigid bodies."""
        if rods:
            self.kinds.append((ROD_MOTION, any(r.closed for r in rods)))
            motions.append(RodMotionArgs(
                drift=self.args(RodDriftArgs), kick=self.args(RodKickArgs),
                kick_drift=self.args(RodKickDriftArgs), ghosts=self.args(RodGhostArgs)))
        if ctx.rigid_bodies:
            self.kinds.append((RIGID_MOTION, False))
            motions.append(RigidMotionArgs(drift=self.args(RigidDriftArgs),
                                           kick=self.args(RigidKickArgs),
                                           kick_drift=self.args(RigidKickDriftArgs)))
        if self.der_rods or ctx.der_shells:
            self.kinds.append((DER_MOTION, False))
            motions.append(DerMotionArgs(drift=self.args(DerDriftArgs), kick=self.args(DerKickArgs),
                                         kick_drift=self.args(DerKickDriftArgs)))
        self.motions = tuple(motions)
        """The body kinds' motion tuples, in the order of `kinds`: T[0]."""
        self.T = (self.motions,) + tuple(c.args for c in self.calls)

    def arg_tuples(self):
        """Every argument tuple of the step, flat: the integrator's (drift, kick, kick_drift,
        ghosts), then each call's."""
        return [*(a for m in self.motions for a in m), *(c.args for c in self.calls)]

    def call_args(self, name):
        """Argument tuple of the call named `name` (e.g. "ground_contacts")."""
        found = [c.args for c in self.calls if c.name == name]
        if not found:
            raise ValueError(f"no call named {name!r} in this scene (calls: {[c.name for c in self.calls]})")
        return found[0]

    def args(self, args_type, **own):
        """A kernel's argument tuple: its own arrays, the rest from the bodies, state and workspace."""
        return writable_contiguous(pick(args_type, self.state, self.bodies, self.rigid,
                                        self.der, self.workspace, **own))

    @property
    def der_initial(self):
        """The discrete rods' state as built, {State field: block array} (the values sm.FixNodes
        holds)."""
        return initial_der_state(self.der_rods, self.lanes, self.der_slots, self.ctx.der_shells)

    def elem_table(self, entries, width):
        """Per-entry values on the element slots of its rod, zero elsewhere: entries of (rod
        index, values (B, n_elems or 1, width)) -> (n_blocks, len(entries), width,
        n_elem_slots*W), so a term's element loops read them flat (vectorizable for any W)."""
        lanes, slots = self.lanes, self.slots
        out = np.zeros((lanes.n_blocks, len(entries), width, slots.n_elems * lanes.W))
        for i, (rod_index, values) in enumerate(entries):
            rod = self.rods[rod_index]
            per_elem = np.zeros((lanes.worlds, slots.n_elems, width))
            e0 = slots.elem[rod.name]
            per_elem[:, e0:e0 + rod.n_elems] = values
            out[:, i] = to_blocks(per_elem, lanes)
        return out

    def elem_layers(self, entries, width):
        """elem_table for many entries: entries of (rod index, values (B, n_elems or 1, width))
        -> (layer (n,) int64, table (n_blocks, n_layers, width, n_elem_slots*W)), entry i's
        values on its rod's element slots of table[:, layer[i]]. Entries on different rods share
        a layer (their slots do not overlap), so n_layers is the largest number of entries on
        one rod (1 with one term per rod) and the table grows with the elements, not with
        entries x elements (elem_table: 3,000 drag terms on 6,000 elements, 430 MB and 1.1 s)."""
        lanes, slots = self.lanes, self.slots
        per_rod, layer = {}, np.zeros(len(entries), dtype=np.int64)
        for i, (rod_index, _) in enumerate(entries):
            layer[i] = per_rod.get(rod_index, 0)
            per_rod[rod_index] = layer[i] + 1
        n_layers = max(per_rod.values(), default=0)
        W = lanes.W
        out = np.zeros((lanes.n_blocks, n_layers, width, slots.n_elems * W))
        for i, (rod_index, values) in enumerate(entries):
            rod = self.rods[rod_index]
            e0 = slots.elem[rod.name]
            values = np.broadcast_to(values, (lanes.worlds, rod.n_elems, width))
            out[:, layer[i], :, e0 * W:(e0 + rod.n_elems) * W] = to_blocks(values, lanes)
        return layer, out

    def history(self, key, rows, n):
        """A term's history array (n_blocks, rows, n*W), zero the first time: state that is
        not a body's, such as friction anchors (softmech.kernels.sticking), which the
        kernels update during the run. The same array for the same key and shape in every
        engine of a simulation; Simulation.history() saves it with the state."""
        shape = (self.lanes.n_blocks, rows, n * self.lanes.W)
        array = self.histories.get(key)
        if array is None or array.shape != shape:
            array = self.histories[key] = np.zeros(shape)
        return array

    def zeros(self, *shape, dtype=float):
        """Scratch array (n_blocks, *shape) for a term."""
        array = np.zeros((self.lanes.n_blocks,) + shape, dtype=dtype)
        self.scratch.append(array)
        return array


def pack_rod_bodies(rods, ctx, lanes):
    """RodBodies (block layout) of the rods, from their parameters and the terms' body-level
    fields (gravity, Kelvin-Voigt times)."""
    B = lanes.worlds
    cat = {k: [] for k in ("node_mass", "body_acc", "rest_len", "J", "S", "sigma0", "kv", "vor_len",
                           "vor_B", "kappa0", "vor_kv", "radius")}
    for r in rods:
        rp = ctx.all_rod_params[r.name]
        d = ctx.discrete[r.name]
        rl = np.broadcast_to(r.rest_lengths, (B, r.n_elems))
        D = np.broadcast_to(r.voronoi_rest_lengths, (B, r.n_vor))
        kv = ctx.kv_tau[r.name]
        g = lambda a: Slots.with_ghost(r, a)
        mass, body_acc = in_fluid(d["node_mass"], ctx.body_acc[r.name], ctx.added_mass[r.name],
                                  ctx.displaced_mass[r.name])
        for key, val in (("node_mass", g(mass)), ("body_acc", g(body_acc)),
                         ("rest_len", g(rl)), ("J", g(d["elem_J"])), ("S", g(d["elem_S"])),
                         ("sigma0", g(rp["rest_strain"])), ("kv", g(kv)), ("vor_len", D),
                         ("vor_B", d["vor_B"]), ("kappa0", rp["rest_curvature"]),
                         ("vor_kv", voronoi_lengths(kv, r.closed)), ("radius", g(rp["radius"]))):
            cat[key].append(val)
    vectors = {"body_acc", "J", "S", "sigma0", "vor_B", "kappa0"}
    blk = {k: to_blocks(np.concatenate(v, axis=1) if v else
                        np.zeros((B, 0, 3) if k in vectors else (B, 0)), lanes)
           for k, v in cat.items()}
    slots = Slots(rods)
    closed = [r for r in rods if r.closed]
    index = lambda values: np.array(values, dtype=np.int64)
    return writable_contiguous(RodBodies(
        rod_node_off=index([slots.node[r.name] for r in rods]),
        rod_elem_off=index([slots.elem[r.name] for r in rods]),
        rod_vor_off=index([slots.vor[r.name] for r in rods]),
        rod_n_elems=index([r.n_elems for r in rods]),
        rod_closed=index([int(r.closed) for r in rods]),
        rod_law=np.array([LAWS[r.law] + (float(np.any(ctx.kv_tau[r.name] > 0)),)
                          for r in rods]).reshape(len(rods), 4),
        node_mass=blk["node_mass"], node_inv_mass=1.0 / blk["node_mass"],
        node_body_acc=blk["body_acc"],
        elem_rest_len=blk["rest_len"], elem_inv_rest_len=1.0 / blk["rest_len"],
        elem_J=blk["J"], elem_inv_J=1.0 / blk["J"], elem_S=blk["S"], elem_rest_sigma=blk["sigma0"],
        elem_kv_tau=blk["kv"], elem_radius=blk["radius"],
        vor_rest_len=blk["vor_len"], vor_inv_rest_len=1.0 / blk["vor_len"], vor_B=blk["vor_B"],
        vor_rest_kappa=blk["kappa0"], vor_kv_tau=blk["vor_kv"],
        ghost_node=index([slots.node[r.name] + r.n_elems for r in closed]),
        ghost_node_src=index([slots.node[r.name] for r in closed]),
        ghost_elem=index([slots.elem[r.name] + r.n_elems for r in closed]),
        ghost_elem_src=index([slots.elem[r.name] for r in closed]),
    ))


def pack_rigid_bodies(ctx, lanes):
    """RigidBodies (block layout) of the scene's rigid bodies; a fixed body has 1/m = 1/J = 0
    and no body acceleration."""
    B = lanes.worlds
    bodies = ctx.rigid_bodies
    mobile = np.array([[0.0 if b.fixed else 1.0] for b in bodies]).reshape(1, -1)  # (1, n_rb)

    def stack(values, comps):  # (B, n_rb, comps) -> blocks
        return to_blocks(np.asarray(values, dtype=float).reshape(B, len(bodies), comps), lanes)

    mass = np.stack([ctx.rigid_params[b.name]["mass"] for b in bodies], axis=1) if bodies \
        else np.ones((B, 0))
    J = np.stack([ctx.rigid_params[b.name]["inertia"] for b in bodies], axis=1) if bodies \
        else np.ones((B, 0, 3))
    g = np.stack([ctx.rigid_body_acc[b.name] for b in bodies], axis=1) if bodies else np.zeros((B, 0, 3))
    if bodies:
        mass, g = in_fluid(mass, g, *(np.stack([table[b.name] for b in bodies], axis=1) for table
                                      in (ctx.rigid_added_mass, ctx.rigid_displaced_mass)))
    return writable_contiguous(RigidBodies(
        rb_inv_mass=stack(mobile / mass, 1)[:, 0], rb_body_acc=stack(g * mobile[..., None], 3),
        rb_J=stack(J, 3), rb_inv_J=stack(mobile[..., None] / J, 3)))


def allocate_workspace(slots, lanes, n_rigid=0, der_slots=None):
    """Workspace (softmech.model) for rods occupying `slots`, n_rigid rigid bodies and the
    discrete rods of der_slots (softmech.der_packing.DerSlots)."""
    nb, W = lanes.n_blocks, lanes.W
    n_der, m_der = (0, 0) if der_slots is None else (der_slots.n_nodes, der_slots.n_edges)
    return Workspace(node_force=np.zeros((nb, 3, slots.n_nodes * W)),
                     elem_couple=np.zeros((nb, 3, slots.n_elems * W)),
                     elem_len=np.zeros((nb, slots.n_elems * W)),
                     rotation_violations=np.zeros(nb, dtype=np.int64),
                     rb_force=np.zeros((nb, 3, n_rigid * W)), rb_torque=np.zeros((nb, 3, n_rigid * W)),
                     der_force=np.zeros((nb, 3, n_der * W)), der_torque=np.zeros((nb, 1, m_der * W)),
                     der_x_base=np.zeros((nb, 3, n_der * W)),
                     der_v_base=np.zeros((nb, 3, n_der * W)),
                     der_implicit=np.zeros(1, dtype=np.int64))


def pack_state(rods, per_rod, lanes, rigid=(), per_rigid=(), principal=False, der_rods=(),
               der_slots=None, der_shells=()):
    """per_rod: list (one per rod) of dicts with positions (B, n_nodes, 3), velocities,
    directors (B, n, 3, 3), angular_velocities (B, n, 3); per_rigid: the same for each rigid
    body with n_nodes = n = 1, its own (user) frame, or with principal=True already in its
    principal frame (taken as they are: exact) -> State (ghost slots filled, rigid bodies in
    their principal frames)."""
    B = lanes.worlds

    def cat(key, shape):
        parts = [Slots.with_ghost(r, np.asarray(d[key])) for r, d in zip(rods, per_rod)]
        return np.concatenate(parts, axis=1) if parts else np.zeros((B, 0) + shape)

    frames = [(d["directors"], d["angular_velocities"]) if principal else
              to_engine_frame(b, d["directors"], d["angular_velocities"])
              for b, d in zip(rigid, per_rigid)]

    def rigid_cat(values, shape):
        return np.concatenate(values, axis=1) if values else np.zeros((B, 0) + shape)

    return writable_contiguous(State(
        x=to_blocks(cat("positions", (3,)), lanes), v=to_blocks(cat("velocities", (3,)), lanes),
        Q=to_blocks(cat("directors", (3, 3)), lanes),
        w=to_blocks(cat("angular_velocities", (3,)), lanes),
        rb_x=to_blocks(rigid_cat([np.asarray(d["positions"]) for d in per_rigid], (3,)), lanes),
        rb_v=to_blocks(rigid_cat([np.asarray(d["velocities"]) for d in per_rigid], (3,)), lanes),
        rb_Q=to_blocks(rigid_cat([f[0] for f in frames], (3, 3)), lanes),
        rb_w=to_blocks(rigid_cat([f[1] for f in frames], (3,)), lanes),
        **initial_der_state(der_rods, lanes, der_slots or DerSlots(der_rods), der_shells)))
