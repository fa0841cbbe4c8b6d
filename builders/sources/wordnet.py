"""WordNet 3.0 source: Debian's WordNet files, read offline by probesmith's own reader and by NLTK's.

``WordNetSource.lexicon`` reads the data, index and exception files into flat tables
(:class:`~probesmith.builders.sources.wordnet_files.WordNetFiles`: NLTK's ``morphy``, ``synsets``,
``lemmas``... with NLTK's answers, without its objects), and ``WordNetSource.load`` builds from them a
:class:`WordNetGraph` of the requested parts of speech: integer ids, lemmas, glosses, examples and ISA
edges (hypernyms and instance hypernyms), the shape the probe builders walk. WordNetQA reads only
these. ``WordNetSource.reader`` is NLTK's own reader (DictionaryQA's senses): NLTK cannot download
here and rejects symlinks and folders outside its data path, so ``prepare_wordnet`` copies Debian's
``wordnet-base`` and ``wordnet-sense-index`` files into an NLTK data folder of probesmith's own and
writes the ``lexnames`` file Debian does not ship.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import warnings
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from probesmith.builders.nltk_import import import_nltk
from probesmith.builders.sources.wordnet_files import (
    WordNetFileError,
    WordNetFiles,
    definition_and_examples,
    synset_key,
)
from probesmith.errors import SourceError
from probesmith.schemas.manifest import file_sha256
from probesmith.schemas.output import OutputFolder

log = logging.getLogger(__name__)

DEBIAN_WORDNET_DIR = Path("/usr/share/wordnet")
INSTALL_HINT = (
    "Install it with `apt-get install wordnet-base wordnet-sense-index` "
    "(or run the README's setup command), then `probesmith data prepare`."
)

#: WordNet's 45 lexicographer files, in the order of their numbers (see lexnames(5WN)).
LEXNAMES = (
    "adj.all adj.pert adv.all noun.Tops noun.act noun.animal noun.artifact noun.attribute "
    "noun.body noun.cognition noun.communication noun.event noun.feeling noun.food noun.group "
    "noun.location noun.motive noun.object noun.person noun.phenomenon noun.plant "
    "noun.possession noun.process noun.quantity noun.relation noun.shape noun.state "
    "noun.substance noun.time verb.body verb.change verb.cognition verb.communication "
    "verb.competition verb.consumption verb.contact verb.creation verb.emotion verb.motion "
    "verb.perception verb.possession verb.social verb.stative verb.weather adj.ppl"
).split()
_LEXFILE_POS = {"adj": 3, "adv": 4, "noun": 1, "verb": 2}

#: Files NLTK's reader opens; the sense index comes from ``wordnet-sense-index``.
REQUIRED_FILES = tuple(
    f"{kind}.{pos}" for pos in ("noun", "verb", "adj", "adv") for kind in ("data", "index")
) + ("noun.exc", "verb.exc", "adj.exc", "adv.exc", "cntlist.rev", "index.sense")

POS_CODES = {"noun": "n", "verb": "v"}
_GRAPH_CACHE: dict[tuple, WordNetGraph] = {}
_READER_CACHE: dict[tuple, object] = {}
_LEXICON_CACHE: dict[tuple, WordNetFiles] = {}


def data_home() -> Path:
    """Probesmith's data folder: ``$PROBESMITH_DATA`` or ``~/.local/share/probesmith``."""
    return Path(os.environ.get("PROBESMITH_DATA", Path.home() / ".local/share/probesmith"))


def nltk_wordnet_dir(home: Path | None = None) -> Path:
    """Where the prepared WordNet lives: ``<data home>/nltk_data/corpora/wordnet``."""
    return (home or data_home()) / "nltk_data" / "corpora" / "wordnet"


def lexnames_text() -> str:
    """The ``lexnames`` file NLTK needs: number, name and part-of-speech number per line."""
    return "".join(
        f"{i:02d}\t{name}\t{_LEXFILE_POS[name.split('.')[0]]}\n" for i, name in enumerate(LEXNAMES)
    )


def missing_source_files(source_dir: Path) -> list[str]:
    """Required WordNet files absent from ``source_dir``."""
    return [name for name in REQUIRED_FILES if not (source_dir / name).is_file()]


