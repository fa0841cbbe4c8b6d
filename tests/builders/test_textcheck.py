"""The text checker (Hunspell + Link Grammar) on hand-labelled sentences and on every form the default
Wikidata specs use (issue 25)."""

import pytest

import probesmith.builders.sources  # noqa: F401 -- builders.data and the sources import each other
from probesmith.builders.families.wikidata_forms import forms_in_use
from probesmith.builders.textcheck import (
    EnglishToolMissing,
    GrammarChecker,
    SpellChecker,
    apply_fixes,
    check_forms,
    check_template,
    fill_form,
    frame_words,
    load_template_fixes,
    relation_samples,
)

# (template, subject, object, reads as English once filled) -- labelled by hand. The bad ones are
# the issue's ("Lewis Porter is pianist by profession", "[X] is member of [Y]", "univeristy"),
# patterns the paraphrase family rejects by hand, and made-up slips (agreement, a missing word).
LABELLED = [
    ("[X] is [Y] by profession.", "Lewis Porter", "pianist", False),
    ("[Y] was [X]'s occupation.", "Mike Terry", "record producer", False),
    ("[X] is member of [Y].", "Lionel Messi", "FC Barcelona", False),
    ("[X] plays in [Y] position.", "Lionel Messi", "forward", False),
    ("[X] is a taxonomic type of [Y].", "Cnemoscopus", "Grey-hooded Bush Tanager", False),
    ("Which univeristy was [X] educated at?", "Albert Einstein", "ETH Zurich", False),
    ("What is the origianl language of [X]?", "Casablanca", "English", False),
    ("[X] born in [Y].", "Barack Obama", "Honolulu", False),
    ("[X] is an instance [Y].", "Berlin", "city", False),
    ("[Y] musicians [X].", "Miles Davis", "jazz", False),
    ("[X] is located [Y].", "Paris", "France", False),
    ("[X] a citizen of [Y].", "Angela Merkel", "Germany", False),
    ("The capital of [X] are [Y].", "France", "Paris", False),
    ("[X] have the position of [Y].", "Angela Merkel", "Chancellor of Germany", False),
    ("[X] was educated at the univeristy of [Y].", "Albert Einstein", "Zurich", False),
    ("[X] was born [Y].", "Barack Obama", "Honolulu", False),
    ("[X] is developed [Y].", "Windows", "Microsoft", False),
    ("[X] is the [Y] language official.", "France", "French", False),
    ("[X] was born in [Y].", "Barack Obama", "Honolulu", True),
    ("The capital of [X] is [Y].", "France", "Paris", True),
    ("[Y] serves as the capital of [X].", "France", "Paris", True),
    ("[X] is a citizen of [Y].", "Angela Merkel", "Germany", True),
    ("[X] is a member of [Y].", "Lionel Messi", "FC Barcelona", True),
    ("[X] plays in the [Y] position.", "Lionel Messi", "forward", True),
    ("[X] works as a [Y].", "Lewis Porter", "pianist", True),
    ("[X] is a [Y] by profession.", "Lewis Porter", "pianist", True),
    ("Which university was [X] educated at?", "Albert Einstein", "ETH Zurich", True),
    ("Who is [X] married to?", "Barack Obama", "Michelle Obama", True),
    ("[X] died in [Y].", "Albert Einstein", "Princeton", True),
    ("The official language of [X] is [Y].", "France", "French", True),
    ("[X] was developed by [Y].", "Windows", "Microsoft", True),
    ("[X] is part of [Y].", "Bavaria", "Germany", True),
    ("Which country is [X] located in?", "Paris", "France", True),
    ("[X] is located in [Y].", "Paris", "France", True),
    ("[X] is named after [Y].", "America", "Amerigo Vespucci", True),
    ("[X] was written in [Y].", "Don Quixote", "Spanish", True),
    ("[X]'s occupation is [Y].", "Mike Terry", "record producer", True),
    ("The type species of [X] is [Y].", "Cnemoscopus", "Grey-hooded Bush Tanager", True),
    ("[X] is a [Y] citizen.", "Angela Merkel", "German", True),
    ("[X] was founded in [Y].", "Harvard University", "Cambridge", True),
]


