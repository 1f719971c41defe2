"""What the implicit integrator (softmech.integrators.implicit) does to a body kind's state:
the kernels shared by Cosserat rods and rigid bodies, whose states have the same shape --
positions x and velocities v (3, n_x*W), frames Q (9, n_q*W) and local angular velocities w
(3, n_q*W) -- and whose motion kernels leave the accelerations (a, alpha) in two workspace
arrays (softmech.kernels.rod_motion.rod_accelerations, rigid_motion.rigid_accelerations).

A backward-Euler step of size h from a base state (x_b, Q_b, v_b, w_b) to time t solves for the
end velocities u = (v, w) (Hairer and Wanner, Solving ODEs II, IV.8; on SO(3) the frame moves
by the exponential of the end angular velocity, as the explicit drift does):

    x = x_b + h v,   Q = exp(-h [w]x) Q_b                           (place_kind)
    R(u) = u - P(u) + m (i (P(u) - u_b) - h a(x, Q, P(u), t))        (residual_kind)

P(u): the velocities after the scene's constraints (Clamp, driven ends, ghost slots), which
overwrite the constrained entries; m: 1 on free DOFs, 0 on constrained ones (found once by
probing the constraints); i: 1, or 0 for an overdamped step (ImplicitOptions.overdamped: the
inertia term dropped, so the step solves the force balance a(x, Q, u, t) = 0 at its end; a is
the force over the mass, so the root is that of the forces). A free DOF's residual is the step's equation of motion; a
constrained one's, u - P(u), vanishes once u takes the prescribed value.

DOFs: each kind numbers its velocity entries from v_off (slot s, component c: v_off + 3 s + c)
and its angular velocity entries from w_off (w_off + n_c s + c with n_c the rows of w: 3, or 1
for the twist rates of discrete rods, whose own place and copy kernels are in
softmech.kernels.der_motion); a world's u is a vector (n_dof, W), lanes last.
"""
from collections import namedtuple

from softmech.kernels import kernel
from softmech.kernels.rod_motion import apply_rotation, rotation_matrix

ImplicitKindArgs = namedtuple("ImplicitKindArgs", [
    "x", "v", "Q", "w",          # the kind's state (softmech.model.State fields), block layout
    "acc", "alpha",              # its accelerations after the motion kernel [m/s^2], [rad/s^2]
    "xb", "Qb", "vb", "wb",      # base state of the current implicit stage (same shapes)
    "xs", "Qs", "vs", "ws",      # state at the start of the current step (restored on halving)
    "v_mask", "w_mask",          # 1.0 free, 0.0 constrained (n_blocks, 3, n*W)
    "v_scale",                   # length scale of each velocity DOF [m] (n_blocks, 3, n_x*W)
    "v_inv_mass",                # 1/m of each velocity slot [1/kg] (n_blocks, n_x*W)
    "w_inv_inertia",             # 1/J of each angular DOF [1/(kg m^2)] (like w); 0: held
    "offsets",                   # (2,) int64: v_off, w_off (first DOF of v and of w)
    "violations",                # (n_blocks,) int64: frames turned by > 1 rad in a place
    "inertia",                   # (1,): 1.0, or 0.0 for overdamped steps (module docstring)
    "Qf",                        # frames at the kept Jacobian's factorization (like Q)
    "Rn",                        # turn of each velocity DOF slot since then (n_blocks, 9, n_x*W)
    "adjacent",                  # (n_x, 2) int64: the frame slots around each velocity slot
])                               # (the last three: softmech.kernels.corotation)
"""The implicit integrator's arrays of one body kind."""


