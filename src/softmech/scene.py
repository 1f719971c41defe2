"""Scene builder: add rods, rigid bodies and terms, then `compile(worlds=B, dt=...)` to get a
Simulation."""

from softmech import _checks
from softmech.bodies import rigid_body
from softmech.bodies.cosserat_rod import BYTES_PER_ELEMENT, build_rod, ring_nodes, straight_centerline
from softmech.packing import assemble_terms, scene_parameters
from softmech.stability import assembly_time_step_limit
from softmech.terms.base import Term


class Scene:
    """A model under construction. Names are unique across rods, rigid bodies and terms."""

    def __init__(self):
        self.rods = []
        self.rigid_bodies = []
        self.implicit_bodies = []   # discrete rods and shells (softmech.implicit)
        self.terms = []
        self._index = None

    def _lookup(self):
        """Names of the scene's bodies and terms, and the terms' constrained ends, as sets and
        dicts: kept up to date by the add methods and rebuilt whenever the public lists were
        changed by other means, so that adding N bodies and terms costs O(N), not O(N^2)
        (a wing of ~3,000 rods and ~6,000 terms: 9.5 s of name checks before)."""
        counts = (len(self.rods), len(self.rigid_bodies), len(self.implicit_bodies), len(self.terms))
        if self._index is None or self._index["counts"] != counts:
            self._index = {
                "counts": counts,
                "rods": {r.name: r for r in self.rods},
                "rigid": {b.name for b in self.rigid_bodies},
                "implicit": {b.name for b in self.implicit_bodies},
                "terms": {t.name for t in self.terms},
                "ends": {},
            }
            for t in self.terms:
                end = getattr(t, "constrained_end", None)
                if end is not None:
                    self._index["ends"].setdefault(end, t.name)
        return self._index

    def _registered(self, kind, item):
        """Record `item`, appended to its list just now, in the lookup index (or drop the index,
        to be rebuilt, if the lists were changed by other means)."""
        index = self._index
        if index is None:
            return
        counts = list(index["counts"])
        counts[("rods", "rigid", "implicit", "terms").index(kind)] += 1
        if tuple(counts) != (len(self.rods), len(self.rigid_bodies), len(self.implicit_bodies),
                             len(self.terms)):
            self._index = None
            return
        index["counts"] = tuple(counts)
        if kind == "rods":
            index["rods"][item.name] = item
        elif kind == "terms":
            index["terms"].add(item.name)
            end = getattr(item, "constrained_end", None)
            if end is not None:
                index["ends"].setdefault(end, item.name)
        else:
            index[kind].add(item.name)

    def _check_name(self, name):
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"name = {name!r} is not allowed: must be a Python identifier")
        index = self._lookup()
        if (name in index["rods"] or name in index["rigid"] or name in index["implicit"]
                or name in index["terms"]):
            raise ValueError(f"name = {name!r} is not allowed: already used in this scene")

    def add_cosserat_rod(self, *, name="rod", start=None, direction=None, length=None, n_elems=None,
                         centerline=None, normal=None, directors=None, radius=None, density,
                         youngs_modulus, shear_modulus=None, poisson_ratio=0.5,
                         shear_coefficient=4.0 / 3.0, law="gazzola2018", rest_curvature=None,
                         rest_strain=None, closed=False, section=None, rest_lengths=None):
        """Add a Cosserat rod and return it.

        Straight: start (3,) [m], direction (3,), length [m], n_elems. Arbitrary shape: centerline
        (n+1, 3) [m]; with closed=True the centerline holds the n nodes of a closed loop (the first
        node not repeated) and the rod has n elements, the last joining node n-1 to node 0. Frames: normal (3,) (d1, parallel-transported along the centreline) or
        directors (n, 3, 3). radius [m], density [kg/m^3], youngs_modulus, shear_modulus [Pa]:
        scalars or per-element arrays (n,). Cross-section: solid circles of `radius`, or
        section= one of softmech.sections (rectangle, ellipse, tube, general; dimensions per
        element or scalar), whose circumscribed circle contact, drag and drawings see unless
        `radius` is also given. law: "gazzola2018" (default) or "hyperelastic".
        rest_curvature: None (straight rest shape), "initial" or (n-1, 3) [1/m];
        rest_strain: (n, 3) rest shear/stretch strain [-]. rest_lengths: None (the initial
        element lengths, the chords of the centreline) or a scalar or (n,) [m]: a rod whose
        rest shape is not its initial one, e.g. a cable started on an arc whose rest length is
        the arc's; it starts stretched (or compressed) by chord / rest length - 1, and its mass
        and inertia are those of the rest lengths.
        """
        call = {k: v for k, v in locals().items() if k != "self"}   # the call, for scenario files
        self._check_name(name)
        closed = _checks.boolean(f"rod '{name}'.closed", closed)
        if closed and centerline is None:
            raise ValueError(f"rod '{name}': closed=True needs centerline=(n, 3) (or use add_cosserat_ring)")
        if centerline is None:
            missing = [k for k, v in (("start", start), ("direction", direction), ("length", length),
                                      ("n_elems", n_elems)) if v is None]
            if missing:
                raise ValueError(f"rod '{name}': give centerline=(n+1, 3) or all of start, direction, "
                                 f"length, n_elems (missing: {', '.join(missing)})")
            centerline = straight_centerline(start, direction, length, n_elems)
            field = "positions"
        elif any(v is not None for v in (start, direction, length, n_elems)):
            raise ValueError(f"rod '{name}': give centerline or start/direction/length/n_elems, not both")
        else:
            field = "centerline"
        rod = build_rod(name, positions=centerline, normal=normal, directors=directors, radius=radius,
                        density=density, youngs_modulus=youngs_modulus, shear_modulus=shear_modulus,
                        poisson_ratio=poisson_ratio, shear_coefficient=shear_coefficient, law=law,
                        rest_curvature=rest_curvature, rest_strain=rest_strain, positions_field=field,
                        closed=closed, section=section, rest_lengths=rest_lengths)
        rod.builder = ("cosserat_rod", call)
        self.rods.append(rod)
        self._registered("rods", rod)
        return rod

    def add_cosserat_ring(self, *, name="ring", center=(0.0, 0.0, 0.0), axis=(0.0, 0.0, 1.0),
                          ring_radius, n_elems, rest_curvature="initial", **material):
        """Add a closed rod whose centreline is a circle of ring_radius [m] about `axis` through
        `center`, with d1 = axis (normal to the ring's plane) and d3 along the tangent.

        rest_curvature defaults to "initial" (a stress-free ring); material keywords as in
        add_cosserat_rod (radius, density, youngs_modulus, ...).
        """
        call = {"name": name, "center": center, "axis": axis, "ring_radius": ring_radius,
                "n_elems": n_elems, "rest_curvature": rest_curvature, **material}
        nodes = ring_nodes(center, axis, ring_radius, n_elems)
        rod = self.add_cosserat_rod(name=name, centerline=nodes, normal=axis, closed=True,
                                    rest_curvature=rest_curvature, **material)
        rod.builder = ("cosserat_ring", call)
        return rod

    def _add_rigid(self, kind, name, call, **shape):
        self._check_name(name)
        common = {k: call[k] for k in ("directors", "velocity", "angular_velocity", "fixed")}
        axis = (call.get("direction"), call.get("normal")) if call["directors"] is None else (None, None)
        common["directors"] = rigid_body._frame(f"body '{name}'", call["directors"], *axis)
        body = rigid_body.BUILDERS[kind](name, **shape, **common)
        body.builder = ("rigid_body" if kind == "general" else kind,
                        {k: v for k, v in call.items() if k != "self"})
        self.rigid_bodies.append(body)
        self._registered("rigid", body)
        return body

    def add_sphere(self, *, name="sphere", position, radius, density=None, mass=None,
                   directors=None, velocity=(0.0, 0.0, 0.0), angular_velocity=(0.0, 0.0, 0.0),
                   fixed=False):
        """Add a solid rigid sphere: centre `position` (3,) [m], radius [m], density [kg/m^3]
        or mass [kg]; frame `directors` (3, 3) (rows d1, d2, d3; default the lab frame);
        velocity [m/s], angular_velocity [rad/s] (body frame); fixed=True: it never moves (an
        obstacle; it needs no density or mass)."""
        return self._add_rigid("sphere", name, dict(locals()), position=position, radius=radius,
                               density=density, mass=mass)

    def add_cylinder(self, *, name="cylinder", position, direction=(0.0, 0.0, 1.0), normal=None,
                     radius, length, density=None, mass=None, directors=None,
                     velocity=(0.0, 0.0, 0.0), angular_velocity=(0.0, 0.0, 0.0), fixed=False):
        """Add a solid rigid cylinder: centre `position` (3,) [m], axis `direction` (d3), d1
        along `normal` (or `directors` (3, 3) instead), radius and length [m], density or mass;
        other arguments as add_sphere."""
        return self._add_rigid("cylinder", name, dict(locals()), position=position, radius=radius,
                               length=length, density=density, mass=mass)

    def add_box(self, *, name="box", position, lengths, density=None, mass=None, directors=None,
                velocity=(0.0, 0.0, 0.0), angular_velocity=(0.0, 0.0, 0.0), fixed=False):
        """Add a solid rigid box: centre `position` (3,) [m], edge lengths (3,) [m] along d1, d2,
        d3 of `directors`, density or mass; other arguments as add_sphere."""
        return self._add_rigid("box", name, dict(locals()), position=position, lengths=lengths,
                               density=density, mass=mass)

    def add_rigid_body(self, *, name="body", position, mass=None, inertia=None, vertices=None,
                       faces=None, directors=None, velocity=(0.0, 0.0, 0.0),
                       angular_velocity=(0.0, 0.0, 0.0), fixed=False):
        """Add a general rigid body: centre of mass `position` (3,) [m], mass [kg], inertia
        tensor (3, 3) [kg m^2] about the centre of mass in the body frame `directors` (fixed=True:
        neither needed); optional triangle mesh (vertices (n, 3) [m] in the body frame about the
        centre of mass, faces (m, 3)), drawn, used for ground contact (its vertices) and for
        rod contact (sm.RodBodyContact; a file: softmech.bodies.meshes.load_mesh); other
        arguments as add_sphere."""
        return self._add_rigid("general", name, dict(locals()), position=position, mass=mass,
                               inertia=inertia, vertices=vertices, faces=faces)

    def add_der_rod(self, *, name="rod", **options):
        """Add a discrete elastic rod (DisMech's model, integrated implicitly) and return it;
        options: softmech.bodies.der_rod.DerRod."""
        from softmech.bodies.der_rod import DerRod
        return self._add_implicit("der_rod", DerRod, name, options)

    def add_shell(self, *, name="shell", **options):
        """Add a discrete shell on a triangle mesh (integrated implicitly) and return it;
        options: softmech.bodies.shell.Shell."""
        from softmech.bodies.meshes import TriangleMesh
        from softmech.bodies.shell import Shell
        shell = self._add_implicit("shell", Shell, name, options)
        mesh = options.get("mesh")
        if mesh is not None:    # a scenario file holds the arrays, not objects or a file name
            mesh = mesh if isinstance(mesh, TriangleMesh) else shell   # a file: as read
            call = {k: v for k, v in shell.builder[1].items() if k != "mesh"}
            if shell.hinge_convention != "plate":       # as resolved from a DisMech file
                call["hinge_convention"] = shell.hinge_convention
            shell.builder = ("shell", {**call, "vertices": mesh.vertices,
                                       "triangles": mesh.triangles})
        return shell

    def _add_implicit(self, kind, cls, name, options):
        self._check_name(name)
        body = cls(name=name, **options)
        body.builder = (kind, {"name": name, **options})
        self.implicit_bodies.append(body)
        self._registered("implicit", body)
        return body

    def add(self, term):
        """Add a term (gravity, loads, dampers, boundary conditions); returns it."""
        if not isinstance(term, Term):
            raise ValueError(f"scene.add({term!r}) is not allowed: expected a softmech term")
        self._check_name(term.name)
        index = self._lookup()
        resolve = getattr(term, "resolve_body", None)     # terms acting on any body kind
        if resolve is not None:                           # (softmech.terms.base.BodyTerm)
            resolve(index["rods"], index["rigid"], index["implicit"])
        rods = index["rods"]
        rod = getattr(term, "rod", None)
        if rod is not None and rod not in rods and not (
                hasattr(term, "bind_implicit") and rod in index["implicit"]):
            # (a term that also acts on discrete rods may name one)
            raise ValueError(f"{term.name}.rod = {rod!r} is not allowed: no such rod in the scene "
                             f"(rods: {sorted(rods)})")
        body = getattr(term, "body", None)
        rigid = index["rigid"]
        if body is not None and body not in rigid:
            raise ValueError(f"{term.name}.body = {body!r} is not allowed: no such rigid body in "
                             f"the scene (rigid bodies: {sorted(rigid)})")
        implicit = index["implicit"]
        wanted = getattr(term, "implicit_bodies", lambda: ())()
        single = getattr(term, "implicit_body", None)
        for target in ((single,) if single is not None else ()) + tuple(wanted):
            if target in implicit and hasattr(term, "check_body"):   # indices, before compile
                term.check_body(next(b for b in self.implicit_bodies if b.name == target))
            if target not in implicit:
                field = _field_holding(term, target, "body")
                raise ValueError(f"{term.name}.{field} = {target!r} is not allowed: no discrete rod "
                                 f"or shell of that name in the scene (implicit bodies: "
                                 f"{sorted(implicit)})")
        for end in getattr(term, "bodies", lambda: ())():
            if end not in rods and end not in rigid:
                raise ValueError(f"{term.name}.{_field_holding(term, end, 'bodies')}: body "
                                 f"{end!r} is not allowed: no such rod or rigid body in the "
                                 f"scene (bodies: {sorted(set(rods) | rigid)})")
        if rod in rods and rods[rod].closed and getattr(term, "end", None) is not None:
            raise ValueError(f"{term.name}.rod = {rod!r} is not allowed: a closed rod has no ends "
                             f"(end = {term.end!r})")
        end = getattr(term, "constrained_end", None)
        if end is not None and end in index["ends"]:
            raise ValueError(f"{term.name}.end = {term.end!r} is not allowed: body '{end[0]}' end "
                             f"'{end[1]}' is already constrained by {index['ends'][end]!r}")
        self.terms.append(term)
        self._registered("terms", term)
        return term

    def _bytes_per_world(self):
        """Estimated memory of one world [bytes] (BYTES_PER_ELEMENT per rod element, rigid
        body, or node of a discrete rod or shell), to refuse worlds=10**9 before allocating."""
        items = (sum(r.n_elems for r in self.rods) + len(self.rigid_bodies)
                 + sum(len(b.positions if hasattr(b, "positions") else b.vertices)
                       for b in self.implicit_bodies))
        return BYTES_PER_ELEMENT * max(items, 1)

    def time_step_limit(self, worlds=1):
        """Estimated largest stable dt [s] of the explicit integrators, (worlds,), for the scene
        as built (every parameter at its built value), before choosing a dt and without
        compiling: the same estimate as Simulation.time_step_limit
        (softmech.stability.assembly_time_step_limit: rods with their viscosity and frame
        anchors, joints, contact terms, damping), from the terms' assembly alone (no arrays
        packed, nothing JIT-compiled). A scene whose contact stiffness depends on dt asks this
        first, then compiles once. Per-world parameters changed after compiling change the
        limit: ask the Simulation then. Discrete rods and shells (implicit) have no explicit
        limit: ValueError."""
        if self.implicit_bodies:
            raise ValueError("time_step_limit() is not allowed on a scene of discrete rods or "
                             f"shells ({[b.name for b in self.implicit_bodies]}): their implicit "
                             "integrator has no explicit stability limit")
        worlds = _checks.integer("worlds", worlds, 1)
        bodies = list(self.rods) + list(self.rigid_bodies)
        ctx = assemble_terms(self.rods, self.terms, scene_parameters(bodies, self.terms), worlds,
                             self.rigid_bodies)
        return assembly_time_step_limit(ctx)

    def compile(self, *, worlds=1, dt, scheme=None, strict=False, n_threads=None,
                newton=None, engine=None):
        """Return a Simulation of `worlds` copies of this scene advanced with time step dt [s].

        Cosserat rods and rigid bodies: scheme "verlet" (position Verlet, the default),
        "pefrl" or "symplectic_euler" (explicit, softmech.integrators.explicit; strict: raise
        instead of warn when dt is above the estimated stability limit), or "implicit_euler"
        (softmech.integrators.implicit: any dt the motion allows; newton:
        softmech.ImplicitOptions). Discrete rods and shells on the discrete engine: an
        ImplicitSimulation (softmech.implicit), scheme "implicit_euler" (the default) or
        "symplectic_euler" (explicit, the same force terms: for comparisons); newton:
        softmech.implicit.newton.NewtonOptions.

        engine: "discrete" (the ImplicitSimulation above) or "unified"; None: the default of
        _default_engine (unified for Cosserat rods and rigid bodies, alone or with discrete
        rods and shells, and for shells below 100,000 nodes; discrete for discrete rods alone and
        larger shells, or with NewtonOptions): the discrete rods and shells
        (hinge or mid-edge bending) become a body kind of the Simulation of Cosserat rods and
        rigid bodies (softmech.terms.der_kind, softmech.terms.der_shell), stepped beside them by
        any of its schemes ("implicit_euler" the default when it has them; docs/discrete_rods.md
        and docs/shells.md list the terms that work there). Axisymmetric shells are Cosserat
        rods (softmech.bodies.axisym_shell): always the unified engine's.
        """
        from softmech.simulation import Simulation

        if not self.rods and not self.rigid_bodies and not self.implicit_bodies:
            raise ValueError("the scene has no bodies: add a rod, a shell or a rigid body before "
                             "compile()")
        worlds = _checks.affordable_count("worlds", worlds, 1, self._bytes_per_world(),
                                          f"{worlds} copies of the scene's arrays")
        dt = float(_checks.positive("dt", dt, shape=()))
        # a scene mixing discrete rods or shells with Cosserat rods or rigid bodies (an implicit
        # body of another kind, e.g. a user's own, has only the discrete engine)
        on_kind = [b for b in self.implicit_bodies if getattr(b, "kind", "") in ("der_rod",
                                                                                  "shell")]
        mixed = bool(self.implicit_bodies) and bool(self.rods or self.rigid_bodies) and \
            len(on_kind) == len(self.implicit_bodies)
        engine = _default_engine(self, on_kind, mixed, newton) \
            if engine is None else _checks.choice("engine", engine, {"unified", "discrete"})
        der_rods, der_shells = [], []
        if engine == "unified" and self.implicit_bodies:
            others = [b.name for b in self.implicit_bodies if b not in on_kind]
            if others:
                raise ValueError(f"engine = 'unified' is not allowed with {others}: only discrete "
                                 "rods and shells are a body kind of the unified engine (not "
                                 "other implicit bodies); compile the scene with "
                                 "engine='discrete'")
            der_rods = [b for b in on_kind if b.kind == "der_rod"]
            der_shells = [b for b in on_kind if b.kind == "shell"]
            scheme = "implicit_euler" if scheme is None else scheme
        elif engine == "discrete" and not self.implicit_bodies:
            raise ValueError("engine = 'discrete' is not allowed: the scene has no discrete rods "
                             "or shells (its Cosserat rods and rigid bodies use the unified "
                             "engine)")
        if engine == "discrete":
            from softmech.implicit.simulation import compile_implicit
            scheme = "implicit_euler" if scheme is None else scheme
            _checks.choice("scheme", scheme, {"implicit_euler", "symplectic_euler"})
            return compile_implicit(self, worlds=worlds, dt=dt, newton=newton, scheme=scheme)
        scheme = "verlet" if scheme is None else scheme
        _checks.choice("scheme", scheme,
                       {"verlet", "pefrl", "symplectic_euler", "implicit_euler"})
        from softmech.integrators.implicit import ImplicitOptions
        if newton is not None and (scheme != "implicit_euler"
                                   or not isinstance(newton, ImplicitOptions)):
            raise ValueError(f"newton = {newton!r} is not allowed here: the scene has no discrete "
                             "rods or shells; its Cosserat rods and rigid bodies take "
                             "softmech.ImplicitOptions with scheme 'implicit_euler', and None "
                             "otherwise")
        if n_threads is not None:
            n_threads = _checks.integer("n_threads", n_threads, 1)
        strict = _checks.boolean("strict", strict)
        return Simulation(self, worlds=worlds, dt=dt, scheme=scheme, strict=strict,
                          n_threads=n_threads, implicit=newton, der_rods=der_rods,
                          der_shells=der_shells)


