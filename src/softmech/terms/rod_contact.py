"""Rod-rod and self contact between element centrelines with optional Coulomb friction; the kernel
and its equations are in softmech.kernels.rod_contact (Zhang et al., Nat. Commun. 2019, eq. 7).

    RodContact(rods=None, stiffness=..., damping=0.0, friction=None | CoulombFriction(static,
               kinetic, slip_velocity=1e-4) | StickingFriction(static, kinetic,
               tangential_stiffness=..., ...), self_contact=False, overlap_tolerance=0.01,
               initial_overlap="warn", name="rod_contact")

rods: the rods (or names) that touch each other, None for every rod of the scene. Every pair of
distinct listed rods is in contact; self_contact=True adds each listed rod with itself. All
RodContact terms of a scene compile into one kernel call (a pair table over rod indices), and a
pair of rods may belong to one term only. An initial geometry that overlaps by more than
overlap_tolerance (r_i + r_j) starts with an InitialOverlapWarning (initial_overlap = "warn",
the penalty pushes the pair apart) or is refused (initial_overlap = "refuse").

Per-world parameters: `<name>.stiffness` k [N/m], `<name>.damping` gamma [kg/s],
`<name>.static`, `<name>.kinetic` friction coefficients mu_s, mu_k [-] (0 without friction),
and `<name>.slip_velocity` v_s [m/s] (regularized) or `<name>.tangential_stiffness` [N/m],
`<name>.tangential_damping` [N s/m] (sticking: the anchors' slots and kernels in
softmech.kernels.rod_sticking, the law in softmech.kernels.sticking).
"""
import warnings
from dataclasses import dataclass

import numpy as np

from softmech import _checks
from softmech.integrators.driver import Call, Proximity
from softmech.kernels.rod_contact import N_PARAMS, RodContactArgs, initial_overlaps, rod_rod_contacts
from softmech.kernels.rod_sticking import (SLOT_ROWS, SLOTS, RodStickArgs, rod_sticking_anchors,
                                           rod_sticking_contacts)
from softmech.kernels.sticking import N_STICK_PARAMS
from softmech.packing import from_blocks, lane_table
from softmech.stability import spring_time_step
from softmech.terms.base import Part, Term, rod_name
from softmech.terms.friction import STICK_FIELDS, StickingFriction, sticking_rows

ORDER = 85
"""Place in the force pass: after the loads and muscles, before ground contact (90), whose wall
response balances the total force including this one."""

ANCHOR_ORDER = 90
"""Place of the sticking anchors' update in the positions pass: after every constraint (the
clamps and driven ends, 0), at the configuration the next forces see (as the rod-body
contact's)."""

FRICTION_MASS_SHARE = 0.2
"""The effective mass of a section's material point at its surface, over its lightest node's
mass m: friction acts there (softmech.kernels.contact_point), moving the node and turning the
element, 1/m_eff = 1/m + r^2/J (J = m_e r^2/4 about a bending axis, m_e >= m) <= 5/m; the stick
spring's explicit limit is sqrt(m_eff / k_t) (sqrt(m / k_t) while friction acted at the
centreline)."""

INITIAL_OVERLAP = ("warn", "refuse")
"""What a contact term does with an initial geometry that overlaps by more than its
overlap_tolerance: start anyway with an InitialOverlapWarning (the penalty pushes the pair
apart), or refuse with a ValueError before any work."""


class InitialOverlapWarning(UserWarning):
    """A contact term's bodies overlap at the start by more than its overlap_tolerance."""


