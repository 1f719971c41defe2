"""Conversion between the user-facing shapes (B, n, ...) and the engine's block layout, and the
assembly of the engine model (kernels.layout.BlockModel) from rods, terms and parameters.

Worlds are grouped in blocks of W lanes (one block per thread): W = 1 for a single world, else
W = min(8, ceil(B / n_threads)). Padding lanes of the last block replicate the last world and
are discarded on output.
"""
import math
from dataclasses import dataclass

import numba
import numpy as np

from softmech.bodies.cosserat_rod import LAWS, discrete_properties, voronoi_lengths
from softmech.kernels.contact import FLAG_UNIFORM, N_CONTACT_FLAGS, N_CONTACT_PARAMS
from softmech.kernels.layout import BlockModel, BlockState, BlockWorkspace

MAX_LANES = 8  # one AVX-512 register of float64


@dataclass(frozen=True)
class Lanes:
    """How B worlds map to n_blocks blocks of W lanes."""
    worlds: int
    W: int
    n_blocks: int

    @classmethod
    def for_worlds(cls, worlds, n_threads=None):
        n_threads = n_threads or numba.get_num_threads()
        W = 1 if worlds == 1 else min(MAX_LANES, math.ceil(worlds / n_threads))
        return cls(worlds, W, math.ceil(worlds / W))

    @property
    def world_of_lane(self):
        return np.minimum(np.arange(self.n_blocks * self.W), self.worlds - 1)


def to_blocks(arr, lanes):
    """(B, n, c...) -> (n_blocks, c, n*W) (c flattened; no component axis gives (n_blocks, n*W))."""
    arr = np.asarray(arr, dtype=float)[lanes.world_of_lane]
    n = arr.shape[1]
    comps = int(np.prod(arr.shape[2:]))
    out = arr.reshape(lanes.n_blocks, lanes.W, n, comps).transpose(0, 3, 2, 1)
    out = np.ascontiguousarray(out.reshape(lanes.n_blocks, comps, n * lanes.W))
    return out[:, 0] if arr.ndim == 2 else out


def from_blocks(arr, lanes, trailing=()):
    """Inverse of to_blocks: (n_blocks, c, n*W) -> (B, n, *trailing)."""
    if arr.ndim == 2:
        arr = arr[:, None]
    nb, comps, nw = arr.shape
    n = nw // lanes.W
    out = arr.reshape(nb, comps, n, lanes.W).transpose(0, 3, 2, 1).reshape(nb * lanes.W, n, comps)
    return out[:lanes.worlds].reshape((lanes.worlds, n) + tuple(trailing))


def per_lane(arr, lanes):
    """(B or 1, ...) -> (n_blocks, ..., W): per-world vectors for the point-load tables."""
    arr = np.asarray(arr, dtype=float)
    arr = arr[lanes.world_of_lane % arr.shape[0]]
    out = arr.reshape((lanes.n_blocks, lanes.W) + arr.shape[1:])
    return np.ascontiguousarray(np.moveaxis(out, 1, -1))


