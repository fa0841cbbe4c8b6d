"""The bad-input matrix: every command, the inputs a user gets wrong, one clear line each.

A row is (id, exit code, words the message must contain, a function that prepares the inputs
under a scratch folder and returns the command's arguments). For every row the command must
exit with that code (2: what was asked is wrong; 1: the data is), print exactly one
``probesmith: error:`` line containing those words and no traceback, and leave every file that
existed before byte-identical. A new command adds rows here.
"""

from __future__ import annotations

import gzip
import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch

from probesmith.cli import main

from .conftest import FIXTURES, SHARED_DATA, needs_gcide

pytestmark = pytest.mark.integration

DICTIONARY_SPEC = FIXTURES / "dictionary_small.yaml"


@dataclass
class Scratch:
    """A scratch folder with lazily copied builds, a model, a store and user files."""

    root: Path
    request: pytest.FixtureRequest

    def build(self, fixture: str) -> Path:
        """A private copy of a session build (``small_dictionary_build``, ...)."""
        source = self.request.getfixturevalue(fixture).out
        target = self.root / "artifacts" / source.name
        if not target.exists():
            shutil.copytree(source, target)
        return target

    def model(self) -> Path:
        return self.request.getfixturevalue("tiny_gpt2_dir")

    def store(self) -> Path:
        return self.request.getfixturevalue("wikidata_store")

    def user_folder(self, name: str = "mine") -> Path:
        folder = self.root / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "thesis.txt").write_text("my notes")
        (folder / "report.md").write_text("my own report")
        return folder

    def file(self, name: str, text: str | bytes) -> Path:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
        return path

    def spec(self, body: str, name: str = "spec.yaml") -> Path:
        return self.file(name, body)

    def ai2(self, *lines: str) -> Path:
        return self.file("items.jsonl", "\n".join(lines) + "\n")

    def shard(self, build: Path) -> Path:
        return sorted(build.glob("*/test-*.parquet"))[0]


GOOD_AI2 = json.dumps(
    {
        "id": "q1",
        "question": {
            "stem": "A dog is a kind of",
            "choices": [{"text": "animal", "label": "A"}, {"text": "rock", "label": "B"}],
        },
        "answerKey": "A",
    }
)


def _manifest_without_tables(s: Scratch) -> list[str]:
    build = s.build("small_dictionary_build")
    manifest = json.loads((build / "manifest.json").read_text())
    del manifest["tables"]
    (build / "manifest.json").write_text(json.dumps(manifest))
    return ["audit", str(build)]


def _stray_copy(s: Scratch) -> list[str]:
    build = s.build("small_dictionary_build")
    shard = s.shard(build)
    shutil.copy(shard, shard.with_name(shard.stem + " (copy).parquet"))
    return ["audit", str(build)]


def _missing_shard(s: Scratch) -> list[str]:
    build = s.build("small_dictionary_build")
    s.shard(build).rename(build / "moved-away.bin")
    return ["audit", str(build)]


def _truncated_shard(s: Scratch) -> list[str]:
    build = s.build("small_dictionary_build")
    shard = s.shard(build)
    shard.write_bytes(shard.read_bytes()[:200])
    return ["audit", str(build)]


def _model_without_tokenizer(s: Scratch) -> list[str]:
    folder = s.root / "model-no-tokenizer"
    shutil.copytree(s.model(), folder)
    for path in folder.iterdir():
        if "token" in path.name or path.name in ("vocab.json", "merges.txt"):
            path.unlink()
    return ["eval", "--model", str(folder), "--probes", str(dictionary(s)), "--out", str(s.root / "run")]


