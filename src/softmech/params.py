"""The per-world parameters of a simulation (`sim.params`), with the deprecated names of fields
that were renamed still read and written (softmech.simulation.Simulation.params).

Renamed fields (old -> new, the term's name unchanged): GroundContact on a rigid body named its
friction coefficients `static_friction` and `kinetic_friction`; every contact kind now names
them `static` and `kinetic` (docs/contact.md#friction-models-and-contact-kinds). Reading or
writing `params["<name>.static_friction"]` works on `params["<name>.static"]` with a
DeprecationWarning (and `<name>.friction`, a discrete body's contact's one coefficient before
it took static and kinetic ones, reads `<name>.kinetic` and writes both); scenario files never
held these names (they hold the terms' arguments,
whose friction laws already say `static` and `kinetic`; the older RigidGroundContact tables
with static_friction = ... are read by softmech.scenefile.schema.TERM_ALIASES).
"""
import warnings

RENAMED_FIELDS = {"static_friction": ("static",), "kinetic_friction": ("kinetic",),
                  "friction": ("kinetic", "static")}
"""Per-world parameter fields renamed: old name -> its current names. Reading the old key reads
the first; writing it writes each (`friction`, the one coefficient mu of a discrete body's
GroundContact and EdgeContact before they took static and kinetic ones, sets both: mu_s =
mu_k = mu, the law it named)."""


class Params(dict):
    """A dict of per-world parameters `"<owner>.<field>" -> array` that maps a renamed field's
    old key to its current ones (with a DeprecationWarning) when only the current ones exist.
    Subclasses store a value through `_store` (the discrete engine's table writes into its
    arrays: softmech.implicit.simulation.ParameterTable)."""

    def _current(self, key):
        """The current keys of a deprecated one present under its new names, else None."""
        if not isinstance(key, str):
            return None
        owner, _, field = key.rpartition(".")
        new = tuple(f"{owner}.{f}" for f in RENAMED_FIELDS.get(field, ()))
        if not new or not all(dict.__contains__(self, k) for k in new):
            return None
        written = f" (writing it sets {' and '.join(repr(k) for k in new)})" if len(new) > 1 \
            else ""
        warnings.warn(f"params['{key}'] is deprecated: the parameter is params['{new[0]}']"
                      f"{written}; every contact kind names its coefficients static and "
                      "kinetic", DeprecationWarning, stacklevel=3)
        return new

    def __missing__(self, key):
        new = self._current(key)
        if new is None:
            raise KeyError(key)
        return dict.__getitem__(self, new[0])

    def __setitem__(self, key, value):
        new = None if dict.__contains__(self, key) else self._current(key)
        for k in new or (key,):
            self._store(k, value)

    def _store(self, key, value):
        dict.__setitem__(self, key, value)