@dataclass(frozen=True)
class CoulombFriction:
    """Isotropic Coulomb friction between rods: static and kinetic coefficients [-] and the slip
    velocity v_s [m/s] of the regularization (softmech.kernels.rod_contact): below v_s a viscous
    law, F_t = -mu_s N w / v_s, so a rod held by static friction creeps at most at v_s (choose
    v_s well below the speeds that matter; dt must resolve mu_s N / (m v_s), docs/contact.md).
    The default 1e-4 m/s is about the smallest v_s that dt = 1e-5 s integrates with a margin for
    a contact carrying its own weight (dt < 2 v_s / (mu g); docs/contact.md, "The default")."""
    static: float
    kinetic: float
    slip_velocity: float = 1e-4

    def __post_init__(self):
        _checks.nonnegative("friction.static", self.static, shape=())
        _checks.nonnegative("friction.kinetic", self.kinetic, shape=())
        _checks.positive("friction.slip_velocity", self.slip_velocity, shape=())


class _PenaltyContact(Term):
    """What the rod contact terms share: stiffness k [N/m], damping gamma [kg/s], an optional
    CoulombFriction and the overlap tolerance of the initial geometry, validated; their
    per-world parameters, and their rows (B, N_PARAMS) for the kernel."""

    section = "contact"
    friction_type = CoulombFriction
    """The friction law of a [[contact]] table's friction sub-table (softmech.scenefile)."""

    sticking = False
    """Whether the term accepts a StickingFriction (softmech.terms.friction)."""

    def _penalty(self, name, stiffness, damping, friction, overlap_tolerance,
                 initial_overlap="warn"):
        self.stiffness = float(_checks.positive(f"{name}.stiffness", stiffness, shape=()))
        self.damping = float(_checks.nonnegative(f"{name}.damping", damping, shape=()))
        laws = (CoulombFriction, StickingFriction) if self.sticking else (CoulombFriction,)
        if friction is not None and not isinstance(friction, laws):
            allowed = " or an sm.StickingFriction(...)" if self.sticking else \
                " (sm.StickingFriction is not supported by this contact yet)"
            raise ValueError(f"{name}.friction = {friction!r} is not allowed: must be None or an "
                             f"sm.CoulombFriction(static=..., kinetic=...){allowed}")
        self.friction = friction
        self.overlap_tolerance = float(_checks.nonnegative(f"{name}.overlap_tolerance",
                                                           overlap_tolerance, shape=()))
        self.initial_overlap = _checks.choice(f"{name}.initial_overlap", initial_overlap,
                                              INITIAL_OVERLAP)

    def overlapping_start(self, where, ratio, of, depth):
        """An initial overlap above overlap_tolerance: `where` names the pair, `ratio` is its
        overlap over the reference length `of` names, `depth` [m] the overlap eps. ValueError with
        initial_overlap = "refuse"; otherwise an InitialOverlapWarning that says what the first
        step does (the penalty k eps pushes the pair apart) and how to avoid it."""
        message = (f"{self.name}: the initial geometry of {where} overlaps by {ratio:.3g} "
                   f"{of}, more than {self.name}.overlap_tolerance = {self.overlap_tolerance}")
        if self.initial_overlap == "refuse":
            raise ValueError(f"{message}: move them apart (or set {self.name}.initial_overlap "
                             "= 'warn' to start anyway)")
        warnings.warn(InitialOverlapWarning(
            f"{message}; accepted (initial_overlap = 'warn'): the penalty pushes them apart "
            f"from the first step with k eps = {self.stiffness * depth:.3g} N "
            f"(eps = {depth:.3g} m). Move them apart or lower the stiffness for a gentler "
            f"start, or set initial_overlap = 'refuse'"), stacklevel=2)

    def sticks(self):
        """True if the term's friction is a StickingFriction."""
        return isinstance(self.friction, StickingFriction)

    def parameters(self):
        f = self.friction or CoulombFriction(0.0, 0.0)
        own = STICK_FIELDS if self.sticks() else ("slip_velocity",)   # the law's own fields
        return {"stiffness": np.array([self.stiffness]), "damping": np.array([self.damping]),
                "static": np.array([f.static]), "kinetic": np.array([f.kinetic]),
                **{k: np.array([getattr(f, k)]) for k in own}}

    def contact_params(self, p):
        """The kernel's rows (B, N_PARAMS) from the per-world parameters p, checked; with a
        StickingFriction the sticking kernels' rows (B, N_STICK_PARAMS)."""
        if self.sticks():
            return sticking_rows(self.name, p)
        for key in ("stiffness", "damping", "static", "kinetic"):
            if np.any(p[key] < 0):
                raise ValueError(f"params['{self.name}.{key}'] has entries < 0 (must be >= 0)")
        if np.any(p["slip_velocity"] <= 0):
            raise ValueError(f"params['{self.name}.slip_velocity'] has entries <= 0 (must be > 0)")
        return np.stack([p["stiffness"], p["damping"], p["static"], p["kinetic"],
                         p["slip_velocity"]], axis=1)