def labelled_scores(grammar=None, spelling=None) -> dict:
    """Precision and recall of the checker (spelling or grammar failure = flagged) on LABELLED."""
    flagged = [bool(check_template("test", "P0", t, [(s, o)], spelling, grammar)) for t, s, o, _ in LABELLED]
    bad = [not good for *_, good in LABELLED]
    true_pos = sum(f and b for f, b in zip(flagged, bad))
    return {
        "bad": sum(bad),
        "good": len(bad) - sum(bad),
        "bad_flagged": true_pos,
        "good_flagged": sum(f and not b for f, b in zip(flagged, bad)),
        "precision": round(true_pos / max(sum(flagged), 1), 3),
        "recall": round(true_pos / max(sum(bad), 1), 3),
    }


@pytest.fixture(scope="module")
def tools():
    try:
        return SpellChecker(), GrammarChecker()
    except EnglishToolMissing as exc:  # setup.sh installs them; say which is missing
        pytest.fail(str(exc))


def test_issue_examples_are_flagged_and_their_fixes_pass(tools):
    spelling, grammar = tools
    assert check_template(
        "t", "P106", "[X] is [Y] by profession.", [("Lewis Porter", "pianist")], spelling, grammar
    )
    assert check_template(
        "t", "P463", "[X] is member of [Y].", [("Lionel Messi", "FC Barcelona")], spelling, grammar
    )
    typo = check_template(
        "t", "P69", "Which univeristy was [X] educated at?", [("Ada Lovelace", "x")], spelling, grammar
    )
    assert [p.kind for p in typo] == ["spelling"] and "university" in typo[0].detail
    assert not check_template(
        "t", "P106", "[X] works as a [Y].", [("Lewis Porter", "pianist")], spelling, grammar
    )
    assert not check_template(
        "t", "P463", "[X] is a member of [Y].", [("Lionel Messi", "FC Barcelona")], spelling, grammar
    )


def test_labelled_precision_and_recall(tools):
    """Measured: a grammar-and-spelling checker that is right when it flags, and flags most faults."""
    scores = labelled_scores(tools[1], tools[0])
    assert scores["precision"] >= 0.8, scores
    assert scores["recall"] >= 0.6, scores


def test_frames_skip_slots_and_fillers():
    assert frame_words("[X]'s place of birth is [Y].") == ["place", "of", "birth", "is"]
    assert frame_words("[X] was born in the city of __") == ["was", "born", "in", "the", "city", "of"]
    assert (
        fill_form("[Y] is an [X] by profession.", "Lewis Porter", "pianist")
        == "Pianist is a Lewis Porter by profession."
    )
    assert (
        fill_form("[X] was born in the city of __", "Ada Lovelace", "London")
        == "Ada Lovelace was born in the city of London"
    )


def test_missing_library_names_the_package(monkeypatch):
    import probesmith.builders.textcheck as textcheck

    monkeypatch.setattr(textcheck, "LINK_GRAMMAR_LIBRARY", "liblink-grammar-absent.so.9")
    monkeypatch.setattr(textcheck.ctypes.util, "find_library", lambda name: None)
    with pytest.raises(EnglishToolMissing, match="liblink-grammar5"):
        GrammarChecker()


