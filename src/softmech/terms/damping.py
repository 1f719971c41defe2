"""Dissipation: linear damping of every body kind, and the internal viscosity of rods.

LinearDamping, one term for Cosserat rods, rigid bodies and discrete rods (each kind through its
own part: softmech.terms.base.BodyTerm):
  * Cosserat rod (ME498 handout's gamma, Table 1-2): per unit length, force -gamma v dl on each
    node (dl = rest length owned by the node) and couple -gamma_r w l^ on each element (local
    frame). gamma has units kg m^-1 s^-1. For the couple to be a torque, gamma_r must have
    units kg m s^-1; by default gamma_r = gamma I1 / A (= gamma r^2 / 4), which damps rotation
    of each element at the same rate gamma / (rho A) as translation (mass-proportional
    damping). PyElastica's and the snake's reference implementation use a rotational
    coefficient numerically equal to gamma: pass rotational_coefficient explicitly to
    reproduce it.
  * rigid body: force -c v [N] and torque -c_r w [N m], c [N s/m], c_r [N m s] (default 0).
  * discrete rod (implicit): F_i = -eta dL_i v_i on its nodes (MAT-DiSMech, ref. 004 eq. 27),
    eta = coefficient [Pa s = kg m^-1 s^-1, as a Cosserat rod's gamma], dL_i the node's Voronoi
    length [m]; Jacobian -eta dL_i I / h (eq. 28). No rotational part.

KelvinVoigt: internal viscosity with retardation time tau [s]: n += tau S d(sigma)/dt and
m += tau B d(kappa)/dt (stiffness-proportional damping; Renda et al. 2018 use this form).
"""
import numpy as np

from softmech import _checks
from softmech.bodies.cosserat_rod import node_shares, rod_section
from softmech.implicit.binding import Binding
from softmech.implicit.compiled import CompiledForm
from softmech.integrators.driver import Call
from softmech.kernels.damping import LinearDampingArgs, linear_damping
from softmech.kernels.implicit_bindings import ViscousArgs, viscous_binding
from softmech.packing import Slots, to_blocks
from softmech.terms.base import DISCRETE, RIGID, ROD, BodyTerm, Part, Term, optional, rod_name
from softmech.terms.rigid import RigidDampers

ORDER = 10
"""Place in the force pass: right after the rods' elasticity."""


class Dampers(Part):
    """All linear dampers of a scene in one kernel call: coefficients per node (gamma dl [kg/s])
    and per element (gamma_r l^ [N m s]) of every rod, (B, n) each, zero on undamped rods."""

    def __init__(self, ctx):
        super().__init__(ctx)
        B = ctx.worlds
        self.node = {r.name: np.zeros((B, r.n_nodes)) for r in ctx.rods}
        self.elem = {r.name: np.zeros((B, r.n_elems)) for r in ctx.rods}

    def calls(self, engine):
        def blocks(per_rod):
            return to_blocks(np.concatenate([Slots.with_ghost(r, per_rod[r.name]) for r in engine.rods],
                                            axis=1), engine.lanes)
        args = engine.args(LinearDampingArgs, node_damping=blocks(self.node),
                           elem_damping=blocks(self.elem))
        return [Call("forces", ORDER, linear_damping, args, "linear_damping")]


def damping_parameters(coefficient, rotational_coefficient):
    """The per-world parameters of a rod's damping: `coefficient` and, if not None,
    `rotational_coefficient`, (1,) each."""
    p = {"coefficient": np.array([coefficient])}
    if rotational_coefficient is not None:
        p["rotational_coefficient"] = np.array([rotational_coefficient])
    return p


def rod_damping(ctx, rod, p):
    """A Cosserat rod's damping coefficients from its parameters p (damping_parameters'):
    per node gamma dl [kg/s], (B, n_nodes), and per element gamma_r l^ [N m s], (B, n_elems);
    without a rotational coefficient gamma_r = gamma (I1 + I2) / (2 A), the translational
    coefficient per unit mass applied to the rotary inertia (the mean of the section's two
    bending mass moments per area: I1 / A for a circle)."""
    gamma = p["coefficient"][:, None]
    if "rotational_coefficient" in p:
        gamma_r = p["rotational_coefficient"][:, None]
    else:
        area, _, inertia = rod_section(ctx.rod_params(rod.name))
        gamma_r = gamma * (0.5 * (inertia[..., 0] + inertia[..., 1])) / area
    return gamma * node_shares(rod.rest_lengths, rod.closed), gamma_r * rod.rest_lengths


