"""sm.GroundContact on a discrete rod or shell in the unified engine
(softmech.simulation.Simulation, Scene.compile(engine="unified")): the part of the kind, its
per-world parameters and its explicit time-step limit. The forces are the discrete engine's compiled
contact (softmech.kernels.implicit_ground, called by softmech.kernels.der_ground), the same smooth
penalty and regularized Coulomb friction as GroundContact's discrete binding
(softmech.terms.implicit_environment.GroundBinding).

Static and kinetic friction: the static excess mu_s - mu_k is lagged on each node's slip speed at
the last accepted step, which on the kind is read from the state, not kept as a history
(softmech.kernels.der_ground: implicit Euler's base velocities, der_v_base)."""
import warnings

import numpy as np

from softmech.bodies.shell import _node_dofs
from softmech.der_packing import per_lane_rows
from softmech.integrators.analytic import AnalyticJacobian
from softmech.integrators.driver import Call
from softmech.kernels.analytic_jacobian import adds_nothing
from softmech.kernels.der_ground import DerGroundArgs, der_ground_forces, der_ground_jacobian
from softmech.kernels.der_motion import DER_MOTION
from softmech.terms.base import Part

ORDER = 90
"""After the kind's elasticity (order 0), which initialises der_force: the place of the other
kinds' ground contacts in the force pass."""

PENALTY_STIFFNESS = 2.0 * 1.0454
"""max over d of |d F_n / d d| / k [-] of the smooth penalty F_n = 2 k s sigma
(softmech.kernels.implicit_ground): 2 (sigma^2 + log(1 + e^z) sigma (1 - sigma)), z = K (delta
- d), peaks at 2 x 1.04533 at z = 3.10 (evaluated on a grid of 2e6 points over z in [-5, 20]);
rounded up."""


def time_step_limit(node_mass, stiffness):
    """Explicit stability limit [s], (B,), of the contact on a node of mass m [kg]: the penalty
    is a spring of stiffness at most PENALTY_STIFFNESS k on the lightest node, dt < 2 sqrt(m /
    k_eff) (a spring-mass oscillator under position Verlet), halved as the other contacts'
    limits (softmech.terms.contact); node_mass (B, n) [kg] (a body's own lumped masses: a
    joined node's is at least that), stiffness k (B,) [N/m]. The friction's regularization
    (a damper of mu |F_n| K_f / 2 below the slip tolerance) is not included."""
    lightest = np.min(node_mass, axis=-1)
    return np.sqrt(lightest / (PENALTY_STIFFNESS * np.asarray(stiffness, float)))


def shortest_edge(body):
    """The shortest edge [m] of a discrete rod (rest_lengths) or shell (edge_length)."""
    lengths = body.rest_lengths if hasattr(body, "rest_lengths") else body.edge_length
    return float(np.min(lengths))


def check_parameters(name, p):
    """ValueError unless stiffness > 0, kinetic >= 0 and static >= 0 in every world (p: the
    term's per-world parameters, (B,) each; static <= kinetic: kinetic friction alone)."""
    if np.any(p["stiffness"] <= 0):
        raise ValueError(f"params['{name}.stiffness'] has entries <= 0 (must be > 0)")
    if np.any(p["kinetic"] < 0) or np.any(p["static"] < 0):
        raise ValueError(f"params['{name}.kinetic'] and params['{name}.static'] must be >= 0")


def warn_slip_below_newton_step(term, rods, h, delta):
    """Warn (RuntimeWarning, before the first step) where a contact's friction slip velocity
    (term.slip_tolerance [m/s]) is below 10 finite-difference velocity steps of the unified
    engine's Newton, delta l / h (softmech.kernels.implicit_motion.perturbation_kind; l the
    shortest edge [m] of the contact's discrete rods or shells `rods`, h the step [s]): its
    Jacobian then cannot resolve the regularized friction, and Newton fails (measured with the
    ground contact's Jacobian by finite differences: at the default 1e-8 m/s a rod at rest on
    the ground ran 200 steps of 10 ms, then failed even at h / 256). The ground contact's own
    blocks are analytic unless ImplicitOptions(analytic=False); an edge contact's are not."""
    lowest = 10.0 * delta * min(shortest_edge(r) for r in rods) / h
    if term.slip_tolerance < lowest:
        names = ", ".join(repr(r.name) for r in rods)
        warnings.warn(
            f"{term.name}.friction: slip_velocity = {term.slip_tolerance:g} m/s is below "
            f"{lowest:.3g} m/s, 10 finite-difference steps of the unified engine's "
            f"Newton at dt = {h:g} s on rod{'s' if len(rods) > 1 else ''} {names}: its implicit "
            f"steps may not converge; give slip_velocity >= {lowest:.3g} m/s, or compile with "
            "engine='discrete'", RuntimeWarning, stacklevel=5)


class DerGroundContacts(Part):
    """Every sm.GroundContact on a discrete rod or shell of the unified engine: one call
    each (a shell's nodes are slots of the kind as a rod's: the same kernel)."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.entries = []   # (term, body, params (B, 3): stiffness, kinetic, static)

    def add(self, term, body, p):
        """The contact `term` (softmech.terms.contact.GroundContact, its kind's fields
        resolved) on discrete rod or shell `body` with per-world parameters p; checks them and
        appends the contact's time-step limit to the assembly."""
        check_parameters(term.name, p)
        params = np.stack([p["stiffness"], p["kinetic"], p["static"]], axis=1)
        self.entries.append((term, body, params))
        self.ctx.time_step_limits.append(
            time_step_limit(self.ctx.der_node_mass[body.name], p["stiffness"]))

    def check_implicit_step(self, h, options):
        """Warn where a contact's slip velocity is below the Newton's resolution
        (warn_slip_below_newton_step) when its Jacobian is taken by finite differences
        (ImplicitOptions.analytic False; its analytic blocks resolve any slip velocity: the
        default 1e-8 m/s at rest equal to the discrete engine's, tests/validation/
        test_der_kind_ground.py)."""
        if options.analytic:
            return
        for term, body, _ in self.entries:
            warn_slip_below_newton_step(term, [body], h, options.delta)

    def calls(self, engine):
        calls = []
        for term, body, params in self.entries:
            slot = engine.der_slots.nodes[body.name]
            n = len(slot)
            args = engine.args(
                DerGroundArgs,
                dg_slot=slot,
                dg_dofs=np.arange(3 * n, dtype=np.int64).reshape(n, 3),
                dg_point=term.plane_point.astype(float), dg_normal=term.plane_normal.astype(float),
                dg_geometry=np.array([term.distance, term.sharpness,
                                      15.0 / term.slip_tolerance]),   # K_f as GroundBinding's
                dg_param=per_lane_rows(params, engine.lanes), dg_q=engine.zeros(3 * n),
                dg_u=engine.zeros(3 * n), dg_F=engine.zeros(3 * n), dg_w=engine.zeros(3 * n),
                dg_slip=engine.zeros(n), dg_speed=engine.zeros(n), dg_J=engine.zeros(0))
            # its Jacobian: each node's 3 x 3 block, dF/dq + dF/dv / h, the discrete engine's,
            # kept as long as the finite differences of the other terms
            jacobian = AnalyticJacobian.blocks(der_ground_jacobian, adds_nothing,
                                               (_node_dofs(slot[:, None]),), DER_MOTION,
                                               every_step=False)
            calls.append(Call("forces", ORDER, der_ground_forces, args, "der_ground_contact",
                              jacobian=jacobian, couplings=jacobian.couplings()))
        return calls
