"""The columnar validity report reads every item as the per-row reading it replaced does.

``per_row_report`` is the per-row code ``validity_report`` ran before issue 26 (one Python dict
per item, every choice pair compared with ``text.near_duplicate``), kept here as the oracle: the
two must give the same report, rule for rule and example for example, on the real small builds
and on planted items.
"""

import itertools
import json
from collections import Counter, defaultdict

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from probesmith.builders.text import near_duplicate, normalize_choice
from probesmith.builders.validity import RULES, _mix_report, validity_report
from probesmith.schemas.tables import MULTIPLE_CHOICE

from ..conftest import needs_gcide, needs_wordnet


def per_row_report(tables, dropped, mixes=None, tolerance=0.03):
    """The shared rules of every config, read row by row (the pre-issue-26 implementation)."""
    rows_by_config = defaultdict(list)
    columns = ["choices", "answer_index", "hops", "distractor_types", "framing", "pos"]
    for (config, split), table in sorted(tables.items()):
        rows_by_config[config] += [dict(row, split=split) for row in table.select(columns).to_pylist()]
    configs = {
        config: per_row_config({r: n for r, n in dropped.items() if r.startswith(f"{config}:")}, rows)
        for config, rows in sorted(rows_by_config.items())
    }
    for config, rows in rows_by_config.items():
        if (mixes or {}).get(config):
            configs[config]["mix"] = per_row_mix(rows, mixes[config], tolerance)
    return {"rules": dict(RULES), "configs": configs}


def per_row_mix(rows, mix, tolerance):
    """The mix report from rows: the columnar one fed the rows' own distractor types."""
    tags = pa.table({"distractor_types": [row["distractor_types"] for row in rows]})
    return _mix_report(tags, mix, tolerance)


def per_row_config(dropped, rows):
    violations, examples = Counter(), defaultdict(list)
    positions = defaultdict(Counter)
    gold_chars, distractor_chars = [], []
    longest = shortest = chance = 0.0
    for row in rows:
        choices, answer = row["choices"], row["answer_index"]
        if len({normalize_choice(c) for c in choices}) < len(choices):
            violations["distinct"] += 1
            examples["distinct"].append(choices)
        pairs = [(a, b) for a, b in itertools.combinations(choices, 2) if near_duplicate(a, b)]
        if pairs:
            violations["near_duplicate"] += 1
            examples["near_duplicate"].append(pairs[0])
        if any(not c.strip() for c in choices):
            violations["empty"] += 1
        positions[row["split"]][answer] += 1
        lengths = [len(c) for c in choices]
        gold_chars.append(lengths[answer])
        distractor_chars += [n for i, n in enumerate(lengths) if i != answer]
        longest += lengths[answer] == max(lengths) and lengths.count(max(lengths)) == 1
        shortest += lengths[answer] == min(lengths) and lengths.count(min(lengths)) == 1
        chance += 1 / len(choices)
    for split, counts in positions.items():
        width = max(len(r["choices"]) for r in rows if r["split"] == split)
        full = [counts.get(i, 0) for i in range(width)]
        if max(full) - min(full) > 1:
            violations["balanced"] += 1
            examples["balanced"].append({split: full})
    n = len(rows)
    slots = Counter(t for row in rows for t in row["distractor_types"])
    total_slots = sum(slots.values()) or 1

    def shares(counts):
        return {str(k): round(v / n, 4) for k, v in sorted(counts.items(), key=lambda kv: str(kv[0]))}

    return {
        "items": n,
        "items_per_split": dict(sorted(Counter(r["split"] for r in rows).items())),
        "rules": {
            rule: {"checked": n, "violations": violations[rule], "examples": examples[rule][:3]}
            for rule in RULES
        },
        "dropped": dict(sorted(dropped.items())),
        "length": {
            "gold_chars_mean": round(sum(gold_chars) / n, 2),
            "distractor_chars_mean": round(sum(distractor_chars) / max(1, len(distractor_chars)), 2),
            "gold_is_longest": round(longest / n, 4),
            "gold_is_shortest": round(shortest / n, 4),
            "chance": round(chance / n, 4),
        },
        "distributions": {
            "hops": shares(Counter(r["hops"] for r in rows)),
            "distractor_types": {t: round(c / total_slots, 4) for t, c in sorted(slots.items())},
            "framings": shares(Counter(r["framing"] for r in rows)),
            "pos": shares(Counter(r["pos"] for r in rows)),
        },
    }


def written_tables(out):
    """The multiple-choice tables of a written build, by (config, split)."""
    tables = {}
    for path in sorted(out.glob("*/*.parquet")):
        key = (path.parent.name, path.name.split("-", 1)[0])
        tables[key] = (
            pa.concat_tables([tables[key], pq.read_table(path)]) if key in tables else pq.read_table(path)
        )
    return tables


def as_json(report):
    return json.loads(json.dumps(report, sort_keys=True))