def test_fixes_catalog_rewrites_and_drops(tmp_path):
    path = tmp_path / "fixes.yaml"
    path.write_text(
        "patterns:\n- {relation: P27, template: '[X] comes from [Y].', reason: origin is not citizenship}\n"
        "questions:\n- {relation: P69, template: 'Which univeristy was [X] educated at?', "
        "replace_with: 'Which university was [X] educated at?', reason: typo}\n"
    )
    assert apply_fixes("patterns", "P27", "[X] comes from [Y]", str(path)) is None
    assert apply_fixes("patterns", "P27", "[X] is a citizen of [Y].", str(path)) == "[X] is a citizen of [Y]."
    assert apply_fixes("questions", "P69", "Which univeristy was [X] educated at?", str(path)).startswith(
        "Which university"
    )
    bad = tmp_path / "bad.yaml"
    bad.write_text("patterns:\n- {relation: P27, template: '[X] comes from [Y].'}\n")
    with pytest.raises(Exception, match="reason"):
        load_template_fixes(str(bad))


@pytest.fixture(scope="module")
def default_forms_checked(wikidata_store):
    from probesmith.builders.sources import WikidataSpec, open_wikidata
    from probesmith.builders.sources.catalog import load_catalog

    forms = forms_in_use()
    with open_wikidata(WikidataSpec(source=str(wikidata_store), cache_mode="off")) as (client, _):
        samples = relation_samples(
            client, {f.relation for f in forms}, load_catalog("catalogs/wikidata_relations")
        )
    return forms, samples


def test_every_form_of_the_default_specs_reads_as_english(default_forms_checked):
    """Every template, pattern, question and cloze the default relations, paraphrases and rules
    specs use: 0 unknown words in its frame, and filled with 3 typed samples it parses."""
    forms, samples = default_forms_checked
    assert {f.used_by for f in forms} == {"relations", "paraphrases", "rules"}
    problems, unsampled = check_forms(forms, samples)
    assert not unsampled, [(f.relation, f.template) for f in unsampled]
    assert not problems, "\n".join(
        f"{p.kind} {p.origin} {p.relation}: {p.template} -> {p.detail}" for p in problems
    )


def test_the_form_check_fails_on_an_injected_bad_template(default_forms_checked):
    forms, samples = default_forms_checked
    form = next(f for f in forms if f.relation == "P106")
    injected = [*forms, type(form)("catalog", "P106", "[X] is [Y] by profesion.", "relations")]
    problems, _ = check_forms(injected, samples)
    assert {p.kind for p in problems if p.template == "[X] is [Y] by profesion."} == {"spelling", "grammar"}


def test_no_dropped_pattern_reaches_the_paraphrase_bank():
    """A pattern, question or cloze the fixes drop is in no form of the family that reads it (patterns: the
    paraphrase banks, the relations catalog's copies in them included; questions and clozes: the rules
    family); a rewrite replaces it."""
    fixes = [f for f in load_template_fixes().values() if f.kind != "read_by_hand"]
    assert sum(f.replace_with is None for f in fixes) >= 40
    key = lambda text: text.replace("___", "__").rstrip(" .?").lower()  # noqa: E731
    family = {"patterns": "paraphrases", "questions": "rules", "clozes": "rules"}
    forms = forms_in_use()
    used = {(f.used_by, f.relation, key(f.template)) for f in forms}
    used_anywhere = {(f.relation, key(f.template)) for f in forms}
    for fix in fixes:
        if fix.replace_with is None or key(fix.replace_with) != key(fix.template):
            assert (family[fix.kind], fix.relation, key(fix.template)) not in used, fix
        if fix.replace_with is not None:
            assert (fix.relation, key(fix.replace_with)) in used_anywhere, fix


def test_a_real_paraphrase_build_holds_the_fixed_patterns_only(small_paraphrases_build):
    """The small build's pattern bank (P19, P36, P103, P30, P138): no dropped or replaced pattern, its rewrite
    instead (BEAR's 'speaks [Y] natively' -> 'was a native speaker of [Y]'), 0 unknown frame words."""
    import polars as pl

    from probesmith.schemas.parquet import read_parquet

    patterns = pl.concat(
        [pl.from_arrow(read_parquet(p)) for p in small_paraphrases_build.out.glob("patterns/*.parquet")]
    )
    built = {(r, t.rstrip(" .").lower()) for r, t in patterns.select("relation_id", "template").iter_rows()}
    fixes = [
        f
        for f in load_template_fixes().values()
        if f.kind == "patterns" and f.relation in {"P19", "P36", "P103", "P30", "P138"}
    ]
    assert fixes, "the small build's relations have fixes to check"
    for fix in fixes:
        assert (fix.relation, fix.template.rstrip(" .").lower()) not in built, fix
    assert ("P103", "[x] was a native speaker of [y]") in built  # in the past since the twenty-second read
    spelling = SpellChecker()
    assert not [t for t in patterns["template"] if spelling.unknown_words(" ".join(frame_words(t)))]