def prepare_wordnet(source_dir: Path = DEBIAN_WORDNET_DIR, home: Path | None = None) -> Path:
    """Copy WordNet's files into probesmith's NLTK data folder (atomically) and return it.

    A folder already prepared from the same files (same sizes) is kept as it is.
    """
    missing = missing_source_files(source_dir)
    if missing:
        raise SourceError(f"WordNet files {missing} are missing from {source_dir}. {INSTALL_HINT}")
    target = nltk_wordnet_dir(home)
    if _is_prepared_from(target, source_dir):
        return target
    with OutputFolder(target, "wordnet-nltk", command="data prepare") as staging:
        for name in REQUIRED_FILES:
            shutil.copyfile(source_dir / name, staging / name)
        (staging / "lexnames").write_text(lexnames_text())
    log.info("prepared WordNet for NLTK: %s -> %s", source_dir, target)
    return target


def _is_prepared_from(target: Path, source_dir: Path) -> bool:
    if not (target / "lexnames").is_file():
        return False
    return all(
        (target / n).is_file() and (target / n).stat().st_size == (source_dir / n).stat().st_size
        for n in REQUIRED_FILES
    )


@dataclass
class WordNetGraph:
    """Synsets of some parts of speech as integer-indexed arrays with ISA edges.

    ``parents[i]`` are the hypernyms and instance hypernyms of synset ``i``; ``children[i]``
    the inverse; ``near[i]`` its verb-group and also-see neighbours. Lemmas are display
    forms (underscores replaced by spaces).
    """

    names: list[str] = field(default_factory=list)
    pos: list[str] = field(default_factory=list)
    lemmas: list[tuple[str, ...]] = field(default_factory=list)
    glosses: list[str] = field(default_factory=list)
    examples: list[tuple[str, ...]] = field(default_factory=list)
    parents: list[tuple[int, ...]] = field(default_factory=list)
    children: list[tuple[int, ...]] = field(default_factory=list)
    #: WordNet's near-synonym pointers within the graph: verb groups and also-sees (both ways)
    near: list[frozenset[int]] = field(default_factory=list)
    #: synsets with a lemma WordNet marks as an antonym of one of this synset's lemmas (exhale / inhale)
    antonyms: list[frozenset[int]] = field(default_factory=list)
    #: whether a synset is a named instance (it has instance hypernyms: Hubel, Temple of Artemis)
    instance: list[bool] = field(default_factory=list)
    index: dict[str, int] = field(default_factory=dict)
    by_pos: dict[str, list[int]] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.names)

    def depths(self) -> list[int]:
        """Each synset's depth: the fewest ISA hops up to a root (a synset with no hypernym)."""
        depth = [-1] * len(self.names)
        level = [i for i, parents in enumerate(self.parents) if not parents]
        d = 0
        while level:
            nxt = []
            for node in level:
                if depth[node] < 0:
                    depth[node] = d
                    nxt.extend(self.children[node])
            level, d = [n for n in nxt if depth[n] < 0], d + 1
        return depth

    def ancestors_by_hops(self, node: int, max_hops: int) -> list[set[int]]:
        """``result[k]`` = synsets exactly ``k`` ISA hops above ``node`` on some path (k=0: itself)."""
        return self._levels(node, max_hops, self.parents)

    def descendants_by_hops(self, node: int, max_hops: int) -> list[set[int]]:
        """``result[k]`` = synsets exactly ``k`` ISA hops below ``node`` on some path."""
        return self._levels(node, max_hops, self.children)

    @staticmethod
    def _levels(node: int, max_hops: int, edges: list[tuple[int, ...]]) -> list[set[int]]:
        levels = [{node}]
        for _ in range(max_hops):
            nxt = {m for n in levels[-1] for m in edges[n]}
            levels.append(nxt)
        return levels

    def all_ancestors(self, node: int) -> set[int]:
        """Every synset above ``node`` at any distance."""
        return self._closure(node, self.parents)

    def all_descendants(self, node: int) -> set[int]:
        """Every synset below ``node`` at any distance."""
        return self._closure(node, self.children)

    @staticmethod
    def _closure(node: int, edges: list[tuple[int, ...]]) -> set[int]:
        seen: set[int] = set()
        stack = list(edges[node])
        while stack:
            n = stack.pop()
            if n not in seen:
                seen.add(n)
                stack.extend(edges[n])
        return seen


