"""The slithering snake of the ME498 handout (Table 2) with the published optimal gait (Gazzola et
al., R. Soc. Open Sci. 5:171628, 2018): a free Cosserat rod on the ground, driven by a travelling
muscle torque wave, propelled by anisotropic friction.

Conventions: the ground is the plane z = 0 (normal +z), the snake starts straight along +x resting
on it (centreline at height r), d1 = +z (so the muscle moments about d1 bend it in the ground
plane), d3 = +x points from tail to head (head = last node), and "forward" friction acts on
velocities along +d3.
"""
from dataclasses import dataclass

import numpy as np

import softmech as sm
from softmech import _checks
from softmech.terms.muscles import MusclePairs

MU_FORWARD = 1.019368
"""Forward kinetic friction coefficient of Table 2 (= L / (T^2 g Froude) with Froude 0.1)."""

TABLE2 = dict(
    length=1.0, radius=0.025, density=1000.0, youngs_modulus=1e7, shear_modulus=2e7 / 3.0,
    period=1.0, damping=5.0, gravity=9.81, wall_stiffness=1.0, wall_damping=1e-6,
    slip_velocity=1e-8, n_elems=50, dt=2.5e-5,
    kinetic=(MU_FORWARD, 1.5 * MU_FORWARD, 2.0 * MU_FORWARD),
    # Table 2: static forward 2 mu_k^f, backward 1.5 x static forward; lateral static is not
    # listed: 2 x static forward, the same lateral/forward ratio as the kinetic coefficients
    static=(2.0 * MU_FORWARD, 3.0 * MU_FORWARD, 4.0 * MU_FORWARD),
)
"""ME498 handout Table 2 (SI units); lateral kinetic = 2 x forward kinetic (Gazzola 2018)."""

OPTIMAL_GAIT = dict(coefficients=(0.0, 17.4, 48.5, 5.4, 14.7, 0.0), wavelength=0.97)
"""The handout's published optimum: beta_0..5 [N m] and lambda_m [m]; mean forward speed
~0.6 m/s (course reference value 0.585 m/s)."""

REFERENCE_SPEED = 0.585
"""Mean forward centre-of-mass speed [m/s] of the optimal gait over periods 3-6 (course value)."""

DEMO_PAIR_SPANS = ((5.0, 35.0), (25.0, 35.0), (45.0, 35.0), (60.0, 35.0))
"""(start, length) [vertebrae, 0 = head .. 100 = tail] of four overlapping muscle pairs spanning 35
vertebrae each (Zhang et al. 2019 found optimal spans of roughly 30-40 vertebrae)."""


def demo_muscle_pairs(force=1500.0, wavelength=OPTIMAL_GAIT["wavelength"]):
    """A demonstration MusclePairs layout (not an optimum: the paper does not list its values):
    DEMO_PAIR_SPANS, each with peak force `force` [N] (1500 N -> 18.75 N m at h = r / 2) and the
    phase of a head-to-tail travelling wave of `wavelength` [m] at the pair's centre c [vertebrae]:
    phase = (c L / 100) / wavelength mod 1. Rows (start, length, force, phase)."""
    length = TABLE2["length"]
    return tuple((start, span, float(force), (start + span / 2) * length / 100.0 / wavelength % 1.0)
                 for start, span in DEMO_PAIR_SPANS)


@dataclass
class SnakeInfo:
    """What `softmech run` and the tools need to know about a built snake scene."""
    rod: str
    muscle: str
    worlds: int
    dt: float
    duration: float
    period: float
    n_elems: int = TABLE2["n_elems"]
    radius: float = TABLE2["radius"]
    length: float = TABLE2["length"]
    reference_speed: float = REFERENCE_SPEED
    reference_name: str = "reference"
    """What reference_speed is, in the summary: the handout's reference for the torque-wave
    snake, the continuous-torque snake for a snake driven by muscle pairs (Zhang et al. 2019
    compare the two)."""


CONTINUOUS_SNAKE = "the continuous-torque snake"
"""reference_name of a snake driven by muscle pairs or muscle rods."""


def tapered_radii(n_elems, taper):
    """Element radii (n_elems,) [m] of a snake whose radius falls linearly from the head (the last
    node) to the tail (node 0) in the ratio `taper` = r_tail / r_head, in (0, 1], at the volume
    (so the mass and weight) of the uniform Table 2 body: r_e ~ taper + (1 - taper) s_e / L, s_e
    the element middle's distance from the tail, scaled so that sum(r_e^2) = n r^2 (r = Table 2's
    radius; with taper 0.5 the head is 1.31 r, the tail 0.65 r). Zhang et al. 2019 call their
    snake's skeleton "tapered" but give no profile (docs/musculoskeletal.md, "A tapered body");
    a linear profile is our choice, its ratio the parameter whose sensitivity is shown there."""
    taper = float(_checks.positive("taper", taper, shape=()))
    if taper > 1.0:
        raise ValueError(f"taper = {taper!r} is not allowed: must be in (0, 1] (the tail's radius "
                         "over the head's)")
    n = _checks.integer("n_elems", n_elems, 1)
    profile = taper + (1.0 - taper) * (np.arange(n) + 0.5) / n
    return TABLE2["radius"] * profile / np.sqrt(np.mean(profile ** 2))