@pytest.mark.integration
@pytest.mark.parametrize(
    "fixture",
    [
        pytest.param("small_dictionary_build", marks=needs_gcide),
        pytest.param("small_wordnet_build", marks=needs_wordnet),
    ],
)
def test_columnar_report_equals_the_per_row_report_on_a_real_build(fixture, request):
    build = request.getfixturevalue(fixture)
    tables = written_tables(build.out)
    assert sum(t.num_rows for t in tables.values()) > 100
    dropped = json.loads((build.out / "manifest.json").read_text())["dropped"]
    mixes = {config: {"sister": 2, "opposite": 1, "random": 1} for config, _ in tables}
    assert validity_report(tables, dropped, mixes) == per_row_report(tables, dropped, mixes)
    # and on the build's own report, whose family rules were checked beside the shared ones
    written = json.loads((build.out / "validity.json").read_text())
    for config, entry in as_json(per_row_report(tables, dropped))["configs"].items():
        for key in ("items", "items_per_split", "length", "distributions", "dropped"):
            assert written["configs"][config][key] == entry[key], (config, key)
        for rule in RULES:
            assert written["configs"][config]["rules"][rule] == entry["rules"][rule], (config, rule)


def test_columnar_report_equals_the_per_row_report_on_planted_items():
    """Ties of length, blank and repeated choices, items of 2 to 4 choices, empty token sets."""
    base = {
        "probe": "p",
        "question": "q?",
        "cluster": "c",
        "concept": "c",
        "distractor_hops": [],
        "choice_concepts": [],
        "perturbation": 0,
        "source": "s",
    }
    rows = [
        (["a cat", "a dog", "a fish"], 0, ["sister", "isa_up"]),
        (["A cat.", "a cat", "fish"], 1, ["random", "random"]),
        (["set afloat", "set afloat again", "a fish", "x"], 2, ["sister", "sister", "popular"]),
        (["a cat", " ", "a fish"], 0, ["sister", "random"]),
        (["!!", "??"], 1, ["random"]),  # no word tokens at all: Jaccard 1.0, and one key
        (["red wine", "wine red", "rose"], 2, ["sister", "sister"]),
        (["one two three four five", "one two three four six", "zz"], 0, ["random", "random"]),
        (["one two three", "one two four", "abc"], 1, ["isa_down", "random"]),
        (["long gold text", "short", "tiny"], 0, ["random", "random"]),
        (["same", "size", "four"], 1, ["random", "random"]),
    ]
    tables = {}
    for split, chunk in (("dev", rows[:4]), ("test", rows[4:]), ("train", [])):
        tables[("cfg", split)] = pa.Table.from_pylist(
            [
                {
                    **base,
                    "id": f"{split}{i}",
                    "choices": choices,
                    "answer_index": answer,
                    "distractor_types": kinds,
                    "hops": i % 3 or None,
                    "pos": "noun" if i % 2 else "verb",
                    "framing": f"f{i % 2}",
                }
                for i, (choices, answer, kinds) in enumerate(chunk)
            ],
            schema=MULTIPLE_CHOICE.schema,
        )
    tables[("other", "test")] = tables[("cfg", "test")]
    dropped = {"cfg: short": 2, "other: long": 1}
    mixes = {"cfg": {"sister": 1, "opposite": 1, "random": 2}}
    new, old = validity_report(tables, dropped, mixes), per_row_report(tables, dropped, mixes)
    assert new == old
    found = {r: new["configs"]["cfg"]["rules"][r]["violations"] for r in RULES}
    # near-duplicates: cat/cat, set afloat (again), !!/?? (no words), red wine/wine red, one..five/one..six
    # (4 of 6 words); one two three/one two four is 2 of 4; dev answers 0,1,2,0 of 3-4 choices (0 at 4
    # choices), test 1,2,0,1,0,1 of 2-3: both unbalanced
    assert found == {"distinct": 2, "near_duplicate": 5, "empty": 1, "balanced": 2}


def test_each_choice_text_is_read_as_the_python_functions_read_it(small_wordnet_build):
    """Key, word tokens and blankness of every distinct choice of a real build, and of texts where
    Python's and polars' regular expressions or case mappings could part (non-ASCII, separators)."""
    from probesmith.builders.text import word_tokens
    from probesmith.builders.validity import _FlatChoices

    texts = sorted(
        {
            c
            for t in written_tables(small_wordnet_build.out).values()
            for row in t["choices"].to_pylist()
            for c in row
        }
    )
    texts += [
        "Café au lait",
        "İstanbul's",
        "naïve e\u0301clair",
        "\x1c",
        " \t",
        "",
        "K\u212a",
        "½ Ⅷ",
        "rock'n'roll",
        "__a__",
    ]
    flat = _FlatChoices(pa.array([texts], pa.list_(pa.string())))
    dictionary = flat.dictionary.to_pylist()
    assert sorted(dictionary) == sorted(set(texts))
    keys = {}
    for i, text in enumerate(dictionary):
        keys.setdefault(normalize_choice(text), set()).add(int(flat.key_id[i]))
        assert bool(flat.blank[i]) == (not text.strip()), repr(text)
        tokens = [flat.vocabulary[int(j)].as_py() for j in flat.tokens[i].indices]
        assert len(tokens) == flat.token_count[i] and set(tokens) == word_tokens(text), repr(text)
    assert all(len(ids) == 1 for ids in keys.values())  # one id per key, and
    assert len({i for ids in keys.values() for i in ids}) == len(keys)  # one key per id
