"""Loads on discrete shells (implicit integrator only): a uniform pressure following the
triangles' normals, and DisMech's aerodynamic drag (ref. 004 section 5.4). Each binds to the
implicit integrator with its analytic Jacobian (softmech.kernels.shell_loads)."""
import numpy as np

from softmech import _checks
from softmech.implicit.binding import Binding
from softmech.kernels import shell_loads
from softmech.terms.nodes import _body_name, _ImplicitTerm


class _ShellTerm(_ImplicitTerm):
    """A term acting on the triangles of one discrete shell (softmech.bodies.shell)."""

    def _dofs(self, ctx):
        from softmech.bodies.shell import Shell
        shell = ctx.body(self.name, self.implicit_body)
        if not isinstance(shell, Shell):
            raise ValueError(f"{self.name}.shell = {self.implicit_body!r} is not allowed: it is a "
                             f"{shell.kind}, not a shell")
        nd = shell.node_dofs(ctx.layout)
        return shell, nd[shell.triangles].reshape(-1, 9)

    def _param(self, ctx, key):
        return ctx.params[f"{self.name}.{key}"]

    def _contribute_on_kind(self, ctx, kind, value):
        """On a shell of the unified engine's kind: its part (softmech.terms.der_shell.
        DerShellLoads); anything else is refused as the other discrete-engine terms are."""
        shell = getattr(ctx, "der_shell_index", {}).get(self.implicit_body)
        if shell is None:
            return super().contribute(ctx, {})
        from softmech.terms.der_shell import DerShellLoads
        ctx.part(DerShellLoads).add(kind, shell, value)


class ShellPressure(_ShellTerm):
    """Uniform pressure [Pa] on a shell, following its triangles' normals (a follower load): each
    triangle of area A and unit normal n (right-handed from its node order; +z for the generated
    flat meshes of softmech.bodies.meshes) pushes p A n / 3 on each of its nodes. Per-world
    parameter "<name>.pressure" (B,)."""

    section = "loads"

    def __init__(self, shell, pressure, *, name="pressure"):
        self.name = name
        self.implicit_body = _body_name(name, shell, "shell")
        self.pressure = float(_checks.finite(f"{name}.pressure", pressure, shape=()))

    def parameters(self):
        return {"pressure": np.array([self.pressure])}

    def bind_implicit(self, ctx):
        _, dofs = self._dofs(ctx)
        return [_PressureBinding(self.name, dofs, self._param(ctx, "pressure"))]

    def contribute(self, ctx, p):
        """A shell of the unified engine's kind (softmech.terms.der_shell)."""
        self._contribute_on_kind(ctx, "pressure", p["pressure"])


class ShellDrag(_ShellTerm):
    """Aerodynamic drag on a shell (ref. 004 section 5.4): each triangle resists the normal
    velocity of each of its nodes with 1/2 rho C_d (A/3) (v.n)^2, A its rest area.
    drag_coefficient C_d [-] (> 0), fluid_density rho [kg/m^3] (> 0; air 1.2)."""

    section = "damping"

    def __init__(self, shell, drag_coefficient, fluid_density=1.2, *, name="shell_drag"):
        self.name = name
        self.implicit_body = _body_name(name, shell, "shell")
        self.drag_coefficient = float(_checks.positive(f"{name}.drag_coefficient", drag_coefficient, shape=()))
        self.fluid_density = float(_checks.positive(f"{name}.fluid_density", fluid_density, shape=()))

    def parameters(self):
        return {"coefficient": np.array([0.5 * self.fluid_density * self.drag_coefficient])}

    def bind_implicit(self, ctx):
        shell, dofs = self._dofs(ctx)
        return [_DragBinding(self.name, dofs, shell.tri_area, self._param(ctx, "coefficient"))]

    def contribute(self, ctx, p):
        """A shell of the unified engine's kind (softmech.terms.der_shell)."""
        self._contribute_on_kind(ctx, "drag", p["coefficient"])


def _rows_cols(dofs):
    return np.repeat(dofs, 9, axis=1).ravel(), np.tile(dofs, (1, 9)).ravel()


class _PressureBinding(Binding):
    pure = True         # its kernel writes only F and J

    def __init__(self, name, dofs, pressure):
        self.name, self.dofs, self.pressure = name, dofs, pressure
        self.rows, self.cols = _rows_cols(dofs)

    def forces(self, b, q, v, t, h, F, J):
        shell_loads.pressure_forces(q, self.dofs, float(self.pressure[b % len(self.pressure)]),
                                    True, F, J)


class _DragBinding(Binding):
    pure = True         # its kernel writes only F and J

    def __init__(self, name, dofs, rest_area, coefficient):
        self.name, self.dofs, self.rest_area, self.coefficient = name, dofs, rest_area, coefficient
        self.rows, self.cols = _rows_cols(dofs)

    def forces(self, b, q, v, t, h, F, J):
        c = float(self.coefficient[b % len(self.coefficient)])
        shell_loads.drag_forces(q, v, 1.0 / h, self.dofs, self.rest_area, c, True, F, J)
