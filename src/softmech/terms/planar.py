"""Planar (2D) scenes of discrete rods and shells: sm.Planar(normal="y").

A rod or a sheet that starts in a plane and is loaded in that plane stays in it (by symmetry:
reflection through the plane maps the problem onto itself), and its twist angles (rods) and
mid-edge angles (shells) keep their values. `Planar` removes those degrees of freedom from the
Newton solve instead of solving for them: every node's coordinate along the plane's normal and
every scalar DOF (edge twists, mid-edge angles, a rod-shell joint's twist angles) are held at
their initial values (softmech.implicit.binding.Binding.constrained_dofs), so a planar rod of N
nodes solves 2N unknowns instead of 4N - 1 (ref. 004: MAT-DiSMech handles "2D and 3D" rods and
shells). Forces out of the plane are then carried by the constraint (reported nowhere), as by a
frictionless guide.
"""
import numpy as np

from softmech import _checks
from softmech.implicit.loads import FixedDofs
from softmech.terms.nodes import _ImplicitTerm

AXES = {"x": 0, "y": 1, "z": 2}


class Planar(_ImplicitTerm):
    """Planar(normal="y", tolerance=1e-9): every implicit body of the scene moves in the plane
    through its initial nodes normal to the axis `normal` ("x", "y" or "z"): the nodes'
    coordinate along it and all scalar DOFs (twists, mid-edge angles) are held where they
    start. Every node must start in that plane: their coordinates along `normal` may spread by
    at most `tolerance` [m]. DOFs another boundary condition (sm.FixNodes) already holds stay
    with it."""

    section = "boundary"

    def __init__(self, normal="y", *, tolerance=1e-9, name="planar"):
        self.name = name
        self.normal = _checks.choice(f"{name}.normal", normal, set(AXES))
        self.tolerance = float(_checks.nonnegative(f"{name}.tolerance", tolerance, shape=()))

    def _check_in_plane(self, coordinates):
        """Every node starts in one plane normal to the axis: coordinates [(body, its nodes'
        coordinates along the normal (n,) [m])], the first node's the plane's."""
        plane = coordinates[0][1][0]
        for body, coord in coordinates:
            spread = float(np.abs(coord - plane).max())
            if spread > self.tolerance:
                raise ValueError(
                    f"{self.name}.normal = {self.normal!r} is not allowed for this scene: "
                    f"{body.kind} {body.name!r} has nodes {spread:.3g} m off the plane "
                    f"{self.normal} = {plane:.6g} m (tolerance {self.tolerance:.3g} m): every "
                    "node must start in one plane normal to the axis")

    def bind_implicit(self, ctx):
        layout, axis = ctx.layout, AXES[self.normal]
        if not ctx.bodies:
            raise ValueError(f"{self.name}: the scene has no discrete rod or shell")
        out_of_plane = [layout.node_dof(body.nodes)[:, axis] for body in ctx.bodies.values()]
        self._check_in_plane([(body, layout.q0[dofs])
                              for body, dofs in zip(ctx.bodies.values(), out_of_plane)])
        node_dofs = np.unique(np.concatenate([layout.node_dof(b.nodes).reshape(-1)
                                              for b in ctx.bodies.values()]))
        scalar_dofs = np.setdiff1d(np.arange(layout.n_dof), node_dofs)
        dofs = np.union1d(np.concatenate(out_of_plane), scalar_dofs)
        held = [term.fixed_dofs(ctx) for term in ctx.terms
                if term is not self and hasattr(term, "fixed_dofs")]
        if any(isinstance(term, Planar) for term in ctx.terms if term is not self):
            raise ValueError(f"{self.name}: a scene takes one sm.Planar")
        dofs = np.setdiff1d(dofs, np.concatenate(held + [np.zeros(0, np.int64)]))
        return [FixedDofs(self.name, dofs, layout.q0[dofs])]

    def contribute(self, ctx, p):
        """The unified engine's kind (softmech.terms.der_kind.DerFixedNodes): every node of its
        discrete rods and shells held along the normal and every edge angle (a rod's twists, a
        mid-edge shell's xi) held, by its positions and rates constraints, where the discrete
        engine removes those DOFs from the solve (the same equations for the other DOFs). A
        scene with Cosserat rods, rigid bodies or a rod-shell joint beside them is refused:
        Planar holds discrete bodies only."""
        from softmech.der_packing import edge_count, initial_nodes, node_count
        from softmech.terms.der_kind import DerFixedNodes
        bodies = list(getattr(ctx, "der_rods", ())) + list(getattr(ctx, "der_shells", ()))
        if not bodies:
            raise ValueError(f"{self.name}: the scene has no discrete rod or shell")
        others = [kind for kind, present in (("Cosserat rods", ctx.rods),
                                             ("rigid bodies", ctx.rigid_bodies),
                                             ("a rod-shell joint", ctx.der_networks)) if present]
        if others:
            raise ValueError(f"{self.name} (Planar) is not allowed with {', '.join(others)} on "
                             "the unified engine: it holds discrete rods and shells only "
                             "(compile a scene of those alone, or with engine='discrete')")
        part = ctx.part(DerFixedNodes)
        if part.planar:
            raise ValueError(f"{self.name}: a scene takes one sm.Planar")
        axis = AXES[self.normal]
        self._check_in_plane([(body, initial_nodes(body)[:, axis]) for body in bodies])
        part.planar = True
        for body in bodies:
            part.hold(body, np.arange(node_count(body)), [axis], np.arange(edge_count(body)))
