r"""GCIDE source: Debian's ``dict-gcide`` files parsed into word senses with usage examples.

``gcide.index`` lists ``headword<TAB>offset<TAB>length`` (dictd's base-64 numbers) into the
uncompressed text of ``gcide.dict.dz`` (dictzip, readable as gzip). Each block is one entry of
Webster's 1913 layout::

    Bank \Bank\ (b[a^][ng]k), n. [OE. banke; ...]
       1. A mound, pile, or ridge of earth, ...; as, a bank of clouds; a bank of snow.
          [1913 Webster]

:func:`parse_entry` turns a block into :class:`Sense` records: headword, part of speech, sense
number, definition, and the inline ``as, ...`` usage examples. GCIDE is licensed under the GPL
(version 3 or later); datasets derived from it carry that licence.
"""

from __future__ import annotations

import gzip
import logging
import re
import unicodedata
import zlib
from dataclasses import dataclass
from pathlib import Path

from probesmith.errors import SourceError
from probesmith.schemas.manifest import file_sha256

log = logging.getLogger(__name__)

DEBIAN_GCIDE_DIR = Path("/usr/share/dictd")
INSTALL_HINT = "Install it with `apt-get install dict-gcide` (or run the README's setup command)."
_B64 = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}

POS_MARKERS = {
    "n.": "noun",
    "v. t.": "verb",
    "v. i.": "verb",
    "v.": "verb",
    "a.": "adjective",
    "adv.": "adverb",
    "prep.": "preposition",
    "conj.": "conjunction",
    "interj.": "interjection",
    "pron.": "pronoun",
}
_POS_RE = re.compile(
    r"(?<![A-Za-z.])(" + "|".join(re.escape(m) for m in sorted(POS_MARKERS, key=len, reverse=True)) + r")"
)
_ACCENTS = {"'": "\u0301", "`": "\u0300", '"': "\u0308", "^": "\u0302", "~": "\u0303", ",": "\u0327"}
_ENTITIES = {
    "ae": "æ",
    "AE": "Æ",
    "oe": "œ",
    "OE": "Œ",
    "deg": "°",
    "frac12": "½",
    "frac14": "¼",
    "frac34": "¾",
    "sect": "§",
    "pound": "£",
    "mdash": "—",
    "ndash": "–",
    "hand": "☞",
}
_SKIP_PARAGRAPH = re.compile(r"^\s*(\{|Syn:|Usage:|Note:|Syn\.|See also|Stress)")
_SENSE_START = re.compile(r"^ {3}(\d+)\.\s+")
_SUBSENSE = re.compile(r"^\s*\(([a-z])\)\s+")
_SOURCE_TAG_LINE = re.compile(r"^\s*\[[^\]]*\]\s*$")
_CITATION = re.compile(r"\s*(?:\"[^\"]*\"\s*)?--(?=[A-Z0-9])")
_USAGE = re.compile(r"[;:,]\s*as,\s+")


@dataclass(frozen=True)
class Sense:
    """One sense of a GCIDE entry."""

    word: str
    pos: str
    entry: int
    number: str
    definition: str
    examples: tuple[str, ...]
    labels: tuple[str, ...] = ()  # domain and usage labels taken out of the definition: Zool., Obs.

    @property
    def key(self) -> str:
        """``headword#entry.sense``, unique within the dictionary."""
        return f"{self.word}#{self.entry}.{self.number}"


def decode_number(text: str) -> int:
    """Decode dictd's base-64 numbers (``"KpRV"`` -> offset)."""
    value = 0
    for char in text:
        value = value * 64 + _B64[char]
    return value


def clean_text(text: str) -> str:
    """GCIDE markup to plain text: accent codes, entities, braces, tags, whitespace."""
    text = re.sub(r"\[([`'\"^~,])([A-Za-z])\]", lambda m: m.group(2) + _ACCENTS[m.group(1)], text)
    text = re.sub(r"\[([A-Za-z]+\d*)\]", lambda m: _ENTITIES.get(m.group(1), f"[{m.group(1)}]"), text)
    text = re.sub(r"\[[^\]]*\]", "", text)  # remaining tags: [Obs.], [R.], source notes
    text = text.replace("{", "").replace("}", "")
    text = unicodedata.normalize("NFC", re.sub(r"\s+", " ", text)).strip()
    return text