def test_no_catalog_template_names_its_subject_by_a_pronoun_and_no_network_is_a_who():
    """The twenty-second read: "Walter Berry was known for their bass-baritone voice." (P412) named a singer by
    a pronoun and claimed fame where the relation states a voice; "Who is the original broadcaster of Memories
    of the Alhambra?" asked "who" of a network (P449). No form the default specs use does either now."""
    import re

    from probesmith.builders.families.relations_validity import PEOPLE_IN_THE_PAST

    forms = forms_in_use()
    pronouns = [
        f.template
        for f in forms
        if f.origin == "catalog"
        and f.relation in PEOPLE_IN_THE_PAST
        and re.search(r"\b(their|his|her|he|she|they)\b", f.template, re.I)
    ]
    assert pronouns == []
    who_networks = [f.template for f in forms if f.relation == "P449" and f.template.startswith("Who ")]
    assert who_networks == []
    assert any(f.relation == "P412" and f.template == "[X] sang [Y]." for f in forms)


def test_no_paraphrase_pattern_about_people_is_in_the_present():
    """The twenty-second read: paraphrase patterns stated a person's fact in the present ("Talhah is a follower
    of [Y]", d. 656; "Chidi Odiah is a native speaker of [Y]"): over every pattern the default paraphrases spec
    uses, none of a relation whose subjects are people (relations_validity.PEOPLE_IN_THE_PAST, and P140, whose
    non-human subjects the family drops) is in the present, by the rule the relations templates follow."""
    from probesmith.builders.families.relations_validity import PEOPLE_IN_THE_PAST, in_the_present

    people = PEOPLE_IN_THE_PAST | {"P140"}
    patterns = [f for f in forms_in_use() if f.used_by == "paraphrases" and f.relation in people]
    assert {"P103", "P140", "P1412"} <= {f.relation for f in patterns}
    present = [f.template for f in patterns if in_the_present(f.template) or ", who plays" in f.template]
    assert present == []


def test_twenty_third_read_forms_are_gone_from_every_form_in_use():
    """The twenty-third read's wordings, none in any form the default specs use: P135 "was a part of" and the
    present "is identified with" (a person or a work of the past), P183 "is native to" and "found naturally
    in" (weaker than endemic), P413 "was playing as a" (a career as a passing event), P449 "released" (a
    network broadcasts), P17 "the country of", P1376 "capital city" (a shire's seat), P140's "religion of ___"
    (a church is no religion) and P364 "originally created in" (a film's language)."""
    import re

    faults = {
        "P135": r"a part of|is identified with",
        "P183": r"native to|found naturally",
        "P413": r"was playing",
        "P449": r"released",
        "P17": r"the country of",
        "P1376": r"capital city",
        "P140": r"religion of ___|religion of __$|^Which religion is",
        "P364": r"originally created",
    }
    forms = forms_in_use()
    found = [(f.relation, f.template) for f in forms if re.search(faults.get(f.relation, "^$"), f.template)]
    assert found == []
    assert {"P135", "P183", "P413", "P449", "P17", "P1376", "P140", "P364"} <= {f.relation for f in forms}