def _truncated_dump(s: Scratch) -> list[str]:
    data = gzip.compress(
        b"".join(f"<http://x/{i}> <http://p> <http://y/{i}> .\n".encode() for i in range(20000))
    )
    return [
        "wikidata",
        "load",
        str(s.file("cut.nt.gz", data[: len(data) // 2])),
        "--store",
        str(s.root / "st"),
    ]


def _two_runs_of_different_builds(s: Scratch) -> list[str]:
    runs = []
    for name, build_hash in (("a", "1" * 64), ("b", "2" * 64)):
        folder = s.root / "runs" / name
        folder.mkdir(parents=True)
        run = {"family": "paraphrases", "model": name, "build_hash": build_hash, "options": {}}
        (folder / "metrics.json").write_text(json.dumps({"run": run}))
        runs.append(str(folder))
    return ["eval-compare", *runs]


def build_with(family: str, spec: str):
    """``build FAMILY --spec <a file holding spec> --out <scratch>/o``."""
    return lambda s: ["build", family, "--spec", str(s.spec(spec)), "--out", str(s.root / "o")]


def build_into(where):
    """``build dictionary`` (the small spec) into ``where(scratch)``."""
    return lambda s: ["build", "dictionary", "--spec", str(DICTIONARY_SPEC), "--out", str(where(s))]


def audit_ai2(*lines: str):
    return lambda s: ["audit", str(s.ai2(*lines))]


def eval_on(probes, out=lambda s: s.root / "run"):
    return lambda s: ["eval", "--model", str(s.model()), "--probes", str(probes(s)), "--out", str(out(s))]


def load(dump_name: str, text: str | bytes):
    return lambda s: ["wikidata", "load", str(s.file(dump_name, text)), "--store", str(s.root / "st")]


def built(fixture: str):
    """The scratch copy of a session build, by fixture name."""
    return lambda s: s.build(fixture)


dictionary, relations, rules = (built(f"small_{f}_build") for f in ("dictionary", "relations", "rules"))


def parent_of_builds(s: Scratch) -> Path:
    dictionary(s)
    s.file("artifacts/thesis.txt", "my notes")
    return s.root / "artifacts"


UNREACHABLE = "wikidata: {source: 'http://127.0.0.1:9/sparql', cache_mode: 'off', max_retries: 1, timeout: 2}"
BAD_CATALOG = "relations: [{templates: [x]}]"

# fmt: off
ROWS = [
    ("spec: malformed YAML", 2, "not valid YAML", build_with("wordnet", "include: wordnet\nname: [unclosed\n")),
    ("spec: empty file", 2, "spec", build_with("wordnet", "")),
    ("spec: not a mapping", 2, "mapping", build_with("wordnet", "- a\n- b\n")),
    ("spec: unknown key", 2, "did you mean 'perturbations'", build_with("wordnet", "include: wordnet\nperturbation: 3\n")),
    ("spec: wrong type", 2, "expected an integer", build_with("dictionary", "include: dictionary\nlimit: many\n")),
    ("spec: negative limit", 2, "below the smallest allowed", build_with("dictionary", "include: dictionary\nlimit: -5\n")),
    ("spec: negative train_items", 2, "splits.train_items", build_with("dictionary", "include: dictionary\nsplits: {train_items: -10}\n")),
    ("spec: share above 1", 2, "above the largest allowed", build_with("dictionary", "include: dictionary\nsplits: {dev_share: 3.5}\n")),
    ("spec: NaN", 2, "not a finite number", build_with("dictionary", "include: dictionary\nsplits: {dev_share: .nan}\n")),
    ("spec: empty name", 2, "not a dataset name", build_with("dictionary", "include: dictionary\nname: ''\n")),
    ("spec: name escaping artifacts/", 2, "not a dataset name", build_with("dictionary", "include: dictionary\nname: ../escaped\n")),
    ("spec: unknown cache mode", 2, "is not one of record, replay", build_with("relations", "include: relations\nwikidata: {cache_mode: bogus}\n")),
    ("spec: catalog without pid", 2, "needs `pid`", lambda s: build_with("relations", f"include: relations\ncatalog: {s.spec(BAD_CATALOG, 'c.yaml')}\n")(s)),
    ("spec: not UTF-8", 2, "not UTF-8", lambda s: ["build", "dictionary", "--spec", str(s.file("l1.yaml", "description: caf\xe9\n".encode("latin-1")))]),
    ("spec: missing file", 2, "neither a file nor a bundled spec", lambda s: ["build", "wordnet", "--spec", str(s.root / "nope.yaml")]),
    ("build --out is a file", 2, "is a file", build_into(lambda s: s.file("out.txt", "x"))),
    ("build --out holds user files", 2, "is not a probesmith output", build_into(lambda s: s.user_folder())),
    ("build --out is another family's build", 2, "another kind (build:relations, not build:dictionary)", build_into(relations)),
    ("build all --out is a file", 2, "is a file", lambda s: ["build", "all", "--out", str(s.file("artifacts.txt", "x"))]),
    ("build: spec matches nothing", 1, "produced no rows", build_with("dictionary", f"include: {DICTIONARY_SPEC}\nmin_senses: 500\n")),
    ("build: unreachable endpoint", 1, "Check that the endpoint is reachable", build_with("relations", f"include: relations\nrelations: [P36]\n{UNREACHABLE}\n")),
    ("audit: relations build", 1, "has no multiple-choice tables", lambda s: ["audit", str(relations(s))]),
    ("audit: empty folder", 1, "neither a probesmith build folder", lambda s: (["audit", str(s.user_folder("empty").parent / "nothing")] if (s.root / "nothing").mkdir() is None else [] )),
    ("audit: folder that is not a build", 1, "neither a probesmith build folder", lambda s: ["audit", str(s.user_folder())]),
    ("audit: truncated Parquet", 1, "not a readable Parquet file", _truncated_shard),
    ("audit: manifest edited by hand", 1, "edited by hand", _manifest_without_tables),
    ("audit: stray copy beside the shards", 1, "not listed in the manifest", _stray_copy),
    ("audit: shard missing", 1, "listed in the manifest but missing", _missing_shard),
    ("audit: --out holds the user's report", 2, "is not a probesmith output", lambda s: ["audit", str(dictionary(s)), "--out", str(s.user_folder())]),
    ("audit: AI2 line not JSON", 1, "not valid JSON", audit_ai2(GOOD_AI2, "{broken")),
    ("audit: AI2 missing fields", 1, "lacks", audit_ai2(GOOD_AI2, json.dumps({"id": "x", "answerKey": "A"}))),
    ("audit: AI2 answerKey not a label", 1, "is not among the choice labels", audit_ai2(GOOD_AI2.replace('"answerKey": "A"', '"answerKey": "Z"'))),
    ("audit: AI2 null choice", 1, "non-empty string", audit_ai2(GOOD_AI2.replace('"rock"', "null"))),
    ("audit: AI2 numeric choice", 1, "non-empty string", audit_ai2(GOOD_AI2.replace('"rock"', "42"))),
    ("eval: an audit folder", 1, "neither a probesmith build folder", eval_on(lambda s: s.user_folder("audit"))),
    ("eval: model without tokenizer", 1, "no usable tokenizer", _model_without_tokenizer),
    ("eval: probes missing", 2, "does not exist", eval_on(lambda s: s.root / "nope")),
    ("eval: --out is a file", 2, "is a file", eval_on(dictionary, out=lambda s: s.file("run.txt", "x"))),
    ("eval-compare: one run", 2, "at least two", lambda s: ["eval-compare", str(s.user_folder())]),
    ("eval-compare: not results", 1, "not a `probesmith eval` result", lambda s: ["eval-compare", str(s.user_folder("a")), str(s.user_folder("b"))]),
    ("eval-compare: different builds", 2, "not comparable", _two_runs_of_different_builds),
    ("eval-compare: --subsets 0", 2, "must be at least 1", lambda s: ["eval-compare", "a", "b", "--subsets", "0"]),
    ("export bear: into the parent of builds", 2, "is not a probesmith output", lambda s: ["export", "bear", str(relations(s)), "--out", str(parent_of_builds(s))]),
    ("export bear: a dictionary build", 1, "is a dictionary build", lambda s: ["export", "bear", str(dictionary(s)), "--out", str(s.root / "bear")]),
    ("export bear: not a build", 1, "not a probesmith build folder", lambda s: ["export", "bear", str(s.user_folder()), "--out", str(s.root / "bear")]),
    ("export depedit: a relations build", 1, "is a relations build", lambda s: ["export", "depedit", str(relations(s)), "--out", str(s.root / "d.jsonl")]),
    ("export depedit: --out is the user's file", 2, "not a probesmith output", lambda s: ["export", "depedit", str(rules(s)), "--out", str(s.file("mine.jsonl", "{}\n"))]),
    ("export depedit: --out is a folder", 2, "is a folder", lambda s: ["export", "depedit", str(rules(s)), "--out", str(s.user_folder())]),
    ("import bear: malformed metadata", 1, "has no list of templates", lambda s: ["import", "bear", str(s.file("bear/metadata_relations.json", '{"P1": {}}').parent), "--out", str(s.root / "i")]),
    ("import bear: not BEAR", 1, "not in BEAR's layout", lambda s: ["import", "bear", str(s.user_folder()), "--out", str(s.root / "i")]),
    ("import bear: --out is a dictionary build", 2, "another kind", lambda s: ["import", "bear", str(SHARED_DATA / "bear" / "BEAR"), "--out", str(dictionary(s))]),
    ("wikidata load: --store holds user files", 2, "is not a probesmith output", lambda s: [*load("d.nt", "<http://x> <http://p> <http://y> .\n")(s)[:3], "--store", str(s.user_folder())]),
    ("wikidata load: truncated .nt.gz", 1, "truncated or corrupt", _truncated_dump),
    ("wikidata load: malformed N-Triples", 1, "truncated or corrupt", load("bad.nt", "<http://x> not a triple\n")),
    ("wikidata load: empty dump", 1, "holds no triples", load("empty.nt", "")),
    ("wikidata load: not N-Triples", 1, "must be N-Triples", load("dump.ttl", "x")),
    ("wikidata snapshot: unknown format", 1, "name it .nt, .nt.gz or .nt.bz2", lambda s: ["wikidata", "snapshot", "--spec", "relations", "--out", str(s.root / "f.txt")]),
    ("wikidata snapshot: not a Wikidata spec", 2, "does not query Wikidata", lambda s: ["wikidata", "snapshot", "--spec", "wordnet", "--out", str(s.root / "f.nt")]),
    ("publish: Hub unreachable", 1, "could not publish", lambda s: ["publish", str(dictionary(s)), "--repo-id", "you/x", "--force"]),
    ("verify: not a build", 1, "not a probesmith build folder", lambda s: ["verify", str(s.user_folder())]),
]
# fmt: on


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@needs_gcide
@pytest.mark.parametrize("code, words, prepare", [row[1:] for row in ROWS], ids=[row[0] for row in ROWS])
def test_bad_input_gets_one_clear_line_and_changes_nothing(
    code, words, prepare, tmp_path, request, capsys, monkeypatch
):
    check_row(code, words, prepare, tmp_path, request, capsys, monkeypatch)


def check_row(code, words, prepare, tmp_path, request, capsys, monkeypatch):
    """Run one matrix row: exit code, one clear error line with ``words``, every file unchanged.

    Other matrices (tests/test_hostile_*.py) call this with rows of their own.
    """
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("huggingface_hub.constants.ENDPOINT", "http://127.0.0.1:9")  # unreachable on purpose
    monkeypatch.setenv("HF_TOKEN", "hf_test_token_never_sent_anywhere")
    argv = prepare(Scratch(tmp_path, request))
    if "cuda" in argv and torch.cuda.is_available():
        pytest.skip("a CUDA device is visible")
    capsys.readouterr()
    before = tree(tmp_path)
    try:
        exit_code = main(["-q", *argv])
    except SystemExit as exc:  # argparse's own usage errors
        exit_code = exc.code
    err = capsys.readouterr().err
    assert exit_code == code, err
    assert "Traceback" not in err and "internal error" not in err, err
    assert words in err, err
    if code == 1 or "argument" not in err:
        assert len([line for line in err.splitlines() if line.startswith("probesmith: error:")]) == 1, err
    assert tree(tmp_path) == before, "files changed"


@pytest.mark.skipif(torch.cuda.is_available(), reason="a CUDA device is visible")
def test_eval_on_cuda_without_cuda(tmp_path, tiny_gpt2_dir, small_dictionary_build, capsys):
    code = main(
        [
            "eval",
            "--model",
            str(tiny_gpt2_dir),
            "--probes",
            str(small_dictionary_build.out),
            "--device",
            "cuda",
            "--out",
            str(tmp_path / "r"),
        ]
    )
    assert code == 1 and "no CUDA device is visible" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


@needs_gcide
def test_the_export_that_deleted_artifacts_now_refuses(
    tmp_path, small_dictionary_build, small_relations_build, capsys
):
    """The issue's own reproduction: builds, reference manifests and a user's file in artifacts/."""
    artifacts = tmp_path / "artifacts"
    shutil.copytree(small_dictionary_build.out, artifacts / "dictionaryqa")
    shutil.copytree(small_relations_build.out, artifacts / "relations")
    shutil.copytree(Path(__file__).parents[1] / "artifacts" / "reference", artifacts / "reference")
    (artifacts / "thesis.txt").write_text("my notes")
    before = tree(artifacts)
    assert main(["export", "bear", str(artifacts / "relations"), "--out", str(artifacts)]) == 2
    assert tree(artifacts) == before
    assert main(["export", "bear", str(artifacts / "relations"), "--out", str(artifacts), "--force"]) == 2
    assert tree(artifacts) == before
    assert main(["export", "bear", str(artifacts / "relations"), "--out", str(tmp_path / "bear")]) == 0
    assert (
        main(["export", "bear", str(artifacts / "relations"), "--out", str(tmp_path / "bear")]) == 0
    )  # ours: replaced
    assert tree(artifacts) == before


@needs_gcide
def test_paths_with_spaces_and_unicode_work(tmp_path, capsys):
    out = tmp_path / "my builds é 文字" / "dictionary small"
    assert main(["-q", "build", "dictionary", "--spec", str(DICTIONARY_SPEC), "--out", str(out)]) == 0
    assert main(["-q", "audit", str(out), "--baselines", "answer_frequency"]) == 0
    assert main(["-q", "verify", str(out)]) == 0
    assert (out / "audit" / "report.md").is_file()


@needs_gcide
def test_an_empty_build_never_replaces_a_good_one(tmp_path, capsys):
    out = tmp_path / "dictionary"
    assert main(["-q", "build", "dictionary", "--spec", str(DICTIONARY_SPEC), "--out", str(out)]) == 0
    before = tree(out)
    empty = tmp_path / "empty.yaml"
    empty.write_text(f"include: {DICTIONARY_SPEC}\nmin_senses: 500\n")
    assert main(["-q", "build", "dictionary", "--spec", str(empty), "--out", str(out)]) == 1
    assert tree(out) == before
    assert main(["-q", "build", "dictionary", "--spec", str(empty), "--out", str(out), "--allow-empty"]) == 0
    assert json.loads((out / "manifest.json").read_text())["tables"] == {}
