import pytest

from probesmith.cli import main

from .conftest import FIXTURES, needs_gcide


def test_dry_run_prints_the_resolved_spec(capsys):
    assert main(["build", "wordnet", "--seed", "5", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "family: wordnet" in out and "seed: 5" in out and "sister_depth: 2" in out


def test_help_spec_lists_every_key_with_help(capsys):
    assert main(["build", "wordnet", "--help-spec"]) == 0
    out = capsys.readouterr().out
    assert "distractors.sister_depth" in out and "Depth L of the sister family" in out


def test_bad_spec_exits_2_with_the_problem(tmp_path, capsys):
    spec = tmp_path / "bad.yaml"
    spec.write_text("include: wordnet\nperturbation: 3\n")
    assert main(["build", "wordnet", "--spec", str(spec), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "unknown key 'perturbation' (did you mean 'perturbations'?)" in err
    assert not (tmp_path / "out").exists()


def test_spec_of_another_family_is_refused(capsys):
    assert main(["build", "wordnet", "--spec", "dictionary", "--dry-run"]) == 2
    assert "probesmith build dictionary --spec dictionary" in capsys.readouterr().err


def test_multiple_choice_options_are_offered_to_multiple_choice_families_only(capsys):
    # table families have no artifact filter, no splits: neither the option nor the spec keys
    with pytest.raises(SystemExit) as exit_info:
        main(["build", "relations", "--filter-artifacts", "--dry-run"])
    assert (
        exit_info.value.code == 2 and "unrecognized arguments: --filter-artifacts" in capsys.readouterr().err
    )
    assert main(["build", "relations", "--help-spec"]) == 0
    keys = capsys.readouterr().out
    assert "artifact_filter" not in keys and "splits.train_items" not in keys
    assert main(["build", "wordnet", "--filter-artifacts", "--dry-run"]) == 0
    assert "enabled: true" in capsys.readouterr().out


def test_data_check_reports_each_source(capsys):
    main(["data", "check"])
    out = capsys.readouterr().out
    for name in ("wordnet", "wordnet-nltk", "gcide"):
        assert f" {name} " in out


@needs_gcide
@pytest.mark.integration
def test_build_and_verify_from_the_command_line(tmp_path, capsys):
    out = tmp_path / "dict"
    spec = FIXTURES / "dictionary_small.yaml"
    assert main(["-q", "build", "dictionary", "--spec", str(spec), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "| config | hops |" in printed and "other_sense" in printed
    assert main(["verify", str(out)]) == 0
    next(out.glob("word_sense/test-*.parquet")).write_bytes(b"PAR1 truncated")
    assert main(["verify", str(out)]) == 1
    assert "sha256 differs" in capsys.readouterr().out
