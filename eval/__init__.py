"""Scoring of language models over built probes, and the artifact audit.

* ``probesmith.eval.scoring.score_statements`` — causal log-likelihood and masked
  pseudo-log-likelihood of statements, equal to lm-pub-quiz 0.3.3's scores;
* ``probesmith.eval.audit`` / ``baselines`` / ``encoder`` — partial-input baselines, the audit
  report and the artifact filter;
* ``probesmith.eval.mcqa`` — multiple-choice data from our builds and AI2 JSONL.
"""
