"""Power and force budgets of the underwater robots (Renda et al., IJRR 2018, section 7.1):
the quasi-propulsive efficiency of eqs. 26-27 (Maertens et al. 2015's definition for fish) and
the decomposition of the loads on the root body (Fig. 14), measured on a compiled scene at its
current state through softmech.contributions.

- P_out (eq. 26), the power spent against the drag at the robot's speed: minus the drag power of
  the mantle (its drag force along the axis times the root's velocity V along it, as eq. 26
  takes it), of the arms (their QuadraticDrag, sum of F . v over the nodes: v_b + v_r) and of
  the root (its QuadraticDrag, F . v_r).
- P_in (eq. 27), the power of the mantle's actuation: the radial actuation pressure's nodal
  forces (softmech.kernels.axisym_shell) times the node velocities. Eq. 27 writes it as the
  internal actuation wrench times the strain rate; for the radial pressure the wrench was built
  to represent (eq. 24) the two are the same power.
- eta_QP = mean P_out / mean P_in over whole pulsations at steady state (the paper: after the
  arms' sculling stroke).
- Fig. 14: the force along the swimming axis that the arms (their joints) and the mantle (its
  clamp, cavity thrust and drag on the root) exert on the root body.
"""
import numpy as np

from softmech.contributions import contributions
from softmech.packing import from_blocks

SHELL, ARM_DRAG, ROOT_DRAG, JOINTS = ("axisym_shells", "quadratic_drag", "rigid_quadratic_drag",
                                      "joints")
"""The force calls of the robots (softmech.integrators.driver.Call names)."""
ACTUATION = 1
"""Column of the radial actuation f_r [Pa] in the shells' signal table (AxisymShellArgs)."""
DRAG_OUT = 3
"""Row of the mantle drag along the axis [N] in the shells' output (AxisymShellArgs.sh_out)."""


def _shell_args(sim):
    return next(c.args for c in sim._engine().calls if c.name == SHELL)


def mantle_drag_along_axis(sim):
    """Drag [N] of every mantle along its axis as the last force pass computed it, (B, n_sh)."""
    out = _shell_args(sim).sh_out                                 # (n_blocks, n_sh, 4, W)
    slots = np.ascontiguousarray(out[:, :, DRAG_OUT, :]).reshape(out.shape[0], -1)
    return from_blocks(slots, sim.lanes)


def power_budget(sim, body, axis):
    """(P_out (B,), P_in (B,)) [W] now, eqs. 26-27 (module docstring); body: the root's name,
    axis (3,): the swimming direction (lab frame) along which V = v_root . axis."""
    names = [n for n in (SHELL, ARM_DRAG, ROOT_DRAG) if n in _call_names(sim)]
    loads = contributions(sim, names)
    drag = mantle_drag_along_axis(sim).sum(axis=1)                 # all mantles, (B,)
    V = sim.get_state(body)["velocities"][:, 0] @ np.asarray(axis, dtype=float)
    p_out = -drag * V
    for name in (ARM_DRAG, ROOT_DRAG):
        if name in loads:
            p_out -= loads[name].power(sim.lanes)
    shell_power = loads[SHELL].power(sim.lanes)
    signal = _shell_args(sim).sh_signal
    saved = signal[:, :, ACTUATION].copy()
    signal[:, :, ACTUATION] = 0.0
    try:
        without = contributions(sim, [SHELL])[SHELL].power(sim.lanes)
    finally:
        signal[:, :, ACTUATION] = saved
    return p_out, shell_power - without


def root_loads(sim, body, axis):
    """Fig. 14: {"arms": (B,), "mantle": (B,)} force [N] along `axis` (3,) on the root body
    `body` from the arms' joints and from the mantle, now."""
    names = [n for n in (JOINTS, SHELL) if n in _call_names(sim)]
    loads = contributions(sim, names)
    slot = sim._rigid_index[body]
    axis = np.asarray(axis, dtype=float)
    return {label: loads[name].rigid_force(sim.lanes, slot) @ axis if name in loads
            else np.zeros(sim.worlds) for label, name in (("arms", JOINTS), ("mantle", SHELL))}


def _call_names(sim):
    return {c.name for c in sim._engine().calls if c.stage == "forces"}


def quasi_propulsive_efficiency(time, p_out, p_in, window):
    """eta_QP = int P_out dt / int P_in dt over window = (t0, t1) [s] (trapezoid), from samples
    time (n,) [s] and powers (n,) [W]."""
    time = np.asarray(time)
    inside = (time >= window[0] - 1e-12) & (time <= window[1] + 1e-12)
    if inside.sum() < 2:
        raise ValueError(f"window = {window!r} is not allowed: it holds fewer than two samples")
    work_in = np.trapezoid(np.asarray(p_in)[inside], time[inside])
    if work_in <= 0:
        raise ValueError("the actuation did no work over the window: no efficiency")
    return float(np.trapezoid(np.asarray(p_out)[inside], time[inside]) / work_in)


class _Budget:
    """power_budget and root_loads of one instant, computed once for the four recorders that
    sample them at that instant (keyed by the simulation's clock)."""

    def __init__(self, body, axis):
        self.body, self.axis, self.key, self.values = body, axis, None, None

    def at(self, sim, name):
        key = (id(sim), sim.time)
        if key != self.key:
            p_out, p_in = power_budget(sim, self.body, self.axis)
            loads = root_loads(sim, self.body, self.axis)
            self.key = key
            self.values = {"power_out": p_out, "power_in": p_in,
                           "root_load_arms": loads["arms"], "root_load_mantle": loads["mantle"]}
        return self.values[name]


def budget_recorders(body, axis):
    """sm.Recorder of P_out and P_in [W] (eqs. 26-27) and of the arms' and the mantle's force
    along `axis` (3,) on the root body `body` [N] (Fig. 14), sampled with a run's fields
    (softmech.resultsfile.record_to_file)."""
    from softmech.resultsfile.recorders import Recorder

    budget = _Budget(body, np.asarray(axis, dtype=float))
    units = {"power_out": "W", "power_in": "W", "root_load_arms": "N", "root_load_mantle": "N"}
    return tuple(Recorder(name, (lambda sim, name=name: budget.at(sim, name)), unit)
                 for name, unit in units.items())