def broadcast_worlds(field, arr, worlds, trailing):
    """Check a per-world parameter (1 or B, *trailing) and broadcast it to (B, *trailing); trailing
    axes of size 1 broadcast too (e.g. (B, 1) for one value per world on every element)."""
    arr = np.asarray(arr, dtype=float)
    trailing_ok = arr.ndim == 1 + len(trailing) and all(
        a in (1, t) for a, t in zip(arr.shape[1:], trailing))
    if not trailing_ok or arr.shape[0] not in (1, worlds):
        raise ValueError(f"params['{field}'] has shape {arr.shape}, expected (1, {', '.join(map(str, trailing))}) "
                         f"or ({worlds}, {', '.join(map(str, trailing))})".replace(", )", ")"))
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"params['{field}'] contains NaN or inf (must be finite)")
    return np.broadcast_to(arr, (worlds,) + tuple(trailing))


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
    """Per-world, user-shaped arrays that terms write into (see terms.base)."""

    def __init__(self, rods, rod_params, worlds):
        self.rods = rods
        self.worlds = worlds
        self._rods = {r.name: r for r in rods}
        self._rod_params = rod_params
        slots = Slots(rods)
        self.node_offset, self.elem_offset = slots.node, slots.elem
        B = worlds
        self.body_acc = {r.name: np.zeros((B, r.n_nodes, 3)) for r in rods}
        self.node_damping = {r.name: np.zeros((B, r.n_nodes)) for r in rods}
        self.elem_damping = {r.name: np.zeros((B, r.n_elems)) for r in rods}
        self.kv_tau = {r.name: np.zeros((B, r.n_elems)) for r in rods}
        self.point_forces, self.couples, self.node_constraints, self.frame_constraints = [], [], [], []
        self.frame_anchors = []
        self.ground_contacts = []  # (rod index, params (B, N_CONTACT_PARAMS), flags (2,))
        self.muscles = []          # (rod index, beta cos (B, n_vor), beta sin (B, n_vor), wave (B, 3))
        self.rod_index = {r.name: i for i, r in enumerate(rods)}
        self.anchor_stiffness = {r.name: np.zeros((B, r.n_elems, 3)) for r in rods}

    def rod(self, name, owner):
        if name not in self._rods:
            raise ValueError(f"{owner}.rod = {name!r} is not allowed: no such rod in the scene "
                             f"(rods: {sorted(self._rods)})")
        return self._rods[name]

    def rod_params(self, name):
        return self._rod_params[name]

    def add_point_force(self, rod, node, vec, profile):
        self.point_forces.append((self.node_offset[rod] + node, vec, profile))

    def add_couple(self, rod, elem, vec, profile):
        self.couples.append((self.elem_offset[rod] + elem, vec, profile))

    def constrain_node(self, rod, node, displacement, profile):
        pos0 = np.broadcast_to(self._rods[rod].positions[node], (self.worlds, 3))
        disp = np.zeros((self.worlds, 3)) if displacement is None else displacement
        self.node_constraints.append((self.node_offset[rod] + node, pos0, disp, profile))

    def anchor_frame(self, rod, elem, side, stiffness):
        """Elastic half Voronoi domain between element `elem` and its initial frame, placed
        before (side = +1) or after (side = -1) it; stiffness K / D (B, 3) [N m]."""
        Q = np.broadcast_to(self._rods[rod].directors[elem], (self.worlds, 3, 3))
        self.frame_anchors.append((self.elem_offset[rod] + elem, Q, stiffness, float(side)))
        self.anchor_stiffness[rod][:, elem] += stiffness

    def constrain_frame(self, rod, elem):
        Q = np.broadcast_to(self._rods[rod].directors[elem], (self.worlds, 3, 3))
        self.frame_constraints.append((self.elem_offset[rod] + elem, Q))


def _table(entries, lanes, comps):
    """Point-load / constraint tables -> (index (n,), vectors (n_blocks, n, comps, W), profile (n, 3))."""
    idx = np.array([e[0] for e in entries], dtype=np.int64)
    if not entries:
        return idx, np.zeros((lanes.n_blocks, 0, comps, lanes.W)), np.zeros((0, 3))
    vec = np.stack([per_lane(np.reshape(e[1], (-1, comps)), lanes) for e in entries], axis=1)
    prof = np.stack([e[-1] for e in entries]) if len(entries[0]) > 2 else np.zeros((len(entries), 3))
    return idx, vec, prof


def assemble_model(rods, terms, params, lanes):
    """Build the BlockModel from rods, terms and per-world parameters ('<owner>.<field>' -> array)."""
    B = lanes.worlds
    ctx = assemble_terms(rods, terms, params, B)
    rod_params = ctx.all_rod_params
    return _block_model(rods, ctx, rod_params, lanes)


