"""WordNet 3.0's data, index and exception files read into flat tables, without NLTK's objects.

NLTK's reader keeps a ``Synset`` and a ``Lemma`` object (each with its own pointer dictionaries) per
sense it has read, parses every line through ``nltk.redos``' regex engine with timeouts, and reads a
synset from disk on first use of each word. The WordNet build reads every noun and verb synset and
asks about tens of thousands of words, so that reader held ~0.3 GB and took tens of seconds.
:class:`WordNetFiles` reads the four data files, the four index files and the four exception lists
once, keeps only what the builds ask (lemma names, lexicographer file, the ISA, near-synonym,
antonym and derivation pointers, the gloss of nouns and verbs) and answers the part of NLTK's API
they call — ``morphy``, ``synsets``, ``synset``, ``lemmas``, ``all_lemma_names`` — with NLTK's own
rules, so every answer equals NLTK's (tests/builders/sources/test_wordnet_files.py compares them over
every lemma and every word of every gloss).
"""

from __future__ import annotations

import re
from pathlib import Path

#: NLTK's parts of speech in the order ``synsets`` tries them when none is given
POS_LIST = ("n", "v", "a", "r")
_FILE_OF_POS = {"n": "noun", "v": "verb", "a": "adj", "r": "adv", "s": "adj"}
#: NLTK's ``WordNetCorpusReader.MORPHOLOGICAL_SUBSTITUTIONS``
MORPHOLOGICAL_SUBSTITUTIONS = {
    "n": (
        ("s", ""),
        ("ses", "s"),
        ("ves", "f"),
        ("xes", "x"),
        ("zes", "z"),
        ("ches", "ch"),
        ("shes", "sh"),
        ("men", "man"),
        ("ies", "y"),
    ),
    "v": (
        ("s", ""),
        ("ies", "y"),
        ("es", "e"),
        ("es", ""),
        ("ed", "e"),
        ("ed", ""),
        ("ing", "e"),
        ("ing", ""),
    ),
    "a": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "r": (),
}
MORPHOLOGICAL_SUBSTITUTIONS["s"] = MORPHOLOGICAL_SUBSTITUTIONS["a"]
#: synset pointers the graph reads (hypernyms, instance hypernyms, verb groups, also-sees)
GRAPH_POINTERS = ("@", "@i", "$", "^")
#: lemma pointers kept: antonyms (the graph) and derivations (the stem analyser)
LEMMA_POINTERS = ("!", "+")
#: a pointer's target as one int, ``offset * 8 + code`` (:func:`synset_key`), codes in this order
POS_OF_CODE = "nvasr"
_CODE_OF_POS = {pos: code for code, pos in enumerate(POS_OF_CODE)}
_NO_POINTERS = ((), (), (), ())


def synset_key(pos: str, offset: int) -> int:
    """A synset as one int: its offset and the code of its part of speech (``s`` apart from ``a``)."""
    return offset * 8 + _CODE_OF_POS[pos]


def _lemma_pointer(source: int, symbol: str, pos: str, offset: int, target: int) -> int:
    # source and target lemma indexes (< 256), the symbol's bit and the target synset, in one int
    return ((synset_key(pos, offset) * 256 + target) * 256 + source) * 2 + LEMMA_POINTERS.index(symbol)


def _decode_lemma_pointer(packed: int) -> tuple[int, str, str, int, int]:
    packed, symbol = divmod(packed, 2)
    packed, source = divmod(packed, 256)
    key, target = divmod(packed, 256)
    return source, LEMMA_POINTERS[symbol], POS_OF_CODE[key & 7], key >> 3, target


_SYNTACTIC_MARKER = re.compile(r"(.*?)(\([^()]*\))?$")
_QUOTED = re.compile(r"[\"].*?[\"]")
_EXAMPLE = re.compile(r'"([^"]*)"')


class WordNetFileError(ValueError):
    """A WordNet file that does not parse: truncated, damaged or not WordNet's."""


