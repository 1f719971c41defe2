"""Arm recruitment: the sculling and steering actuation of soft arms in Renda et al., IJRR 2018
(eq. 25, Quadropus; eq. 28, Monopus); kernel and equation: softmech.kernels.recruitment.

    RecruitedBending(arm, moment=5e-3, start=1.0, duration=1.0, axis="d2", body=root)
"""
import numpy as np

from softmech import _checks
from softmech.integrators.driver import Call
from softmech.kernels.recruitment import RecruitmentArgs, recruited_bending
from softmech.packing import lane_table
from softmech.terms.base import Part, Term, rod_name
from softmech.terms.rigid import body_name

RECRUITMENT_ORDER = 40
"""Place in the force pass: with the muscles (it only adds)."""
AXES = {"d1": 0, "d2": 1}


class RecruitedBendings(Part):
    """Every RecruitedBending of a scene in one kernel call."""

    def __init__(self, ctx):
        super().__init__(ctx)
        self.entries = []    # (elem slot, axis, body slot, X (n+1,), L, params (B, 3))

    def calls(self, engine):
        n_max = max(len(e[3]) for e in self.entries)
        X = np.full((len(self.entries), n_max), np.inf)
        for i, e in enumerate(self.entries):
            X[i, :len(e[3])] = e[3]
        args = engine.args(
            RecruitmentArgs,
            rec_elem0=np.array([e[0] for e in self.entries], dtype=np.int64),
            rec_axis=np.array([e[1] for e in self.entries], dtype=np.int64),
            rec_body=np.array([e[2] for e in self.entries], dtype=np.int64),
            rec_X=X, rec_length=np.array([e[4] for e in self.entries]),
            rec_params=lane_table([e[5] for e in self.entries], engine.lanes, 3))
        return [Call("forces", RECRUITMENT_ORDER, recruited_bending, args, "recruited_bending")]


class RecruitedBending(Term):
    """Internal bending moment m_baz (1 - X / (L tau)) H(L tau - X) recruited from the base to
    the tip over `duration` from `start`, tau = (t - start) / duration in (0, 1], zero outside
    (Renda et al. 2018 eq. 25), about the arm's local axis `axis` ("d1" or "d2"). body: the
    rigid body the arm's base is fixed to, which takes the base's reaction (None: the base
    moment acts on the first element only, e.g. against a Clamp).

    moment m_baz [N m] (any sign), start t0 [s] >= 0, duration dt [s] > 0; per-world
    parameters `<name>.moment`, `<name>.start`, `<name>.duration` (B,)."""

    section = "actuators"

    def __init__(self, rod, moment, *, start=0.0, duration, axis="d2", body=None,
                 name="recruited_bending"):
        self.name = name
        self.rod = rod_name(name, rod)
        self.moment = float(_checks.finite(f"{name}.moment", moment, shape=()))
        self.start = float(_checks.nonnegative(f"{name}.start", start, shape=()))
        self.duration = float(_checks.positive(f"{name}.duration", duration, shape=()))
        self.axis = _checks.choice(f"{name}.axis", axis, AXES)
        self.body = None if body is None else body_name(name, body)

    def parameters(self):
        return {k: np.array([getattr(self, k)]) for k in ("moment", "start", "duration")}

    def contribute(self, ctx, p):
        rod = ctx.rod(self.rod, self.name)
        if rod.closed:
            raise ValueError(f"{self.name}.rod = {self.rod!r} is not allowed: an arm is an open rod")
        if np.any(p["duration"] <= 0) or np.any(p["start"] < 0):
            raise ValueError(f"params['{self.name}.duration'] must be > 0 and "
                             f"params['{self.name}.start'] >= 0")
        body = -1
        if self.body is not None:
            ctx.rigid_body(self.body, self.name)
            body = ctx.rigid_index[self.body]
        X = np.concatenate([[0.0], np.cumsum(rod.rest_lengths)])
        ctx.part(RecruitedBendings).entries.append(
            (ctx.elem_offset[self.rod], AXES[self.axis], body, X, float(X[-1]),
             np.stack([p["moment"], p["start"], p["duration"]], axis=1)))
