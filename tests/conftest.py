"""Shared fixtures: isolated data home, real sources, small builds made once per session."""

from __future__ import annotations

import gzip
import json
import os
from collections import defaultdict
from functools import cache
from pathlib import Path

import pytest

from probesmith.builders.sources.gcide import DEBIAN_GCIDE_DIR
from probesmith.builders.sources.wordnet import DEBIAN_WORDNET_DIR, missing_source_files

FIXTURES = Path(__file__).parent / "fixtures"
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


@cache
def slice_relations() -> dict[str, dict[str, set[str]]]:
    """The shared slice's facts, ``{relation: {subject: {objects}}}``, read from its TSV (not via the
    builders): the independent reading tests judge builds by. Read once per session; do not mutate."""
    facts: dict = defaultdict(lambda: defaultdict(set))
    with gzip.open(SHARED_DATA / "wikidata_slice" / "facts.tsv.gz", "rt", encoding="utf-8") as fh:
        next(fh)
        for line in fh:
            s, p, o = line.split("\t")[:3]
            facts[p][s].add(o)
    return facts


@cache
def slice_names() -> dict[str, tuple[str, ...]]:
    """Every entity's names in the shared slice, ``{qid: (label, *English aliases)}`` (the label is ''
    where the slice has none), read from its TSV (not via the builders). Read once per session."""
    names = {}
    with gzip.open(SHARED_DATA / "wikidata_slice" / "entities.tsv.gz", "rt", encoding="utf-8") as fh:
        next(fh)
        for line in fh:
            qid, label, aliases = line.rstrip("\n").split("\t")
            names[qid] = (label, *json.loads(aliases))
    return names


def slice_classes() -> dict[str, set[str]]:
    """Every entity's P31 classes in the shared slice (an entity with none maps to an empty set)."""
    return slice_relations()["P31"]


needs_wordnet = pytest.mark.skipif(
    bool(missing_source_files(DEBIAN_WORDNET_DIR)),
    reason="WordNet 3.0 is not installed: apt-get install wordnet-base wordnet-sense-index",
)
needs_gcide = pytest.mark.skipif(
    not (DEBIAN_GCIDE_DIR / "gcide.index").is_file(),
    reason="GCIDE is not installed: apt-get install dict-gcide",
)


@pytest.fixture(scope="session", autouse=True)
def isolated_data_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """probesmith's data folder (the NLTK copy of WordNet) lives in a session temp dir."""
    home = tmp_path_factory.mktemp("probesmith-data")
    previous = os.environ.get("PROBESMITH_DATA")
    os.environ["PROBESMITH_DATA"] = str(home)
    yield home
    if previous is None:
        os.environ.pop("PROBESMITH_DATA", None)
    else:
        os.environ["PROBESMITH_DATA"] = previous


@pytest.fixture(scope="session")
def wordnet_graph():
    """The real WordNet 3.0 noun and verb graph, loaded once."""
    from probesmith.builders.sources.wordnet import WordNetSource

    return WordNetSource().load(("noun", "verb"))


@pytest.fixture(scope="session")
def small_wordnet_build(tmp_path_factory: pytest.TempPathFactory):
    """The small WordNet config of tests/fixtures, built once."""
    from probesmith.builders.build import build
    from probesmith.builders.registry import load_spec

    out = tmp_path_factory.mktemp("builds") / "wordnet-small"
    return build(load_spec(FIXTURES / "wordnet_small.yaml"), out)


@pytest.fixture(scope="session")
def small_dictionary_build(tmp_path_factory: pytest.TempPathFactory):
    """The small GCIDE config of tests/fixtures, built once."""
    from probesmith.builders.build import build
    from probesmith.builders.registry import load_spec

    out = tmp_path_factory.mktemp("builds") / "dictionary-small"
    return build(load_spec(FIXTURES / "dictionary_small.yaml"), out)