class RodContact(_PenaltyContact):
    """Contact between rods and, optionally, of each rod with itself (see module docstring)."""

    sticking = True

    def __init__(self, rods=None, *, stiffness, damping=0.0, friction=None, self_contact=False,
                 overlap_tolerance=0.01, initial_overlap="warn", name="rod_contact"):
        self.name = name
        if rods is None:
            self.rods = None
        else:
            if isinstance(rods, str) or not hasattr(rods, "__iter__"):
                raise ValueError(f"{name}.rods = {rods!r} is not allowed: must be a list of rods "
                                 "or rod names, or None for every rod")
            self.rods = tuple(rod_name(f"{name}.rods", r) for r in rods)
            twice = sorted({r for r in self.rods if self.rods.count(r) > 1})
            if twice:
                raise ValueError(f"{name}.rods = {list(self.rods)} is not allowed: rod "
                                 f"{twice[0]!r} is listed twice (for self contact use "
                                 "self_contact=True)")
            if not self.rods or (len(self.rods) < 2 and not self_contact):
                raise ValueError(f"{name}.rods = {list(self.rods)} is not allowed: needs at least "
                                 "two rods, or one with self_contact=True")
        self._penalty(name, stiffness, damping, friction, overlap_tolerance, initial_overlap)
        if not isinstance(self_contact, bool):
            raise ValueError(f"{name}.self_contact = {self_contact!r} is not allowed: must be "
                             "True or False")
        self.self_contact = self_contact

    def contribute(self, ctx, p):
        names = [r.name for r in ctx.rods] if self.rods is None else list(self.rods)
        for n in names:
            if n not in ctx.rod_index:
                raise ValueError(f"{self.name}.rods = {names} is not allowed: {n!r} is not a rod "
                                 f"of the scene (rods: {sorted(ctx.rod_index)})")
        if len(names) < 2 and not self.self_contact:
            raise ValueError(f"{self.name}.rods = None is not allowed in a scene with one rod "
                             "unless self_contact=True")
        prm = self.contact_params(p)                                      # (B, N_PARAMS)
        indices = [ctx.rod_index[n] for n in names]
        check_initial_overlap(self, ctx, indices)
        ctx.part(RodContacts).add(self.name, indices, self.self_contact, prm, self.sticks())
        if self.sticks():   # explicit stability of the stick spring on the lightest node
            m = min(ctx.discrete[ctx.rods[r].name]["node_mass"].min(axis=1).min() for r in indices)
            ctx.time_step_limits.append(spring_time_step(
                FRICTION_MASS_SHARE * m, p["tangential_stiffness"], p["tangential_damping"]))


def contact_elements(rods, indices):
    """Geometry of the elements of rods[indices] as built: (ends x0, x1 (n, 3) [m], rest arc
    length of the centres (n,) [m], rest lengths (n,) [m], rod index (n,), local element
    index (n,))."""
    x0, x1, arc, length, rod, local = [], [], [], [], [], []
    for r in indices:
        body = rods[r]
        x = body.positions
        x0.append(x if body.closed else x[:-1])
        x1.append(np.roll(x, -1, axis=0) if body.closed else x[1:])
        ls = body.rest_lengths
        arc.append(np.cumsum(ls) - 0.5 * ls)
        length.append(ls)
        rod.append(np.full(body.n_elems, r))
        local.append(np.arange(body.n_elems))
    cat = np.concatenate
    return (cat(x0), cat(x1), cat(arc), cat(length), cat(rod).astype(np.int64),
            cat(local).astype(np.int64))