def split_usage(text: str) -> tuple[str, tuple[str, ...]]:
    """Split a sense text into its definition and its inline ``as, ...`` examples."""
    match = _USAGE.search(text)
    if match is None:
        return text.rstrip(" ;,:"), ()
    definition = text[: match.start()].rstrip(" ;,:")
    examples = []
    for part in text[match.end() :].split(";"):
        example = re.split(r"\.\s+(?=[A-Z])", part, maxsplit=1)[0]
        example = re.sub(r",?\s*etc\.?$", "", example.strip().rstrip(".").strip())
        if example and '"' not in example and "--" not in example:
            examples.append(example)
    return definition, tuple(examples)


def parse_entry(block: str, word: str, entry: int, headwords: frozenset[str] = frozenset()) -> list[Sense]:
    """Parse one dictionary block into its senses (numbered, lettered or a single one).

    ``headwords`` (every headword of the dictionary, lower-cased) lets the cleaner recognise the
    next entry's headword that the source sometimes runs into a definition's last line.
    """
    header, body = split_header(block)
    pos_match = _POS_RE.search(header.rsplit("\\", 1)[-1])
    pos = POS_MARKERS[pos_match.group(1)] if pos_match else "unknown"
    senses: list[tuple[str, str]] = []
    for paragraph in re.split(r"\n\s*\n", body):
        lines = [line for line in paragraph.split("\n") if line.strip() and not _SOURCE_TAG_LINE.match(line)]
        if not lines or _SKIP_PARAGRAPH.match(lines[0]):
            continue
        start = _SENSE_START.match(lines[0])
        if start:
            number = start.group(1)
            lines[0] = lines[0][start.end() :]
        elif not senses and lines[0].startswith("   ") and not lines[0].startswith("    "):
            number = "1"
            lines[0] = lines[0].strip()
        else:
            continue  # quotations and notes are indented deeper
        subsenses = [i for i, line in enumerate(lines) if _SUBSENSE.match(line)]
        if not subsenses:
            senses.append((number, " ".join(lines)))
            continue
        bounds = [*subsenses, len(lines)]
        for begin, end in zip(bounds, bounds[1:], strict=False):
            letter = _SUBSENSE.match(lines[begin]).group(1)
            first = _SUBSENSE.sub("", lines[begin], count=1)
            senses.append((f"{number}{letter}", " ".join([first, *lines[begin + 1 : end]])))
    result = []
    seen_numbers: dict[str, int] = {}
    for number, raw in senses:
        repeats = seen_numbers.get(number, 0)
        seen_numbers[number] = repeats + 1
        if repeats:  # the source numbers two senses alike now and then; keys must stay unique
            number = f"{number}-{repeats + 1}"
        text = _CITATION.split(raw, maxsplit=1)[0]
        definition, examples = split_usage(clean_text(text))
        definition, labels = clean_definition(definition, headwords)
        if len(definition.split()) >= 2:
            definition = definition.rstrip(" .;,:") + "."  # one ending for all, no length cue
            result.append(Sense(word, pos, entry, number, definition, examples, labels))
    return result


_PRONUNCIATION = re.compile(r"\\[^\\]*\\")
_OPEN_CLOSE = {"[": "]", "(": ")"}


def split_header(block: str) -> tuple[str, str]:
    """Split a block into its header (headwords, pronunciations, part of speech, etymology) and body.

    The header is the first line, continued while a bracket or parenthesis is open, while a line
    starts at column 0 (a headword list wrapped by the source), while the next line opens an
    etymology (``[AS. folc; ...``), or while no part of speech has been seen yet and the next line
    carries a pronunciation.
    """
    lines = block.split("\n")
    taken = 1
    while taken < len(lines):
        header = "\n".join(lines[:taken])
        following = lines[taken]
        unbalanced = any(header.count(o) > header.count(c) for o, c in _OPEN_CLOSE.items())
        no_pos_yet = _POS_RE.search(header.rsplit("\\", 1)[-1]) is None
        pronunciation_next = following.strip().startswith(("(", "\\"))
        etymology_next = following.strip().startswith("[") and not _SOURCE_TAG_LINE.match(following)
        if (
            unbalanced
            or (following[:1] not in (" ", "") and following.strip())
            or (no_pos_yet and pronunciation_next)
            or etymology_next
        ):
            taken += 1
        else:
            break
    return "\n".join(lines[:taken]), "\n" + "\n".join(lines[taken:])


