"""Axisymmetric Cosserat shells and their fluid loads (Renda et al., IJRR 2018, eqs. 7, 12, 14,
15, 24; model and kernel: softmech.bodies.axisym_shell, softmech.kernels.axisym_shell).

    rod = scene.add_cosserat_rod(**meridian_rod("mantle", r, z, thickness=2e-3, ...))
    AxisymmetricShell(rod, root, thickness=2e-3, youngs_modulus=40e3, viscosity=500,
                      times=..., pressure=..., actuation=..., actuation_interval=(0.025, 0.110))
    PulsedJet(rod, outflow_area=491e-6, inflow_area=1400e-6, flow_coefficient=1.0)   # eq. 15
    MantleDrag(rod, drag_coefficient=1.7)                                              # eq. 12
    MantleAddedMass(rod, coefficient=1.1)                                              # eq. 14

All of a scene's shells are one kernel call; PulsedJet and MantleDrag set that call's jet and
drag coefficients of their shell (zero without them), MantleAddedMass adds to the integrator's
mass (softmech.fluid_mass.in_fluid), isotropic in the meridian plane as eq. 14.
"""
import numpy as np

from softmech import _checks
from softmech.integrators.driver import Call
from softmech.kernels.axisym_shell import (
    N_SE,
    N_SO,
    N_SP,
    SE_ACT,
    SE_AREA,
    SE_C,
    SE_D,
    SE_K0,
    SE_L0,
    SE_NU,
    SE_R0,
    SE_TH0,
    SP_C,
    SP_DRAG,
    SP_JET_IN,
    SP_JET_OUT,
    SP_K,
    SP_TAU,
    AxisymShellArgs,
    axisym_shells,
)
from softmech.packing import lane_table
from softmech.terms.base import Part, Term, rod_name
from softmech.terms.fluids import check_positive_params, checked_density
from softmech.terms.rigid import body_name

SHELL_ORDER = 12
"""Place in the force pass: after elasticity (0) and damping (10), before the added-mass
projection (100); the clamp and thrust only add."""
MAX_SAMPLES = 1_000_000
"""Largest signal table (samples): a bound on the memory a scenario file can ask for."""