def check_initial_overlap(term, ctx, indices):
    """Whether the term's rods, as built, overlap by more than overlap_tolerance (r_i + r_j) (the
    largest radius of any world), by the kernel's own distance and self-contact rule: if so, the
    worst pair goes to term.overlapping_start (refused or warned)."""
    from scipy.spatial import cKDTree    # here: scipy.spatial costs import time otherwise

    x0, x1, arc, length, rod, local = contact_elements(ctx.rods, indices)
    rad = np.concatenate([np.max(ctx.all_rod_params[ctx.rods[r].name]["radius"], axis=0)
                          for r in indices])
    centre, half = 0.5 * (x0 + x1), 0.5 * length
    pairs = cKDTree(centre).query_pairs(2 * (half.max() + rad.max()), output_type="ndarray")
    if not term.self_contact:
        pairs = pairs[rod[pairs[:, 0]] != rod[pairs[:, 1]]]
    rod_len = np.array([r.length if r.closed else 0.0 for r in ctx.rods])
    ratio = np.zeros(len(pairs))
    initial_overlaps(x0, x1, rad, arc, length, rod, rod_len, pairs.astype(np.int64), ratio)
    if len(pairs) and ratio.max() > term.overlap_tolerance:
        k = int(np.argmax(ratio))
        (i, j) = pairs[k]
        names = [ctx.rods[rod[e]].name for e in (i, j)]
        term.overlapping_start(
            f"rods {names[0]!r} (element {local[i]}) and {names[1]!r} (element {local[j]})",
            ratio[k], "(r_i + r_j)", ratio[k] * (rad[i] + rad[j]))


def near_pairs(args, bi, lane, W):
    """The contact elements of one RodContact call (args: RodContactArgs or RodStickArgs) that
    may touch soon at block bi's lane: every pair of one entry (self contact only where the
    entry has it) whose centres are within r_i + r_j + l_i + l_j (l: rest lengths), i.e. whose
    surfaces are at most about half an element apart, touching or not. Returns a
    driver.Proximity of m pairs (nodes (m, 4): the node slots of element i's ends and of
    element j's, elems (m, 2): their element slots, no bodies): the couplings an implicit
    step's Jacobian needs for contacts that start during a run (Call.proximity;
    softmech.integrators.implicit)."""
    from scipy.spatial import cKDTree    # here: scipy.spatial costs import time otherwise

    x = args.x[bi][:, lane::W].T                                        # node slots (n, 3)
    a, b = args.rc_node_a, args.rc_node_b
    centre = 0.5 * (x[a] + x[b])
    reach = args.elem_radius[bi][lane::W][args.rc_elem] + args.rc_len
    pairs = cKDTree(centre).query_pairs(2.0 * reach.max(), output_type="ndarray")
    i, j = pairs[:, 0], pairs[:, 1]
    near = np.linalg.norm(centre[i] - centre[j], axis=1) < reach[i] + reach[j]
    ri, rj = args.rc_rod[i], args.rc_rod[j]
    shared = (args.rc_member[ri] * args.rc_member[rj]) > 0              # (m, n_entries)
    allowed = np.where(ri == rj, (shared * args.rc_self[None, :]).any(axis=1),
                       shared.any(axis=1))
    i, j = i[near & allowed], j[near & allowed]
    nodes = np.stack([a[i], b[i], a[j], b[j]], axis=1).astype(np.int64)
    return Proximity(nodes, np.stack([args.rc_elem[i], args.rc_elem[j]], axis=1).astype(np.int64),
                     np.zeros((len(i), 0), dtype=np.int64))


