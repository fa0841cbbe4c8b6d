import gzip

import pytest

from probesmith.builders.sources.gcide import (
    GcideSource,
    clean_definition,
    clean_text,
    decode_number,
    definition_problem,
    header_words,
    parse_entry,
    split_header,
    split_usage,
)
from probesmith.errors import SourceError

from ...conftest import needs_gcide

BANK = """Bank \\Bank\\ (b[a^][ng]k), n. [OE. banke; akin to E. bench, and
   prob. of Scand. origin; cf. Icel. bakki. See {Bench}.]
   1. A mound, pile, or ridge of earth, raised above the
      surrounding level; as, a bank of clouds; a bank of snow.
      [1913 Webster]

            They cast up a bank against the city. --2 Sam. xx.
                                                  15.
      [1913 Webster]

   2. (Mining)
      (a) The face of the coal at which miners are working.
      (b) The ground at the top of a shaft; as, ores are brought
          to bank.
          [1913 Webster]

   3. (A["e]ronautics) The lateral inclination of an
      a["e]roplane; as, a bank of 45[deg] is easy.
      [Webster 1913 Suppl.]

   {Bank swallow}, a small American and European swallow.
      [1913 Webster]
"""

ABACIST = """Abacist \\Ab"a*cist\\ ([a^]b"[.a]*s[i^]st), n. [LL abacista, fr.
   abacus.]
   One who uses an abacus in casting accounts; a calculator.
   [1913 Webster]
"""


def test_numbered_lettered_senses_usage_examples_and_markup():
    senses = parse_entry(BANK, "bank", 1)
    assert [s.number for s in senses] == ["1", "2a", "2b", "3"]
    assert all(s.pos == "noun" for s in senses)
    assert senses[0].definition == "A mound, pile, or ridge of earth, raised above the surrounding level."
    assert senses[0].examples == ("a bank of clouds", "a bank of snow")
    assert senses[2].examples == ("ores are brought to bank",)
    assert senses[3].definition == "The lateral inclination of an aëroplane."
    assert senses[3].labels == ("Aëronautics",)
    assert senses[3].examples == ("a bank of 45° is easy",)
    assert senses[0].key == "bank#1.1"


def test_unnumbered_single_sense_and_verb_pos():
    (sense,) = parse_entry(ABACIST, "abacist", 1)
    assert (
        sense.number == "1"
        and sense.definition == "One who uses an abacus in casting accounts; a calculator."
    )
    (verb,) = parse_entry(
        "Bank \\Bank\\, v. t.\n   To deposit in a bank. --Johnson.\n   [1913 Webster]\n", "bank", 2
    )
    assert verb.pos == "verb" and verb.definition == "To deposit in a bank."
    # GCIDE's entries taken from WordNet write "adj."
    (adjective,) = parse_entry(
        "integrated \\integrated\\ adj.\n   1. Formed or united into a whole.\n", "integrated", 1
    )
    assert adjective.pos == "adjective" and adjective.marker == "adj."


def test_headwords_come_from_the_header_not_the_index():
    assert header_words(
        'Banc \\Banc\\, Bancus \\Ban"cus\\, Bank \\Bank\\, n. [OF. banc.]\n   A bench.\n'
    ) == [
        "Banc",
        "Bancus",
        "Bank",
    ]
    wrapped = (
        'Autoschediastic \\Au`to*sche`di*as"tic\\\n   ([add]`t[-o]*sk[=e]), Autoschediastical\n'
        '\\Au`to*sche`di*as"tic*al\\ (-[a^]s"t[i^]*kal), a. [Auto- + Gr.\n   schedia`zein.]\n'
        "   Extemporary; offhand. [R.] --Dean Martin.\n"
    )
    assert header_words(wrapped) == ["Autoschediastic", "Autoschediastical"]
    assert [s.definition for s in parse_entry(wrapped, "autoschediastic", 1)] == ["Extemporary; offhand."]
    folk = "Folk \\Folk\\ (f[=o]k), n. collect. & pl.\n   [AS. folc; akin to D. volk, Sw. & Dan. folk, and\n   perh. to E. follow.]\n   1. (Eng. Hist.) A community; a tribe. [Obs.]\n"
    header, body = split_header(folk)
    assert header.endswith("follow.]") and body.strip().startswith("1. (Eng. Hist.)")
    (sense,) = parse_entry(folk, "folk", 1)
    assert sense.definition == "A community; a tribe." and sense.labels == ("Eng. Hist.",)