class WordNetSource:
    """WordNet 3.0 read through NLTK from a prepared data folder."""

    def __init__(self, source_dir: Path = DEBIAN_WORDNET_DIR, home: Path | None = None):
        self.source_dir = Path(source_dir)
        self.home = home

    def reader(self):
        """An NLTK ``WordNetCorpusReader`` over the prepared copy (prepared on first use)."""
        nltk = import_nltk()  # deferred: see import_nltk
        root = prepare_wordnet(self.source_dir, self.home)
        key = tuple((n, (root / n).stat().st_size, (root / n).stat().st_mtime_ns) for n in REQUIRED_FILES)
        if (str(root), key) in _READER_CACHE:  # reading the indexes takes seconds: once per process
            return _READER_CACHE[(str(root), key)]
        nltk_data = str(root.parent.parent)
        if nltk_data not in nltk.data.path:  # NLTK reads only below its data folders
            nltk.data.path.insert(0, nltk_data)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                reader = _english_reader_class()(str(root), None)
        except Exception as exc:  # NLTK raises bare asserts and ValueErrors on bad files
            raise self._corrupt(exc) from None
        _READER_CACHE.clear()  # one reader at a time, like the graph
        _READER_CACHE[(str(root), key)] = reader
        return reader

    def lexicon(self) -> WordNetFiles:
        """WordNet's files read into flat tables (:class:`WordNetFiles`): NLTK's lookups, no NLTK objects.

        What the WordNet build asks of WordNet (``morphy``, ``synsets``, ``lemmas``...) with NLTK's answers,
        read from ``source_dir`` directly (no prepared copy needed). Cached per process like the graph.
        """
        missing = missing_source_files(self.source_dir)
        if missing:
            raise SourceError(f"WordNet files {missing} are missing from {self.source_dir}. {INSTALL_HINT}")
        key = (str(self.source_dir.resolve()), self._stamp())
        if key not in _LEXICON_CACHE:
            try:
                files = WordNetFiles(self.source_dir, tuple(LEXNAMES))
            except (WordNetFileError, OSError, ValueError, IndexError) as exc:
                raise self._corrupt(exc) from None
            _LEXICON_CACHE.clear()  # one at a time, like the graph
            _LEXICON_CACHE[key] = files
        return _LEXICON_CACHE[key]

    def _stamp(self) -> tuple:
        return tuple(
            (name, p.stat().st_size, p.stat().st_mtime_ns)
            for name in REQUIRED_FILES
            if (p := self.source_dir / name).is_file()
        )

    def _corrupt(self, exc: BaseException) -> SourceError:
        return SourceError(
            f"WordNet files in {self.source_dir} are unreadable, truncated or corrupt "
            f"({type(exc).__name__}: {exc}). Reinstall them with "
            "`apt-get install --reinstall wordnet-base wordnet-sense-index`."
        )

    def version(self) -> dict[str, str]:
        """Version and file hashes for the manifest."""
        return {
            "name": "WordNet",
            "version": "3.0",
            "data.noun_sha256": file_sha256(self.source_dir / "data.noun"),
            "data.verb_sha256": file_sha256(self.source_dir / "data.verb"),
        }

    def load(self, parts_of_speech: tuple[str, ...] = ("noun", "verb")) -> WordNetGraph:
        """Read every synset of the given parts of speech into a :class:`WordNetGraph`.

        Graphs are cached per process, keyed by the files' sizes and modification times, so
        building several specs in one process reads WordNet once. Treat the graph as read-only.
        """
        key = (str(self.source_dir.resolve()), self._stamp(), tuple(parts_of_speech))
        if key not in _GRAPH_CACHE:
            _GRAPH_CACHE.clear()  # one graph at a time: each holds ~100k synsets
            _GRAPH_CACHE[key] = self._load_uncached(parts_of_speech)
        return _GRAPH_CACHE[key]

    def _load_uncached(self, parts_of_speech: tuple[str, ...]) -> WordNetGraph:
        for pos in parts_of_speech:
            if pos not in POS_CODES:
                raise SourceError(
                    f"part of speech {pos!r} has no ISA hierarchy in WordNet; use noun or verb."
                )
        for pos in parts_of_speech:
            data_file = self.source_dir / f"data.{pos}"
            if data_file.is_file() and not _ends_with_newline(data_file):
                raise self._corrupt(EOFError(f"{data_file} does not end with a complete line"))
        try:
            files = self.lexicon()
            graph = _graph_from_files(files, parts_of_speech)
        except (WordNetFileError, OSError, KeyError, ValueError) as exc:  # a damaged or truncated file
            raise self._corrupt(exc) from None
        near = graph.near
        children: list[list[int]] = [[] for _ in graph.names]
        for child, parents in enumerate(graph.parents):
            for parent in parents:
                children[parent].append(child)
        graph.children = [tuple(c) for c in children]
        neighbours: list[set[int]] = [set(n) for n in near]
        for node, others in enumerate(near):
            for other in others:
                neighbours[other].add(node)
        graph.near = [frozenset(n - {node}) for node, n in enumerate(neighbours)]
        log.info("read %d WordNet synsets (%s)", len(graph), ", ".join(parts_of_speech))
        return graph


