"""Built-in scenes. Each entry of SCENES is SceneEntry(build, description): `build(n_elems=...,
worlds=...)` returns (scene, info) where info has at least rod, worlds, dt [s] and duration [s].
`softmech run NAME` runs them."""
import importlib
from typing import Callable, NamedTuple

from softmech.scenarios.cantilever import (CantileverInfo, build_cantilever, cantilever_info,
                                           cantilever_report, euler_bernoulli_deflection,
                                           timoshenko_deflection)
from softmech.scenarios.discrete import build_falling_rod, build_pneunet
from softmech.scenarios.shells import build_manta, build_parachute, parachute_info
from softmech.scenarios.elbow import ElbowInfo, build_elbow, elbow_info, elbow_report
from softmech.scenarios.walker import MUSCLES as WALKER_MUSCLES
from softmech.scenarios.walker import WalkerInfo, build_walker, walker_info, walker_report
from softmech.scenarios.wing import WingInfo, build_wing, wing_info, wing_report
from softmech.scenarios.muscular_snake import MUSCLE_KINDS, build_muscular_snake
from softmech.scenarios.plectoneme import (PlectonemeInfo, build_plectoneme, plectoneme_info,
                                           plectoneme_report)
from softmech.scenarios.snake import SnakeInfo, build_snake, snake_info, snake_report
from softmech.scenarios.poseidron import (PoseidronInfo, build_poseidron, poseidron_info,
                                          poseidron_report)
from softmech.scenarios.quadropus import build_monopus, build_quadropus
from softmech.scenarios.swimmer import SwimmerInfo, build_swimmer, swimmer_info, swimmer_report
from softmech.scenarios.templates import GenericInfo, generic_info
from softmech.scenarios.torque_swimmer import (TorqueSwimmerInfo, build_torque_swimmer,
                                               torque_swimmer_info, torque_swimmer_report)


class SceneEntry(NamedTuple):
    build: Callable
    description: str


class Template(NamedTuple):
    """info_from(scene, run_settings, report) -> info; report_of(info) -> [report] table.
    campaign: the module (by name, imported on use) of the template's optimization campaign,
    with CAMPAIGN_DEFAULTS and campaign_settings(table) for the [optimize] table of scenario
    files; "" if the template has none. Scenario files ask the template, never the module."""
    info_from: Callable
    report_of: Callable
    campaign: str = ""

    def campaign_module(self):
        """The campaign's module, or None."""
        return importlib.import_module(self.campaign) if self.campaign else None


SCENES = {
    "cantilever": SceneEntry(build_cantilever, "Timoshenko cantilever under a 15 N tip load "
                                               "(ME498 handout Table 1), compared with beam theory"),
    "snake": SceneEntry(build_snake, "slithering snake (ME498 handout Table 2) with the published "
                                     "optimal gait: centre-of-mass track, velocities, video"),
    "plectoneme": SceneEntry(build_plectoneme, "rod clamped at both ends, one end turned 6 times "
                                               "and pushed in: coils into a plectoneme held by "
                                               "self contact; closest approach, video"),
    "swimmer": SceneEntry(build_swimmer, "bio-hybrid swimmer (Zhang et al. 2019, Fig. 2) in "
                                         "Stokes flow: centre displacement over 20 beats, "
                                         "midlines, video"),
    "torque_swimmer": SceneEntry(build_torque_swimmer, "filament driven by the snake's torque "
                                                       "wave in Stokes flow (slender-body drag): "
                                                       "speed, wave amplitude and wavelength "
                                                       "against Taylor's small-amplitude speed; "
                                                       "midlines, video"),
    "falling_rod": SceneEntry(build_falling_rod, "a soft and a stiff discrete elastic rod "
                                                 "(implicit) dropped onto ground with friction: "
                                                 "the soft one deforms on impact; video"),
    "pneunet": SceneEntry(build_pneunet, "three PneuNet-like actuators (discrete rods, "
                                         "implicit) curling by natural curvature under a tip "
                                         "load and gravity; video"),
    "manta": SceneEntry(build_manta, "a manta-like discrete shell (implicit) flapping its wings "
                                     "by travelling hinge rest angles in water: swims forward; "
                                     "video"),
    "parachute": SceneEntry(build_parachute, "hexagonal shell canopy on six rope rods with a "
                                             "payload, falling in air: the canopy bows, the fall "
                                             "slows; video"),
    "elbow": SceneEntry(build_elbow, "human elbow (Zhang et al. 2019, Fig. 1): bones, tendons, "
                                     "a biceps of 2 x 18 active muscle rods with contact, "
                                     "flexing; cross-section growth at 90 deg, isometric "
                                     "force-length map, video"),
    "walker": SceneEntry(build_walker, "bio-hybrid walker (Zhang et al. 2019, Fig. 2e-i): "
                                       "hydrogel skeleton walked by two muscle rings and a "
                                       "strip under |sin| stimulation at 0.5, 1, 2 Hz; speed "
                                       "vs frequency"),
    "muscular_snake": SceneEntry(build_muscular_snake, "snake driven by 4 antagonistic muscle "
                                                       "pairs (Zhang et al. 2019, Fig. 3, eq. 2) "
                                                       "laid out as the continuous gait's "
                                                       "projection; `softmech optimize "
                                                       "muscular_snake --pairs N` refines it"),
    "poseidron": SceneEntry(build_poseidron, "underwater octopus-like robot (Renda et al. 2018): "
                                             "rigid root, axisymmetric shell mantle pulsed at "
                                             "1.51/s, four soft arms; pulsed-jet swimming, surge "
                                             "velocity, mantle radius, cavity volume, video"),
    "quadropus": SceneEntry(build_quadropus, "Quadropus (Renda et al. 2018, section 7.1): cone "
                                             "root, pulsed mantle and four arms behind it with "
                                             "one sculling stroke (eq. 25); surge velocity, video"),
    "monopus": SceneEntry(build_monopus, "Monopus (Renda et al. 2018, section 7.2): cone root, "
                                         "pulsed mantle and one rear arm bent about d1 then d2 "
                                         "(eq. 28) to steer; surge, heading, video"),
    "wing": SceneEntry(build_wing, "feathered pigeon wing (Zhang et al. 2019, Fig. 4): 19 "
                                   "feathers of ~2,800 barb rods, 4 muscles, quadratic air "
                                   "drag, one flapping cycle; three joint angles, video"),
}
"""Scene name -> SceneEntry(build, one-line description)."""