class LinearDamping(BodyTerm):
    """Linear damping of a Cosserat rod, a rigid body or a discrete rod (module docstring).

    LinearDamping(body, coefficient, *, rotational_coefficient=None, name="damping"):
    coefficient gamma [kg/(m s)] (Cosserat or discrete rod, per unit length) or c [N s/m]
    (rigid body); rotational_coefficient gamma_r [kg m/s] (Cosserat rod; None: gamma I1 / A)
    or c_r [N m s] (rigid body; None: 0); a discrete rod has none. Per-world parameters
    `<name>.coefficient` and, where it applies, `<name>.rotational_coefficient` (B,)."""

    section = "damping"
    kinds = (ROD, RIGID, DISCRETE)

    def __init__(self, body, coefficient, *, rotational_coefficient=None, name="damping"):
        self.name = name
        self._set_target(body)
        self.coefficient = float(_checks.nonnegative(f"{name}.coefficient", coefficient, shape=()))
        self.given_rotational = optional(name, "rotational_coefficient", rotational_coefficient)
        self.rotational_coefficient = self.given_rotational

    def check_kind(self, kind):
        if kind == DISCRETE and self.given_rotational is not None:
            raise ValueError(f"{self.name}.rotational_coefficient = {self.given_rotational!r} is "
                             f"not allowed on discrete rod {self.target!r}: its damping acts on "
                             "the nodes only (leave it None)")
        # a rigid body without one has no rotational damping
        self.rotational_coefficient = (0.0 if kind == RIGID and self.given_rotational is None
                                       else self.given_rotational)

    def parameters(self):
        return damping_parameters(self.coefficient, self.rotational_coefficient)

    def contribute_cosserat_rod(self, ctx, p):
        rod = ctx.rod(self.rod, self.name)
        dampers = ctx.part(Dampers)
        node, elem = rod_damping(ctx, rod, p)
        dampers.node[self.rod] += node
        dampers.elem[self.rod] += elem
        # per unit inertia, for the time-step limit (softmech.stability.rod_time_step_limit)
        params = ctx.rod_params(rod.name)
        ctx.damping_rate[self.rod] += p["coefficient"][:, None] / (
            params["density"] * rod_section(params)[0])
        ctx.rotational_damping_rate[self.rod] += elem[..., None] / ctx.discrete[rod.name]["elem_J"]

    def contribute_rigid_body(self, ctx, p):
        body = ctx.rigid_body(self.body, self.name)
        slot = ctx.rigid_index[self.body]
        dampers = ctx.part(RigidDampers)
        dampers.linear[:, slot] += p["coefficient"]
        dampers.angular[:, slot] += p["rotational_coefficient"]
        # an explicit step of dv/dt = -(c/m) v is stable for dt < 2 m / c; halved as the
        # contact's limit is (divergence messages suggest it: tests/reliability)
        params = ctx.rigid_params[body.name]
        with np.errstate(divide="ignore"):
            ctx.time_step_limits.append(params["mass"] / p["coefficient"])
            ctx.time_step_limits.append(np.min(params["inertia"], axis=-1)
                                        / p["rotational_coefficient"])

    def contribute_discrete(self, ctx, p):
        """A discrete rod in the unified engine (softmech.terms.der_loads): F_i = -eta dL_i v_i,
        the discrete engine's viscous binding called per world; its stability limit:
        softmech.der_stability."""
        from softmech.terms.der_loads import DerDampers
        rod = ctx.der_index.get(self.target)
        if rod is None:
            raise ValueError(f"{self.name}.body = {self.target!r} is not allowed in the unified "
                             "engine: it is not a discrete rod of the scene (on a shell: not "
                             "yet; compile with engine='discrete')")
        ctx.part(DerDampers).add(rod, p["coefficient"])

    def bind_implicit(self, ctx):
        """The discrete rod's viscous damping (ref. 004 eq. 27): one binding on its nodes."""
        if self._resolved() != DISCRETE:
            raise ValueError(f"{self.name}.body = {self.target!r} is not allowed in a scene of "
                             "discrete rods and shells: it is not one")
        body = ctx.body(self.name, self.implicit_body)
        lengths = getattr(body, "node_lengths", None)
        if lengths is None:
            raise ValueError(f"{self.name}: body {body.name!r} ({body.kind}) has no node lengths; "
                             "LinearDamping (ref. 004 eq. 27) acts on discrete rods, not shells")
        return [_ViscousBinding(self.name, ctx.layout.node_dof(body.nodes), lengths(),
                                ctx.params[f"{self.name}.coefficient"])]


class _ViscousBinding(Binding):
    """A discrete rod's viscous damping, F_i = -eta dL_i v_i
    (softmech.kernels.implicit_bindings)."""

    def __init__(self, name, dofs, lengths, viscosity):
        self.name = name
        self.dofs = np.ascontiguousarray(dofs, dtype=np.int64)
        # one diagonal entry per node DOF
        self.rows = self.cols = self.dofs.reshape(-1)
        self.args = ViscousArgs(self.dofs, np.ascontiguousarray(lengths, dtype=float), viscosity)

    def forces(self, b, q, v, t, h, F, J):
        viscous_binding(self.args, b, q, v, t, h, F, J)

    def compiled(self):
        return CompiledForm(self.name, self.args, forces=viscous_binding)


class KelvinVoigt(Term):
    """KelvinVoigt(rod, retardation_time [s]) internal viscosity on stretch, shear, bend, twist."""

    section = "damping"

    def __init__(self, rod, retardation_time, *, name="kelvin_voigt"):
        self.name = name
        self.rod = rod_name(name, rod)
        self.retardation_time = float(_checks.nonnegative(f"{name}.retardation_time", retardation_time, shape=()))

    def parameters(self):
        return {"retardation_time": np.array([self.retardation_time])}

    def contribute(self, ctx, p):
        ctx.rod(self.rod, self.name)
        ctx.kv_tau[self.rod] += p["retardation_time"][:, None]