def near_bodies(args, bi, lane, W, bound):
    """The (element, body) pairs of one rod-body contact call (args: a RodBodyContactArgs,
    RodMeshContactArgs or their sticking forms) that may touch soon at block bi's lane: those
    whose element centre is within bound + r + l of the body's centre (bound (n_p,) [m]: each
    pair's body's bounding radius; r, l: the element's radius and current length), i.e. about
    an element beyond the kernels' bounding-sphere test. Returns a driver.Proximity (nodes
    (m, 2), elems (m, 1), bodies (m, 1)) for Call.proximity, as near_pairs does for two rods."""
    x = args.x[bi][:, lane::W].T                                        # node slots (n, 3)
    body_x = args.rb_x[bi][:, lane::W].T                                # body slots (n_b, 3)
    a, b, k = args.rbc_node_a, args.rbc_node_b, args.rbc_body
    centre = 0.5 * (x[a] + x[b])
    reach = bound + args.elem_radius[bi][lane::W][args.rbc_elem] \
        + np.linalg.norm(x[b] - x[a], axis=1)
    p = np.flatnonzero(np.linalg.norm(centre - body_x[k], axis=1) < reach)
    return Proximity(np.stack([a[p], b[p]], axis=1).astype(np.int64),
                     args.rbc_elem[p, None].astype(np.int64), k[p, None].astype(np.int64))


class FrictionSplitPart(Part):
    """A contact Part whose entries (tuples ending with the sticking flag) compile into one
    kernel call set per friction law: the regularized entries together, then the sticking ones
    (`_calls(engine, entries, sticking)`)."""

    def calls(self, engine):
        calls = []
        for sticking in (False, True):
            entries = [e for e in self.entries if e[-1] == sticking]
            if entries:
                calls += self._calls(engine, entries, sticking)
        return calls