DEFAULT_SCENE = "snake"

MUSCLE_OPTIONS = {"muscular_snake": ("muscles", MUSCLE_KINDS), "walker": ("muscle", WALKER_MUSCLES)}
"""Scene -> (builder keyword, allowed values) of the command line's --muscles: the muscular
snake's pairs as bending couples or glued muscle rods; the walker's two rings and strip (the
paper's topology) or the strip alone (its full strip-height range, 0.5-3 mm)."""


def muscle_option(name, value):
    """{builder keyword: value} for `--muscles value` with built-in scene (or problem) `name`;
    ValueError naming the option, the scene and what is allowed."""
    if name not in MUSCLE_OPTIONS:
        raise ValueError(f"--muscles = {value!r} is not allowed with {name!r}: it is an option "
                         f"of {sorted(MUSCLE_OPTIONS)} only")
    keyword, allowed = MUSCLE_OPTIONS[name]
    if value not in allowed:
        raise ValueError(f"--muscles = {value!r} is not allowed with {name!r}: must be one of "
                         f"{list(allowed)}")
    return {keyword: value}


def check_scene(name, allowed=None, *, files=True):
    """`name` if it is a built-in scene among `allowed` (default: every one of SCENES), else
    ValueError in the one wording that `softmech run`, `new` and `optimize` share, with a
    "did you mean" for a near miss. files: whether a scenario file (FILE.toml) is also allowed
    there (said in the message)."""
    import difflib

    allowed = sorted(SCENES if allowed is None else allowed)
    if name in allowed:
        return name
    close = difflib.get_close_matches(str(name), allowed, n=1, cutoff=0.6)
    hint = f" did you mean {close[0]!r}?" if close else ""
    alternatives = f"one of {allowed}" + (" or a scenario file FILE.toml" if files else "")
    raise ValueError(f"scene = {name!r} is not allowed:{hint} must be {alternatives} "
                     "(`softmech list` describes the built-in scenes)")


TEMPLATES = {
    "generic": Template(generic_info, lambda info: {"rod": info.rod}),
    "cantilever": Template(cantilever_info, cantilever_report),
    "snake": Template(snake_info, snake_report, campaign="softmech.optimize.snake"),
    "plectoneme": Template(plectoneme_info, plectoneme_report),
    "swimmer": Template(swimmer_info, swimmer_report),
    "torque_swimmer": Template(torque_swimmer_info, torque_swimmer_report),
    "falling_rod": Template(generic_info, lambda info: {"rod": info.rod}),
    "pneunet": Template(generic_info, lambda info: {"rod": info.rod}),
    "manta": Template(generic_info, lambda info: {"rod": info.rod}),
    "parachute": Template(parachute_info, lambda info: {"rod": info.rod}),
    "elbow": Template(elbow_info, elbow_report),
    "walker": Template(walker_info, walker_report),
    "muscular_snake": Template(snake_info, snake_report),
    "poseidron": Template(poseidron_info, poseidron_report),
    "quadropus": Template(poseidron_info, poseidron_report),
    "monopus": Template(poseidron_info, poseidron_report),
    "wing": Template(wing_info, wing_report),
}
"""Template name -> Template: the scene-specific analysis of `softmech run` (scenarios/templates.py).
Each built-in scene uses the template of its own name."""

__all__ = ["SCENES", "DEFAULT_SCENE", "check_scene", "MUSCLE_OPTIONS", "muscle_option", "SceneEntry", "TEMPLATES", "Template", "GenericInfo", "CantileverInfo", "build_cantilever",
           "timoshenko_deflection", "euler_bernoulli_deflection", "SnakeInfo", "build_snake",
           "PlectonemeInfo", "build_plectoneme", "ElbowInfo", "build_elbow", "WalkerInfo",
           "build_walker", "build_muscular_snake", "SwimmerInfo", "build_swimmer",
           "build_falling_rod", "build_pneunet", "build_manta", "build_parachute",
           "PoseidronInfo", "build_poseidron", "build_quadropus", "build_monopus",
           "TorqueSwimmerInfo", "build_torque_swimmer", "WingInfo", "build_wing"]