def _graph_from_files(files: WordNetFiles, parts_of_speech: tuple[str, ...]) -> WordNetGraph:
    """The graph of ``parts_of_speech`` from WordNet's files, as NLTK's synsets gave it.

    Synsets in data file order; ``parents`` in the order NLTK's ``hypernyms() + instance_hypernyms()``
    lists them (the iteration order of the same set of pointers, filled in file order); ``near`` before
    it is made symmetric (the caller does that).
    """
    graph = WordNetGraph()
    node_of: dict[int, int] = {}  # synset_key -> node
    records = []
    for pos in parts_of_speech:
        code = POS_CODES[pos]
        ids = graph.by_pos.setdefault(pos, [])
        for record in files.in_file_order[code]:
            name = files.synset_name(record)
            node = len(graph.names)
            graph.index[name] = node
            node_of[synset_key(code, record.offset)] = node
            ids.append(node)
            records.append(record)
            graph.names.append(name)
            graph.pos.append(pos)
            graph.lemmas.append(tuple(n.replace("_", " ") for n in record.lemma_names))
            definition, examples = definition_and_examples(files.glosses[code, record.offset])
            graph.glosses.append(clean_gloss(definition))
            graph.examples.append(tuple(clean_example(e) for e in examples))
    near: list[list[int]] = []
    for record in records:
        hypernyms, instance_hypernyms, verb_groups, also_sees = record.pointers
        graph.parents.append(tuple(node_of[k] for k in (*hypernyms, *instance_hypernyms) if k in node_of))
        graph.instance.append(bool(instance_hypernyms))
        graph.antonyms.append(
            frozenset(
                node_of[key]
                for pos, offset, _ in record.lemma_pointers_of("!")
                if (key := synset_key(pos, offset)) in node_of
            )
        )
        near.append([node_of[k] for k in (*verb_groups, *also_sees) if k in node_of])
    graph.near = near  # type: ignore[assignment]  # lists until the caller makes them symmetric
    return graph


def reopen_after_fork(reader) -> None:
    """Let a forked process's copy of an NLTK WordNet ``reader`` open its own data files.

    NLTK keeps each data file open and seeks in it per synset read; a forked child shares the open
    file, and with it the file position, with its parent and siblings, so their reads interleave
    and return wrong or no synsets. The child's copy forgets the shared files and reopens them on
    its next read. :class:`WordNetFiles` keeps no file open and needs nothing.
    """
    if hasattr(reader, "_data_file_map"):
        reader._data_file_map = {}


def _all_synsets(reader, pos: str):
    """NLTK's ``reader.all_synsets(pos)`` for nouns or verbs, its lines read by Python's own file reading.

    The same synsets in the same order, parsed by NLTK's own line parser and kept in its synset cache
    as ``all_synsets`` does; NLTK's seekable stream reader, which read each line and its offset in
    pure Python, took seconds of every build. Falls back to ``all_synsets`` where the NLTK version
    lacks the parser or cache.
    """
    parse = getattr(reader, "_synset_from_pos_and_line", None)
    caches = getattr(reader, "_synset_offset_cache", None)
    if parse is None or caches is None:
        yield from reader.all_synsets(pos)
        return
    cache = caches[pos]
    offset = 0
    with open(reader.abspath(f"data.{reader._FILEMAP[pos]}").path, "rb") as data_file:
        for line in data_file:
            if not line[:1].isspace():  # the licence's lines begin with spaces
                if offset in cache:
                    synset = cache[offset]
                else:
                    synset = cache[offset] = parse(pos, line.decode(reader._ENCODING))
                yield synset
            offset += len(line)