@pytest.fixture(scope="session")
def wikidata_store(tmp_path_factory):
    """The shared Wikidata slice loaded into an oxigraph store, once."""
    from probesmith.builders.sources.wikidata import load_store

    slice_path = SHARED_DATA / "wikidata_slice" / "wikidata_slice.nt.gz"
    if not slice_path.is_file():
        pytest.skip("shared Wikidata slice not present")
    store = tmp_path_factory.mktemp("wikidata") / "store"
    load_store(slice_path, store, progress=False)
    return store


@pytest.fixture(scope="session")
def small_relations_build(tmp_path_factory, wikidata_store):
    """A few relations from the slice, built once."""
    from probesmith.builders.build import build
    from probesmith.builders.registry import load_spec

    spec_path = tmp_path_factory.mktemp("specs") / "relations_small.yaml"
    spec_path.write_text(
        f"include: {FIXTURES / 'relations_small.yaml'}\nwikidata:\n  source: {wikidata_store}\n"
        f"  cache: {tmp_path_factory.mktemp('sparql-cache')}\n"
    )
    return build(load_spec(spec_path), tmp_path_factory.mktemp("builds") / "relations-small")


def _small_wikidata_build(tmp_path_factory, wikidata_store, fixture: str, name: str):
    from probesmith.builders.build import build
    from probesmith.builders.registry import load_spec

    spec_path = tmp_path_factory.mktemp("specs") / f"{name}.yaml"
    spec_path.write_text(
        f"include: {FIXTURES / fixture}\nwikidata:\n  source: {wikidata_store}\n  cache_mode: 'off'\n"
    )
    return build(load_spec(spec_path), tmp_path_factory.mktemp("builds") / name)


def build_default_spec_of(tmp_path_factory, wikidata_store, family: str, name: str, relations) -> object:
    """A ``family`` build of its default spec restricted to ``relations``, against the local store, cache off."""
    from probesmith.builders.build import build
    from probesmith.builders.registry import load_spec

    spec_path = tmp_path_factory.mktemp("specs") / f"{name}.yaml"
    spec_path.write_text(
        f"include: {family}\nname: {name}\nrelations: [{', '.join(relations)}]\n"
        f"wikidata:\n  source: {wikidata_store}\n  cache_mode: 'off'\n"
    )
    return build(load_spec(spec_path), tmp_path_factory.mktemp("builds") / name)


@pytest.fixture(scope="session")
def small_paraphrases_build(tmp_path_factory, wikidata_store):
    """Three relations' pattern banks, alias banks and grids, built once."""
    return _small_wikidata_build(tmp_path_factory, wikidata_store, "paraphrases_small.yaml", "paraphrases")


@pytest.fixture(scope="session")
def small_rules_build(tmp_path_factory, wikidata_store):
    """Rules and knowledge sets over a few relations, built once."""
    return _small_wikidata_build(tmp_path_factory, wikidata_store, "rules_small.yaml", "rules")


GPT2_TOKENIZER = SHARED_DATA / "tokenizers" / "gpt2"


def tiny_gpt2_model(width: int = 64, layers: int = 2, positions: int = 128):
    """(model, tokenizer): a randomly initialised GPT-2 of the given size (seed 0), the real GPT-2 tokenizer."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    tokenizer = PreTrainedTokenizerFast.from_pretrained(str(GPT2_TOKENIZER))
    torch.manual_seed(0)
    config = GPT2Config(
        vocab_size=len(tokenizer), n_layer=layers, n_embd=width, n_head=2, n_positions=positions
    )
    return GPT2LMHeadModel(config).eval(), tokenizer


@pytest.fixture(scope="session")
def tiny_gpt2_dir(tmp_path_factory):
    """A 2-layer GPT-2 with the real GPT-2 tokenizer, saved like any local model."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    folder = tmp_path_factory.mktemp("models") / "tiny-gpt2"
    tokenizer = PreTrainedTokenizerFast.from_pretrained(str(GPT2_TOKENIZER))
    torch.manual_seed(0)
    GPT2LMHeadModel(
        GPT2Config(vocab_size=len(tokenizer), n_layer=2, n_embd=64, n_head=2, n_positions=1024)
    ).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def write_filled_sheet(path, rows: list[dict]):
    """Write review-sheet rows (dicts, as csv.DictReader gives them) back as a filled CSV."""
    import csv

    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path
