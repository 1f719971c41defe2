"""The validation cases of every model, grouped (`softmech validate`, `--only GROUP`, `--fast`).

GROUPS names, for each model, the module whose `CASES` (or, for the papers, `PAPER_CASES`) maps
case names to functions returning the record of softmech.validation.common.result. A group's
module is imported only when the group is selected. The fast subset (`--fast`: a few seconds
per case once the kernels are compiled) is the cases marked `fast=True` by
softmech.validation.common.validation_case, and FAST for the two groups whose cases predate it.
"""
import importlib
from typing import NamedTuple


class Group(NamedTuple):
    """A model's validation cases: where they are and what they cover."""
    module: str
    attribute: str
    title: str


GROUPS = {
    "rods": Group("softmech.validation.cases", "CASES",
                  "Cosserat rods: the ME498 course's cases (statics, dynamics, rings, ground "
                  "contact and friction)"),
    "contact": Group("softmech.validation.body_contact", "CASES",
                     "contact between bodies: rods on rigid bodies and on rods"),
    "joints": Group("softmech.validation.joints", "CASES",
                    "joints, joint stops and rigid bodies"),
    "fluids": Group("softmech.validation.fluids", "CASES",
                    "fluid loads: resistive-force and slender-body drag, buoyancy, quadratic "
                    "drag, added mass"),
    "muscles": Group("softmech.validation.muscles", "CASES",
                     "muscles: contractile cells and active muscle rods"),
    "discrete_rods": Group("softmech.validation.discrete_rods", "CASES",
                           "discrete elastic rods (implicit integrator)"),
    "shells": Group("softmech.validation.shells", "CASES", "discrete shells (implicit integrator)"),
    "underwater": Group("softmech.validation.underwater", "CASES",
                        "underwater terms: root body in water, axisymmetric Cosserat shell"),
    "papers": Group("softmech.validation.papers", "PAPER_CASES",
                    "the reference papers' numbers that softmech reproduces"),
}
"""Group name -> Group, in the order `softmech validate` runs them."""

FAST = {
    "rods": ("axial_stretch_gazzola2018", "axial_stretch_hyperelastic", "timoshenko_cantilever",
             "precurved_rest", "ring_breathing_mode", "wall_rest_under_gravity",
             "wall_normal_velocity", "friction_slope_slide"),
    "papers": ("dismech_fig8_rod",),
}
"""The fast subset of the groups whose cases are not marked with validation_case (measured < 2 s
each once compiled)."""


def group_cases(group):
    """Case name -> function of one group; ValueError naming the allowed groups if unknown."""
    if group not in GROUPS:
        raise ValueError(f"group = {group!r} is not allowed: must be one of {', '.join(GROUPS)}")
    spec = GROUPS[group]
    return dict(getattr(importlib.import_module(spec.module), spec.attribute))


def is_fast(group, name, function):
    """Whether a case belongs to the fast subset (`softmech validate --fast`)."""
    return bool(getattr(function, "fast", False)) or name in FAST.get(group, ())


def select(groups=None, *, fast=False):
    """[(group, case name, function)] of the selected groups (None: all) in GROUPS order,
    only the fast subset if `fast`."""
    chosen = list(GROUPS) if not groups else list(dict.fromkeys(groups))
    for group in chosen:
        if group not in GROUPS:
            raise ValueError(f"--only {group!r} is not allowed: must be one of "
                             f"{', '.join(GROUPS)}")
    return [(group, name, function) for group in chosen
            for name, function in group_cases(group).items()
            if not fast or is_fast(group, name, function)]
