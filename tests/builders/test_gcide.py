import gzip

import pytest

from probesmith.builders.gcide import (
    GcideSource,
    clean_text,
    decode_number,
    parse_entry,
    split_usage,
)
from probesmith.errors import SourceError

from ..conftest import needs_gcide

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
    assert senses[3].definition == "(Aëronautics) The lateral inclination of an aëroplane."
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