class SynsetRecord:
    """One synset as read from its data line (see :class:`WordNetFiles`)."""

    __slots__ = ("pos", "offset", "lexname_index", "lemma_names", "pointers", "lemma_pointers")

    def __init__(self, pos, offset, lexname_index, lemma_names, pointers, lemma_pointers):
        self.pos = pos  # the line's own part of speech: "s" for an adjective satellite
        self.offset = offset
        self.lexname_index = lexname_index
        self.lemma_names = lemma_names
        #: the targets (:func:`synset_key`) of each of :data:`GRAPH_POINTERS`, in the order NLTK's
        #: ``Synset._pointers`` (a set per symbol, filled in file order) gives them
        self.pointers = pointers
        #: the antonym and derivation pointers of the synset's lemmas, packed (file order)
        self.lemma_pointers = lemma_pointers

    def lemma_pointers_of(self, symbol: str) -> list[tuple[str, int, int]]:
        """Every lemma's pointers of one symbol: (pos, offset, target lemma index) in file order."""
        found = []
        for packed in self.lemma_pointers:
            _, kind, pos, offset, target = _decode_lemma_pointer(packed)
            if kind == symbol:
                found.append((pos, offset, target))
        return found

    def lemma_pointer_targets(self, name: str, symbol: str) -> list[tuple[str, int, int]]:
        """NLTK's ``_lemma_pointers[name, symbol]``: (pos, offset, target lemma index) in file order."""
        found = []
        for packed in self.lemma_pointers:
            source, kind, pos, offset, target = _decode_lemma_pointer(packed)
            if kind == symbol and self.lemma_names[source] == name:
                found.append((pos, offset, target))
        return found


class Sense:
    """A synset as the builds see it: the few ``nltk.corpus.reader.wordnet.Synset`` methods they call."""

    __slots__ = ("_files", "_record", "_name")

    def __init__(self, files: WordNetFiles, record: SynsetRecord):
        self._files = files
        self._record = record
        self._name = None

    def name(self) -> str:
        """NLTK's synset name: first lemma, part of speech, sense number of that lemma (``dog.n.01``)."""
        if self._name is None:
            self._name = self._files.synset_name(self._record)
        return self._name

    def pos(self) -> str:
        """The part of speech (``s`` for an adjective satellite)."""
        return self._record.pos

    def offset(self) -> int:
        """The byte offset of the synset's line in its data file."""
        return self._record.offset

    def lexname(self) -> str:
        """The lexicographer file's name (``noun.animal``)."""
        return self._files.lexnames[self._record.lexname_index]

    def lemma_names(self) -> list[str]:
        """The synset's lemmas as WordNet writes them (underscores, case kept, markers dropped)."""
        return list(self._record.lemma_names)

    def lemmas(self) -> list[Word]:
        """The synset's lemmas as :class:`Word` objects."""
        return [Word(self, i) for i in range(len(self._record.lemma_names))]

    def __eq__(self, other) -> bool:
        return isinstance(other, Sense) and other._record is self._record

    def __hash__(self) -> int:
        return hash((self._record.pos, self._record.offset))

    def __repr__(self) -> str:
        return f"Sense({self.name()!r})"


class Word:
    """A lemma of a synset: the few ``nltk.corpus.reader.wordnet.Lemma`` methods the builds call."""

    __slots__ = ("_sense", "_index")

    def __init__(self, sense: Sense, index: int):
        self._sense = sense
        self._index = index

    def name(self) -> str:
        """The lemma as WordNet writes it."""
        return self._sense._record.lemma_names[self._index]

    def synset(self) -> Sense:
        """The synset the lemma belongs to."""
        return self._sense

    def _related(self, symbol: str) -> list[Word]:
        files = self._sense._files
        targets = self._sense._record.lemma_pointer_targets(self.name(), symbol)
        return [Word(files.sense(pos, offset), index) for pos, offset, index in targets]

    def antonyms(self) -> list[Word]:
        """Lemmas WordNet marks as antonyms of this one."""
        return self._related("!")

    def derivationally_related_forms(self) -> list[Word]:
        """Lemmas WordNet links to this one by a derivational pointer."""
        return self._related("+")

    def __repr__(self) -> str:
        return f"Word({self._sense.name()}.{self.name()})"