@kernel
def place_kind(a, bi, W, h, U):
    """v, w <- u (U (n_dof, W)), x <- x_b + h v, Q <- exp(-h [w]x) Q_b on block bi."""
    v, w, x, Q = a.v[bi], a.w[bi], a.x[bi], a.Q[bi]
    xb, Qb = a.xb[bi], a.Qb[bi]
    v_off, w_off = a.offsets[0], a.offsets[1]
    place_rows(v, x, xb, v_off, W, h, U)
    n_q = w.shape[1] // W
    too_large = 0
    for s in range(n_q):
        for lane in range(W):
            k = s * W + lane
            d = w_off + 3 * s
            w[0, k] = U[d, lane]
            w[1, k] = U[d + 1, lane]
            w[2, k] = U[d + 2, lane]
            for c in range(9):
                Q[c, k] = Qb[c, k]
            R, large = rotation_matrix(w[0, k], w[1, k], w[2, k], h)
            apply_rotation(Q, k, R)
            too_large += large
    a.violations[bi] += too_large


@kernel(inline="always")
def place_rows(p, y, yb, off, W, h, U):
    """p <- u, y <- y_b + h u on one state array of a block: p, y, yb (nc, n*W), rates
    [m/s or rad/s] and their coordinates [m or rad], nc = 3 (velocities) or 1 (a discrete rod's
    twist rates); u from U (n_dof, W) at DOF off + nc s + c (module docstring)."""
    nc = p.shape[0]
    for s in range(p.shape[1] // W):
        for c in range(nc):
            d = off + nc * s + c
            for lane in range(W):
                k = s * W + lane
                p[c, k] = U[d, lane]
                y[c, k] = yb[c, k] + h * U[d, lane]


@kernel
def residual_kind(a, bi, W, h, U, R):
    """R <- u - P(u) + m (i (P(u) - u_b) - h a) on the kind's DOFs (module docstring), from the
    state after the constraints (P(u): v, w) and the accelerations of the motion kernel."""
    v_off, w_off, i = a.offsets[0], a.offsets[1], a.inertia[0]
    _residual_rows(a.v[bi], a.vb[bi], a.acc[bi], a.v_mask[bi], v_off, W, h, i, U, R)
    _residual_rows(a.w[bi], a.wb[bi], a.alpha[bi], a.w_mask[bi], w_off, W, h, i, U, R)


@kernel(inline="always")
def _residual_rows(p, base, acc, mask, off, W, h, inertia, U, R):
    n = p.shape[1] // W
    nc = p.shape[0]     # 3 (velocities), or 1 (a discrete rod's twist rates)
    for s in range(n):
        for c in range(nc):
            d = off + nc * s + c
            for lane in range(W):
                k = s * W + lane
                R[d, lane] = (U[d, lane] - p[c, k]) + mask[c, k] * (
                    inertia * (p[c, k] - base[c, k]) - h * acc[c, k])


@kernel
def gather_kind(a, bi, W, U):
    """U <- the kind's current velocities v, w (the initial guess of a stage, the probes)."""
    _gather_rows(a.v[bi], a.offsets[0], W, U)
    _gather_rows(a.w[bi], a.offsets[1], W, U)


@kernel(inline="always")
def _gather_rows(p, off, W, U):
    nc = p.shape[0]
    for s in range(p.shape[1] // W):
        for c in range(nc):
            for lane in range(W):
                U[off + nc * s + c, lane] = p[c, s * W + lane]


@kernel(unliteral=True)
def copy_state(a, bi, to_base, to_save, from_save):
    """Copy the kind's state: to the stage base (to_base), to the step-start save (to_save), or
    back from the save (from_save) on block bi."""
    if to_base:
        _copy(a.x[bi], a.xb[bi])
        _copy(a.Q[bi], a.Qb[bi])
        _copy(a.v[bi], a.vb[bi])
        _copy(a.w[bi], a.wb[bi])
    if to_save:
        _copy(a.x[bi], a.xs[bi])
        _copy(a.Q[bi], a.Qs[bi])
        _copy(a.v[bi], a.vs[bi])
        _copy(a.w[bi], a.ws[bi])
    if from_save:
        _copy(a.xs[bi], a.x[bi])
        _copy(a.Qs[bi], a.Q[bi])
        _copy(a.vs[bi], a.v[bi])
        _copy(a.ws[bi], a.w[bi])


@kernel(inline="always")
def _copy(src, dst):
    for c in range(src.shape[0]):
        for k in range(src.shape[1]):
            dst[c, k] = src[c, k]


@kernel
def correction_norm(a, bi, W, h, dU, out):
    """out[lane] = max(out[lane], the largest |h du| / scale over the kind's DOFs): how far the
    Newton correction du moves the state, in units of each DOF's length scale (a velocity
    DOF: its node's scale [m]; an angular one: 1 rad); masked (constrained) DOFs excluded."""
    v_off, w_off = a.offsets[0], a.offsets[1]
    vm, wm, vs = a.v_mask[bi], a.w_mask[bi], a.v_scale[bi]
    for s in range(a.v.shape[2] // W):
        for c in range(3):
            for lane in range(W):
                k = s * W + lane
                r = abs(h * dU[v_off + 3 * s + c, lane]) * vm[c, k] / vs[c, k]
                if r > out[lane] or r != r:
                    out[lane] = r
    nc = a.w.shape[1]   # 3 (angular velocities), or 1 (a discrete rod's twist rates)
    for s in range(a.w.shape[2] // W):
        for c in range(nc):
            for lane in range(W):
                k = s * W + lane
                r = abs(h * dU[w_off + nc * s + c, lane]) * wm[c, k]
                if r > out[lane] or r != r:
                    out[lane] = r


@kernel
def merit_kind(a, bi, W, h, R, out):
    """out[lane] += the sum of (r / i)^2 over the kind's free DOFs, r the residual R (n_dof, W)
    [m/s or rad/s] and i the DOF's inverse mass or inertia: the squared impulse residual
    m (u - u_b) - h F [N s] (J (w - w_b) - h tau [N m s]), h times the discrete engine's force
    residual, whose half-square is the merit of both engines' line searches (softmech.implicit.
    newton, softmech.kernels.implicit_newton.judge_lanes); masked (constrained) DOFs and
    those of infinite mass (i = 0: a fixed rigid body) excluded (their rows u - P(u) do not
    enter the forces)."""
    v_off, w_off = a.offsets[0], a.offsets[1]
    vm, wm, iv, iw = a.v_mask[bi], a.w_mask[bi], a.v_inv_mass[bi], a.w_inv_inertia[bi]
    for s in range(a.v.shape[2] // W):
        for c in range(3):
            for lane in range(W):
                k = s * W + lane
                if vm[c, k] != 0.0 and iv[k] != 0.0:
                    r = R[v_off + 3 * s + c, lane] / iv[k]
                    out[lane] += r * r
    nc = a.w.shape[1]   # 3 (angular velocities), or 1 (a discrete rod's twist rates)
    for s in range(a.w.shape[2] // W):
        for c in range(nc):
            for lane in range(W):
                k = s * W + lane
                if wm[c, k] != 0.0 and iw[c, k] != 0.0:
                    r = R[w_off + nc * s + c, lane] / iw[c, k]
                    out[lane] += r * r


@kernel
def perturbation_kind(a, bi, W, h, U, eps, delta):
    """eps <- the finite-difference step of each of the kind's DOFs: delta max(|u|, s / h),
    s the DOF's length scale (velocity) or 1 rad (angular velocity), so that the state moves
    by about delta s."""
    v_off, w_off = a.offsets[0], a.offsets[1]
    vs = a.v_scale[bi]
    for s in range(a.v.shape[2] // W):
        for c in range(3):
            for lane in range(W):
                d = v_off + 3 * s + c
                eps[d, lane] = delta * max(abs(U[d, lane]), vs[c, s * W + lane] / h)
    nc = a.w.shape[1]
    for s in range(a.w.shape[2] // W):
        for c in range(nc):
            for lane in range(W):
                d = w_off + nc * s + c
                eps[d, lane] = delta * max(abs(U[d, lane]), 1.0 / h)