@lru_cache(maxsize=1)
def _english_reader_class() -> type:
    """NLTK's ``WordNetCorpusReader`` less its mapping to Open Multilingual Wordnet senses.

    On opening, NLTK maps WordNet 3.0's sense keys onto "the" WordNet it finds in its data path (our
    own copy again) for multilingual lookups, which probesmith never makes (no OMW reader is given):
    a few seconds of every build. Every English lookup is NLTK's own. Deferred: importing NLTK
    costs ~10 MB and a second (:func:`import_nltk`).
    """
    import_nltk()
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class EnglishWordNetReader(WordNetCorpusReader):
        def map_wn(self, version: str = "wordnet") -> None:
            return None  # the OMW mapping (``map30``) is read by multilingual lookups only

    return EnglishWordNetReader


# a part of a gloss that NLTK left when it took the quoted examples out: an attribution
# ("--Shakespeare", "- John Milton", "--Romans 12:19"), the tail of a quotation ('drop names"'), or
# what followed a quotation (two spaces: ';  means heeled over', ';  or')
_ATTRIBUTION = re.compile(r"^-+\s*\w")
# a parenthesis whose quoted words were taken out: "(usually expressed as  rather than )",
# "(especially in the phrase )", "(e.g., )", "( is archaic)"
_EMPTIED_PARENTHESIS = re.compile(r"\s*\((?:[^()]*\s\)|[^()]*\S\s{2,}[^()]*\)|\s+(?:is|are)\s[^()]*\))")


# WordNet's own quoting: a backtick, the words, an apostrophe that no letter follows ("`maison' means
# `house'", "`It doesn't matter,' he supplied", "the `-ing' form", "(`%')")
_BACKTICK_QUOTE = re.compile(r"`([^`\n]{1,200}?)'(?![A-Za-z])")


def render_backtick_quotes(text: str) -> str:
    """WordNet's backtick quoting (```house'``) rendered as double quotes (``"house"``).

    A backtick before a word with no closing quote ("dot your `i's") is dropped.
    """
    return re.sub(r"`(?=\w)", "", _BACKTICK_QUOTE.sub(r'"\1"', text))


def clean_example(example: str) -> str:
    """A WordNet example sentence with its backtick quotes as double quotes and whitespace collapsed."""
    return re.sub(r"\s+", " ", render_backtick_quotes(example)).strip()


def clean_gloss(definition: str) -> str:
    """WordNet's gloss less what NLTK's split from its examples leaves behind.

    NLTK cuts the quoted examples out of a synset's gloss line and keeps the rest as the
    definition, so some definitions end in quotation residue: empty parts ("; ; ;"), attributions
    ("; --Jonathan Swift"), the unquoted tail of an example ('; m siding against the current
    candidate"'), parentheses emptied of their quoted words ("(usually expressed as  rather than
    )") and trailing ":" or ",". Those parts are dropped; the definition's first part is kept
    (less stray quotes) and whitespace is collapsed. WordNet's own backtick quoting ("informal
    abbreviation of `representative'", "the `-ing' form") is shown in double quotes.
    """
    parts = definition.split(";")
    kept = [parts[0].replace('"', "")]
    for part in parts[1:]:
        text = part.strip()
        if (
            part.startswith("  ")  # what followed a quotation taken out
            or '"' in text
            or _ATTRIBUTION.match(text)
            or not re.search(r"[A-Za-z]{3,}|\d", text)
        ):
            continue
        kept.append(part)
    gloss = _EMPTIED_PARENTHESIS.sub("", ";".join(kept))
    gloss = render_backtick_quotes(gloss)  # WordNet's `good' quoting: "good"
    gloss = re.sub(r";\s*:", ";", gloss)  # WordNet's own "genus Cleistes;: of damp or boggy areas"
    gloss = re.sub(r"\(\s+", "(", gloss)
    gloss = re.sub(r"\s+([;,])", r"\1", gloss)
    gloss = re.sub(r"\s+", " ", gloss)
    return re.sub(r"[\s;,:]+$", "", gloss).strip()


def _ends_with_newline(path: Path) -> bool:
    with open(path, "rb") as fh:
        fh.seek(0, os.SEEK_END)
        if fh.tell() == 0:
            return False
        fh.seek(-1, os.SEEK_END)
        return fh.read(1) == b"\n"
