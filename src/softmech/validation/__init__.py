"""Validation of the Cosserat rod engine against analytic and reference solutions.

`CASES` maps case names to functions returning a record (see softmech.validation.cases);
`softmech validate` runs them from the command line (softmech.validation.command), and
`softmech validate --report PATH` writes the Markdown report page (softmech.validation.report).
"""
from softmech.validation.cases import CASES, RECORD_KEYS, run_case

__all__ = ["CASES", "RECORD_KEYS", "run_case"]
