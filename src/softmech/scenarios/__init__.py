"""Built-in scenes. Each entry of SCENES is SceneEntry(build, description): `build(n_elems=...,
worlds=...)` returns (scene, info) where info has at least rod, worlds, dt [s] and duration [s].
`softmech run NAME` runs them."""
from typing import Callable, NamedTuple

from softmech.scenarios.cantilever import (CantileverInfo, build_cantilever,
                                           euler_bernoulli_deflection, timoshenko_deflection)
from softmech.scenarios.snake import SnakeInfo, build_snake


class SceneEntry(NamedTuple):
    build: Callable
    description: str


SCENES = {
    "cantilever": SceneEntry(build_cantilever, "Timoshenko cantilever under a 15 N tip load "
                                               "(ME498 handout Table 1), compared with beam theory"),
    "snake": SceneEntry(build_snake, "slithering snake (ME498 handout Table 2) with the published "
                                     "optimal gait: centre-of-mass track, velocities, video"),
}
"""Scene name -> SceneEntry(build, one-line description)."""

DEFAULT_SCENE = "snake"

__all__ = ["SCENES", "DEFAULT_SCENE", "SceneEntry", "CantileverInfo", "build_cantilever",
           "timoshenko_deflection", "euler_bernoulli_deflection", "SnakeInfo", "build_snake"]
