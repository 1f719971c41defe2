"""`softmech optimize FILE.toml` for a generic [optimize] table: a CMA-ES campaign over a Study
(softmech.optimize.study), one batched simulation per chunk of each generation, locally or on
Ray (softmech.optimize.executors).

Writes into output_dir: campaign.jsonl (the campaign log: one line per generation, exact
resume), evaluations.jsonl (the journal of finished chunks with every measured objective: a
killed driver resumes without simulating a finished chunk again), best.json (the best
candidate, its parameters and every objective) and fitness.png.
"""
import json
import os
import time

import numpy as np

from softmech.io import atomic_write_text
from softmech.optimize.design import campaign_resume
from softmech.text import plural


class StudyObjective:
    """Campaign objective: params (popsize, n) -> fitness (popsize,) through evaluate_batch;
    keeps the measured values of the generations it evaluated."""

    def __init__(self, study, executor, chunk, journal):
        self.study, self.executor, self.chunk, self.journal = study, executor, chunk, journal

    def __call__(self, params, progress=None):
        from softmech.optimize.executors import evaluate_batch

        values = evaluate_batch(self.study, params, executor=self.executor, chunk=self.chunk,
                                journal=self.journal, progress=progress)
        return self.study.fitness(values)


def optimize_study(scenario, output_dir, *, settings=None, executor=None, resume=False,
                   progress=False, say=None):
    """Run (or resume) the campaign of a scenario's generic [optimize] table; settings: fields
    that override the table's (popsize, seed, max_generations, chunk, ...). Returns the summary
    that best.json holds, plus 'files', 'wall_s' [s] and, for this call only, 'simulated'
    (candidates simulated) and 'reused' (candidates taken from the journal)."""
    from softmech.optimize import figures
    from softmech.optimize.campaign import Campaign
    from softmech.optimize.executors import EvaluationJournal
    from softmech.optimize.settings import CAMPAIGN_FIELDS, check_campaign_fields, study_of

    started = time.perf_counter()
    say = say or (lambda text: None)
    s = {**CAMPAIGN_FIELDS, **scenario.optimize, **(settings or {})}
    check_campaign_fields(s)
    study = study_of(scenario)
    chunk = s.get("chunk") or s["popsize"]
    os.makedirs(output_dir, exist_ok=True)
    meta = study.meta()
    resume_log = campaign_resume(resume, output_dir)       # before the journal is created
    journal = EvaluationJournal(os.path.join(output_dir, "evaluations.jsonl"), meta, resume=resume)
    probe = Campaign(lambda p, progress=None: p, names=study.names, lower=study.lower,
                     upper=study.upper, log_path=os.devnull, log=study.log)
    campaign = Campaign(StudyObjective(study, executor, chunk, journal), names=study.names,
                        lower=study.lower, upper=study.upper, log=study.log,
                        x0=np.where(study.initial_given,
                                    probe.to_unit(study.initial).clip(0.0, 1.0), 0.5),
                        log_path=os.path.join(output_dir, "campaign.jsonl"),
                        popsize=s["popsize"], seed=s["seed"], sigma0=s["sigma0"],
                        max_generations=s["max_generations"],
                        min_generations=s["min_generations"], patience=s["patience"],
                        tolerance=s["tolerance"], meta=meta, progress=progress,
                        resume=resume_log)
    where = "on Ray" if getattr(executor, "name", "local") == "ray" else "locally"
    say(f"CMA-ES campaign over {', '.join(study.names)}: population {s['popsize']}, seed "
        f"{s['seed']}, at most {s['max_generations']} generations, {study.goal} "
        f"{study.objective!r}; chunks of {chunk} worlds, {where}")
    result = campaign.run()
    best_values = journal.values_of(result.best_vector)
    summary = {"best_fitness": result.best_fitness, "best_params": result.best_params,
               "best_objectives": best_values, "best_generation": result.best_generation,
               "generations": result.generations, "evaluations": result.evaluations,
               "stop_reason": result.stop_reason, "resumed_generations": result.resumed_generations,
               "evaluation_wall_s": result.evaluation_wall_s, "objective": study.objective,
               "goal": study.goal, "popsize": s["popsize"], "seed": s["seed"], "chunk": chunk}
    if result.resumed_generations or journal.reused:
        say(f"  resumed: {plural(result.resumed_generations, 'generation')} replayed from "
            f"campaign.jsonl, {plural(journal.reused, 'candidate')} taken from evaluations.jsonl; "
            f"{plural(journal.simulated, 'candidate')} simulated now")
    say(f"  stopped after {plural(result.generations, 'generation')} "
        f"({plural(result.evaluations, 'evaluation')}): {result.stop_reason}")
    say(f"  best fitness {result.best_fitness:.6g} (generation {result.best_generation}): "
        + ", ".join(f"{k} = {v:.4g}" for k, v in result.best_params.items()))
    best_path = os.path.join(output_dir, "best.json")
    atomic_write_text(best_path, json.dumps(summary, indent=2, allow_nan=False) + "\n")
    h = result.history
    fitness_so_far = np.maximum.accumulate([g.best_fitness if np.isfinite(g.best_fitness)
                                            else -np.inf for g in h])
    figure = figures.plot_fitness([g.generation for g in h], fitness_so_far,
                                  [g.best_fitness for g in h], [g.mean_fitness for g in h],
                                  os.path.join(output_dir, "fitness.png"), reference=None,
                                  ylabel=figures.axis_label(
                                      f"fitness ({study.goal} {study.objective})",
                                      study.units()["fitness"]))
    summary["files"] = [campaign.log_path, journal.path, best_path, figure]
    summary["wall_s"] = time.perf_counter() - started
    summary["simulated"], summary["reused"] = journal.simulated, journal.reused    # this call
    return summary
