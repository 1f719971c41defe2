"""The lockstep Newton loop's per-world data: the worlds of a worker thread advance together
(softmech.implicit.compiled, NewtonOptions.lockstep), each with its own Newton state machine
(softmech.kernels.newton: newton_continue, newton_solved), and their Newton systems are solved
in one call with the worlds innermost (softmech.kernels.band_lanes).

LockstepWork holds what NewtonWork holds, with one row per world of the thread for everything
a world writes; world_work(S, r) is row r as a NewtonWork (views, no copy), so that the Newton
steps of the per-world loop run unchanged on it. The Jacobian entries are the exception: J is
(nnz, L), the worlds innermost, and world r's entries the column J[:, r], so that the lanes
assembly reads the worlds' entry i from one cache line (8 doubles) instead of one line per
world (band_lanes.assemble_lanes, falling_rod's 8 lanes: 20.9 -> 9.5 us per world, the same
hour, 2026-12-02), and the bending-twisting lanes kernel writes its lanes' entries the same
way. The per-world bindings write their entries into the strided column.
"""
from collections import namedtuple

from softmech.kernels import kernel
from softmech.kernels.band_lanes import assemble_lanes, band_lu_solve_lanes, close_lanes
from softmech.kernels.newton import NewtonWork

PER_WORLD = ("q_n", "v_n", "v", "F", "R", "dq", "q_free", "diagonal", "tmp", "q_watch",
             "dq_watch", "counts", "state", "fstate")
"""NewtonWork's fields that LockstepWork holds per world: (L, size of NewtonWork's field)."""

LockstepWork = namedtuple("LockstepWork", [
    "mass", "free", "offsets", "kinds", "members", "band",   # shared, as in NewtonWork
    *PER_WORLD,
    "J",             # (nnz, L) the worlds' Jacobian entries, world r's in column r
    "lanes",         # band_lanes.BandLanes for L lanes
    "rows",          # (L,) int64: the rows of (Q, V) of this thread's worlds
    "phase",         # (L,) int64: each world's last answer of the Newton steps (EVALUATE, ...)
    "measure",       # (L,) int64: 1 while the world's next evaluation is its step's first
    "alive",         # (L,) int64: 1 while the world has not stopped in this call
    "lane_world",    # (width,) int64: the world (index r) of each lane of the next solve; width
                     #   = lanes.ab.shape[1]: the lanes solved together (band_lanes.LANES)
    "evaluating",    # (L,) int64: the worlds (indices r) that evaluate their forces this round;
                     #   after a step's last round, those whose step converged (the accept)
    "norms",         # (L,) each world's sum of its bindings' force sizes (measure), ...
    "before",        # (L,) ... and |F| before the current binding's forces
])


@kernel(inline="always")
def world_work(S, r):
    """World r's NewtonWork: S's shared arrays and row r of its per-world ones."""
    return NewtonWork(S.mass, S.free, S.q_n[r], S.v_n[r], S.v[r], S.F[r], S.J[:, r], S.offsets,
                      S.kinds, S.members, S.R[r], S.dq[r], S.q_free[r], S.diagonal[r], S.tmp[r],
                      S.q_watch[r], S.dq_watch[r], S.band, S.counts[r], S.state[r],
                      S.fstate[r])


@kernel
def clear_jacobians(S):
    """J = 0 for every world of S (LockstepWork) at the start of a round of evaluations (what
    begin_evaluation does per world): one pass over the (nnz, L) block, not a strided pass
    per world. The entries of a world that does not evaluate in the round are not read
    before its next evaluation (a solve follows its evaluation in the same round)."""
    for i in range(S.J.shape[0]):
        Ji = S.J[i]
        for w in range(Ji.shape[0]):
            Ji[w] = 0.0


@kernel
def load_lane(W, lanes, lane):
    """Put world W's right-hand side -R (after newton_continue answered SOLVE) into lane `lane`
    of lanes (BandLanes); its matrix is assembled with the other lanes' by solve_lanes, from
    its Jacobian entries W.J, which nothing changes before that solve."""
    for i in range(W.free.shape[0]):
        lanes.rhs[i, lane] = -W.R[i]


@kernel
def solve_lanes(S, m):
    """Solve the Newton systems of lanes 0 .. m - 1 (load_lane; lane w holds world
    S.lane_world[w]): the matrices assembled from the worlds' Jacobian entries S.J and
    completed (band_lanes.assemble_lanes, close_lanes: diag(S.diagonal) - J), then the LU
    across lanes."""
    assemble_lanes(S.J, S.lane_world, S.band.slot_of_entry, S.lanes.ab, m)
    close_lanes(S.lanes.ab, m, S.band.diag_slot, S.diagonal, S.lane_world)
    band_lu_solve_lanes(S.lanes, m)
