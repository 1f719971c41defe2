"""The environment of discrete rods and shells (implicit bodies), with the Jacobians the implicit
integrator needs (MAT-DiSMech, ref. 004 section 5):

    SmoothGroundContact(body, stiffness, distance, friction=0, slip_tolerance=1e-3)
        smooth penalty contact with a plane and regularized Coulomb friction (eqs. 23, 25-26;
        kernel and formulas: softmech.kernels.implicit_ground)
    ViscousFriction(body, viscosity)       F_i = -eta dL_i v_i on a rod's nodes (eq. 27)
    NodeUserForce(body, function, jacobian=None)
        a force of the user's, node by node, with its Jacobian or finite differences (5.5)

sm.Gravity and sm.Buoyancy (section 5.1) work on implicit bodies too.
"""
import numpy as np

from softmech import _checks
from softmech.implicit.binding import Binding
from softmech.implicit.compiled import CompiledForm
from softmech.kernels.implicit_bindings import (GroundArgs, ViscousArgs, ground_binding,
                                                viscous_binding)
from softmech.kernels.implicit_ground import ground_contact_energy
from softmech.terms.nodes import _ImplicitTerm, _body_name


def _node_blocks(dofs):
    """rows, cols (n * 9,) of the 3x3 block of each node (dofs (n, 3)), row-major."""
    rows = np.repeat(dofs, 3, axis=1).reshape(-1)
    cols = np.tile(dofs, (1, 3)).reshape(-1)
    return rows, cols


class SmoothGroundContact(_ImplicitTerm):
    """Contact of a discrete rod's or shell's nodes with the plane through `plane_point` (3,) [m]
    with unit normal `plane_normal` (default: the ground z = 0).

    stiffness k [N/m] (the force 2 k (delta - d) once a node is deeper than ~1/K inside the
    contact distance); distance delta [m] (a rod's radius, half a shell's thickness): contact
    starts when a node's gap d to the plane falls below it; sharpness K [1/m] of the smooth
    penalty (default 15 / delta, IMC's choice); friction mu [-] (Coulomb, 0: none);
    slip_tolerance [m/s]: the sliding speed below which friction is regularized (sticking).
    Per-world parameters `<name>.stiffness`, `<name>.friction` (B,)."""

    section = "contact"

    def __init__(self, body, stiffness, distance, *, friction=0.0, slip_tolerance=1e-3,
                 sharpness=None, plane_point=(0.0, 0.0, 0.0), plane_normal=(0.0, 0.0, 1.0),
                 name="ground"):
        self.name = name
        self.implicit_body = _body_name(name, body)
        self.stiffness = float(_checks.positive(f"{name}.stiffness", stiffness, shape=()))
        self.distance = float(_checks.positive(f"{name}.distance", distance, shape=()))
        self.friction = float(_checks.nonnegative(f"{name}.friction", friction, shape=()))
        self.slip_tolerance = float(_checks.positive(f"{name}.slip_tolerance", slip_tolerance, shape=()))
        self.sharpness = (15.0 / self.distance if sharpness is None
                          else float(_checks.positive(f"{name}.sharpness", sharpness, shape=())))
        self.plane_point = _checks.finite(f"{name}.plane_point", plane_point, shape=(3,))
        self.plane_normal = _checks.unit_vector(f"{name}.plane_normal", plane_normal)

    def parameters(self):
        return {"stiffness": np.array([self.stiffness]), "friction": np.array([self.friction])}

    def bind_implicit(self, ctx):
        body = ctx.body(self.name, self.implicit_body)
        return [_GroundBinding(self, ctx.layout.node_dof(body.nodes), ctx.params)]


class _GroundBinding(Binding):
    def __init__(self, term, dofs, params):
        self.name = term.name
        self.term = term
        self.dofs = np.ascontiguousarray(dofs, dtype=np.int64)
        self.rows, self.cols = _node_blocks(self.dofs)
        self.args = GroundArgs(
            dofs=self.dofs, point=term.plane_point.astype(float),
            normal=term.plane_normal.astype(float), stiffness=params[f"{term.name}.stiffness"],
            friction=params[f"{term.name}.friction"], distance=term.distance,
            sharpness=term.sharpness, slip_sharpness=15.0 / term.slip_tolerance)

    def forces(self, b, q, v, t, h, F, J):
        ground_binding(self.args, b, q, v, t, h, F, J)

    def compiled(self):
        return CompiledForm(self.name, self.args, forces=ground_binding)

    def energy(self, b, q):
        a = self.args
        return ground_contact_energy(q, self.dofs, a.point, a.normal, a.stiffness[b], a.distance,
                                     a.sharpness)