class WordNetFiles:
    """WordNet 3.0 read from its files in one pass, answering NLTK's lookups with NLTK's rules.

    ``index[lemma][pos]``: the synset offsets of a lemma per part of speech in the index file's
    order (NLTK's ``_lemma_pos_offset_map``, less the ``s`` entries, derived on demand);
    ``exceptions[pos]``: the exception lists; ``records[file pos][offset]``: every synset;
    ``glosses[(pos, offset)]``: the raw gloss of each noun and verb synset (the graph's source).
    """

    def __init__(self, root: Path, lexnames: tuple[str, ...], gloss_parts: tuple[str, ...] = ("n", "v")):
        self.root = Path(root)
        self.lexnames = lexnames
        #: lemma -> (pos, offsets, pos, offsets...): a flat tuple, ~40 bytes less than a dict per lemma
        self.index: dict[str, tuple] = {}
        self.exceptions: dict[str, dict[str, tuple[str, ...]]] = {}
        self.records: dict[str, dict[int, SynsetRecord]] = {}
        self.glosses: dict[tuple[str, int], str] = {}
        self.satellites: frozenset[int] = frozenset()
        self._derived: dict[str, frozenset[str]] | None = None  # derived_names' table, made on first use
        #: noun and verb synsets in file order, the graph's order
        self.in_file_order: dict[str, list[SynsetRecord]] = {}
        for pos in ("n", "v", "a", "r"):
            self._read_data(pos, keep_glosses=pos in gloss_parts)
        self.satellites = frozenset(o for o, r in self.records["a"].items() if r.pos == "s")
        for pos in ("a", "r", "n", "v"):  # NLTK's order, which ``all_lemma_names`` keeps
            self._read_index(pos)
            self._read_exceptions(pos)

    def _read_data(self, pos: str, keep_glosses: bool) -> None:
        records: dict[int, SynsetRecord] = {}
        order: list[SynsetRecord] = []
        path = self.root / f"data.{_FILE_OF_POS[pos]}"
        offset = 0
        with open(path, "rb") as data_file:
            for raw in data_file:
                if not raw[:1].isspace():  # the licence's lines begin with spaces
                    line = raw.decode("utf8")
                    try:
                        record, gloss = _parse_data_line(line)
                    except (ValueError, IndexError) as exc:
                        raise WordNetFileError(f"{path.name} at byte {offset}: {exc}") from None
                    if record.offset != offset:
                        raise WordNetFileError(f"{path.name}: a line at byte {offset} names {record.offset}")
                    records[offset] = record
                    order.append(record)
                    if keep_glosses:
                        self.glosses[pos, offset] = gloss
                offset += len(raw)
        self.records[pos] = records
        self.in_file_order[pos] = order

    def _read_index(self, pos: str) -> None:
        path = self.root / f"index.{_FILE_OF_POS[pos]}"
        records = self.records[pos]
        with open(path, encoding="utf8") as index_file:
            for number, line in enumerate(index_file, 1):
                if line.startswith(" "):
                    continue
                fields = line.split()
                try:
                    lemma, line_pos, n_synsets, n_pointers = (
                        fields[0],
                        fields[1],
                        int(fields[2]),
                        int(fields[3]),
                    )
                    first = 4 + n_pointers
                    if n_synsets <= 0 or int(fields[first]) != n_synsets:
                        raise ValueError("synset counts disagree")
                    offsets = tuple(int(o) for o in fields[first + 2 : first + 2 + n_synsets])
                    if len(offsets) != n_synsets:
                        raise ValueError("too few offsets")
                except (ValueError, IndexError) as exc:
                    raise WordNetFileError(f"{path.name}, line {number}: {exc}") from None
                if any(o not in records for o in offsets):
                    raise WordNetFileError(f"{path.name}, line {number}: {lemma} names a synset data lacks")
                entry = self.index.get(lemma, ())
                if line_pos in entry[::2]:  # a later line of the same lemma and part of speech wins
                    at = entry[::2].index(line_pos) * 2
                    entry = entry[:at] + entry[at + 2 :]
                self.index[lemma] = (*entry, line_pos, offsets)

    def _read_exceptions(self, pos: str) -> None:
        table: dict[str, tuple[str, ...]] = {}
        with open(self.root / f"{_FILE_OF_POS[pos]}.exc", encoding="utf8") as exc_file:
            for line in exc_file:
                terms = line.split()
                table[terms[0]] = tuple(terms[1:])
        self.exceptions[pos] = table

    # -- NLTK's lookups -------------------------------------------------------------------------

    def offsets(self, lemma: str, pos: str) -> tuple[int, ...]:
        """A lemma's synset offsets of one part of speech (``s``: the satellites among its adjectives)."""
        entry = self.index.get(lemma, ())
        wanted = "a" if pos == "s" else pos
        for i in range(0, len(entry), 2):
            if entry[i] == wanted:
                offsets = entry[i + 1]
                return tuple(o for o in offsets if o in self.satellites) if pos == "s" else offsets
        return ()

    def _has(self, form: str, pos: str) -> bool:
        entry = self.index.get(form)
        return entry is not None and ("a" if pos == "s" else pos) in entry[::2]

    def morphy_forms(self, form: str, pos: str, check_exceptions: bool = True) -> list[str]:
        """NLTK's ``_morphy``: the form and its exception-list or suffix-rule bases that WordNet has."""
        exceptions = self.exceptions["a" if pos == "s" else pos]
        if check_exceptions and form in exceptions:
            forms = exceptions[form]
        else:
            forms = tuple(
                form[: -len(old)] + new for old, new in MORPHOLOGICAL_SUBSTITUTIONS[pos] if form.endswith(old)
            )
        result: list[str] = []
        for candidate in (form, *forms):
            if candidate not in result and self._has(candidate, pos):
                result.append(candidate)
        return result

    def morphy(self, form: str, pos: str | None = None, check_exceptions: bool = True) -> str | None:
        """NLTK's ``morphy``: the first base form WordNet has (every part of speech if none is given)."""
        for p in (pos,) if pos else POS_LIST:
            analyses = self.morphy_forms(form, p, check_exceptions)
            if analyses:
                return analyses[0]
        return None

    def sense(self, pos: str, offset: int) -> Sense:
        """The synset at ``offset`` of a part of speech's data file (``s`` reads the adjectives)."""
        return Sense(self, self.records[_FILE_OF_POS_KEY[pos]][offset])

    def synsets(self, lemma: str, pos: str | None = None, check_exceptions: bool = True) -> list[Sense]:
        """NLTK's ``synsets``: the senses of every base form of ``lemma``, one part of speech at a time."""
        lemma = lemma.lower()
        return [
            self.sense(p, offset)
            for p in (pos if pos is not None else POS_LIST)
            for form in self.morphy_forms(lemma, p, check_exceptions)
            for offset in self.offsets(form, p)
        ]

    def synset(self, name: str) -> Sense:
        """NLTK's ``synset``: the synset of a name such as ``dog.n.01``."""
        lemma, pos, number = name.lower().rsplit(".", 2)
        offsets = self.offsets(lemma, pos)
        if not offsets or int(number) < 1 or int(number) > len(offsets):
            raise LookupError(f"no WordNet synset {name!r}")
        return self.sense(pos, offsets[int(number) - 1])

    def lemmas(self, lemma: str, pos: str | None = None) -> list[Word]:
        """NLTK's ``lemmas``: the lemmas named ``lemma`` of the synsets ``synsets(lemma, pos)`` finds."""
        lemma = lemma.lower()
        return [
            word
            for sense in self.synsets(lemma, pos)
            for word in sense.lemmas()
            if word.name().lower() == lemma
        ]

    def derived_names(self, word: str) -> frozenset[str]:
        """The lemmas (lower case) WordNet links by a derivational pointer to a lemma named ``word``.

        What ``{r.name().lower() for l in lemmas(word) for r in l.derivationally_related_forms()}``
        gives, from a table made once for every lemma (any part of speech) instead of per call.
        """
        if self._derived is None:
            derived: dict[str, set[str]] = {}
            for records in self.records.values():
                for record in records.values():
                    for packed in record.lemma_pointers:
                        source, kind, pos, offset, target = _decode_lemma_pointer(packed)
                        if kind == "+":
                            name = self.records[_FILE_OF_POS_KEY[pos]][offset].lemma_names[target].lower()
                            derived.setdefault(record.lemma_names[source].lower(), set()).add(name)
            self._derived = {word: frozenset(names) for word, names in derived.items()}
        return self._derived.get(word.lower(), frozenset())

    def all_lemma_names(self):
        """Every lemma of the index files, in NLTK's order."""
        return iter(self.index)

    def synset_name(self, record: SynsetRecord) -> str:
        """NLTK's name of a synset: first lemma (lower case), part of speech, that lemma's sense number."""
        lemma = record.lemma_names[0].lower()
        number = self.offsets(lemma, record.pos).index(record.offset) + 1
        return f"{lemma}.{record.pos}.{number:02d}"


