"""The host side of score_statements (issue 28): flat-array tokenisation, the token cache, numpy
grouping and batching, background preparation — every BEAR statement scored equals a plain
per-statement computation."""

import json
import logging

import numpy as np
import pytest
import torch

from probesmith.eval.scoring import (
    _causal_rows,
    _packed_batches,
    _prefix_groups,
    _ragged_arange,
    packable,
    score_statements,
)
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
    "budget,share,prefetch,packing",
    [
        (4096, True, True, None),  # packed rows (GPT-2 with sdpa attention)
        (160, True, False, None),  # a packed batch of one row, wider than the budget
        (700, False, True, None),
        (65536, True, True, None),
        (4096, True, True, False),  # the key/value cache path
        (160, True, False, False),
    ],
)
def test_every_bear_statement_equals_the_per_statement_computation(
    tiny, statements, expected, budget, share, prefetch, packing
):
    model, tokenizer = tiny
    ours = score_statements(
        model,
        tokenizer,
        statements,
        batch_tokens=budget,
        share_prefixes=share,
        prefetch=prefetch,
        packing=packing,
    )
    assert len(ours) == len(statements) > 400
    np.testing.assert_allclose(ours, expected, atol=2e-5, rtol=0)


def test_packed_rows_with_eager_attention_equal_the_per_statement_computation(statements, expected):
    """Eager attention adds the packed mask (0 / the dtype's least value) rather than taking booleans."""
    model, tokenizer = tiny_gpt2_model(width=32)  # the same weights as `tiny`
    model.set_attn_implementation("eager")
    assert packable(model) and model.config._attn_implementation == "eager"
    ours = score_statements(model, tokenizer, statements, batch_tokens=4096)
    np.testing.assert_allclose(ours, expected, atol=2e-5, rtol=0)


def test_packing_keeps_units_whole_and_every_statement_once(tiny, statements):
    """Every grouped statement's continuation lies in one row, after its unit's prefix, in no other's place."""
    _, tokenizer = tiny
    rows = _causal_rows(tokenizer, statements, None)
    _, member_group, members, shared = _prefix_groups(rows, np.flatnonzero(rows.last > 0))
    batches = list(_packed_batches(rows, member_group, members, shared, 4096))
    placed = np.concatenate([b["members"] for b in batches])
    assert sorted(placed.tolist()) == sorted(members.tolist())
    for batch in batches:
        width = batch["width"]
        prefix = batch["unit_prefix"][batch["member_unit"]]
        tails = rows.last[batch["members"]] - prefix
        start, unit_start = batch["member_flat"], batch["unit_flat"][batch["member_unit"]]
        assert (start - unit_start == start % width - unit_start % width).all()  # same row
        assert (start + tails <= (start // width + 1) * width).all()  # ends in it
        assert (start >= unit_start + prefix).all()
        taken = np.zeros(batch["rows"] * width, dtype=np.int64)  # no two tokens in one place
        np.add.at(taken, np.repeat(start, tails) + _ragged_arange(tails), 1)
        np.add.at(
            taken,
            np.repeat(batch["unit_flat"], batch["unit_prefix"]) + _ragged_arange(batch["unit_prefix"]),
            1,
        )
        assert taken.max() == 1


def test_a_model_without_packed_attention_uses_the_key_value_path(statements):
    """GPT-Neo is not packable: scored through the prefix cache, equal to the per-statement sums."""
    from transformers import GPTNeoConfig, GPTNeoForCausalLM

    _, tokenizer = tiny_gpt2_model(width=32)
    torch.manual_seed(0)
    config = GPTNeoConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_layers=2,
        num_heads=2,
        attention_types=[[["global"], 2]],
    )
    model = GPTNeoForCausalLM(config).eval()
    assert not packable(model)
    texts = statements[:120]
    ours = score_statements(model, tokenizer, texts, batch_tokens=4096)
    np.testing.assert_allclose(ours, reference(model, tokenizer, texts), atol=2e-5, rtol=0)
    with pytest.raises(ValueError, match="packing=True needs a causal model"):
        score_statements(model, tokenizer, texts, packing=True)


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
