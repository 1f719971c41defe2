"""Actuation of discrete rods and shells by a per-world parameter that oscillates in time
(ref. 004 section 6.1: natural curvature changed during the run), e.g. the rest angles of a
shell's hinges flapping a manta ray's wings:

    ParameterWave(parameter, amplitude, frequency, phase=0, offset=None, ramp_time=0)

value(t) = offset + ramp(t) amplitude sin(2 pi f t + phase), written into the parameter's row of
each world before every force evaluation (at the time the implicit step is solved for); ramp(t)
= min(t / ramp_time, 1) (1 without a ramp). amplitude, phase [rad] and offset broadcast to the
parameter's shape per world (scalars, or one value per hinge / spring / ...); offset defaults to
the parameter's value when the scene is compiled.

On the discrete engine the wave writes the per-world parameter itself (sim.params), which its
bindings read; on the unified engine's kind (softmech.terms.der_kind.DerParameterWaves) it
writes the packed table the kind's elasticity reads (a rod's natural curvature or twist, a
shell's natural angles or curvatures), and sim.params keeps its built value.
"""
import numpy as np

from softmech import _checks
from softmech.implicit.binding import Binding
from softmech.implicit.compiled import CompiledForm
from softmech.kernels.implicit_bindings import ParameterWaveArgs, no_forces, parameter_wave_update
from softmech.terms.nodes import _ImplicitTerm


class ParameterWave(_ImplicitTerm):
    """A per-world parameter of a discrete rod or shell ("<body>.<name>", sim.params) driven
    by a sine wave (module docstring); frequency [Hz] >= 0, ramp_time [s] >= 0."""

    section = "actuators"

    def __init__(self, parameter, amplitude, frequency, phase=0.0, offset=None, *,
                 ramp_time=0.0, name="wave"):
        self.name = name
        if not isinstance(parameter, str) or "." not in parameter:
            raise ValueError(f"{name}.parameter = {parameter!r} is not allowed: must name a "
                             "per-world parameter '<body>.<name>' (see sim.params)")
        self.parameter = parameter
        self.amplitude = _checks.finite(f"{name}.amplitude", amplitude)
        self.frequency = float(_checks.nonnegative(f"{name}.frequency", frequency, shape=()))
        self.phase = _checks.finite(f"{name}.phase", phase)
        self.offset = None if offset is None else _checks.finite(f"{name}.offset", offset)
        self.ramp_time = float(_checks.nonnegative(f"{name}.ramp_time", ramp_time, shape=()))

    def implicit_bodies(self):
        return (self.parameter.split(".", 1)[0],)

    def _waves(self, target):
        """amplitude, phase, offset broadcast to the parameter's shape per world (target
        (B, ...) its values; offset: world 0's by default)."""
        shape = target.shape[1:]
        arrays = {}
        for field in ("amplitude", "phase", "offset"):
            value = getattr(self, field)
            if value is None:
                value = target[0].copy()
            try:
                arrays[field] = np.broadcast_to(value, shape).astype(float)
            except ValueError:
                raise ValueError(f"{self.name}.{field} has shape {np.shape(value)}: it does not "
                                 f"broadcast to the parameter's shape {shape}") from None
        return arrays

    def bind_implicit(self, ctx):
        if self.parameter not in ctx.params:
            raise ValueError(f"{self.name}.parameter = {self.parameter!r} is not allowed: no such "
                             f"per-world parameter (parameters: {sorted(ctx.params)})")
        target = ctx.params[self.parameter]
        return [_WaveBinding(self, target, **self._waves(target))]

    def contribute(self, ctx, p):
        """A discrete rod or shell of the unified engine's kind: its natural curvature, twist or
        angles (softmech.terms.der_kind.DerParameterWaves); elsewhere refused as the other
        discrete-engine terms are."""
        from softmech.terms.der_kind import DerParameterWaves, wave_parameter
        target = wave_parameter(ctx, self.name, self.parameter)
        if target is None:
            return super().contribute(ctx, p)
        waves = self._waves(np.asarray(target, dtype=float))
        ctx.part(DerParameterWaves).add(self, *(np.ascontiguousarray(waves[f]).reshape(-1)
                                                for f in ("amplitude", "phase", "offset")))


class _WaveBinding(Binding):
    updates = True

    def __init__(self, term, target, amplitude, phase, offset):
        self.name = term.name
        self.term = term
        rows = target.reshape(target.shape[0], -1)
        if not np.shares_memory(rows, target):  # pragma: no cover - params are C-contiguous
            raise ValueError(f"{term.name}: the parameter's array is not contiguous")
        self.args = ParameterWaveArgs(
            target=rows, amplitude=np.ascontiguousarray(amplitude, dtype=float).reshape(-1),
            phase=np.ascontiguousarray(phase, dtype=float).reshape(-1),
            offset=np.ascontiguousarray(offset, dtype=float).reshape(-1),
            frequency=term.frequency, ramp_time=term.ramp_time)

    def update(self, b, t):
        parameter_wave_update(self.args, b, t)

    def compiled(self):
        return CompiledForm(self.name, self.args, forces=no_forces, update=parameter_wave_update)