UNIFIED_SHELL_NODES = 100000
"""Shells with fewer nodes than this compile to the unified engine by default, larger ones to
the discrete engine (its multigrid). Over a clamped plate's first 42 steps, set-up included,
the unified engine (its sparse LU) is 1.4-1.7x faster than the multigrid at every size measured,
11,774 to 104,620 nodes, its peak memory within 4 % (2026-12-06, 23:00-23:50 UTC, an AMD EPYC
Zen 3: 23,064 nodes 40.8 / 57.6 s, 56,482 nodes 137.5 / 237.5 s, 104,620 nodes 289 / 484 s;
the Intel Xeon the same evening 1.5-1.7x at 23,064 and 37,933 nodes; mid-edge plates 2.9x at
23,064 and 56,482 nodes, 2-15 % more memory). Beyond, unmeasured: one
world's factor grows as n^1.5 in time and n log n in memory, the multigrid as n. It was
20,000 that evening, the two engines' tie on the AMD Zen 4 machine before one lane's chains
were vectorized; 12,000, 6,000, 3,000 and 1,700 before as the unified engine's LU became
faster (docs/benchmarks.md; `python benchmarks/shell_engines.py --sides 140,180,220,300
--steps 40`)."""


def _default_engine(scene, on_kind, mixed, newton):
    """The engine a scene compiles to when none is given: "unified" for Cosserat rods and
    rigid bodies, with or without discrete rods and shells (`mixed`), and for shells with or
    without discrete rods below UNIFIED_SHELL_NODES shell nodes (there the unified engine is
    faster, 1.5-5x for the built-in shell scenes and 1.4-1.7x for large plates,
    docs/benchmarks.md) unless the call passes what only the discrete engine takes (its
    NewtonOptions); "discrete" otherwise (discrete
    rods alone: their steps cost the same on both engines, but the unified engine compiles a
    Newton loop for each scene: falling_rod from empty caches 64.0 against 30.6 s, 2026-12-06,
    44.3-46.1 against 24.3 s on 2026-12-07 once one world stopped compiling the eight-lane LU,
    docs/benchmarks.md; large shells,
    for its multigrid; a body of another kind)."""
    if mixed or not scene.implicit_bodies:
        return "unified"
    from softmech.implicit.newton import NewtonOptions

    shells = [b for b in on_kind if b.kind == "shell"]
    discrete_only = isinstance(newton, NewtonOptions)
    small = sum(len(b.vertices) for b in shells) < UNIFIED_SHELL_NODES
    on_kind_only = len(on_kind) == len(scene.implicit_bodies)
    return "unified" if shells and small and on_kind_only and not discrete_only else "discrete"


def _field_holding(term, name, default):
    """The attribute of `term` that holds body `name` (alone, or in a tuple or list such as a
    joint's (body, end) or a contact's bodies), for error messages, if it is also the name of
    a constructor argument; `default` otherwise."""
    import inspect

    arguments = inspect.signature(type(term).__init__).parameters
    for key, value in vars(term).items():
        if key in ("name", "implicit_body") or key not in arguments:
            continue
        if (isinstance(value, str) and value == name) or (
                isinstance(value, (tuple, list)) and any(isinstance(v, str) and v == name
                                                         for v in value)):
            return key
    return default