def assemble_terms(rods, terms, params, worlds):
    """Validate per-world parameters and let every term write its user-shaped arrays: returns
    the Assembly (rod parameters broadcast to B worlds in `all_rod_params`)."""
    B = worlds
    rod_params = {}
    for r in rods:
        shapes = {"radius": (r.n_elems,), "density": (r.n_elems,), "youngs_modulus": (r.n_elems,),
                  "shear_modulus": (r.n_elems,), "shear_coefficient": (r.n_elems,),
                  "rest_curvature": (r.n_vor, 3), "rest_strain": (r.n_elems, 3)}
        rp = {k: broadcast_worlds(f"{r.name}.{k}", params[f"{r.name}.{k}"], B, s) for k, s in shapes.items()}
        for k in ("radius", "density", "youngs_modulus", "shear_modulus", "shear_coefficient"):
            if np.any(rp[k] <= 0):
                raise ValueError(f"params['{r.name}.{k}'] has entries <= 0 (must be > 0)")
        rod_params[r.name] = rp
    ctx = Assembly(rods, rod_params, B)
    ctx.all_rod_params = rod_params
    for term in terms:
        p = {k: broadcast_worlds(f"{term.name}.{k}", params[f"{term.name}.{k}"], B,
                                 np.shape(v)[1:]) for k, v in term.parameters().items()}
        term.contribute(ctx, p)
    return ctx


