import json

import polars as pl
import pytest

from probesmith.cli import main
from probesmith.eval.audit import (
    AuditOptions,
    audit,
    filter_artifacts,
    write_audit,
)
from probesmith.eval.mcqa import load_multiple_choice
from probesmith.schemas.parquet import read_parquet

from ..conftest import needs_wordnet

pytestmark = [pytest.mark.integration, needs_wordnet]
FAST = AuditOptions(baselines=("choice_only", "choice_to_choice", "lexical_overlap", "answer_frequency"))


def overall(result, baseline):
    return result.cells.filter(
        (pl.col("baseline") == baseline) & pl.col("hops").is_null() & (pl.col("distractor_type") == "all")
    ).row(0, named=True)


def test_planted_artifact_is_flagged_and_clean_control_is_not(planted_and_control):
    planted, control = planted_and_control
    flagged = audit(planted, FAST)
    assert overall(flagged, "choice_to_choice")["accuracy"] > 0.9
    assert overall(flagged, "choice_only")["flagged"] and overall(flagged, "choice_to_choice")["flagged"]
    clean = audit(control, FAST)
    assert clean.flagged.height == 0, clean.flagged
    for baseline in FAST.baselines:
        row = overall(clean, baseline)
        assert row["ci_low"] <= row["chance"] + FAST.margin


def test_report_files(planted_and_control, tmp_path):
    result = audit(planted_and_control[0], FAST)
    out = write_audit(result, tmp_path / "audit")
    cells = read_parquet(out / "cells.parquet")
    assert cells.num_rows == result.cells.height and "ci_low" in cells.column_names
    assert (out / "heatmap.png").read_bytes()[:4] == b"\x89PNG"
    report = (out / "report.md").read_text()
    assert "| synonymy | choice_to_choice |" not in report  # AI2 files are one config named by file
    assert "| planted | choice_to_choice |" in report and "**yes**" in report
    summary = json.loads((out / "audit.json").read_text())
    assert summary["flagged_cells"] == result.flagged.height > 0


def test_filter_brings_choice_only_within_the_margin(planted_and_control):
    frames = load_multiple_choice(planted_and_control[0])
    removed, report = filter_artifacts(frames, margin=0.05, max_rounds=10)
    assert report.converged and report.rounds[0]["accuracy"] > 0.5
    assert report.rounds[-1]["flagged_cells"] == 0
    assert 0 < report.removed["planted"] < frames["planted"].height
    kept = {name: f.filter(~pl.col("id").is_in(list(removed[name]))) for name, f in frames.items()}
    from probesmith.eval.audit import audit_frames

    cells = audit_frames(kept, "filtered", AuditOptions(baselines=("choice_only",)))
    assert not cells.filter(pl.col("flagged")).height


def test_audit_of_a_build_folder_from_the_command_line(small_wordnet_build, capsys):
    assert (
        main(["-q", "audit", str(small_wordnet_build.out), "--baselines", "choice_only", "lexical_overlap"])
        == 0
    )
    printed = capsys.readouterr().out
    for config in ("definitions", "hypernymy", "hyponymy", "synonymy"):
        assert f"{config}" in printed
    summary = json.loads((small_wordnet_build.out / "audit" / "audit.json").read_text())
    assert summary["source_logical_hash"] == small_wordnet_build.logical_hash
    cells = read_parquet(small_wordnet_build.out / "audit" / "cells.parquet").to_pylist()
    assert {c["distractor_type"] for c in cells} >= {"all", "sister", "random"}
    assert {c["hops"] for c in cells} >= {None, 0, 1, 2}


def test_encoder_choice_only_learns_the_planted_artifact(planted_and_control):
    options = AuditOptions(baselines=("encoder_choice_only",), encoder_model="tiny")
    result = audit(planted_and_control[0], options)
    assert overall(result, "encoder_choice_only")["accuracy"] > 0.4  # chance is 0.2


def test_filter_takes_several_baselines_and_refuses_others(planted_and_control):
    from probesmith.errors import SpecError

    frames = load_multiple_choice(planted_and_control[0])
    removed, report = filter_artifacts(frames, baselines=("choice_only", "choice_to_choice"), max_rounds=10)
    assert report.converged and {r["baseline"] for r in report.rounds} == {"choice_only", "choice_to_choice"}
    kept = {name: f.filter(~pl.col("id").is_in(list(removed[name]))) for name, f in frames.items()}
    from probesmith.eval.audit import audit_frames

    cells = audit_frames(kept, "filtered", AuditOptions(baselines=("choice_only", "choice_to_choice")))
    assert not cells.filter(pl.col("flagged")).height
    with pytest.raises(SpecError, match="feature baselines, not 'lexical_overlap'"):
        filter_artifacts(frames, baselines=("lexical_overlap",))
