"""Validation of every model against analytic, classical and published solutions.

`CASES` maps the Cosserat rod course's case names to functions returning a record (see
softmech.validation.cases); softmech.validation.registry.GROUPS groups them with the other
models' cases (contact, joints, fluids, muscles, discrete_rods, shells, underwater, papers).
`softmech validate` runs them from the command line (softmech.validation.command), and
`softmech validate --report PATH` writes the Markdown report page and a figure per group
(softmech.validation.report).
"""
from softmech.validation.cases import CASES, RECORD_KEYS, run_case

__all__ = ["CASES", "RECORD_KEYS", "run_case"]
