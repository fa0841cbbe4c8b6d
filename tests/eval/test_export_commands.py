"""`probesmith export lm-eval` says which flag reproduces which number (issue 28), in its README and
its printed commands; the numbers themselves agree as said (tests/eval/test_harness.py runs lm_eval)."""

from probesmith.cli import main
from probesmith.eval.models import load_model
from probesmith.eval.run import EvalOptions, evaluate


def test_multiple_choice_export_names_no_bos_as_the_harness_number(
    small_wordnet_build, tiny_gpt2_dir, tmp_path, capsys
):
    out = tmp_path / "tasks"
    assert main(["export", "lm-eval", str(small_wordnet_build.out), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    group = f"probesmith_{small_wordnet_build.out.name}".lower().replace("-", "_")
    harness = f"lm_eval --model hf --model_args pretrained=MODEL --include_path {out} --tasks {group}"
    ours = f"probesmith eval --model MODEL --probes {small_wordnet_build.out}"
    readme = (out / "README.md").read_text()
    for text in (printed, readme):
        assert harness in text and f"{ours} --no-bos" in text
    # each command sits beside the number it gives
    rows = {line.split("|")[1].strip(): line for line in readme.splitlines() if line.startswith("| ")}
    assert f"`{ours} --no-bos`" in rows["the same acc, acc_norm (question alone)"]
    assert f"`{ours}`" in rows["probesmith's default: BOS token, then the question (lm-pub-quiz's)"]
    # and the two probesmith commands do give different numbers: the flag matters
    lm = load_model(str(tiny_gpt2_dir), device="cpu")
    options = dict(max_items=30)
    with_bos = evaluate(lm, small_wordnet_build.out, EvalOptions(**options), progress=False)
    without = evaluate(lm, small_wordnet_build.out, EvalOptions(bos=False, **options), progress=False)
    flat = [x for row in with_bos.tables["items"][1]["scores"].to_list() for x in row]
    flat_without = [x for row in without.tables["items"][1]["scores"].to_list() for x in row]
    # (not every choice: a choice's log-likelihood can move by less than 1e-3 without BOS by chance)
    moved = sum(abs(a - b) > 1e-3 for a, b in zip(flat, flat_without))
    assert len(flat) == len(flat_without) and moved >= 0.9 * len(flat), (moved, len(flat))


def test_relation_export_needs_no_flag(small_relations_build, tmp_path, capsys):
    out = tmp_path / "tasks"
    assert main(["export", "lm-eval", str(small_relations_build.out), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    ours = f"probesmith eval --model MODEL --probes {small_relations_build.out}"
    readme = (out / "README.md").read_text()
    for text in (printed, readme):
        assert ours in text and "--no-bos" not in text.split("Which command")[-1]