def _block_model(rods, ctx, rod_params, lanes):
    B = lanes.worlds

    cat = {k: [] for k in ("node_mass", "node_damping", "body_acc", "rest_len", "J", "S", "sigma0",
                           "elem_damping", "kv", "vor_len", "vor_B", "kappa0", "vor_kv", "radius")}
    for r in rods:
        rp = rod_params[r.name]
        d = discrete_properties(r.rest_lengths, rp, r.closed)
        rl = np.broadcast_to(r.rest_lengths, (B, r.n_elems))
        D = np.broadcast_to(r.voronoi_rest_lengths, (B, r.n_vor))
        kv = ctx.kv_tau[r.name]
        g = lambda a: Slots.with_ghost(r, a)
        for key, val in (("node_mass", g(d["node_mass"])), ("node_damping", g(ctx.node_damping[r.name])),
                         ("body_acc", g(ctx.body_acc[r.name])), ("rest_len", g(rl)), ("J", g(d["elem_J"])),
                         ("S", g(d["elem_S"])), ("sigma0", g(rp["rest_strain"])),
                         ("elem_damping", g(ctx.elem_damping[r.name])), ("kv", g(kv)), ("vor_len", D),
                         ("vor_B", d["vor_B"]), ("kappa0", rp["rest_curvature"]),
                         ("vor_kv", voronoi_lengths(kv, r.closed)), ("radius", g(rp["radius"]))):
            cat[key].append(val)
    blk = {k: to_blocks(np.concatenate(v, axis=1), lanes) for k, v in cat.items()}

    n_e = np.array([r.n_elems for r in rods], dtype=np.int64)
    slots = Slots(rods)
    closed = [r for r in rods if r.closed]
    ghost_node = np.array([slots.node[r.name] + r.n_elems for r in closed], dtype=np.int64)
    ghost_node_src = np.array([slots.node[r.name] for r in closed], dtype=np.int64)
    ghost_elem = np.array([slots.elem[r.name] + r.n_elems for r in closed], dtype=np.int64)
    ghost_elem_src = np.array([slots.elem[r.name] for r in closed], dtype=np.int64)
    pf = _table(ctx.point_forces, lanes, 3)
    pc = _table(ctx.couples, lanes, 3)
    cn_idx = np.array([c[0] for c in ctx.node_constraints], dtype=np.int64)
    cn_pos = _table([(c[0], c[1]) for c in ctx.node_constraints], lanes, 3)[1]
    cn_disp = _table([(c[0], c[2]) for c in ctx.node_constraints], lanes, 3)[1]
    cn_prof = np.array([c[3] for c in ctx.node_constraints]).reshape(-1, 3)
    cf = _table(ctx.frame_constraints, lanes, 9)
    fa = _table([(a[0], a[1]) for a in ctx.frame_anchors], lanes, 9)
    fa_K = _table([(a[0], a[2]) for a in ctx.frame_anchors], lanes, 3)[1]
    fa_side = np.array([a[3] for a in ctx.frame_anchors], dtype=float)
    return _writable_contiguous(BlockModel(
        rod_node_off=np.array([slots.node[r.name] for r in rods], dtype=np.int64),
        rod_elem_off=np.array([slots.elem[r.name] for r in rods], dtype=np.int64),
        rod_vor_off=np.array([slots.vor[r.name] for r in rods], dtype=np.int64),
        rod_n_elems=n_e,
        rod_closed=np.array([int(r.closed) for r in rods], dtype=np.int64),
        rod_law=np.array([LAWS[r.law] + (float(np.any(ctx.kv_tau[r.name] > 0)),) for r in rods]),
        node_mass=blk["node_mass"], node_inv_mass=1.0 / blk["node_mass"],
        node_damping=blk["node_damping"],
        node_body_acc=blk["body_acc"],
        elem_rest_len=blk["rest_len"], elem_inv_rest_len=1.0 / blk["rest_len"],
        elem_J=blk["J"], elem_inv_J=1.0 / blk["J"], elem_S=blk["S"], elem_rest_sigma=blk["sigma0"],
        elem_damping=blk["elem_damping"], elem_kv_tau=blk["kv"], elem_radius=blk["radius"],
        vor_rest_len=blk["vor_len"], vor_inv_rest_len=1.0 / blk["vor_len"], vor_B=blk["vor_B"],
        vor_rest_kappa=blk["kappa0"], vor_kv_tau=blk["vor_kv"],
        pf_node=pf[0], pf_vec=pf[1], pf_profile=pf[2],
        pc_elem=pc[0], pc_vec=pc[1], pc_profile=pc[2],
        cn_node=cn_idx, cn_pos0=cn_pos, cn_disp=cn_disp, cn_profile=cn_prof,
        cf_elem=cf[0], cf_Q=cf[1],
        fa_elem=fa[0], fa_Q=fa[1], fa_K=fa_K, fa_side=fa_side,
        gc_rod=np.array([c[0] for c in ctx.ground_contacts], dtype=np.int64),
        gc_param=_contact_params(ctx, rods, lanes),
        gc_flags=_contact_flags(ctx, rods, slots, blk["body_acc"], lanes),
        mt_rod=np.array([c[0] for c in ctx.muscles], dtype=np.int64),
        mt_beta_cos=_lane_table([c[1] for c in ctx.muscles], lanes, _n_vor_max(ctx.muscles)),
        mt_beta_sin=_lane_table([c[2] for c in ctx.muscles], lanes, _n_vor_max(ctx.muscles)),
        mt_wave=_lane_table([c[3] for c in ctx.muscles], lanes, 3),
        ghost_node=ghost_node, ghost_node_src=ghost_node_src,
        ghost_elem=ghost_elem, ghost_elem_src=ghost_elem_src,
    ))


def _contact_params(ctx, rods, lanes):
    """Contact parameters per element slot and lane, (n_blocks, n_contacts, N_CONTACT_PARAMS,
    n_elem_slots*W): stored per element so the contact loops are flat (vectorizable for any W)."""
    slots = Slots(rods)
    out = np.zeros((lanes.n_blocks, len(ctx.ground_contacts), N_CONTACT_PARAMS, slots.n_elems * lanes.W))
    for i, (rod_index, prm, _) in enumerate(ctx.ground_contacts):
        rod = rods[rod_index]
        per_elem = np.zeros((lanes.worlds, slots.n_elems, N_CONTACT_PARAMS))
        e0 = slots.elem[rod.name]
        per_elem[:, e0:e0 + rod.n_elems] = prm[:, None, :]
        out[:, i] = to_blocks(per_elem, lanes)
    return out


