"""Physical terms (loads, dissipation, boundary conditions, contact, actuators): each module holds
the user-facing Term classes of one effect and the Part that compiles them (docs/architecture.md).
Every module of this package is imported here, so a new term module registers its terms
(terms.base.TERMS) for scenario files and for the softmech namespace without further edits."""
import importlib
import pkgutil

from softmech.terms.base import TERMS

__all__ = ["TERMS"]

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")
