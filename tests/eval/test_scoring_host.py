"""The host side of score_statements (issue 28): flat-array tokenisation, the token cache, numpy
grouping and batching, background preparation — every BEAR statement scored equals a plain
per-statement computation."""

import json
import logging

import numpy as np
import pytest
import torch

from probesmith.eval.scoring import _causal_rows, _prefix_groups, score_statements
from probesmith.eval.tokens import TokenCache, tokenise, tokenizer_identity

from ..conftest import SHARED_DATA, tiny_gpt2_model

BEAR = SHARED_DATA / "bear" / "BEAR"
GPT2_TOKENIZER = SHARED_DATA / "tokenizers" / "gpt2"
pytestmark = pytest.mark.skipif(
    not BEAR.is_dir() or not GPT2_TOKENIZER.is_dir(), reason="shared data not present"
)


@pytest.fixture(scope="module")
def tiny():
    return tiny_gpt2_model(width=32)


@pytest.fixture(scope="module")
def statements():
    """Template-0 statements of four BEAR relations, every answer of the space, 4 subjects each."""
    meta = json.loads((BEAR / "metadata_relations.json").read_text())
    out = []
    for code in ("P36", "P103", "P1412", "P30"):
        rows = [json.loads(line) for line in (BEAR / f"{code}.jsonl").read_text().splitlines()[:4]]
        template = meta[code]["templates"][0]
        for row in rows:
            out += [
                template.replace("[X]", row["sub_label"]).replace("[Y]", a)
                for a in meta[code]["answer_space_labels"]
            ]
    return out


def reference(model, tokenizer, statements, answer_starts=None, bos=True):
    """Each statement alone, by hand: sum of log p(token | earlier tokens) over its scored tokens."""
    scores = []
    for i, text in enumerate(statements):
        prefix = tokenizer.bos_token if bos else ""
        encoded = tokenizer(prefix + text, return_offsets_mapping=True)
        ids = encoded.input_ids
        with torch.no_grad():
            log_probs = torch.log_softmax(model(torch.tensor([ids])).logits[0].double(), -1)
        start = None if answer_starts is None else answer_starts[i] + len(prefix)
        total = 0.0
        for p in range(1, len(ids)):
            if start is None or encoded.offset_mapping[p][1] > start:
                total += log_probs[p - 1, ids[p]].item()
        scores.append(total)
    return scores


@pytest.fixture(scope="module")
def expected(tiny, statements):
    return reference(*tiny, statements)


@pytest.mark.parametrize(
    "budget,share,prefetch", [(4096, True, True), (160, True, False), (700, False, True), (65536, True, True)]
)
def test_every_bear_statement_equals_the_per_statement_computation(
    tiny, statements, expected, budget, share, prefetch
):
    model, tokenizer = tiny
    ours = score_statements(
        model, tokenizer, statements, batch_tokens=budget, share_prefixes=share, prefetch=prefetch
    )
    assert len(ours) == len(statements) > 400
    np.testing.assert_allclose(ours, expected, atol=2e-5, rtol=0)


def test_answer_spans_and_no_bos_equal_the_per_statement_computation(tiny, statements):
    model, tokenizer = tiny
    # multiple-choice shape: a question, then each choice scored after it
    contexts = [s[: s.rfind(" ")] for s in statements[:300]]
    starts = [len(c) for c in contexts]
    for bos in (True, False):
        expected = reference(model, tokenizer, statements[:300], starts, bos=bos)
        ours, counts = score_statements(
            model, tokenizer, statements[:300], answer_starts=starts, bos=bos, return_token_counts=True
        )
        np.testing.assert_allclose(ours, expected, atol=2e-5, rtol=0)
        assert all(c >= 1 for c in counts)