_FILE_OF_POS_KEY = {"n": "n", "v": "v", "a": "a", "s": "a", "r": "r"}


def _parse_data_line(line: str) -> tuple[SynsetRecord, str]:
    """One data file line as NLTK's ``_synset_from_pos_and_line`` reads it, and its raw gloss."""
    columns, gloss = line.strip().split("|")
    fields = columns.split()
    offset, lexname_index, pos = int(fields[0]), int(fields[1]), fields[2]
    n_lemmas = int(fields[3], 16)
    at = 4
    names = []
    for _ in range(n_lemmas):
        names.append(_SYNTACTIC_MARKER.match(fields[at]).group(1))
        at += 2
    n_pointers = int(fields[at])
    at += 1
    pointers: dict[str, set[tuple[str, int]]] = {}
    lemma_pointers: list[int] = []
    for _ in range(n_pointers):
        symbol, target, target_pos, lemma_ids = (
            fields[at],
            int(fields[at + 1]),
            fields[at + 2],
            fields[at + 3],
        )
        at += 4
        if lemma_ids == "0000":
            if symbol in GRAPH_POINTERS:
                pointers.setdefault(symbol, set()).add((target_pos, target))
        elif symbol in LEMMA_POINTERS:
            source, target_index = int(lemma_ids[:2], 16) - 1, int(lemma_ids[2:], 16) - 1
            if not (0 <= source < len(names) and 0 <= target_index < 256):
                raise ValueError(f"lemma pointer {lemma_ids} out of range")
            lemma_pointers.append(_lemma_pointer(source, symbol, target_pos, target, target_index))
    # each symbol's targets in the iteration order of NLTK's set of (pos, offset) pairs
    packed = (
        tuple(tuple(synset_key(p, o) for p, o in pointers.get(symbol, ())) for symbol in GRAPH_POINTERS)
        if pointers
        else _NO_POINTERS
    )
    record = SynsetRecord(pos, offset, lexname_index, tuple(names), packed, tuple(lemma_pointers))
    return record, gloss


def definition_and_examples(gloss: str) -> tuple[str, tuple[str, ...]]:
    """NLTK's split of a gloss: the text outside double quotes (``; `` stripped) and the quoted examples."""
    return _QUOTED.sub("", gloss).strip().strip("; "), tuple(_EXAMPLE.findall(gloss))
