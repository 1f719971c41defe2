"""Compiled forms of the implicit integrator's bindings (softmech.implicit.binding): one argument
tuple and one kernel per binding kind, called by the binding's own Python `forces` (one call
per evaluation) and by the compiled Newton loop (softmech.implicit.compiled), so that the two
loops run the same code on the same arrays and agree bit for bit.

Signatures (softmech.implicit.compiled.CompiledForm):
    forces kernel     k(a, b, q, v, t, h, F, J)   add world b's forces to F (n_dof,) and its
                                                  Jacobian dF/dq + dF/dv / h to J (its entries)
    update kernel     k(a, b, t)                  write time-dependent per-world parameters
    constrain kernel  k(a, b, t, q)               write prescribed DOF values into q
    accept kernel     k(a, b, q)                  commit history at an accepted step
Per-world parameter arrays (B or 1 rows) are read at row b (or b % rows where the Python
binding does so). The arrays of one tuple never share memory (the kernels are compiled
`noalias`, softmech.kernels.kernel; softmech.implicit.compiled checks it).
"""
import math
from collections import namedtuple

from softmech.kernels import kernel
from softmech.kernels.der_bend_twist import der_bend_twist_forces
from softmech.kernels.der_frames import der_frames
from softmech.kernels.der_stretch import der_stretch_forces
from softmech.kernels.implicit_ground import ground_contact_forces


# -- tables of values in time (softmech.bodies.schedules.Schedule) ----------------------------
@kernel(inline="always")
def table_write(times, values, t, out):
    """out (n,) = the table's value at time t [s]: times (k,) strictly increasing, values
    (k, n); linear interpolation, held at the first / last value outside the times -- the
    operations of Schedule.__call__ (np.searchsorted(side="right"), (1 - w) v0 + w v1)."""
    k = 0
    while k < times.shape[0] and times[k] <= t:
        k += 1
    n = out.shape[0]
    if k == 0:
        for i in range(n):
            out[i] = values[0, i]
    elif k == times.shape[0]:
        for i in range(n):
            out[i] = values[k - 1, i]
    else:
        w = (t - times[k - 1]) / (times[k] - times[k - 1])
        for i in range(n):
            out[i] = (1.0 - w) * values[k - 1, i] + w * values[k, i]


# -- discrete elastic rods (softmech.terms.der_elasticity) ----------------------------------
DerStretchArgs = namedtuple("DerStretchArgs", [
    "edge_dofs",     # (m, 6) int64: x, y, z DOFs of each edge's two nodes
    "rest_len",      # (m,) [m]
    "area",          # (m,) [m^2] section areas
    "youngs",        # (B or 1,) [Pa] per-world Young's modulus
    "EA",            # (m,) [N] scratch: area * youngs[b]
])


@kernel
def der_stretch_stiffness(a, b):
    """a.EA = A E[b] [N], world b's stretching stiffness of each edge."""
    e = a.youngs[b % a.youngs.shape[0]]
    for j in range(a.area.shape[0]):
        a.EA[j] = a.area[j] * e


@kernel
def der_stretch_binding(a, b, q, v, t, h, F, J):
    """Stretching springs of a rod's edges (softmech.kernels.der_stretch), EA = A E[b]."""
    der_stretch_stiffness(a, b)
    der_stretch_forces(q, a.edge_dofs, a.rest_len, a.EA, True, F, J)


@kernel
def der_stretch_energy(a, b, q, F, J):
    """Stretching energy [J] of world b at q (F, J: scratch the forces are added to, unused)."""
    der_stretch_stiffness(a, b)
    return der_stretch_forces(q, a.edge_dofs, a.rest_len, a.EA, False, F, J)


