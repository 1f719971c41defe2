"""The environment of discrete rods and shells (implicit bodies), with the Jacobians the implicit
integrator needs (MAT-DiSMech, ref. 004 section 5):

    GroundBinding: the discrete part of sm.GroundContact, smooth penalty contact with a plane
        and regularized Coulomb friction (eqs. 23, 25-26; kernel and formulas:
        softmech.kernels.implicit_ground)
    NodeUserForce(body, function, jacobian=None)
        a force of the user's, node by node, with its Jacobian or finite differences (5.5)

sm.Gravity and sm.Buoyancy (section 5.1) work on implicit bodies too, and sm.LinearDamping is
the viscous friction of a discrete rod's nodes (eq. 27).
"""
import numpy as np

from softmech import _checks
from softmech.implicit.binding import Binding
from softmech.implicit.compiled import CompiledForm
from softmech.kernels.implicit_bindings import GroundArgs, ground_accept, ground_binding
from softmech.kernels.implicit_ground import ground_contact_energy
from softmech.terms.nodes import _ImplicitTerm, _body_name, der_body


def _node_blocks(dofs):
    """rows, cols (n * 9,) of the 3x3 block of each node (dofs (n, 3)), row-major."""
    rows = np.repeat(dofs, 3, axis=1).reshape(-1)
    cols = np.tile(dofs, (1, 3)).reshape(-1)
    return rows, cols


class GroundBinding(Binding):
    """A discrete rod's or shell's smooth ground contact (the discrete part of
    softmech.terms.contact.GroundContact): term's plane_point, plane_normal, distance,
    sharpness and slip_tolerance, its per-world stiffness and friction coefficients (static,
    kinetic)."""

    def __init__(self, term, dofs, ctx):
        self.name = term.name
        self.term = term
        self.dofs = np.ascontiguousarray(dofs, dtype=np.int64)
        self.rows, self.cols = _node_blocks(self.dofs)
        self.args = GroundArgs(
            dofs=self.dofs, point=term.plane_point.astype(float),
            normal=term.plane_normal.astype(float),
            stiffness=ctx.params[f"{term.name}.stiffness"],
            kinetic=ctx.params[f"{term.name}.kinetic"], static=ctx.params[f"{term.name}.static"],
            distance=term.distance,
            sharpness=term.sharpness, slip_sharpness=15.0 / term.slip_tolerance,
            # history: the nodes start at rest (no slip: the full static coefficient)
            slip=np.zeros((ctx.worlds, len(self.dofs))),
            speed=np.zeros((ctx.worlds, len(self.dofs))))

    def forces(self, b, q, v, t, h, F, J):
        ground_binding(self.args, b, q, v, t, h, F, J)

    def accept(self, b, q):
        ground_accept(self.args, b, q)

    def compiled(self):
        return CompiledForm(self.name, self.args, forces=ground_binding, accept=ground_accept)

    def state(self):
        return {"slip": self.args.slip}

    def energy(self, b, q):
        a = self.args
        return ground_contact_energy(q, self.dofs, a.point, a.normal, a.stiffness[b], a.distance,
                                     a.sharpness)


class NodeUserForce(_ImplicitTerm):
    """A force of the user's on the nodes of a discrete rod or shell (ref. 004 section 5.5).

    function(t, positions (n, 3) [m], velocities (n, 3) [m/s]) -> forces (n, 3) [N].
    jacobian: None, or function(t, positions, velocities) -> (dF/dx, dF/dv), each (n, 3, 3):
    each node's force's derivatives with respect to that node's own position and velocity.
    With None they are taken by central finite differences (12 calls per Newton iteration,
    every node perturbed at once). Either way forces that couple different nodes are
    followed by the residual but not by the Jacobian (Newton then converges more slowly).
    On the unified engine (Scene.compile(engine="unified")) the function is called once per
    world from the compiled force pass, and its Newton differentiates the whole pass (the
    couplings between nodes included): `jacobian` is not used there."""

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

    def contribute(self, ctx, p):
        """A discrete rod or shell in the unified engine (softmech.terms.der_loads.
        DerUserForces): the function called per world from the compiled force pass; the
        Newton's finite-difference Jacobian covers it, so `jacobian` is not used there."""
        from softmech.terms.der_loads import DerUserForces
        body = der_body(ctx, self.implicit_body)
        if body is None:
            super().contribute(ctx, p)
        ctx.part(DerUserForces).add(self.name, body, self.function)


class _UserBinding(Binding):
    def __init__(self, term, dofs):
        self.name = term.name
        self.term = term
        self.dofs = dofs
        self.rows, self.cols = _node_blocks(dofs)

    def _call(self, fn, t, x, v, shape):
        return _checks.user_result(self.name, fn(t, x, v), shape, t)

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
