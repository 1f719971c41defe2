"""Rod-plane contact on the rod's surface (GroundContact(rod, surface=True)), in the block layout.

The rod's surface is modelled as each element's capsule: the set of points within the element's
radius r of its centreline segment x_a x_b (the swept-sphere model of the rod-rod contact,
docs/contact.md). The signed height of a segment point above the plane (point p, unit normal u)
is linear along the segment, so the deepest point of a capsule is r below one of its two ends:
checking the two end spheres of every element covers every point of the rod's surface, at the
nodes and along the elements. Penetration of end a of element e:

    delta_a = r_e - u . (x_a - p)

Each element acts on each of its ends with half its stiffness k and damping gamma (a linear
spring-dashpot penalty on the end sphere; the max keeps the damping from pulling it in):

    f_a = max(k/2 delta_a - gamma/2 v_a . u, 0) u      (delta_a > 0, else 0)

so a node shared by two elements has stiffness k and an open rod's end node k/2 (half the mass
too): a straight rod resting on the plane under gravity sinks uniformly by

    delta = m_e g / k          (m_e: an element's mass; the stated depth of docs/contact.md)

and, in general, a node carrying a load F_i (its share of the weight plus whatever presses it)
sinks F_i / k_i (k_i = k, or k/2 at an open end): no surface point is deeper than that.

Friction (kinetic, the law of softmech.kernels.contact.kinetic_friction, Gazzola et al. 2018
eq. 4.10) acts at every end in contact on that node's velocity, with the end's normal force
|f_a|, along the element's in-plane axial direction a and lateral direction a x u. A node has
no frame, so the section's spin (rolling) and the static-friction pass of the centre model are
not part of this model (softmech.terms.contact refuses them with surface=True).

Mollified friction (`regularization="mollified"`: one coefficient, no static branch), the
smooth friction of incremental-potential contact (Li et al., ACM Trans. Graph. 39(4) 2020,
"Incremental Potential Contact", eqs. 13-15, there in displacement per step, here in velocity):

    F = -mu N f1(|v| / v_eps) dir,    f1(y) = y (2 - y) for y < 1, 1 above

per direction (dir = sign, mu forward or backward by the sign) or on the unit slip velocity
("unit": f1(|v| / v_eps) v / |v|). f1 is C1, rises from 0 with slope 2 / v_eps and reaches the
Coulomb value at v_eps: the force is continuous and monotone in the slip velocity, so an implicit
step's equations have one solution (the static branch above, with its fall from the static to the
kinetic force, has several once h > m v_eps / ((mu_s - mu_k) N)). Below v_eps a node held by
a tangential load F_t < mu N creeps at about v_eps F_t / (2 mu N) <= v_eps / 2: the
regularization's error, set by v_eps.
"""
from collections import namedtuple

import numpy as np

from softmech.kernels import kernel
from softmech.kernels.contact import by_direction, in_plane_axes, kinetic_friction, sign

# rows of surface_param (n_blocks, n_c, N_SURFACE_PARAMS, n_elems*W)
(S_PX, S_PY, S_PZ, S_UX, S_UY, S_UZ, S_K, S_GAMMA, S_MU_F, S_MU_B, S_MU_L, S_V_EPS) = range(12)
N_SURFACE_PARAMS = 12

SurfaceContactArgs = namedtuple("SurfaceContactArgs", [
    "x", "v",                                                # state
    "rod_node_off", "rod_elem_off", "rod_n_elems", "rod_closed", "elem_radius",  # rod bodies
    "surface_rod",     # rod index per contact entry (n_c,) int64
    "surface_param",   # per element slot (n_blocks, n_c, N_SURFACE_PARAMS, n_elems*W)
    "surface_force",   # per entry, the force [N] on the first and on the second end of every
    # element (n_blocks, n_c, 6, n_elems*W), kept for diagnostics (softmech.terms.surface_contact)
    "node_force",                                            # output (added to)
])


@kernel(inline="always")
def end_force(delta, vn, k, gamma):
    """Normal force [N] of one end sphere: max(k/2 delta - gamma/2 vn, 0) when it penetrates
    (delta > 0 [m]), else 0; vn = v . u [m/s]."""
    return max(0.5 * (k * delta - gamma * vn), 0.0) if delta > 0.0 else 0.0


@kernel(inline="always")
def end_friction(v0, v1, v2, a0, a1, a2, r0, r1, r2, normal, mu_f, mu_b, mu_l, v_eps, unit,
                 mollified):
    """Kinetic (or, mollified, the mollified law's) friction [N] (3 components) on a node of
    velocity v with normal force `normal`, along the in-plane axial direction a and lateral
    direction r."""
    v_ax = v0 * a0 + v1 * a1 + v2 * a2
    v_lat = v0 * r0 + v1 * r1 + v2 * r2
    if mollified:
        f_ax, f_lat = mollified_friction(v_ax, v_lat, normal, mu_f, mu_b, mu_l, 1.0 / v_eps, unit)
    else:
        f_ax, f_lat = kinetic_friction(v_ax, v_lat, normal, mu_f, mu_b, mu_l, v_eps,
                                       1.0 / v_eps, unit)
    return f_ax * a0 + f_lat * r0, f_ax * a1 + f_lat * r1, f_ax * a2 + f_lat * r2