DerBendTwistArgs = namedtuple("DerBendTwistArgs", [
    "edge_dofs",     # (m, 6) int64
    "spring_dofs",   # (s, 11) int64
    "spring_edges",  # (s, 2) int64
    "spring_signs",  # (s, 3) float
    "voronoi",       # (s,) [m] Voronoi lengths
    "inv_vor",       # (s,) [1/m]
    "inertia",       # (s, 2) [m^4] section second moments
    "polar",         # (s,) [m^4] polar moments
    "youngs",        # (B or 1,) [Pa]
    "shear",         # (B or 1,) [Pa]
    "factor",        # (B or 1,) [-] further stiffness factor (ones(1) for a rod's own springs)
    "curv",          # (B or 1, s, 2) [1/m] natural curvature (per-world parameter)
    "twist",         # (B or 1, s) [rad/m] natural twist (per-world parameter)
    "acc_a1",        # (B, m, 3) accepted first reference directors
    "acc_tangent",   # (B, m, 3) accepted tangents
    "acc_ref",       # (B, s) [rad] accepted reference twists
    "curv_times",    # (k,) [s] natural curvature table (k = 0: none)
    "curv_values",   # (k, 2 s) [1/m]
    "twist_times",   # (k',) [s] natural twist table (k' = 0: none)
    "twist_values",  # (k', s) [rad/m]
    "t", "a1", "a2",          # (m, 3) scratch: current frames
    "ref",                    # (s,) scratch: current reference twist
    "kbar", "tbar",           # (s, 2), (s,) scratch: discrete natural curvature and twist
    "EI", "GJ",               # (s, 2), (s,) [N m^2] scratch
    "g", "H", "blk",          # (3, 11), (11, 11), (3, 3, 3) scratch of der_bend_twist_forces
])


@kernel
def der_frames_binding(a, b, q):
    """Reference frames and twists at q into a.t, a.a1, a.a2, a.ref, transported from world b's
    accepted step (softmech.kernels.der_frames)."""
    der_frames(q, a.edge_dofs, a.acc_a1[b], a.acc_tangent[b], a.acc_ref[b], a.spring_edges,
               a.spring_signs, a.t, a.a1, a.a2, a.ref)


@kernel
def der_natural_binding(a, b, t, timed):
    """World b's discrete natural curvature a.kbar = kappa^ l_i and twist a.tbar = tau^ l_i,
    and its stiffnesses a.EI, a.GJ. timed: first write the per-world parameters' rows from
    their tables at time t [s] (the rod's actuation schedules)."""
    rows = a.curv.shape[0]
    if timed and a.curv_times.shape[0] > 0:
        table_write(a.curv_times, a.curv_values, t, a.curv[b % rows].reshape(-1))
    if timed and a.twist_times.shape[0] > 0:
        table_write(a.twist_times, a.twist_values, t, a.twist[b % a.twist.shape[0]])
    curv = a.curv[b % rows]
    twist = a.twist[b % a.twist.shape[0]]
    e = a.youngs[b % a.youngs.shape[0]]
    g = a.shear[b % a.shear.shape[0]]
    f = a.factor[b % a.factor.shape[0]]
    for s in range(a.voronoi.shape[0]):
        for k in range(2):
            a.kbar[s, k] = curv[s, k] * a.voronoi[s]
            # as softmech.terms.der_elasticity's stiffness: (section * modulus) * factor
            a.EI[s, k] = a.inertia[s, k] * e * f
        a.tbar[s] = twist[s] * a.voronoi[s]
        a.GJ[s] = a.polar[s] * g * f


@kernel
def der_bend_twist_binding(a, b, q, v, t, h, F, J):
    """Bending and twisting springs of a rod (softmech.kernels.der_bend_twist) at time t, with
    the frames transported from world b's accepted step and the actuation tables written."""
    der_frames_binding(a, b, q)
    der_natural_binding(a, b, t, True)
    der_bend_twist_forces(q, a.spring_dofs, a.spring_edges, a.spring_signs, a.a1, a.a2, a.ref,
                          a.kbar, a.tbar, a.inv_vor, a.EI, a.GJ, True, a.g, a.H, a.blk, F, J)


