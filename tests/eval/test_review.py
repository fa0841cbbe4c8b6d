"""The review sheet: stratified out, validated accuracy in."""

import csv

import pytest

from probesmith.cli import main
from probesmith.eval.review import read_review_sheet, review_sample, write_review_sheet

from ..conftest import needs_wordnet, write_filled_sheet

pytestmark = [pytest.mark.integration, needs_wordnet]


def test_sample_covers_every_config_and_hop(small_wordnet_build):
    sample = review_sample(small_wordnet_build.out, n=60, seed=1)
    assert sample.height == 60 and sample["id"].n_unique() == 60
    strata = {(c, h) for c, h in sample.select("config", "hops").iter_rows()}
    assert {c for c, _ in strata} == {"definitions", "hypernymy", "hyponymy", "synonymy"}
    assert {h for c, h in strata if c == "hypernymy"} == {1, 2, 3, 4}
    assert review_sample(small_wordnet_build.out, n=60, seed=1).equals(sample)  # seeded


def test_sheet_round_trip(small_wordnet_build, tmp_path):
    build = tmp_path / "build"
    import shutil

    shutil.copytree(small_wordnet_build.out, build)
    sheet = write_review_sheet(build, n=10)
    rows = list(csv.DictReader(open(sheet, encoding="utf-8")))
    assert len(rows) == 10 and all(r["gold"] in "ABCDE" and not r["gold_is_correct"] for r in rows)
    for i, row in enumerate(rows):
        row["gold_is_correct"] = "n" if i < 2 else "y"
        row["other_correct"] = "C" if i == 2 else ""
        row["reads_naturally"] = "n" if i == 9 else "y"
    filled = tmp_path / "filled.csv"
    write_filled_sheet(filled, rows)
    card_before = (build / "README.md").read_text()
    result = read_review_sheet(build, filled)
    assert result["overall"]["reviewed"] == 10 and result["overall"]["validated_accuracy"] == 0.7
    assert result["overall"]["reads_naturally"] == 0.9
    assert result["overall"]["second_right_answer"] == 1  # row 2 names choice C
    assert "| 1/10 |" in (build / "README.md").read_text()
    low, high = result["overall"]["ci95"]
    assert low < 0.7 < high
    assert main(["verify", str(build)]) == 0  # the review folder lives beside the data
    # the card gains a Human review section before the citation; a second reading replaces it
    card = (build / "README.md").read_text()
    assert card.startswith(card_before.split("## Citation")[0])
    section = card.split("## Human review")[1].split("## Citation")[0]
    assert f"| `overall` | 10 | 0.700 | [{low:.3f}, {high:.3f}] | 1/10 | 0.900 |" in section
    rows[1]["gold_is_correct"] = "y"
    write_filled_sheet(filled, rows)
    assert read_review_sheet(build, filled, force=True)["overall"]["validated_accuracy"] == 0.8
    card = (build / "README.md").read_text()
    assert card.count("## Human review") == 1 and "| `overall` | 10 | 0.800 |" in card
    rows[0]["gold_is_correct"] = "maybe"
    write_filled_sheet(filled, rows)
    assert main(["review-sample", str(build), "--read", str(filled)]) == 1
