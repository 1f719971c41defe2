"""Reference frames of discrete elastic rods: time-parallel transport and reference twist.

Conventions (Bergou et al. 2008, "Discrete Elastic Rods", sec. 4-6; Bergou et al. 2010,
"Discrete Viscous Threads", sec. 4.1; MAT-DiSMech, ref. 004 sec. 3.2):

- an edge j joins node slots (i0, i1): e^j = x_i1 - x_i0, tangent t^j = e^j / |e^j|;
- its reference frame (a1^j, a2^j, t^j) is right-handed and orthonormal; it is updated by
  *time-parallel transport*: a1^j at the current iterate is the parallel transport of the
  a1^j of the last accepted step from that step's tangent to the current tangent (Bergou 2010,
  sec. 4.1) -- never from the previous Newton iterate, so the frames are a function of q;
- the material frame turns the reference frame by the edge's twist angle theta^j about t^j:
  m1 = cos(theta) a1 + sin(theta) a2, m2 = -sin(theta) a1 + cos(theta) a2;
- the *reference twist* of a bending-twisting spring between edges e (entering its centre
  node) and f (leaving it) is the signed angle about t^f from the space-parallel transport of
  a1^e onto t^f to a1^f; it is kept continuous in time (not wrapped to (-pi, pi]) by adding
  the increment from the last accepted value, as DisMech's computeRefTwist does.

Rod networks (ref. 004 sec. 3.2, Fig. 2g): a spring's edge may point the other way (sign -1);
the spring then uses t' = -t, a1' = -a1, a2' = a2 (still right-handed) and theta' = -theta,
so m1' = -m1, m2' = m2, exactly DisMech's bookkeeping. In addition (not in DisMech) a spring
may turn its entering edge's frame by a half turn about the tangent (frame factor c_e = -1:
a1' -> -a1', a2' -> -a2'), chosen once at construction where the two edges' frames would
otherwise face opposite ways (initial reference twist beyond +-pi/2). Without it such a spring
loses a bending stiffness, since m1_e + m1_f cancels in kappa (ref. 004 eqs. 12-13): a polyline
stored with alternating edge directions had zero stiffness modes, and at a junction of three
edges in a plane no choice of per-edge frames avoids a half-turned pair.
Vectors are 3-tuples (no allocation).
"""
import math

from softmech.kernels import kernel


@kernel(inline="always")
def dot3(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@kernel(inline="always")
def cross3(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@kernel(inline="always")
def axpy3(s, a, b):
    """s a + b."""
    return (s * a[0] + b[0], s * a[1] + b[1], s * a[2] + b[2])


@kernel(inline="always")
def scale3(s, a):
    return (s * a[0], s * a[1], s * a[2])


@kernel(inline="always")
def load3(arr, i):
    return (arr[i, 0], arr[i, 1], arr[i, 2])


@kernel(inline="always")
def node3(q, dofs, k):
    """The 3-vector q[dofs[k:k+3]] (a node's position [m] given its three DOF indices)."""
    return (q[dofs[k]], q[dofs[k + 1]], q[dofs[k + 2]])


@kernel
def parallel_transport(d, t1, t2):
    """Parallel transport of the vector d (3-tuple) from unit tangent t1 to unit tangent t2:
    the rotation about t1 x t2 taking t1 to t2 (Bergou 2008 sec. 4.1; DisMech's
    parallel_transport). Identity when t1 and t2 are parallel (|t1 x t2| < 1e-14)."""
    return transport3(d, t1, t2)


@kernel(inline="always")
def transport3(d, t1, t2):
    """parallel_transport's arithmetic, inlined where a loop across worlds must hold it whole
    (softmech.kernels.der_bend_twist_lanes)."""
    b = cross3(t1, t2)
    nb = math.sqrt(dot3(b, b))
    if nb < 1e-14:
        return d
    b = scale3(1.0 / nb, b)
    n1 = cross3(t1, b)
    n2 = cross3(t2, b)
    return axpy3(dot3(d, t1), t2, axpy3(dot3(d, n1), n2, scale3(dot3(d, b), b)))


@kernel
def rotate_about(v, z, angle):
    """v rotated by `angle` [rad] about the unit axis z (Rodrigues' formula)."""
    return rotate_cs(v, z, math.cos(angle), math.sin(angle))


@kernel(inline="always")
def rotate_cs(v, z, c, s):
    """rotate_about given c = cos(angle), s = sin(angle) (the trigonometry computed apart)."""
    zv = cross3(z, v)
    k = dot3(z, v) * (1.0 - c)
    return (c * v[0] + s * zv[0] + k * z[0], c * v[1] + s * zv[1] + k * z[1],
            c * v[2] + s * zv[2] + k * z[2])


@kernel
def signed_angle(u, v, n):
    """Angle [rad] in (-pi, pi] from u to v, positive about the axis n."""
    w = cross3(u, v)
    return math.atan2(dot3(w, n), dot3(u, v))


@kernel
def der_frames(q, edge_dofs, a1_old, t_old, ref_twist_old, spring_edges, spring_signs,
               t_out, a1_out, a2_out, ref_twist_out):
    """Reference frames and reference twists at the DOFs q, time-parallel transported from the
    last accepted step.

    q: (n_dof,) DOFs [m, rad]; edge_dofs: (m, 6) int64, the x,y,z DOFs of each edge's first and
    second node; a1_old, t_old: (m, 3) the accepted step's first reference director and tangent;
    ref_twist_old: (s,) [rad] the accepted reference twist of each bending-twisting spring;
    spring_edges: (s, 2) int64 its edges e (entering the centre node) and f (leaving it);
    spring_signs: (s, 3) float: the orientation signs s_e, s_f (+1 or -1: edge stored the other
    way) and the frame factor c_e (+1 or -1) of the entering edge (see module docstring).
    Writes t_out, a1_out, a2_out: (m, 3) and ref_twist_out: (s,) [rad].
    """
    for j in range(edge_dofs.shape[0]):
        x0 = node3(q, edge_dofs[j], 0)
        x1 = node3(q, edge_dofs[j], 3)
        e = axpy3(-1.0, x0, x1)
        t = scale3(1.0 / math.sqrt(dot3(e, e)), e)
        a1 = parallel_transport(load3(a1_old, j), load3(t_old, j), t)
        # re-orthonormalize against round-off drift over many steps
        a1 = axpy3(-dot3(a1, t), t, a1)
        a1 = scale3(1.0 / math.sqrt(dot3(a1, a1)), a1)
        a2 = cross3(t, a1)
        for k in range(3):
            t_out[j, k] = t[k]
            a1_out[j, k] = a1[k]
            a2_out[j, k] = a2[k]
    for s in range(spring_edges.shape[0]):
        je = spring_edges[s, 0]
        jf = spring_edges[s, 1]
        se = spring_signs[s, 0]
        sf = spring_signs[s, 1]
        te = scale3(se, load3(t_out, je))
        tf = scale3(sf, load3(t_out, jf))
        ae = scale3(se * spring_signs[s, 2], load3(a1_out, je))
        af = scale3(sf, load3(a1_out, jf))
        # DisMech computeRefTwist: transport a1^e onto t^f, turn it by the old reference twist,
        # and add the (small) remaining angle to the old value: continuous in time.
        ut = rotate_about(parallel_transport(ae, te, tf), tf, ref_twist_old[s])
        ref_twist_out[s] = ref_twist_old[s] + signed_angle(ut, af, tf)
