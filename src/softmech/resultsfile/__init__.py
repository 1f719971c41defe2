"""HDF5 results files (format "softmech-results", version 2; docs/results_files.md): a run's
time series of rods and rigid bodies, the description of its bodies and joints, the scene file,
the softmech version and the run settings, written incrementally with checkpoints, readable
with plain h5py (version 1 files, rods only, are read too).

    record_to_file(sim, path, duration=..., every=..., fields=...)   run and write (or resume)
    load_results(path) -> sm.Results                                  read back
    describe(path) -> dict                                            attributes and datasets
    Recorder(name, function, units)                                   a user quantity to record
"""
from softmech.resultsfile.layout import FORMAT, FORMAT_VERSION, UNITS
from softmech.resultsfile.reader import check_format, describe, load_results
from softmech.resultsfile.record import record_to_file
from softmech.resultsfile.recorders import Recorder
from softmech.resultsfile.writer import ResultsWriter

__all__ = ["FORMAT", "FORMAT_VERSION", "UNITS", "Recorder", "ResultsWriter", "check_format",
           "describe", "load_results", "record_to_file"]