class RodContacts(FrictionSplitPart):
    """All RodContact terms of a scene: per entry its name, rod indices, self-contact flag,
    parameters (B, N_PARAMS or N_STICK_PARAMS) and whether its friction sticks. The entries
    with the regularized law run in one kernel call ("rod_contacts"), those with
    StickingFriction in another ("rod_sticking") with their anchors' update after every drift
    ("rod_sticking_anchors")."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.entries = []

    def add(self, name, indices, self_contact, params, sticking=False):
        self.entries.append((name, indices, self_contact, params, sticking))

    def membership(self, n_rods, entries=None):
        """(member (n_rods, n_entries) int64: 1 where a rod is in an entry, self (n_entries,)
        int64: 1 for entries with self contact) of `entries` (default all); ValueError if two
        terms claim the same pair of rods (their forces would add up twice): two entries
        sharing two rods, or one rod with self contact in both."""
        entries = self.entries if entries is None else entries
        member = np.zeros((n_rods, len(entries)), dtype=np.int64)
        for e, entry in enumerate(entries):
            member[entry[1], e] = 1
        rods = self.ctx.rods
        for e, (name, indices, self_contact, *_) in enumerate(self.entries):
            for f, (other, others, other_self, *_) in enumerate(self.entries[:e]):
                shared = sorted(set(indices) & set(others))
                clash = (shared[0], shared[1]) if len(shared) > 1 else (
                    (shared[0], shared[0]) if shared and self_contact and other_self else None)
                if clash:
                    raise ValueError(
                        f"{name}: the contact of rods {rods[clash[0]].name!r} and "
                        f"{rods[clash[1]].name!r} is already in {other!r} (a pair of rods may be "
                        f"in one RodContact only)")
        return member, np.array([int(e[2]) for e in entries], dtype=np.int64)

    def _calls(self, engine, entries, sticking):
        lanes, slots, rods = engine.lanes, engine.slots, engine.rods
        used = sorted({r for entry in entries for r in entry[1]})
        _, _, arc, length, rod, local = contact_elements(rods, used)
        n_ce = len(rod)
        node0 = np.array([slots.node[rods[r].name] for r in rod])
        last = np.array([rods[r].n_elems - 1 for r in rod])
        closed = np.array([rods[r].closed for r in rod], dtype=bool)
        H = 1 << max(6, int(np.ceil(np.log2(2 * n_ce))))   # hash buckets: >= 2 per element
        member, self_contact = self.membership(len(rods), entries)
        params = lane_table([entry[3] for entry in entries], lanes,
                            N_STICK_PARAMS if sticking else N_PARAMS)
        i64 = lambda a: np.asarray(a, dtype=np.int64)
        own = dict(
            rc_node_a=i64(node0 + local),
            rc_node_b=i64(node0 + np.where(closed & (local == last), 0, local + 1)),
            rc_elem=i64([slots.elem[rods[r].name] for r in rod] + local),
            rc_rod=rod, rc_arc=arc, rc_len=length,
            rc_rod_len=np.array([r.length if r.closed else 0.0 for r in rods]),
            rc_member=member, rc_self=self_contact, rc_param=params,
            rc_box=engine.zeros(6, n_ce), rc_cell=engine.zeros(3, n_ce, dtype=np.int64),
            rc_bucket=engine.zeros(n_ce, dtype=np.int64),
            rc_start=engine.zeros(H + 1, dtype=np.int64),
            rc_order=engine.zeros(n_ce, dtype=np.int64),
            rc_force=engine.zeros(3, slots.n_nodes * lanes.W),
            rc_stats=engine.zeros(3, lanes.W))
        if not sticking:
            args = engine.args(RodContactArgs, **own)
            return [Call("forces", ORDER, rod_rod_contacts, args, "rod_contacts",
                         proximity=near_pairs)]
        # the anchors' slots are history (softmech.packing.Engine.history), saved with the state
        args = engine.args(RodStickArgs, rs_slot=engine.history("rod_sticking", SLOT_ROWS,
                                                                 n_ce * SLOTS),
                           rs_seen=engine.zeros(n_ce * SLOTS * lanes.W, dtype=np.int64), **own)
        return [Call("positions", ANCHOR_ORDER, rod_sticking_anchors, args,
                     "rod_sticking_anchors", history=True),
                Call("forces", ORDER, rod_sticking_contacts, args, "rod_sticking",
                     proximity=near_pairs)]


CALLS = ("rod_contacts", "rod_sticking")
"""Names of the force calls of RodContacts (regularized, sticking)."""


def _force_calls(engine):
    """Argument tuples of the scene's RodContact force calls (one or both of CALLS)."""
    found = [c.args for c in engine.calls if c.name in CALLS]
    if not found:
        engine.call_args(CALLS[0])      # raises, naming the scene's calls
    return found


def node_forces(sim, rod=None):
    """Rod-contact force on each node of one rod [N], (B, n_nodes, 3), at the current state and
    time (normal, damping and friction, exactly as it enters the equations of motion): one
    force evaluation, then the kernel's per-node output."""
    name = sim._rod_name(rod)
    engine = sim._engine()
    sim._evaluate(engine)
    ns, _ = sim._slices(name)
    total = sum(a.rc_force for a in _force_calls(engine))
    return from_blocks(total, sim.lanes, (3,))[:, ns]


def contact_stats(sim):
    """After a force evaluation or a step: per world (B, 3) the largest overlap eps / (r_i + r_j)
    [-], the number of element pairs whose boxes overlap and the number in contact (of the
    regularized and the sticking entries together)."""
    found = [a.rc_stats for a in _force_calls(sim._engine())]     # (n_blocks, 3, W) each
    stats = found[0].copy()
    for other in found[1:]:
        stats[:, 0] = np.maximum(stats[:, 0], other[:, 0])
        stats[:, 1:] += other[:, 1:]
    return np.moveaxis(stats, 1, 2).reshape(-1, 3)[:sim.worlds].copy()