class ViscousFriction(_ImplicitTerm):
    """Viscous friction on a discrete rod's nodes, F_i = -eta dL_i v_i (ref. 004 eq. 27), with
    dL_i the node's Voronoi length [m] and eta the medium's viscosity coefficient [Pa s];
    Jacobian -eta dL_i I / h (eq. 28). Per-world parameter `<name>.viscosity` (B,)."""

    section = "damping"

    def __init__(self, body, viscosity, *, name="viscous_friction"):
        self.name = name
        self.implicit_body = _body_name(name, body)
        self.viscosity = float(_checks.nonnegative(f"{name}.viscosity", viscosity, shape=()))

    def parameters(self):
        return {"viscosity": np.array([self.viscosity])}

    def bind_implicit(self, ctx):
        body = ctx.body(self.name, self.implicit_body)
        lengths = getattr(body, "node_lengths", None)
        if lengths is None:
            raise ValueError(f"{self.name}: body {body.name!r} ({body.kind}) has no node lengths; "
                             "ViscousFriction (ref. 004 eq. 27) acts on discrete rods")
        return [_ViscousBinding(self.name, ctx.layout.node_dof(body.nodes), lengths(),
                                ctx.params[f"{self.name}.viscosity"])]


class _ViscousBinding(Binding):
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


class NodeUserForce(_ImplicitTerm):
    """A force of the user's on the nodes of a discrete rod or shell (ref. 004 section 5.5).

    function(t, positions (n, 3) [m], velocities (n, 3) [m/s]) -> forces (n, 3) [N].
    jacobian: None, or function(t, positions, velocities) -> (dF/dx, dF/dv), each (n, 3, 3):
    each node's force's derivatives with respect to that node's own position and velocity.
    With None they are taken by central finite differences (12 calls per Newton iteration,
    every node perturbed at once). Either way forces that couple different nodes are
    followed by the residual but not by the Jacobian (Newton then converges more slowly)."""

    section = "loads"

    def __init__(self, body, function, jacobian=None, *, step=1e-7, name="user_force"):
        self.name = name
        self.implicit_body = _body_name(name, body)
        if not callable(function):
            raise ValueError(f"{name}.function = {function!r} is not allowed: must be callable "
                             "f(t, positions, velocities) -> forces (n, 3)")
        if jacobian is not None and not callable(jacobian):
            raise ValueError(f"{name}.jacobian = {jacobian!r} is not allowed: must be None or "
                             "callable j(t, positions, velocities) -> (dF/dx, dF/dv)")
        self.function = function
        self.jacobian = jacobian
        self.step = float(_checks.positive(f"{name}.step", step, shape=()))

    def bind_implicit(self, ctx):
        body = ctx.body(self.name, self.implicit_body)
        return [_UserBinding(self, ctx.layout.node_dof(body.nodes))]


class _UserBinding(Binding):
    def __init__(self, term, dofs):
        self.name = term.name
        self.term = term
        self.dofs = dofs
        self.rows, self.cols = _node_blocks(dofs)

    def _call(self, fn, t, x, v, shape):
        out = np.asarray(fn(t, x, v), dtype=float)
        if out.shape != shape:
            raise ValueError(f"{self.name}: the user function returned shape {out.shape}, "
                             f"expected {shape}")
        if not np.all(np.isfinite(out)):
            raise ValueError(f"{self.name}: the user function returned NaN or inf at t = {t:.6g} s")
        return out

    def _force(self, t, x, v):
        return self._call(self.term.function, t, x, v, x.shape)

    def forces(self, b, q, v, t, h, F, J):
        x, vel = q[self.dofs], v[self.dofs]
        F[self.dofs] += self._force(t, x, vel)
        n = len(x)
        if self.term.jacobian is not None:
            pair = self.term.jacobian(t, x, vel)
            if not isinstance(pair, tuple) or len(pair) != 2:
                raise ValueError(f"{self.name}: the jacobian function must return a pair "
                                 "(dF/dx, dF/dv)")
            dfdx = self._call(lambda *a: pair[0], t, x, vel, (n, 3, 3))
            dfdv = self._call(lambda *a: pair[1], t, x, vel, (n, 3, 3))
        else:
            # steps relative to the largest coordinate and speed (at least step m, step m/s)
            ex = self.term.step * max(1.0, float(np.max(np.abs(x))))
            ev = self.term.step * max(1.0, float(np.max(np.abs(vel))))
            dfdx = np.empty((n, 3, 3))
            dfdv = np.empty((n, 3, 3))
            for c in range(3):
                dx = np.zeros_like(x)
                dx[:, c] = ex
                dv = np.zeros_like(x)
                dv[:, c] = ev
                dfdx[:, :, c] = (self._force(t, x + dx, vel) - self._force(t, x - dx, vel)) / (2 * ex)
                dfdv[:, :, c] = (self._force(t, x, vel + dv) - self._force(t, x, vel - dv)) / (2 * ev)
        block = dfdx if np.isinf(h) else dfdx + dfdv / h
        J += block.reshape(-1)
