"""The Newton matrix of the unified engine's implicit Euler two ways, for the tests of analytic
Jacobians (softmech.integrators.analytic): by central differences of the full residual, and as
the integrator builds it (finite differences of the terms without analytic Jacobians plus their
analytic entries)."""
import numpy as np

from softmech.integrators.analytic import dof_weights
from softmech.integrators.implicit_source import DIFFERENCES, RESIDUAL

H = 2e-3
"""The step [s] of the tests' scenes."""


def newton_matrices(sim):
    """(the Newton matrix dR/du by central differences of the full residual, the integrator's
    one: finite differences of the terms without analytic Jacobians plus the others' analytic
    entries, the stiffness K = dF/dq + dF/dv / h of the terms with analytic Jacobians from
    each of the two (free DOFs only), the DOFs' kinds (True: an angle, a discrete rod's twist
    or a mid-edge shell's edge)) at a perturbed copy of the current state."""
    ig = sim.implicit_integrator()
    W, n, T, t = ig.lanes.W, ig.n_dof, ig.engine.T, float(sim.time) + H
    ig._copy_states(0, to_base=True, to_save=True)
    U0 = ig._velocities(0) + 0.01

    def central(evaluate):
        J = np.zeros((n, n))
        for j in range(n):
            e = 1e-7 * max(1.0, abs(U0[j, 0]))
            R = []
            for sign in (1.0, -1.0):
                U = U0.copy()
                U[j, 0] += sign * e
                out = np.zeros((n, W))
                evaluate(T, ig.kinds, 0, W, t, H, U, out)
                R.append(out[:, 0])
            J[:, j] = (R[0] - R[1]) / (2 * e)
        return J

    full = central(lambda *args: ig.module.evaluate(*args, RESIDUAL))
    without = central(lambda *args: ig.module.evaluate(*args, DIFFERENCES))
    ig.module.evaluate(T, ig.kinds, 0, W, t, H, U0, np.zeros((n, W)), DIFFERENCES)
    ours = without.copy()
    for i_call, entries in ig._analytic:        # (every term with an analytic Jacobian)
        values = np.zeros(entries.rows.size)
        ig._calls[i_call - 1].jacobian.kernel(T[i_call], 0, W, t, H, 0, values)
        np.add.at(ours, (entries.rows, entries.cols), -H * H * entries.weight[0, :, 0] * values)
    ig._copy_states(0, from_save=True)
    inv_mass, free = dof_weights(ig.kinds, W, 1, n)
    inv_mass, keep = inv_mass[0, :, 0], free[0, :, 0] > 0
    stiffness = lambda J: (-(J - without) / (H * H * inv_mass[:, None]))[np.ix_(keep, keep)]
    twist = (np.arange(n) >= ig.kinds[0].offsets[1])[keep]
    return full, ours, stiffness(full), stiffness(ours), twist
