"""softmech: soft robots and musculoskeletal systems from Cosserat rods, simulated fast."""
from softmech._version import __version__
from softmech.cache import check_kernel_cache as _check_kernel_cache

_check_kernel_cache()  # before any kernel loads from numba's cache (see softmech.cache)

from softmech.scene import Scene  # noqa: E402
from softmech.bodies import sections  # noqa: E402
from softmech.integrators.implicit import ImplicitOptions  # noqa: E402
from softmech.simulation import Every, Results, Simulation, SimulationDiverged  # noqa: E402
from softmech.resultsfile import Recorder, load_results, record_to_file  # noqa: E402
from softmech.terms import TERMS as _TERMS  # noqa: E402
from softmech.terms.contact import AnisotropicFriction, IsotropicFriction  # noqa: E402
from softmech.terms.rod_contact import CoulombFriction, InitialOverlapWarning  # noqa: E402
from softmech.terms.friction import StickingFriction  # noqa: E402

globals().update(_TERMS)  # every term class: sm.Gravity, sm.GroundContact, ... (softmech.terms)

__all__ = ["__version__", "Scene", "sections", "ImplicitOptions", "Simulation", "SimulationDiverged", "Every", "Results",
           "AnisotropicFriction", "IsotropicFriction", "CoulombFriction", "StickingFriction", "InitialOverlapWarning", "Recorder", "record_to_file",
           "load_results", *sorted(_TERMS)]