def header_words(block: str) -> list[str]:
    r"""The headwords a block defines: the word before each ``\pro*nun"ci*a*tion\`` of its header.

    ``Banc \Banc\, Bancus \Ban"cus\, Bank \Bank\, n.`` defines banc, bancus and bank. Terms
    that the dictd index lists only because they are marked up inside the block (sub-entries,
    cross-references, letters of sub-senses) are not among them.
    """
    header, _ = split_header(block)
    pieces = _PRONUNCIATION.split(header)[:-1]
    words = []
    for piece in pieces:
        word = clean_text(re.split(r"[,)\]]", piece)[-1]).strip(" .")
        if word and not word.startswith("("):
            words.append(word)
    return words


_LABEL = re.compile(r"\((?:[A-Z][\w'\u00c0-\u024f]*\.?(?:\s*&\s*|\s+)?){1,6}\)")
_LEADING_POS = re.compile(r"^(?:n|v|a|adv|prep|conj|interj|pron)\.(?:\s*[ti]\.)?(?:\s*(?:pl|sing)\.)?\s+")
_LEADING_NUMBER = re.compile(r"^(?:\d+\.|\([a-z]\))\s+")
_DERIVED_FORMS = re.compile(r"\s+--\s+[A-Z][\w-]*[`\"*]")  # "-- Dol`i*cho*ceph"al, a. & n." run-on entries
_CROSS_REFERENCE = re.compile(r"(?:^|(?<=[.;]))\s*(?:See|Cf\.|Compare)(?:\s.*)?$")
# a short parenthesised lead is a label: "(football) a quick move", "(o. Eng. Law) The name of"
_LEADING_LABEL = re.compile(r"^\(((?:[\w.&'-]+,?\s?){1,4})\)\s+")
# a pronunciation before the text: "(\"jd or jd) Having a certain age", "(-sz). The dignity"
_LEADING_PRONUNCIATION = re.compile(r"^\((?:-|[^)]*[\"`*])[^)]*\)\.?\s*")
_TRAILING_AUTHOR = re.compile(r"\s+--\s*[A-Z][\w.']*(?:\s+[A-Z][\w.']*){0,3}\.?\s*$")  # "-- Sir P. Sidney."
_TRAILING_QUOTATION = re.compile(r"\s*\"[^\"]*\"[.,;]?\s*$")  # a quoted citation: "Ambrosial food."
_TRAILING_WORD = re.compile(r"(?<=[.;])\s+([A-Z][A-Za-z-]+)\.?\s*$")


_RESIDUE = {
    "markup residue (brackets, braces, stress marks)": re.compile(r"[\[\]{}\\*`]|\w\"\w"),
    "a cross-reference": re.compile(r"\bSee\b|\bCf\.|^Same as\b"),
    "etymology residue": re.compile(
        r"\bfr\.\s|(?:^|\s)(?:AS|OE|OF|OHG|Icel|Skr|Goth|Imp)\.\s|\bp\. p\.|\bp\. pr\."
    ),
}


def definition_problem(definition: str) -> str | None:
    """Why a cleaned definition cannot be a choice (None: it can).

    Fewer than three words, a cross-reference, or anything left of the source's markup:
    brackets, braces, stress marks, unbalanced parentheses or quotes, etymology abbreviations.
    """
    if len(definition.split()) < 3:
        return "under three words"
    if definition.count("(") != definition.count(")") or definition.count('"') % 2:
        return "unbalanced parentheses or quotes"
    if definition.startswith("("):
        return "a parenthesised note before the definition"
    for reason, pattern in _RESIDUE.items():
        if pattern.search(definition):
            return reason
    return None


def clean_definition(text: str, headwords: frozenset[str] = frozenset()) -> tuple[str, tuple[str, ...]]:
    """A definition without labels, part-of-speech or number prefixes, run-on entries or references.

    Returns the text and the labels taken out ("Zool.", "Obs.") in order.
    """
    labels = tuple(m.group(0)[1:-1] for m in _LABEL.finditer(text))
    text = _LABEL.sub(" ", text).strip()
    previous = None
    while previous != text:  # prefixes come in any order: "a. (Med., Chem.) 1. An amide"
        previous = text
        for pattern in (_LEADING_POS, _LEADING_NUMBER, _LEADING_PRONUNCIATION):
            text = pattern.sub("", text).strip()
        leading = _LEADING_LABEL.match(text)
        if leading:
            labels += (leading.group(1),)
            text = text[leading.end() :].strip()
    match = _DERIVED_FORMS.search(text)
    if match:
        text = text[: match.start()]
    for _ in range(2):  # "... Cf. Group. Diphtherial": the run-on headword, then the reference
        trailing = _TRAILING_WORD.search(text)
        if trailing and trailing.group(1).lower() in headwords:
            text = text[: trailing.start()]
        text = _CROSS_REFERENCE.sub("", text)
        text = _TRAILING_QUOTATION.sub("", text)
        text = _TRAILING_AUTHOR.sub("", text)
    text = re.sub(r"\s+([,;.])", r"\1", re.sub(r"\s+", " ", text)).strip(" ;,:")
    return text[:1].upper() + text[1:], labels


