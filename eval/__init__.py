"""Scoring of language models over built probes, their metrics, and the artifact audit.

* ``probesmith.eval.scoring.score_statements`` — causal log-likelihood and masked
  pseudo-log-likelihood of statements, equal to lm-pub-quiz 0.3.3's scores;
* ``probesmith.eval.models.load_model`` — a causal or masked LM from a hub id or local folder;
* ``probesmith.eval.run`` — ``evaluate`` a model on a build (every family) and
  ``write_results``; ``registry`` (each family's evaluation), ``families`` (each table family's evaluation,
  one module per family: runner, result schema, metrics, report section, review rows, lm-eval
  tasks), ``metrics`` (the shared metrics), ``statements`` (statements filled from templates),
  ``editors`` (DepEdit editors) and ``report`` (Markdown and plots);
* ``probesmith.eval.audit`` / ``baselines`` / ``encoder`` — partial-input baselines, the audit
  report and the artifact filter;
* ``probesmith.eval.mcqa`` — multiple-choice data from our builds and AI2 JSONL.
"""

__all__ = ["score_statements", "load_model", "evaluate"]


def __getattr__(name: str):
    # imported on first use: torch and transformers are slow to import for the audit's users
    if name == "score_statements":
        from probesmith.eval.scoring import score_statements  # deferred: imports torch

        return score_statements
    if name == "load_model":
        from probesmith.eval.models import load_model  # deferred: imports torch

        return load_model
    if name == "evaluate":
        from probesmith.eval.run import evaluate  # deferred: imports torch

        return evaluate
    raise AttributeError(f"module 'probesmith.eval' has no attribute {name!r}")
