"""Scoring of language models over built probes, metrics, reports, and the artifact audit.

Nothing here yet: scoring and the partial-input baselines arrive with their issues.
"""