def test_grouping_puts_common_prefixes_together(tiny, statements):
    _, tokenizer = tiny
    rows = _causal_rows(tokenizer, statements, None)
    plain, member_group, members, shared = _prefix_groups(rows, np.flatnonzero(rows.last > 0))
    # BEAR's answers of one subject share its template's start: nearly every statement is grouped
    assert len(members) > 0.9 * len(statements)
    for group in range(len(shared)):
        ids = [rows.encoded.row(m) for m in members[member_group == group].tolist()]
        assert len({tuple(r[: shared[group]]) for r in ids}) == 1
        assert min(len(r) for r in ids) > shared[group] >= 3
    # the byte-string sort is the lexicographic order of the id lists
    candidates = np.arange(len(statements))
    width = int(rows.encoded.lengths.max())
    matrix = np.zeros((len(statements), width), dtype=">u4")
    for i in range(len(statements)):
        matrix[i, : rows.encoded.lengths[i]] = np.asarray(rows.encoded.row(i)) + 1
    order = np.argsort(np.ascontiguousarray(matrix).view(f"S{4 * width}").ravel(), kind="stable")
    assert [rows.encoded.row(i) for i in order] == sorted(rows.encoded.row(i) for i in candidates)


def test_flat_tokenisation_equals_the_tokenizer(tiny, statements):
    _, tokenizer = tiny
    encoded = tokenise(tokenizer, statements, offsets=True)
    expected = tokenizer(statements, return_offsets_mapping=True)
    for i in range(len(statements)):
        assert encoded.row(i) == expected.input_ids[i]
        ends = encoded.ends[encoded.starts[i] : encoded.starts[i + 1]].tolist()
        assert ends == [e for _, e in expected.offset_mapping[i]]


def test_token_cache_serves_a_second_model_and_survives_the_process(tiny, statements, tmp_path):
    model, tokenizer = tiny
    TokenCache.clear_memory()
    cache = TokenCache(tmp_path)
    first = score_statements(model, tokenizer, statements, token_cache=cache)
    assert (cache.hits, cache.misses) == (0, 1) and len(list(tmp_path.glob("*.npz"))) == 1
    torch.manual_seed(1)
    other = type(model)(model.config).eval()  # a second model, same tokenizer: no tokenisation
    score_statements(other, tokenizer, statements, token_cache=cache)
    assert cache.hits == 1
    TokenCache.clear_memory()  # a new process: read from the folder
    again = TokenCache(tmp_path)
    assert score_statements(model, tokenizer, statements, token_cache=again) == pytest.approx(first, abs=1e-9)
    assert (again.hits, again.misses) == (1, 0)
    # other statements, or another tokenizer, are another entry
    score_statements(model, tokenizer, statements[:-1], token_cache=again)
    assert again.misses == 1


def test_token_cache_key_is_the_tokenizer_definition(tiny):
    from transformers import PreTrainedTokenizerFast

    _, tokenizer = tiny
    same = PreTrainedTokenizerFast.from_pretrained(str(GPT2_TOKENIZER))
    assert tokenizer_identity(same) == tokenizer_identity(tokenizer)
    changed = PreTrainedTokenizerFast.from_pretrained(str(GPT2_TOKENIZER))
    changed.add_tokens(["Parisian"])
    assert tokenizer_identity(changed) != tokenizer_identity(tokenizer)


def test_a_damaged_cache_file_is_tokenised_again(tiny, statements, tmp_path, caplog):
    model, tokenizer = tiny
    TokenCache.clear_memory()
    expected = score_statements(model, tokenizer, statements[:50], token_cache=tmp_path)
    (path,) = tmp_path.glob("*.npz")
    path.write_bytes(b"not a numpy file")
    TokenCache.clear_memory()
    cache = TokenCache(tmp_path)
    with caplog.at_level(logging.WARNING):
        scores = score_statements(model, tokenizer, statements[:50], token_cache=cache)
    assert scores == pytest.approx(expected, abs=1e-9) and cache.misses == 1
    assert "does not read back" in caplog.text


def test_batch_tokens_must_be_positive_or_auto(tiny):
    model, tokenizer = tiny
    with pytest.raises(ValueError, match="positive integer or 'auto'"):
        score_statements(model, tokenizer, ["x"], batch_tokens=0)
    with pytest.raises(ValueError, match="positive integer or 'auto'"):
        score_statements(model, tokenizer, ["x"], batch_tokens="big")