class GcideSource:
    """GCIDE as shipped by Debian's ``dict-gcide``."""

    def __init__(self, directory: Path = DEBIAN_GCIDE_DIR):
        self.directory = Path(directory)
        self.index_path = self.directory / "gcide.index"
        self.dict_path = self.directory / "gcide.dict.dz"
        self._text: bytes | None = None

    def check(self) -> None:
        """Raise :class:`SourceError` unless both files are present."""
        for path in (self.index_path, self.dict_path):
            if not path.is_file():
                raise SourceError(f"GCIDE file {path} is missing. {INSTALL_HINT}")

    def _corrupt(self, path: Path, problem: str) -> SourceError:
        return SourceError(
            f"GCIDE file {path} is truncated or corrupt ({problem}). "
            "Reinstall it with `apt-get install --reinstall dict-gcide`."
        )

    def read_text(self) -> bytes:
        """The whole uncompressed dictionary (decompressed once per source object)."""
        if self._text is None:
            self.check()
            try:
                self._text = gzip.decompress(self.dict_path.read_bytes())
            except (OSError, EOFError, zlib.error) as exc:
                raise self._corrupt(self.dict_path, str(exc)) from None
        return self._text

    def index(self) -> list[tuple[str, int, int]]:
        """(headword, offset, length) for every index line, the "00-..." info entries excluded."""
        self.check()
        rows = []
        with open(self.index_path, encoding="utf-8", errors="strict") as fh:
            for line_no, line in enumerate(fh, 1):
                parts = line.rstrip("\n").split("\t")
                try:
                    word, offset, length = parts
                    row = (word, decode_number(offset), decode_number(length))
                except (ValueError, KeyError):
                    raise self._corrupt(self.index_path, f"line {line_no} is malformed: {line!r}") from None
                if not word.startswith("00-"):  # database and edition notes
                    rows.append(row)
        return rows

    def version(self) -> dict[str, str]:
        """Version and file hashes for the manifest."""
        return {
            "name": "GCIDE",
            "version": self._database_short(),
            "gcide.index_sha256": file_sha256(self.index_path),
            "gcide.dict.dz_sha256": file_sha256(self.dict_path),
        }

    def _database_short(self) -> str:
        text = self.read_text()
        match = re.search(rb"00-database-short\n\s*(.+)\n", text)
        return match.group(1).decode().strip() if match else "unknown"

    def blocks(self) -> list[tuple[int, int, str, list[str]]]:
        """(offset, length, text, headwords) of every distinct block, in file order."""
        text = self.read_text()
        size = len(text)
        spans = sorted({(offset, length, word) for word, offset, length in self.index()})
        blocks, seen = [], set()
        for offset, length, word in spans:
            if (offset, length) in seen:
                continue
            seen.add((offset, length))
            if offset + length > size:
                raise self._corrupt(
                    self.dict_path,
                    f"index entry {word!r} points past the end of the text ({offset + length} > {size})",
                )
            block = text[offset : offset + length].decode("utf-8", errors="replace")
            blocks.append((offset, length, block, header_words(block)))
        return blocks

    def senses(self) -> list[Sense]:
        r"""Every sense of every entry, filed under each headword its block defines.

        A block goes to the headwords named in its own header (``Color \Col"or\, n.``), never to
        the other terms the dictd index lists for it (sub-entries, cross-references, the letters
        of lettered sub-senses): the index alone files *Mute*'s block under "b". Entries are
        numbered per word in file order.
        """
        blocks = self.blocks()
        headwords = frozenset(w.lower() for *_, words in blocks for w in words)
        entries_per_word: dict[str, int] = {}
        senses: list[Sense] = []
        without_headword = 0
        for _offset, _length, block, words in blocks:
            if not words:
                without_headword += 1
                continue
            for word in dict.fromkeys(w.lower() for w in words):
                entry = entries_per_word.get(word, 0) + 1
                entries_per_word[word] = entry
                senses.extend(parse_entry(block, word, entry, headwords))
        log.info(
            "parsed %d GCIDE senses from %d blocks (%d without a headword line)",
            len(senses),
            len(blocks),
            without_headword,
        )
        return senses
