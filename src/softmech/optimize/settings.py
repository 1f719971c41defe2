"""The generic [optimize] table of a scenario file: parameters, objectives and campaign settings.

    [optimize]
    popsize = 16              # candidates per generation = worlds per batched simulation
    seed = 1
    max_generations = 60
    objective = "speed"       # the optimized objective (optional with a single objective)
    goal = "maximize"         # or "minimize"

    [[optimize.parameters]]
    path = "rods.snake.youngs_modulus"
    lower = 1e6
    upper = 1e8
    log = true                # search log(value)
    initial = 1e7             # optional (default: the box centre)

    [optimize.objectives.speed]
    quantity = "com_speed"    # softmech.optimize.quantities.QUANTITIES
    axis = "x"
    window = [2.0, 3.0]       # [s]

    [[optimize.constraints]]  # optional penalties: fitness -= weight * violation
    objective = "lateral"
    max = 0.05
    weight = 10.0

Other fields: min_generations (20), patience (10), tolerance (1e-3: the stop rule of
softmech.optimize.campaign.Campaign), sigma0 (0.25), chunk (candidates per batched simulation,
default popsize), fixed (a table {path = value} written into every candidate), duration [s]
(default: the latest window end).
"""
from softmech import _checks

CAMPAIGN_FIELDS = dict(popsize=16, seed=1, max_generations=60, min_generations=20, patience=10,
                       tolerance=1e-3, sigma0=0.25, chunk=None)
STUDY_FIELDS = dict(parameters=None, objectives=None, objective=None, goal="maximize",
                    constraints=[], fixed={}, duration=None)


def is_generic(table):
    """True for a generic [optimize] table (it names parameters or objectives)."""
    return "parameters" in table or "objectives" in table


def study_settings(table, scenario):
    """Check a generic [optimize] table against the scenario (paths, objectives, bounds: the
    Study is built, nothing is compiled); returns it completed with the defaults. ValueError
    names the field, the value and what is allowed."""
    allowed = {**CAMPAIGN_FIELDS, **STUDY_FIELDS}
    unknown = sorted(set(table) - set(allowed))
    if unknown:
        raise ValueError(f"unknown field {unknown[0]!r} (allowed: {', '.join(allowed)})")
    s = {**CAMPAIGN_FIELDS, **STUDY_FIELDS, **table}
    for key in ("parameters", "objectives"):
        if s[key] is None:
            raise ValueError(f"{key} is missing: a campaign needs [[optimize.parameters]] and "
                             "[optimize.objectives.NAME] tables")
    if not isinstance(s["parameters"], list):
        raise ValueError("parameters must be an array of tables, written [[optimize.parameters]]")
    if not isinstance(s["constraints"], list):
        raise ValueError("constraints must be an array of tables, written "
                         "[[optimize.constraints]]")
    for key in ("objectives", "fixed"):
        if not isinstance(s[key], dict):
            raise ValueError(f"{key} must be a table, written [optimize.{key}]")
    check_campaign_fields(s)
    study_of(scenario, s)           # every path, bound and objective, before any work
    return {k: v for k, v in s.items() if v is not None}


def check_campaign_fields(s, prefix=""):
    """The campaign settings of s (popsize, seed, ...), checked; ValueError naming the field."""
    _checks.integer(prefix + "popsize", s["popsize"], 4)
    _checks.integer(prefix + "seed", s["seed"], 0)
    _checks.integer(prefix + "max_generations", s["max_generations"], 1)
    _checks.integer(prefix + "min_generations", s["min_generations"], 1)
    _checks.integer(prefix + "patience", s["patience"], 1)
    _checks.nonnegative(prefix + "tolerance", s["tolerance"])
    _checks.positive(prefix + "sigma0", s["sigma0"])
    if s.get("chunk") is not None:
        _checks.integer(prefix + "chunk", s["chunk"], 1)


def study_of(scenario, settings=None):
    """The Study of a scenario's [optimize] table (generic, or the snake template's gait
    campaign), or of `settings` (a generic table) when given."""
    from softmech.optimize.study import Study, parameter_from_table

    s = scenario.optimize if settings is None else settings
    if s is None:
        raise ValueError(f"{scenario.source or scenario.name}: nothing to optimize: the file has "
                         "no [optimize] table")
    if not is_generic(s):                         # the snake template's gait campaign
        from softmech.optimize.snake import snake_study

        return snake_study(scenario, scenario.info(), s["window"], s["beta_bound"],
                           s["wavelength_range"])
    parameters = [parameter_from_table(i, t) for i, t in enumerate(s["parameters"])]
    return Study(scenario, parameters, s["objectives"], objective=s.get("objective"),
                 goal=s.get("goal", "maximize"), constraints=s.get("constraints", []),
                 fixed=s.get("fixed") or None, duration=s.get("duration"))