@kernel(inline="always")
def mollifier(speed, inv_v_eps):
    """f1(|v| / v_eps) / |v| [s/m] of the mollified law (module docstring), finite at |v| = 0:
    (2 - y) / v_eps below v_eps, 1 / |v| above."""
    y = speed * inv_v_eps
    return (2.0 - y) * inv_v_eps if y < 1.0 else 1.0 / speed


@kernel(inline="always")
def mollified_friction(v_ax, v_lat, normal, mu_f, mu_b, mu_l, inv_v_eps, unit):
    """Mollified friction magnitudes along the axial and lateral directions (module docstring)
    for slip velocities v_ax, v_lat [m/s] and normal force N [N]."""
    mu_ax = by_direction(mu_f, mu_b, sign(v_ax))
    if unit:
        g = mollifier(np.sqrt(v_ax * v_ax + v_lat * v_lat), inv_v_eps)
        return -mu_ax * normal * g * v_ax, -mu_l * normal * g * v_lat
    return (-mu_ax * normal * mollifier(abs(v_ax), inv_v_eps) * v_ax,
            -mu_l * normal * mollifier(abs(v_lat), inv_v_eps) * v_lat)


@kernel(inline="always")
def surface_entry(a, bi, W, i, unit, mollified):
    """Contact entry i (one rod, one plane) in block bi: every element's two end spheres against
    the plane; adds the forces to a.node_force [N] (a closed rod's last element ends on node 0;
    its ghost slot holds node 0's position and velocity)."""
    r = a.surface_rod[i]
    ne = a.rod_n_elems[r] * W
    closed = a.rod_closed[r]
    e0 = a.rod_elem_off[r] * W
    n0 = a.rod_node_off[r] * W
    x = a.x[bi]
    v = a.v[bi]
    acc = a.node_force[bi]
    prm = a.surface_param[bi, i]
    out = a.surface_force[bi, i]
    for k in range(ne):
        e = e0 + k
        ia = n0 + k
        ib = ia + W
        u0 = prm[S_UX, e]
        u1 = prm[S_UY, e]
        u2 = prm[S_UZ, e]
        p0 = prm[S_PX, e]
        p1 = prm[S_PY, e]
        p2 = prm[S_PZ, e]
        kk = prm[S_K, e]
        gg = prm[S_GAMMA, e]
        rad = a.elem_radius[bi, e]
        da = rad - (u0 * (x[0, ia] - p0) + u1 * (x[1, ia] - p1) + u2 * (x[2, ia] - p2))
        db = rad - (u0 * (x[0, ib] - p0) + u1 * (x[1, ib] - p1) + u2 * (x[2, ib] - p2))
        fa = end_force(da, u0 * v[0, ia] + u1 * v[1, ia] + u2 * v[2, ia], kk, gg)
        fb = end_force(db, u0 * v[0, ib] + u1 * v[1, ib] + u2 * v[2, ib], kk, gg)
        # in-plane axial direction a (the tangent without its normal part) and r = a x u
        a0, a1, a2, r0, r1, r2 = in_plane_axes(x[0, ib] - x[0, ia], x[1, ib] - x[1, ia],
                                               x[2, ib] - x[2, ia], u0, u1, u2)
        mf = prm[S_MU_F, e]
        mb = prm[S_MU_B, e]
        ml = prm[S_MU_L, e]
        ve = prm[S_V_EPS, e]
        ga0, ga1, ga2 = end_friction(v[0, ia], v[1, ia], v[2, ia], a0, a1, a2, r0, r1, r2, fa,
                                     mf, mb, ml, ve, unit, mollified)
        gb0, gb1, gb2 = end_friction(v[0, ib], v[1, ib], v[2, ib], a0, a1, a2, r0, r1, r2, fb,
                                     mf, mb, ml, ve, unit, mollified)
        out[0, e] = fa * u0 + ga0
        out[1, e] = fa * u1 + ga1
        out[2, e] = fa * u2 + ga2
        out[3, e] = fb * u0 + gb0
        out[4, e] = fb * u1 + gb1
        out[5, e] = fb * u2 + gb2
        jb = ib - closed * ne if k >= ne - W else ib   # a closed rod's last element: node 0
        for c in range(3):
            acc[c, ia] += out[c, e]
            acc[c, jb] += out[3 + c, e]


@kernel(inline="always")
def surface_entries(a, bi, W, unit, mollified):
    for i in range(a.surface_rod.shape[0]):
        surface_entry(a, bi, W, i, unit, mollified)


# one kernel per friction decomposition and law (literal constants), as softmech.kernels.contact:
# a scene compiles only the ones it uses
@kernel
def surface_contacts_sign(a, bi, W, t):
    surface_entries(a, bi, W, False, False)


@kernel
def surface_contacts_unit(a, bi, W, t):
    surface_entries(a, bi, W, True, False)


@kernel
def surface_contacts_sign_mollified(a, bi, W, t):
    surface_entries(a, bi, W, False, True)


@kernel
def surface_contacts_unit_mollified(a, bi, W, t):
    surface_entries(a, bi, W, True, True)


SURFACE_VARIANTS = {(False, False): surface_contacts_sign, (True, False): surface_contacts_unit,
                    (False, True): surface_contacts_sign_mollified,
                    (True, True): surface_contacts_unit_mollified}
"""(unit decomposition, mollified law) -> the kernel (takes SurfaceContactArgs)."""