def resting_centerline(radius, length):
    """Nodes (n+1, 3) [m] of a straight rod of element radii `radius` (n,) [m] and `length` [m]
    along +x whose every element touches the ground z = 0: each element's middle at the height
    of its radius (the ground contact's distance, softmech.kernels.contact). A rod must start
    resting on the ground: the Table 2 wall (1 N/m) cancels the force pressing a touching
    element into the ground but does not stop one that falls onto it, which sinks on at its
    speed of impact. For a linear taper the nodes lie on one line."""
    r = np.asarray(radius, dtype=float)
    n = len(r)
    z = np.empty(n + 1)
    z[1:-1] = 0.5 * (r[:-1] + r[1:])
    z[0], z[-1] = 2.0 * r[0] - z[1], 2.0 * r[-1] - z[-2]
    return np.column_stack([np.linspace(0.0, length, n + 1), np.zeros(n + 1), z])


def build_snake(n_elems=TABLE2["n_elems"], worlds=1, *, coefficients=OPTIMAL_GAIT["coefficients"],
                wavelength=OPTIMAL_GAIT["wavelength"], friction=None, damping=TABLE2["damping"],
                rotational_damping=None, ramp=True, duration=6.0, dt=TABLE2["dt"],
                muscle_pairs=None, actuated=True, taper=1.0):
    """The Table 2 snake. friction: an sm.AnisotropicFriction (default: Table 2's coefficients,
    rolling, "sign" decomposition). damping gamma [kg/(m s)] acts on the node velocities
    (-gamma v dl) and, as in the reference implementation, with the same numerical value as
    rotational coefficient [kg m/s] on the element angular velocities (-gamma dl w): without it
    the snake blows up within three seconds (docs/snake.md). rotational_damping [kg m/s]: another
    rotational coefficient. ramp: the muscle amplitude ramps up linearly over the first period.
    muscle_pairs: None for the continuous torque wave (coefficients [N m], wavelength [m]), or
    rows (start, length, force, phase) of MusclePairs (Zhang et al. 2019; frequency 1 / period)
    that replace it, under the same term name "muscle". actuated=False: no muscle term (the
    caller adds its own actuators, e.g. the muscle rods of softmech.scenarios.muscular_snake).
    taper: 1 (Table 2's uniform body) or the tail-to-head radius ratio of a linearly tapered body
    of the same mass (`tapered_radii`), lying on the ground (`resting_centerline`). Returns
    (scene, SnakeInfo)."""
    t = TABLE2
    if friction is None:
        friction = sm.AnisotropicFriction(*t["kinetic"], *t["static"], slip_velocity=t["slip_velocity"])
    scene = sm.Scene()
    if taper == 1.0:
        radius, shape = t["radius"], dict(start=(0.0, 0.0, t["radius"]), direction=(1.0, 0.0, 0.0),
                                          length=t["length"], n_elems=n_elems)
    else:
        radius = tapered_radii(n_elems, taper)
        shape = dict(centerline=resting_centerline(radius, t["length"]))
    rod = scene.add_cosserat_rod(
        name="snake", normal=(0.0, 0.0, 1.0), radius=radius, **shape,
        density=t["density"], youngs_modulus=t["youngs_modulus"], shear_modulus=t["shear_modulus"])
    scene.add(sm.Gravity((0.0, 0.0, -t["gravity"])))
    scene.add(sm.LinearDamping(rod, damping, rotational_coefficient=(
        damping if rotational_damping is None else rotational_damping)))
    scene.add(sm.GroundContact(rod, stiffness=t["wall_stiffness"], damping=t["wall_damping"],
                               friction=friction))
    ramp_time = t["period"] if ramp else 0.0
    if actuated and muscle_pairs is None:
        scene.add(sm.MuscleTorqueWave(rod, coefficients, wavelength=wavelength, period=t["period"],
                                      ramp_time=ramp_time))
    elif actuated:
        scene.add(MusclePairs(rod, muscle_pairs, frequency=1.0 / t["period"], ramp_time=ramp_time,
                              name="muscle"))
    return scene, SnakeInfo(rod="snake", muscle="muscle", worlds=worlds, dt=dt, duration=duration,
                            period=t["period"], n_elems=n_elems, radius=t["radius"],
                            length=t["length"],
                            reference_name="reference" if muscle_pairs is None else CONTINUOUS_SNAKE)


def mean_velocities(time, com, period, first=3, last=6):
    """Mean forward (+x) and lateral (y) centre-of-mass speeds [m/s] over periods first..last:
    (com(t_last) - com(t_first)) / (t_last - t_first); com (B, n_samples, 3) -> two (B,) arrays."""
    i0 = int(np.argmin(np.abs(time - first * period)))
    i1 = int(np.argmin(np.abs(time - last * period)))
    v = (com[:, i1] - com[:, i0]) / (time[i1] - time[i0])
    return v[:, 0], v[:, 1]