def _contact_flags(ctx, rods, slots, body_acc, lanes):
    """(n_contacts, N_CONTACT_FLAGS) int64: the term's flags, then FLAG_UNIFORM = 1 when the
    contact's parameters are bitwise the same in every world and its rod's body acceleration
    (block layout body_acc) the same on every node slot: the kernel then reads them as scalars."""
    out = np.zeros((len(ctx.ground_contacts), N_CONTACT_FLAGS), dtype=np.int64)
    for i, (rod_index, prm, flags) in enumerate(ctx.ground_contacts):
        rod = rods[rod_index]
        out[i, :len(flags)] = flags
        n0 = slots.node[rod.name] * lanes.W
        g = body_acc[:, :, n0:n0 + (rod.n_elems + 1) * lanes.W]
        out[i, FLAG_UNIFORM] = int(_bitwise_uniform(np.asarray(prm, dtype=float))
                                   and _bitwise_uniform(np.moveaxis(g, 1, 2).reshape(-1, 3)))
    return out


def _bitwise_uniform(rows):
    """True if every row of a 2-D float array equals the first bit for bit (0.0 differs from -0.0)."""
    bits = np.ascontiguousarray(rows).view(np.uint64)
    return bool(np.all(bits == bits[:1]))


def _n_vor_max(muscles):
    return max([c[1].shape[1] for c in muscles], default=0)


def _lane_table(rows, lanes, width):
    """List of (B, <= width) per-world rows -> (n_blocks, len(rows), width, W), zero padded."""
    out = np.zeros((lanes.n_blocks, len(rows), width, lanes.W))
    for i, row in enumerate(rows):
        padded = np.zeros((lanes.worlds, width))
        padded[:, :row.shape[1]] = row
        out[:, i] = per_lane(padded, lanes)
    return out


def _writable_contiguous(tup):
    """Same tuple with every array C-contiguous and writable: numba types encode layout and
    read-only flags, so any variation would compile the kernels again."""
    fix = lambda a: a if a.flags.c_contiguous and a.flags.writeable else np.array(a, order="C")
    return type(tup)(*(fix(a) for a in tup))


def allocate_workspace(n_nodes, n_elems, n_vor, lanes):
    nb, W = lanes.n_blocks, lanes.W
    z = np.zeros
    return BlockWorkspace(
        elem_len=z((nb, n_elems * W)), elem_n=z((nb, 3, n_elems * W)), elem_tau=z((nb, 3, n_elems * W)),
        vor_m=z((nb, 3, max(n_vor, 0) * W)), vor_h=z((nb, 3, max(n_vor, 0) * W)),
        vor_g=z((nb, 3, max(n_vor, 0) * W)), node_acc=z((nb, 3, n_nodes * W)),
        elem_alpha=z((nb, 3, n_elems * W)), rotation_violations=z(nb, dtype=np.int64),
        contact_normal=z((nb, n_elems * W)), contact_slip=z((nb, 2, n_elems * W)),
        contact_axial=z((nb, 6, n_elems * W)),
        contact_force=z((nb, 3, n_elems * W)), contact_force_diff=z((nb, 3, n_elems * W)),
        muscle_phase=z((nb, 2, W)), muscle_moment=z((nb, n_elems * W)))


def pack_state(rods, per_rod, lanes):
    """per_rod: list (one per rod) of dicts with positions (B, n_nodes, 3), velocities,
    directors (B, n, 3, 3), angular_velocities (B, n, 3) -> BlockState (ghost slots filled)."""
    def cat(key):
        return np.concatenate([Slots.with_ghost(r, np.asarray(d[key])) for r, d in zip(rods, per_rod)],
                              axis=1)
    return _writable_contiguous(BlockState(
        x=to_blocks(cat("positions"), lanes), v=to_blocks(cat("velocities"), lanes),
        Q=to_blocks(cat("directors"), lanes), w=to_blocks(cat("angular_velocities"), lanes)))