@kernel
def der_bend_twist_energy(a, b, q, F, J):
    """Bending and twisting energy [J] of world b at q (the parameters as they are; F, J:
    scratch the forces are added to, unused)."""
    der_frames_binding(a, b, q)
    der_natural_binding(a, b, 0.0, False)
    return der_bend_twist_forces(q, a.spring_dofs, a.spring_edges, a.spring_signs, a.a1, a.a2,
                                 a.ref, a.kbar, a.tbar, a.inv_vor, a.EI, a.GJ, False, a.g, a.H,
                                 a.blk, F, J)


@kernel
def der_bend_twist_accept(a, b, q):
    """Commit world b's frames and reference twists at the accepted DOFs q."""
    der_frames_binding(a, b, q)
    for j in range(a.t.shape[0]):
        for k in range(3):
            a.acc_tangent[b, j, k] = a.t[j, k]
            a.acc_a1[b, j, k] = a.a1[j, k]
    for s in range(a.ref.shape[0]):
        a.acc_ref[b, s] = a.ref[s]


# -- loads and boundary conditions (softmech.implicit.loads) --------------------------------
NodeLoadsArgs = namedtuple("NodeLoadsArgs", [
    "dofs",          # (n, 3) int64 node DOFs (no repeats)
    "weights",       # (n,) node masses [kg], ones, or minus displaced volumes [m^3]
    "vector",        # (B, 3) the per-world field
    "scale",         # (B,) per-world factor of the field, or (0,) for none
])


@kernel
def node_loads_binding(a, b, q, v, t, h, F, J):
    """F[dofs] += weights * field, field = scale[b] vector[b] (or vector[b])."""
    f0, f1, f2 = a.vector[b, 0], a.vector[b, 1], a.vector[b, 2]
    if a.scale.shape[0] > 0:
        s = a.scale[b]
        f0, f1, f2 = s * f0, s * f1, s * f2
    for i in range(a.dofs.shape[0]):
        w = a.weights[i]
        F[a.dofs[i, 0]] += w * f0
        F[a.dofs[i, 1]] += w * f1
        F[a.dofs[i, 2]] += w * f2


FixedDofsArgs = namedtuple("FixedDofsArgs", ["dofs", "values"])   # (k,) int64, (k,)


@kernel
def no_forces(a, b, q, v, t, h, F, J):
    """A binding without forces (boundary conditions)."""


@kernel
def fixed_dofs_constrain(a, b, t, q):
    """q[dofs] = values (held where they started)."""
    for i in range(a.dofs.shape[0]):
        q[a.dofs[i]] = a.values[i]


# -- environment (softmech.terms.implicit_environment) --------------------------------------
GroundArgs = namedtuple("GroundArgs", [
    "dofs",            # (n, 3) int64
    "point",           # (3,) [m]
    "normal",          # (3,) unit
    "stiffness",       # (B,) [N/m]
    "kinetic",         # (B,) [-] mu_k
    "static",          # (B,) [-] mu_s (a static excess where above mu_k)
    "distance",        # [m]
    "sharpness",       # [1/m]
    "slip_sharpness",  # [s/m]
    "slip",            # (B, n) [m/s] node slip speeds at the last accepted step (history)
    "speed",           # (B, n) [m/s] node slip speeds at world b's latest evaluation
])


@kernel
def ground_binding(a, b, q, v, t, h, F, J):
    """Smooth penalty ground contact with friction (softmech.kernels.implicit_ground)."""
    inv_h = 0.0 if math.isinf(h) else 1.0 / h
    ground_contact_forces(q, v, a.dofs, a.point, a.normal, a.stiffness[b], a.distance,
                          a.sharpness, a.kinetic[b], a.static[b], a.slip[b], a.speed[b],
                          a.slip_sharpness, inv_h, F, J)