REFERENCE_LATERAL_SPEED = -0.004
"""Mean lateral centre-of-mass speed [m/s] of the optimal gait over periods 3-6 in the course's
data file (`optimized_snake.dat`), measured across the direction of travel (travel_velocities)."""


def travel_velocities(time, com, period, first=3, last=6):
    """Mean forward and lateral centre-of-mass speeds [m/s] over periods first..last measured
    along and across the snake's direction of travel, with that direction's heading [deg] from +x.

    This is the course's protocol (the reference implementation's post-processing, whose public
    successor is PyElastica's continuum-snake example): after the start-up the snake travels in a
    direction of its own choosing, so its velocity is projected on that direction and on the
    ground-plane normal to it, and "the lateral velocity oscillates about zero". The direction is
    that of the displacement of the period-averaged centre of mass from the second period
    [T, 2T) to the last whole period of the run; averaging over whole periods removes the
    gait's own sideways oscillation. The lateral mean is then not zero by construction (the
    window differs from the direction's); it measures how far the track after the start-up bends
    away from one straight line.

    time (n_samples,) [s] uniform samples from 0; com (B, n_samples, 3) [m]; the ground is z = 0.
    Returns (forward, lateral, heading), each (B,); NaN when the run lasts less than three whole
    periods (no direction can be formed apart from the averaging window)."""
    time = np.asarray(time, dtype=float)
    com = np.asarray(com, dtype=float)
    whole = int(np.floor(time[-1] / period + 1e-9))
    nan = np.full(com.shape[0], np.nan)
    if whole < 3:
        return nan, nan.copy(), nan.copy()

    def period_mean(k):                       # (B, 3): the mean over samples in [kT, (k+1)T)
        inside = (time >= k * period - 1e-9 * period) & (time < (k + 1) * period - 1e-9 * period)
        return com[:, inside].mean(axis=1)

    direction = period_mean(whole - 1) - period_mean(1)
    heading = np.arctan2(direction[:, 1], direction[:, 0])           # (B,) [rad]
    along = np.stack([np.cos(heading), np.sin(heading)], axis=1)      # (B, 2) unit, ground plane
    across = np.stack([-along[:, 1], along[:, 0]], axis=1)            # +90 deg about +z
    i0 = int(np.argmin(np.abs(time - first * period)))
    i1 = int(np.argmin(np.abs(time - last * period)))
    v = (com[:, i1, :2] - com[:, i0, :2]) / (time[i1] - time[i0])    # (B, 2)
    return ((v * along).sum(axis=1), (v * across).sum(axis=1), np.degrees(heading))


def averaging_window(duration, period, first=3, last=6):
    """Periods (first, last) over which mean_velocities averages: periods 3-6 when the run lasts
    6 periods or more (the handout's window, after the start-up transient), otherwise the second
    half of the run (fractional periods)."""
    periods = duration / period
    if periods >= last - 1e-9:
        return float(first), float(last)
    return 0.5 * periods, periods


def snake_info(scene, run, report):
    """SnakeInfo of a snake scenario (template "snake"). [report]: rod (default "snake"), muscle
    (the MuscleTorqueWave, MusclePairs or -- muscle rods -- one ActiveMuscle term, default
    "muscle"), reference_speed [m/s] (default 0.585). The period is the muscle's; radius, length
    and elements are the rod's."""
    from softmech.scenarios.templates import find_rod, find_term, report_parameters

    p = report_parameters(report, {"rod": "snake", "muscle": "muscle",
                                   "reference_speed": REFERENCE_SPEED})
    rod = find_rod(scene, p["rod"])
    muscle = find_term(scene, p["muscle"], (sm.MuscleTorqueWave, MusclePairs, sm.ActiveMuscle),
                       "muscle")
    if isinstance(muscle, sm.ActiveMuscle) and muscle.frequency <= 0:
        raise ValueError(f"muscle = {muscle.name!r} is not allowed: an ActiveMuscle with a "
                         "periodic activation ('wave' or 'abs_sin', frequency > 0) sets the period")
    wave = isinstance(muscle, sm.MuscleTorqueWave)
    period = muscle.period if wave else 1.0 / muscle.frequency
    return SnakeInfo(rod=rod.name, muscle=muscle.name, worlds=run.worlds, dt=run.dt,
                     duration=run.duration, period=period, n_elems=rod.n_elems,
                     radius=float(rod.radius.max()), length=float(rod.length),
                     reference_speed=float(sm._checks.positive("reference_speed",
                                                                p["reference_speed"])),
                     reference_name="reference" if wave else CONTINUOUS_SNAKE)


def snake_report(info):
    """The [report] table of a snake scenario."""
    return {"rod": info.rod, "muscle": info.muscle, "reference_speed": info.reference_speed}
