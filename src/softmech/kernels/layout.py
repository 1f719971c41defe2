"""Compiled-engine data layout: the named tuples of arrays that the kernels read and write.

Worlds are grouped into *blocks* of W lanes; each block is advanced by one thread. Inside a block
every per-node / per-element quantity is stored flat as ``a[component, i * W + lane]`` so that
element-wise passes are one contiguous loop over ``k = i * W + lane`` (vectorized across elements
when W == 1 and across worlds when W > 1) and neighbours sit at ``k +- W``.

Several rods are concatenated: rod r owns n_elems[r] + 1 node slots from node_off[r],
n_elems[r] + closed[r] element slots from elem_off[r] and n_elems[r] - 1 + closed[r] Voronoi
domains from vor_off[r] (in units of W lanes). A closed rod's last node slot and last element
slot are ghosts: copies of node 0 and element 0 refreshed after every drift and kick, so that the
element and Voronoi passes need no wrap-around indexing.

User-facing shapes are converted at the boundary by `softmech.packing`.
"""
from collections import namedtuple

BlockModel = namedtuple("BlockModel", [
    # topology, shape (n_rods,), int64, shared by all blocks
    "rod_node_off", "rod_elem_off", "rod_vor_off", "rod_n_elems", "rod_closed",
    # constitutive law per rod, shape (n_rods, 4) float64: [stretch_current (0/1): n /= e,
    # bend_current (0/1): m /= eps^3, exact_log_jacobian (0/1), viscous (0/1): Kelvin-Voigt on]
    "rod_law",
    # per node, shape (n_blocks, n_nodes*W) or (n_blocks, 3, n_nodes*W)
    "node_mass",          # m [kg]
    "node_inv_mass",      # 1/m [1/kg]
    "node_damping",       # gamma * dl [kg/s]: force -gamma dl v
    "node_body_acc",      # body acceleration (gravity) [m/s^2], (n_blocks, 3, n_nodes*W)
    # per element
    "elem_rest_len",      # [m]
    "elem_inv_rest_len",  # [1/m]
    "elem_J",             # mass second moment rho*I*l [kg m^2], (n_blocks, 3, n_elems*W)
    "elem_inv_J",         # [1/(kg m^2)]
    "elem_S",             # shear/stretch stiffness diag (alpha G A, alpha G A, E A) [N]
    "elem_rest_sigma",    # rest shear/stretch strain [-], (n_blocks, 3, n_elems*W)
    "elem_damping",       # rotational damping coefficient * dl [N m s]: couple -c w
    "elem_kv_tau",        # Kelvin-Voigt retardation time [s]
    "elem_radius",        # cross-section radius [m]
    # per Voronoi domain (interior node)
    "vor_rest_len",       # D_hat [m]
    "vor_inv_rest_len",   # [1/m]
    "vor_B",              # bend/twist stiffness diag (E I1, E I2, G I3) [N m^2]
    "vor_rest_kappa",     # rest curvature [1/m], (n_blocks, 3, n_vor*W)
    "vor_kv_tau",         # [s]
    # point forces (lab frame): node index (n_pf,), vector (n_blocks, n_pf, 3, W), profile (n_pf, 3)
    "pf_node", "pf_vec", "pf_profile",
    # couples (lab frame) on elements: same layout
    "pc_elem", "pc_vec", "pc_profile",
    # constrained nodes: x = pos0 + disp * profile(t); index (n_cn,), (n_blocks, n_cn, 3, W) x2, (n_cn, 3)
    "cn_node", "cn_pos0", "cn_disp", "cn_profile",
    # constrained frames: element index (n_cf,), frame (n_blocks, n_cf, 9, W), w = 0
    "cf_elem", "cf_Q",
    # frame anchors: element index (n_fa,), target frame (n_blocks, n_fa, 9, W), stiffness over
    # length K / D [N m] (n_blocks, n_fa, 3, W), side (n_fa,): +1 target before the element
    # (first end), -1 after it (last end); an elastic half Voronoi domain to a fixed frame
    "fa_elem", "fa_Q", "fa_K", "fa_side",
    # rod-plane contacts (kernels.contact): rod index (n_gc,), parameters
    # per element slot (n_blocks, n_gc, N_CONTACT_PARAMS, n_elems*W), flags (n_gc, 4) int64
    # [rolling, unit decomposition, per-node friction, uniform parameters and body acceleration]
    "gc_rod", "gc_param", "gc_flags",
    # muscle torque waves (kernels.muscles): rod index (n_mt,), beta cos(k s) and beta sin(k s)
    # per Voronoi domain (n_blocks, n_mt, n_vor_max, W) [N m], wave (n_blocks, n_mt, 3, W)
    # [omega [rad/s], phase [rad], ramp time [s]]
    "mt_rod", "mt_beta_cos", "mt_beta_sin", "mt_wave",
    # ghost slots of closed rods: node slot <- node slot, element slot <- element slot, (n_ghosts,)
    "ghost_node", "ghost_node_src", "ghost_elem", "ghost_elem_src",
])

BlockState = namedtuple("BlockState", [
    "x",  # node positions [m], (n_blocks, 3, n_nodes*W)
    "v",  # node velocities [m/s]
    "Q",  # element directors, rows d1, d2, d3, row-major (n_blocks, 9, n_elems*W)
    "w",  # element angular velocities in the local frame [rad/s], (n_blocks, 3, n_elems*W)
])

BlockWorkspace = namedtuple("BlockWorkspace", [
    "elem_len",   # current element length l [m], (n_blocks, n_elems*W)
    "elem_n",     # internal force Q^T n in the lab frame [N], (n_blocks, 3, n_elems*W)
    "elem_tau",   # element-local couples: shear + transport + dilatation [N m]
    "vor_m",      # bending/twist moment m [N m], (n_blocks, 3, n_vor*W)
    "vor_h",      # 0.5 phi x m
    "vor_g",      # c(theta) phi x (phi x m) (exact log Jacobian term; zero for Gazzola's law)
    "node_acc",   # [m/s^2], (n_blocks, 3, n_nodes*W)
    "elem_alpha", # angular acceleration, local [rad/s^2], (n_blocks, 3, n_elems*W)
    "rotation_violations",  # drifts that rotated a frame by > 1 rad, per block, (n_blocks,) int64
    # contact scratch (kernels.contact), per element: friction normal force N [N], slip functions
    # (n_blocks, 2, n_elems*W), in-plane axial direction a (rows 0-2, lab) and Q a (rows 3-5,
    # local), (n_blocks, 6, n_elems*W), element forces [N] (after a force evaluation: the
    # static-friction pass only)
    "contact_normal", "contact_slip", "contact_axial", "contact_force",
    "contact_force_diff",  # (first-node part - second-node part) of per-node friction [N]
    # muscle scratch (kernels.muscles): ramp sin and ramp cos per lane (n_blocks, 2, W), and the
    # moments [N m] of one muscle's Voronoi domains (n_blocks, n_elems*W)
    "muscle_phase", "muscle_moment",
])