class AxisymmetricShells(Part):
    """Every AxisymmetricShell of a scene in one kernel call, with the jet and drag coefficients
    that PulsedJet / MantleDrag give their shells."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.shells = []      # dicts from AxisymmetricShell.contribute
        self.fluid = {}       # rod name -> (owner, {column: (B,) values}) from PulsedJet / MantleDrag
        self.drag_area = {}   # rod name -> A_ref [m^2] of MantleDrag (None: pi max(r0)^2)

    def calls(self, engine):
        names = [s["rod"] for s in self.shells]
        for rod, (owner, _) in self.fluid.items():
            if rod not in names:
                raise ValueError(f"{owner}.rod = {rod!r} is not allowed: no AxisymmetricShell "
                                 f"on that rod (shells: {names})")
            if self.shells[names.index(rod)]["body"] < 0:   # thrust and drag act through the root
                raise ValueError(f"{owner}.rod = {rod!r} is not allowed: its AxisymmetricShell "
                                 "has no root body (give AxisymmetricShell(rod, body, ...))")
        n_t = max(len(s["times"]) for s in self.shells)
        times = np.zeros((len(self.shells), n_t))
        signal = np.zeros((len(self.shells), n_t, 3))
        rows, params = [], []
        for i, s in enumerate(self.shells):
            times[i, :len(s["times"])] = s["times"]
            signal[i, :len(s["times"]), :2] = s["signal"]
            rows.append(s["elem"])
            p = s["params"]
            for column, values in self.fluid.get(s["rod"], (None, {}))[1].items():
                p[:, column] = values
            if s["rod"] in self.drag_area:      # 1/2 rho C_d -> 1/2 rho C_d A_ref
                area = self.drag_area[s["rod"]]
                p[:, SP_DRAG] *= np.pi * s["elem"][:, SE_R0].max() ** 2 if area is None else area
            params.append(p)
        e0 = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int64)
        slots = engine.slots
        args = engine.args(
            AxisymShellArgs,
            sh_node0=np.array([slots.node[n] for n in names], dtype=np.int64),
            sh_elem0=np.array([slots.elem[n] for n in names], dtype=np.int64),
            sh_e0=e0, sh_body=np.array([s["body"] for s in self.shells], dtype=np.int64),
            sh_axis=np.array([s["axis"] for s in self.shells]),
            sh_clamp=np.array([s["clamp"] for s in self.shells]),
            sh_sign=np.array([s["sign"] for s in self.shells]),
            sh_elem=np.concatenate(rows), sh_times=times, sh_signal=signal,
            sh_count=np.array([len(s["times"]) for s in self.shells], dtype=np.int64),
            sh_params=lane_table(params, engine.lanes, N_SP),
            sh_out=engine.zeros(len(self.shells), N_SO, engine.lanes.W))
        return [Call("forces", SHELL_ORDER, axisym_shells, args, "axisym_shells")]


def _signal(owner, field, values, n):
    """A signal sampled at the n times: a scalar (constant) or an (n,) array [Pa]."""
    arr = _checks.finite(f"{owner}.{field}", values)
    if arr.ndim == 0:
        return np.full(n, float(arr))
    if arr.shape != (n,):
        raise ValueError(f"{owner}.{field} has shape {arr.shape}, expected () or ({n},) (one "
                         "value per entry of times)")
    return arr


class AxisymmetricShell(Term):
    """The hoop part of an axisymmetric Cosserat shell on its meridian rod (built with
    softmech.bodies.axisym_shell.meridian_rod and the same thickness, youngs_modulus,
    poisson_ratio), its Kelvin-Voigt viscosity (eq. 7), a cavity pressure and a radial
    actuation pressure (eq. 24) from time signals, and the clamp of its first two nodes to
    the root body.

    rod; body: the root rigid body (None: the axis is fixed in the lab and nothing clamps the
    shell unless clamp_stiffness > 0, which then holds the nodes at their initial places);
    axis (3,), origin (3,) [m]: the symmetry axis, lab frame at t = 0 (carried by the body);
    thickness h [m] (Renda's 2 h_s), youngs_modulus E [Pa], poisson_ratio nu in [0, 0.5),
    viscosity eta [Pa s] (retardation time tau = 3 eta / E, Renda eq. 7's viscous / elastic
    coefficients 6 eta h_s / (2 E h_s)); times (n,) [s] increasing, pressure (n,) or scalar
    [Pa] inside the cavity (held outside the table), actuation (n,) or scalar [Pa] radial
    (outward > 0) over the meridian arc interval actuation_interval = (X_s1, X_s2) [m] from the
    first node (None: the whole meridian); clamp_stiffness [N/m], clamp_damping [N s/m]
    (per-world parameters `<name>.clamp_stiffness`, `<name>.clamp_damping`, `<name>.viscosity`).
    """

    section = "actuators"

    def __init__(self, rod, body=None, *, thickness, youngs_modulus, poisson_ratio=0.0,
                 viscosity=0.0, axis=(0.0, 0.0, 1.0), origin=(0.0, 0.0, 0.0), times=(0.0,),
                 pressure=0.0, actuation=0.0, actuation_interval=None, clamp_stiffness=0.0,
                 clamp_damping=0.0, name="axisymmetric_shell"):
        self.name = name
        self.rod = rod_name(name, rod)
        self.body = None if body is None else body_name(name, body)
        self.thickness = float(_checks.positive(f"{name}.thickness", thickness, shape=()))
        self.youngs_modulus = float(_checks.positive(f"{name}.youngs_modulus", youngs_modulus, shape=()))
        self.poisson_ratio = float(_checks.finite(f"{name}.poisson_ratio", poisson_ratio, shape=()))
        if not 0.0 <= self.poisson_ratio < 0.5:
            raise ValueError(f"{name}.poisson_ratio = {poisson_ratio!r} is not allowed: must be "
                             "in [0, 0.5)")
        self.viscosity = float(_checks.nonnegative(f"{name}.viscosity", viscosity, shape=()))
        self.axis = _checks.unit_vector(f"{name}.axis", axis)
        self.origin = _checks.finite(f"{name}.origin", origin, shape=(3,))
        self.times = _checks.finite(f"{name}.times", times)
        if self.times.ndim != 1 or not 1 <= len(self.times) <= MAX_SAMPLES:
            raise ValueError(f"{name}.times has shape {self.times.shape}: must be (n,) with 1 <= "
                             f"n <= {MAX_SAMPLES}")
        if np.any(np.diff(self.times) <= 0):
            raise ValueError(f"{name}.times is not allowed: must be strictly increasing")
        n = len(self.times)
        self.signal = np.stack([_signal(name, "pressure", pressure, n),
                                _signal(name, "actuation", actuation, n)], axis=1)
        if actuation_interval is None:
            self.actuation_interval = None
        else:
            iv = _checks.finite(f"{name}.actuation_interval", actuation_interval, shape=(2,))
            if not 0 <= iv[0] < iv[1]:
                raise ValueError(f"{name}.actuation_interval = {tuple(iv)} is not allowed: must "
                                 "be (X_s1, X_s2) with 0 <= X_s1 < X_s2 [m]")
            self.actuation_interval = iv
        self.clamp_stiffness = float(_checks.nonnegative(f"{name}.clamp_stiffness", clamp_stiffness, shape=()))
        self.clamp_damping = float(_checks.nonnegative(f"{name}.clamp_damping", clamp_damping, shape=()))

    def parameters(self):
        return {k: np.array([getattr(self, k)])
                for k in ("clamp_stiffness", "clamp_damping", "viscosity")}

    def _check_section(self, ctx, r0):
        """The meridian rod must carry this shell's section (meridian_rod), else its own law
        would not be the meridional part of the shell's."""
        h, E, nu = self.thickness, self.youngs_modulus, self.poisson_ratio
        rp = ctx.rod_params(self.rod)
        want = {"radius": h / np.sqrt(3.0), "youngs_modulus": E / (1 - nu * nu),
                "area": 2.0 * np.pi * r0 * h}
        for key, value in want.items():
            if key not in rp or not np.allclose(rp[key], value, rtol=1e-9, atol=0):
                raise ValueError(f"{self.name}.rod = {self.rod!r}: its {key} does not match a "
                                 f"shell of thickness {h} m, E = {E} Pa, nu = {nu} (build the rod "
                                 "with softmech.bodies.axisym_shell.meridian_rod and the same values)")

    def contribute(self, ctx, p):
        rod = ctx.rod(self.rod, self.name)
        if rod.closed:
            raise ValueError(f"{self.name}.rod = {self.rod!r} is not allowed: a meridian is an open rod")
        check_positive_params(self.name, p, ["clamp_stiffness", "clamp_damping", "viscosity"],
                              strict=False)
        a, c = self.axis, self.origin
        x = rod.positions
        z = (x - c) @ a
        r = np.linalg.norm(x - c - z[:, None] * a, axis=1)
        r0, l0 = 0.5 * (r[1:] + r[:-1]), rod.rest_lengths
        self._check_section(ctx, r0)
        h, E, nu = self.thickness, self.youngs_modulus, self.poisson_ratio
        X = np.concatenate([[0.0], np.cumsum(l0)])
        mid = 0.5 * (X[1:] + X[:-1])
        iv = self.actuation_interval
        elem = np.zeros((rod.n_elems, N_SE))
        elem[:, SE_R0], elem[:, SE_L0], elem[:, SE_AREA] = r0, l0, 2 * np.pi * r0 * l0
        elem[:, SE_C] = E * h / (1 - nu * nu)
        elem[:, SE_D] = E * h ** 3 / (12 * (1 - nu * nu))
        elem[:, SE_NU] = nu
        elem[:, SE_K0] = (rod.directors[:, 2] @ a) / r0          # rest hoop curvature (t.a)/r
        elem[:, SE_ACT] = 1.0 if iv is None else ((mid >= iv[0]) & (mid <= iv[1]))
        elem[1:, SE_TH0] = meridian_turns(rod.directors)
        U0 = np.sum(np.pi / 3 * (r[:-1] ** 2 + r[:-1] * r[1:] + r[1:] ** 2) * np.diff(z))
        clamp = x[:2].copy()
        body, axis = -1, np.stack([a, c])
        if self.body is not None:
            b = ctx.rigid_body(self.body, self.name)
            Qp = b.principal_directors            # rows: principal axes (lab), engine frame
            body = ctx.rigid_index[self.body]
            axis = np.stack([Qp @ a, Qp @ (c - b.position)])
            clamp = (x[:2] - b.position) @ Qp.T
        tau = 3.0 * p["viscosity"] / E
        ctx.kv_tau[self.rod] += tau[:, None]        # eq. 7's viscosity on the meridional strains
        params = np.zeros((ctx.worlds, N_SP))
        params[:, SP_K], params[:, SP_C], params[:, SP_TAU] = (p["clamp_stiffness"],
                                                               p["clamp_damping"], tau)
        part = ctx.part(AxisymmetricShells)
        if any(s["rod"] == self.rod for s in part.shells):
            raise ValueError(f"{self.name}.rod = {self.rod!r} is not allowed: it already carries "
                             "an AxisymmetricShell")
        part.shells.append(dict(rod=self.rod, body=body, axis=axis, clamp=clamp,
                                sign=-1.0 if U0 < 0 else 1.0, elem=elem, times=self.times,
                                signal=self.signal, params=params))


def meridian_turns(directors):
    """Angles [rad] from each element's d3 to the next one's about their mean d2 (the turns
    theta_j of kernels.axisym_shell.bending_coupling), (n - 1,); directors (n, 3, 3), rows d1 d2 d3."""
    d3a, d3b = directors[:-1, 2], directors[1:, 2]
    d2 = directors[:-1, 1] + directors[1:, 1]
    d2 /= np.linalg.norm(d2, axis=1)[:, None]
    return np.arctan2(np.einsum("ij,ij->i", np.cross(d3a, d3b), d2),
                      np.einsum("ij,ij->i", d3a, d3b))


class _ShellFluid(Term):
    section = "environment"

    def _set(self, ctx, columns):
        ctx.rod(self.rod, self.name)
        part = ctx.part(AxisymmetricShells)
        entry = part.fluid.setdefault(self.rod, (self.name, {}))
        for column, values in columns.items():
            if column in entry[1]:
                raise ValueError(f"{self.name}.rod = {self.rod!r} is not allowed: another term "
                                 "already sets this shell's coefficient")
            entry[1][column] = values


class PulsedJet(_ShellFluid):
    """Pulsed-jet thrust of a shell's cavity on its root body, T = -rho_w C_f U' |U'| / A_n
    along the axis (Renda et al. 2018 eq. 15, integrated over the mantle's area A_m), A_n =
    outflow_area A_no while the cavity shrinks (U' < 0: forward thrust) and inflow_area A_ni
    while it refills. outflow_area, inflow_area [m^2] > 0, flow_coefficient C_f in (0, 1]
    (0.6-1, Johnson et al. 1972), fluid_density [kg/m^3]; per-world parameters
    `<name>.outflow_area`, `<name>.inflow_area`, `<name>.flow_coefficient`,
    `<name>.fluid_density`."""

    def __init__(self, rod, *, outflow_area, inflow_area, flow_coefficient=1.0,
                 fluid_density=1000.0, name="pulsed_jet"):
        self.name = name
        self.rod = rod_name(name, rod)
        self.outflow_area = float(_checks.positive(f"{name}.outflow_area", outflow_area, shape=()))
        self.inflow_area = float(_checks.positive(f"{name}.inflow_area", inflow_area, shape=()))
        self.flow_coefficient = float(_checks.positive(f"{name}.flow_coefficient", flow_coefficient, shape=()))
        if self.flow_coefficient > 1:
            raise ValueError(f"{name}.flow_coefficient = {flow_coefficient!r} is not allowed: "
                             "must be in (0, 1]")
        self.fluid_density = checked_density(name, fluid_density)

    def parameters(self):
        return {k: np.array([getattr(self, k)]) for k in
                ("outflow_area", "inflow_area", "flow_coefficient", "fluid_density")}

    def contribute(self, ctx, p):
        check_positive_params(self.name, p, ["outflow_area", "inflow_area", "flow_coefficient",
                                             "fluid_density"])
        k = p["fluid_density"] * p["flow_coefficient"]
        self._set(ctx, {SP_JET_OUT: k / p["outflow_area"], SP_JET_IN: k / p["inflow_area"]})


class MantleDrag(_ShellFluid):
    """Drag of a shell moving along its axis with its root body, -1/2 rho_w C_d A_ref V |V| in
    total, spread uniformly over the mantle's area (Renda et al. 2018 eq. 12; V the root's
    velocity along the axis). drag_coefficient C_d >= 0 (1.7 in Table 1), reference_area
    A_ref [m^2] (None: pi max(r)^2 of the rest meridian, as Renda), fluid_density [kg/m^3];
    per-world parameters `<name>.drag_coefficient`, `<name>.fluid_density`."""

    def __init__(self, rod, drag_coefficient=1.7, *, reference_area=None, fluid_density=1000.0,
                 name="mantle_drag"):
        self.name = name
        self.rod = rod_name(name, rod)
        self.drag_coefficient = float(_checks.nonnegative(f"{name}.drag_coefficient",
                                                          drag_coefficient, shape=()))
        self.reference_area = None if reference_area is None else float(
            _checks.positive(f"{name}.reference_area", reference_area, shape=()))
        self.fluid_density = checked_density(name, fluid_density)

    def parameters(self):
        return {k: np.array([getattr(self, k)]) for k in ("drag_coefficient", "fluid_density")}

    def contribute(self, ctx, p):
        check_positive_params(self.name, p, ["drag_coefficient"], strict=False)
        check_positive_params(self.name, p, ["fluid_density"])
        self._set(ctx, {SP_DRAG: 0.5 * p["fluid_density"] * p["drag_coefficient"]})
        ctx.part(AxisymmetricShells).drag_area[self.rod] = self.reference_area


class MantleAddedMass(Term):
    """Added mass of a shell, B_s rho_s 2 h_s per unit area (Renda et al. 2018 eq. 14 as
    printed: the shell's own areal mass times B_s, 1.1 in Table 1), isotropic in the meridian
    plane; it joins the integrator's mass (softmech.fluid_mass.in_fluid). coefficient B_s >= 0;
    per-world parameter `<name>.coefficient`."""

    section = "environment"

    def __init__(self, rod, coefficient=1.1, *, name="mantle_added_mass"):
        self.name = name
        self.rod = rod_name(name, rod)
        self.coefficient = float(_checks.nonnegative(f"{name}.coefficient", coefficient, shape=()))

    def parameters(self):
        return {"coefficient": np.array([self.coefficient])}

    def contribute(self, ctx, p):
        ctx.rod(self.rod, self.name)
        check_positive_params(self.name, p, ["coefficient"], strict=False)
        ctx.added_mass[self.rod] += p["coefficient"][:, None] * ctx.discrete[self.rod]["node_mass"]


def shell_outputs(sim, index=0):
    """(U [m^3], U' [m^3/s], thrust [N], drag [N]) of shell `index` (its order in the scene) at
    the current state, (B,) each (softmech.kernels.axisym_shell sh_out, after a force pass)."""
    engine = sim._engine()
    sim._evaluate(engine)
    out = engine.call_args("axisym_shells").sh_out[:, index]       # (n_blocks, 4, W)
    per_world = out.transpose(0, 2, 1).reshape(-1, N_SO)[:engine.lanes.worlds]
    return tuple(per_world[:, k].copy() for k in range(N_SO))