def test_twenty_fourth_read_patterns_are_gone_from_every_paraphrase_bank():
    """The twenty-fourth read's pattern faults, none in any pattern the default paraphrases spec uses (the
    relations catalog's copies included): the present of the dead (P19 "is originally from", "originates
    from", "place of birth is"; P136 "plays"), "in the region of" (near, P131/P276), "believed in" a church (P140),
    the present passive of a finished product (P176 "is produced by", P178 "is developed by"), a fixed "the"
    before [X] (P176 "creator of the"), a work that "recorded for" a label or an artist "released by" one
    (P264), getting a job for a work location (P937 "found employment", "took up work"), "typically" (P1412)
    and "which has the capital", "governmental seat" (P36, P1376); every relation keeps min_patterns."""
    import re

    from probesmith.builders.registry import load_spec

    faults = {
        "P19": r"is originally from|originates from|place of birth is|birthplace of \[X\] is",
        "P136": r"\bplays\b",
        "P131": r"in the region of",
        "P276": r"in the region of",
        "P140": r"believe",
        "P176": r"is produced by|creator of the",
        "P178": r"is developed by",
        "P264": r"recorded for|released by",
        "P937": r"found employment|took up work",
        "P1412": r"typically",
        "P36": r"which has the capital|governmental seat",
        "P1376": r"which has the capital|governmental seat",
    }
    patterns = [f for f in forms_in_use() if f.used_by == "paraphrases"]
    found = [
        (f.relation, f.template) for f in patterns if re.search(faults.get(f.relation, "^$"), f.template)
    ]
    assert found == []
    sizes = {relation: sum(f.relation == relation for f in patterns) for relation in faults}
    assert min(sizes.values()) >= load_spec("paraphrases").min_patterns, sizes


def test_twenty_fourth_read_forms_are_gone_from_every_catalog_form_in_use():
    """The twenty-fourth read's catalog wordings (every template filled with real instances), none in any form the
    default specs take from the catalog: another or a narrower relation (P61 "first described", P98 "checked
    and corrected", P170 "a work of art", P190 "twin cities", P206 "next to" alone, P403 "eventually leads",
    P427 "type species", P463 and P611 "affiliated with", P59 "a part of the constellation", P6886 "primarily"),
    no English as filled (P105 "taxon rank", P115 "their home games", P264 and P676 a possessive on a title,
    P413 "in the [Y] position" and "was a [Y]", P641 "The sport of [X]", P669 "The location of", P7937 "The form
    of", P87 "the opera"), the present of the past (P178, P272, P6, P466, P3373, P19) and P495 "created in" (MQuAKE's
    cloze too, rewritten in template_fixes: "The Beach Boys were created in ___")."""
    import re

    faults = {
        "P61": r"first described",
        "P98": r"checked and corrected",
        "P170": r"work of art",
        "P190": r"twin cities",
        "P206": r"^\[X\] is next to|shores|adjacent",
        "P403": r"eventually leads",
        "P427": r"type species",
        "P463": r"affiliated with",
        "P611": r"affiliated with",
        "P59": r"is a part of the",
        "P6886": r"primarily",
        "P105": r"taxon rank",
        "P115": r"their home games",
        "P264": r"^\[X\]'s",
        "P676": r"^\[X\]'s",
        "P413": r"\[Y\] position|^\[X\] was an? (?:\[Y\]|_)",
        "P641": r"^The sport of \[X\]",
        "P669": r"^The location of",
        "P7937": r"^The form of",
        "P87": r"the opera",
        "P178": r"is developed by",
        "P272": r"is produced by",
        "P6": r"^The head of government of \[X\] is",
        "P466": r"is occupied|occupant of \[X\] is|occupies",
        "P3373": r"are siblings|is the sibling",
        "P19": r"place of birth is|birthplace of \[X\] is",
        "P495": r"created in",
    }
    forms = [f for f in forms_in_use() if "catalog" in f.origin]
    found = [(f.relation, f.template) for f in forms if re.search(faults.get(f.relation, "^$"), f.template)]
    assert found == []
    assert set(faults) <= {f.relation for f in forms}
