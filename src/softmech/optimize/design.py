"""Campaigns of the built-in design problems (snake gait, swimmer, walker, muscular snake) and
of generic [optimize] tables: where their logs live, when a campaign resumes, the campaign of a
design problem and its summary (best.json, fitness.png)."""
import json
import os

import numpy as np

from softmech.io import atomic_write_text


def campaign_resume(resume, output_dir):
    """Whether the campaign log of output_dir is to be resumed: with --resume, unless a driver
    was killed after creating the journal but before the log's header (then there is nothing to
    replay, and the campaign starts over, taking its chunks from the journal). Without either
    file there is nothing to resume, and without --resume an existing log is not overwritten:
    ValueError, before anything is written."""
    log = os.path.join(output_dir, "campaign.jsonl")
    journal = os.path.join(output_dir, "evaluations.jsonl")
    if not resume and os.path.exists(log):
        raise ValueError(f"campaign log = {log!r} is not allowed: it already exists; continue "
                         "that campaign with --resume, or choose another output folder "
                         "(--output DIR)")
    if resume and not os.path.exists(log) and not os.path.exists(journal):
        raise ValueError(f"--resume: nothing to resume in {output_dir} (no campaign.jsonl); "
                         "start a new campaign without --resume")
    return resume and os.path.exists(log)


def design_campaign(problem, output_dir, *, names, lower, upper, initial, resume, **settings):
    """The Campaign of a built-in design problem: logged to output_dir/campaign.jsonl, started
    from the design `initial` (search variables, clipped into the box [lower, upper]), the
    problem's meta() in the log header, resumed as `campaign_resume` says. settings: the
    Campaign's popsize, seed, max_generations, min_generations, patience, tolerance, progress."""
    from softmech.optimize.campaign import Campaign

    lower, upper = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
    x0 = (np.asarray(initial, dtype=float) - lower) / (upper - lower)
    return Campaign(problem, names=names, lower=lower, upper=upper,
                    log_path=os.path.join(output_dir, "campaign.jsonl"),
                    x0=np.clip(x0, 0.0, 1.0), meta=problem.meta(),
                    resume=campaign_resume(resume, output_dir), **settings)


def write_design_summary(output_dir, campaign, result, summary, ylabel, reference=None,
                         reference_label=None):
    """Finish a design campaign: best.json (summary + the campaign's result fields), the log and
    fitness.png (best so far, best and mean per generation; ylabel names the fitness; reference
    [m/s]: the paper's target drawn dotted, named by reference_label, or None); returns the
    summary with its "files"."""
    import math

    from softmech.optimize import figures

    summary = {"best_params": result.best_params, "best_fitness": result.best_fitness,
               "best_generation": result.best_generation, "generations": result.generations,
               "evaluations": result.evaluations, "stop_reason": result.stop_reason,
               **summary, "evaluation_wall_s": result.evaluation_wall_s}
    h = result.history
    best = np.maximum.accumulate([g.best_fitness if math.isfinite(g.best_fitness) else -np.inf
                                  for g in h])
    summary["files"] = [
        campaign.log_path,
        atomic_write_text(os.path.join(output_dir, "best.json"),
                          json.dumps(summary, indent=2, allow_nan=False) + "\n"),
        figures.plot_fitness([g.generation for g in h], best, [g.best_fitness for g in h],
                             [g.mean_fitness for g in h], os.path.join(output_dir, "fitness.png"),
                             reference=reference, ylabel=ylabel,
                             reference_label=reference_label)]
    return summary