@pytest.mark.parametrize(
    "raw, cleaned, labels",
    [
        ("(Zool.) (Obs.) A water newt", "A water newt", ("Zool.", "Obs.")),
        ("a. (Anat.) Pertaining to the wing", "Pertaining to the wing", ("Anat.",)),
        ("a. 1. Consisting in circumstances", "Consisting in circumstances", ()),
        ("A false membrane. Cf. Group. Diphtherial", "A false membrane.", ()),
        ('Having a long skull. -- Dol`i*cho*ceph"al, a. & n.', "Having a long skull.", ()),
        ('Delighting the taste. "Ambrosial food."', "Delighting the taste.", ()),
        ("A mean fellow. -- Sir P. Sidney.", "A mean fellow.", ()),
        ("preserved from a previous age", "Preserved from a previous age", ()),
        ('("jd or jd) Having a certain age', "Having a certain age", ()),
        ('(a*ni"zm), n. the doctrine that opposes it', "The doctrine that opposes it", ()),
        ("(-d). Any species of the genus Cicada", "Any species of the genus Cicada", ()),
    ],
)
def test_definitions_are_cleaned_of_labels_prefixes_and_run_ons(raw, cleaned, labels):
    assert clean_definition(raw, frozenset({"diphtherial"})) == (cleaned, labels)


def test_definitions_with_residue_are_not_choices():
    assert definition_problem("A bench; a high seat.") is None
    assert definition_problem("T. s*tzd); p. pr. & vb. n. Chastising.] 1. To punish") is not None
    assert definition_problem("The mayweed. See Mayweed.") == "a cross-reference"
    assert definition_problem("A sea (or lake") == "unbalanced parentheses or quotes"
    assert definition_problem("Same thing.") == "under three words"


def test_helpers():
    assert decode_number("KpRV") == ((10 * 64 + 41) * 64 + 17) * 64 + 21
    assert clean_text('a["e]roplane [Obs.]  {x}') == "aëroplane x"
    assert split_usage("To heap or pile up; as, to bank sand.") == ("To heap or pile up", ("to bank sand",))


@needs_gcide
@pytest.mark.integration
def test_real_dictionary_parses_bank():
    senses = [s for s in GcideSource().senses() if s.word == "bank"]
    assert len(senses) > 20 and {"noun", "verb"} <= {s.pos for s in senses}
    assert any(s.examples == ("a bank of clouds", "a bank of snow") for s in senses)


@needs_gcide
@pytest.mark.integration
def test_blocks_go_to_their_own_headwords_only():
    """The index lists Mute's block under "b" and Monkey's under "a": neither is theirs."""
    by_word = {}
    for sense in GcideSource().senses():
        by_word.setdefault(sense.word, []).append(sense)
    assert not any("articulation" in s.definition or "deaf" in s.definition for s in by_word["b"])
    assert not any("Quadrumana" in s.definition for s in by_word.get("a", []))
    assert by_word["religion"] and by_word["legate"]  # once left without senses
    assert any("from deafness" in s.definition for s in by_word["mute"])


def gcide_copy(tmp_path):
    folder = tmp_path / "dictd"
    folder.mkdir()
    (folder / "gcide.index").write_bytes(open("/usr/share/dictd/gcide.index", "rb").read())
    (folder / "gcide.dict.dz").write_bytes(open("/usr/share/dictd/gcide.dict.dz", "rb").read())
    return folder


@needs_gcide
@pytest.mark.integration
def test_truncated_dictionary_and_bad_index(tmp_path):
    folder = gcide_copy(tmp_path)
    data = (folder / "gcide.dict.dz").read_bytes()
    (folder / "gcide.dict.dz").write_bytes(data[: len(data) // 2])
    with pytest.raises(SourceError, match=r"gcide.dict.dz is truncated or corrupt.*--reinstall dict-gcide"):
        GcideSource(folder).senses()
    (folder / "gcide.dict.dz").write_bytes(gzip.compress(gzip.decompress(data)[:1_000_000]))
    with pytest.raises(SourceError, match=r"points past the end of the text"):
        GcideSource(folder).senses()
    (folder / "gcide.dict.dz").write_bytes(data)
    with open(folder / "gcide.index", "a") as fh:
        fh.write("broken line without tabs\n")
    with pytest.raises(SourceError, match=r"gcide.index is truncated or corrupt \(line 203646 is malformed"):
        GcideSource(folder).senses()


def test_missing_dictionary_names_the_package(tmp_path):
    with pytest.raises(SourceError, match=r"gcide.index is missing.*apt-get install dict-gcide"):
        GcideSource(tmp_path).senses()