@kernel
def ground_accept(a, b, q):
    """World b's step accepted: its nodes' slip speeds at the last evaluation (the converged
    Newton iterate) become the state of the static excess for the next step."""
    for i in range(a.slip.shape[1]):
        a.slip[b, i] = a.speed[b, i]


ViscousArgs = namedtuple("ViscousArgs", [
    "dofs",          # (n, 3) int64
    "lengths",       # (n,) [m] Voronoi lengths
    "viscosity",     # (B,) [Pa s]
])


@kernel
def viscous_binding(a, b, q, v, t, h, F, J):
    """F_i = -eta dL_i v_i (ref. 004 eq. 27), Jacobian -eta dL_i I / h (eq. 28), one diagonal
    entry per node DOF."""
    eta = a.viscosity[b]
    n = a.dofs.shape[0]
    for i in range(n):
        c = eta * a.lengths[i]
        for k in range(3):
            d = a.dofs[i, k]
            F[d] -= c * v[d]
    if not math.isinf(h):
        for i in range(n):
            c = eta * a.lengths[i]
            for k in range(3):
                J[3 * i + k] -= c / h


# -- actuation (softmech.terms.actuation) -----------------------------------------------------
ParameterWaveArgs = namedtuple("ParameterWaveArgs", [
    "target",        # (B, n) the per-world parameter's rows, flattened (a view of it)
    "amplitude",     # (n,)
    "phase",         # (n,) [rad]
    "offset",        # (n,)
    "frequency",     # [Hz]
    "ramp_time",     # [s] (0: no ramp)
])


@kernel
def parameter_wave_update(a, b, t):
    """target[b] = offset + ramp(t) amplitude sin(2 pi f t + phase), ramp(t) =
    min(t / ramp_time, 1) (1 without a ramp)."""
    ramp = 1.0 if a.ramp_time == 0.0 else min(t / a.ramp_time, 1.0)
    arg = 2.0 * math.pi * a.frequency * t
    for i in range(a.target.shape[1]):
        a.target[b, i] = a.offset[i] + ramp * a.amplitude[i] * math.sin(arg + a.phase[i])


# -- scratch, for the batched compiled loop ---------------------------------------------------
SCRATCH = {
    "DerStretchArgs": ("EA",),
    "DerBendTwistArgs": ("t", "a1", "a2", "ref", "kbar", "tbar", "EI", "GJ", "g", "H", "blk"),
    "NodeLoadsArgs": (),
    "FixedDofsArgs": (),
    "GroundArgs": (),
    "ViscousArgs": (),
    "ParameterWaveArgs": (),
}
"""Per argument tuple type (by name): the fields that are scratch, written and read within one
kernel call for one world. Every other array field is read-only or written at world b's row
only (per-world parameters with B rows, accepted history (B, ...)), so that worker threads that
step different worlds at once need their own copies of these fields and nothing else
(softmech.implicit.compiled.CompiledLoop.run_worlds). A tuple type not listed here is not
known to be safe: its scene's worlds are stepped one after another."""


def with_own_scratch(args):
    """The argument tuple `args` with its SCRATCH fields copied (what a worker thread that steps
    other worlds writes alone); every other array shared."""
    return args._replace(**{f: getattr(args, f).copy() for f in SCRATCH[type(args).__name__]})


def threads_safe(args, worlds):
    """Whether threads that step different worlds of `worlds` at once may share the argument
    tuple `args`, each with its own copy of its SCRATCH fields: its type is listed in SCRATCH,
    and a rod's actuation tables (which write the natural curvature and twist at row
    b % rows) write per-world rows (rows = worlds)."""
    kind = type(args).__name__
    if kind not in SCRATCH:
        return False
    if kind == "DerBendTwistArgs":
        for times, target in ((args.curv_times, args.curv), (args.twist_times, args.twist)):
            if times.shape[0] > 0 and target.shape[0] != worlds:
                return False
    return True

