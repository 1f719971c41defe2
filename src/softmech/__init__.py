"""softmech: soft robots and musculoskeletal systems from Cosserat rods, simulated fast."""
from softmech._version import __version__
from softmech.scene import Scene
from softmech.simulation import Every, Results, Simulation, SimulationDiverged
from softmech.resultsfile import Recorder, load_results, record_to_file
from softmech.terms.boundary import Clamp, Pin, PrescribedMotion
from softmech.terms.contact import AnisotropicFriction, GroundContact, IsotropicFriction
from softmech.terms.damping import KelvinVoigt, LinearDamping
from softmech.terms.gravity import Gravity
from softmech.terms.loads import EndLoad, UniformLoad
from softmech.terms.muscles import MusclePairs, MuscleTorqueWave

__all__ = ["__version__", "Scene", "Simulation", "SimulationDiverged", "Every", "Results",
           "Gravity", "EndLoad", "UniformLoad", "LinearDamping", "KelvinVoigt", "Clamp", "Pin",
           "PrescribedMotion", "GroundContact", "AnisotropicFriction", "IsotropicFriction",
           "MuscleTorqueWave", "MusclePairs", "Recorder", "record_to_file", "load_results"]
