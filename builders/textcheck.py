"""Templates, patterns and questions checked as English text, by real English tools.

* **Spelling**: Hunspell (libhunspell through ctypes) with Debian's ``en_US`` dictionary. Only a
  frame's own words are checked: the labels that fill ``[X]`` and ``[Y]`` are proper names, not
  spelled words.
* **Grammar**: the CMU Link Grammar parser (``liblink-grammar.so.5`` through ctypes, with its
  English dictionary). A filled sentence passes when the parser links every word of it (a
  complete linkage with no null word); the words it had to skip are reported.
* **Fixes**: ``probes/catalogs/template_fixes.yaml`` rewrites or drops external patterns (ParaRel,
  Cao et al., LAMA, BEAR) and MQuAKE's question and cloze templates, each with its reason. The
  paraphrase and rule families read it, so a dropped pattern never reaches a build.

The module sits beside :mod:`probesmith.builders.text` rather than in ``builders/sources``: it
is no source of facts or patterns but a check over text any source gives (and the fixes it
reads are ours, not a source's). LanguageTool is not used: it has no Debian package, and the
PyPI client downloads its Java server at run time, which an offline machine cannot.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import re
from dataclasses import dataclass
from pathlib import Path

from probesmith.builders.sources.wikidata_queries import popularity_predicate
from probesmith.builders.text import LINK_GRAMMAR_ENGLISH, EnglishToolMissing, fill_template
from probesmith.errors import SpecError
from probesmith.probes.spec import read_spec_yaml, resolve_spec_path

HUNSPELL_LIBRARY = "libhunspell-1.7.so.0"
HUNSPELL_DICTIONARY = Path("/usr/share/hunspell/en_US")
LINK_GRAMMAR_LIBRARY = "liblink-grammar.so.5"
LINK_GRAMMAR_DICTIONARY = LINK_GRAMMAR_ENGLISH / "4.0.dict"  # the folder fill_template reads too
DEFAULT_FIXES = "catalogs/template_fixes"
FIX_KINDS = ("patterns", "questions", "clozes", "read_by_hand")
# names a frame itself uses, which are no words of Hunspell's dictionary
FRAME_NAMES = frozenset({"IUCN"})


def _library(name: str, package: str):
    try:
        return ctypes.CDLL(name)
    except OSError:
        found = ctypes.util.find_library(name.split(".so")[0].removeprefix("lib"))
        if found:
            return ctypes.CDLL(found)
        raise EnglishToolMissing(
            f"the text checker needs {name}, which is not installed: install the Debian package "
            f"{package} (`apt-get install {package}`; `bash setup.sh` does)."
        ) from None


class SpellChecker:
    """Hunspell with Debian's en_US dictionary (package ``hunspell-en-us``)."""

    def __init__(self, dictionary: Path = HUNSPELL_DICTIONARY):
        lib = _library(HUNSPELL_LIBRARY, "libhunspell-1.7-0")
        aff, dic = dictionary.with_suffix(".aff"), dictionary.with_suffix(".dic")
        if not (aff.is_file() and dic.is_file()):
            raise EnglishToolMissing(
                f"the text checker needs the Hunspell dictionary {aff} and {dic}: install the Debian "
                "package hunspell-en-us (`apt-get install hunspell-en-us`; `bash setup.sh` does)."
            )
        lib.Hunspell_create.restype = ctypes.c_void_p
        lib.Hunspell_create.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
        lib.Hunspell_spell.restype = ctypes.c_int
        lib.Hunspell_spell.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        lib.Hunspell_suggest.restype = ctypes.c_int
        lib.Hunspell_suggest.argtypes = [
            ctypes.c_void_p,
            ctypes.POINTER(ctypes.POINTER(ctypes.c_char_p)),
            ctypes.c_char_p,
        ]
        lib.Hunspell_free_list.argtypes = [
            ctypes.c_void_p,
            ctypes.POINTER(ctypes.POINTER(ctypes.c_char_p)),
            ctypes.c_int,
        ]
        self._lib = lib
        self._handle = lib.Hunspell_create(str(aff).encode(), str(dic).encode())

    @functools.lru_cache(maxsize=1 << 14)  # noqa: B019 -- one checker per process, words repeat
    def known(self, word: str) -> bool:
        """Whether Hunspell's en_US dictionary accepts ``word``."""
        return bool(self._lib.Hunspell_spell(self._handle, word.encode("utf-8")))

    def suggestions(self, word: str) -> list[str]:
        """Hunspell's suggestions for a word it does not know."""
        found = ctypes.POINTER(ctypes.c_char_p)()
        count = self._lib.Hunspell_suggest(self._handle, ctypes.byref(found), word.encode("utf-8"))
        words = [found[i].decode("utf-8") for i in range(count)]
        self._lib.Hunspell_free_list(self._handle, ctypes.byref(found), count)
        return words

    def unknown_words(self, text: str) -> list[str]:
        """The words of ``text`` Hunspell does not know, in order."""
        return [w for w in words_of(text) if not self.known(w)]


@dataclass(frozen=True)
class Parse:
    """Link Grammar's verdict on one sentence."""

    sentence: str
    linkages: int  # complete linkages found (no word skipped)
    skipped: tuple[str, ...]  # words the best partial linkage had to leave unlinked (when none is complete)
    guessed: tuple[str, ...]  # words not in the parser's dictionary, whose part of speech it guessed

    @property
    def ok(self) -> bool:
        """Whether the parser links every word of the sentence."""
        return self.linkages > 0


_LG_ERROR_HANDLER = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)


class GrammarChecker:
    """CMU Link Grammar's English parser (packages ``liblink-grammar5``, ``link-grammar-dictionaries-en``)."""

    def __init__(self, max_parse_seconds: int = 10):
        lib = _library(LINK_GRAMMAR_LIBRARY, "liblink-grammar5")
        if not LINK_GRAMMAR_DICTIONARY.is_file():
            raise EnglishToolMissing(
                f"the text checker needs Link Grammar's English dictionary {LINK_GRAMMAR_DICTIONARY}: "
                "install the Debian package link-grammar-dictionaries-en (`bash setup.sh` does)."
            )
        vp, c_int = ctypes.c_void_p, ctypes.c_int
        signatures = {
            "lg_error_set_handler": (vp, [_LG_ERROR_HANDLER, vp]),
            "dictionary_create_lang": (vp, [ctypes.c_char_p]),
            "parse_options_create": (vp, []),
            "parse_options_set_verbosity": (None, [vp, c_int]),
            "parse_options_set_linkage_limit": (None, [vp, c_int]),
            "parse_options_set_max_parse_time": (None, [vp, c_int]),
            "parse_options_set_min_null_count": (None, [vp, c_int]),
            "parse_options_set_max_null_count": (None, [vp, c_int]),
            "sentence_create": (vp, [ctypes.c_char_p, vp]),
            "sentence_parse": (c_int, [vp, vp]),
            "sentence_length": (c_int, [vp]),
            "sentence_delete": (None, [vp]),
            "linkage_create": (vp, [c_int, vp, vp]),
            "linkage_get_num_words": (c_int, [vp]),
            "linkage_get_word": (ctypes.c_char_p, [vp, c_int]),
            "linkage_delete": (None, [vp]),
        }
        for name, (restype, argtypes) in signatures.items():
            function = getattr(lib, name)
            function.restype, function.argtypes = restype, argtypes
        # the library's notices (a locale it does not know) go nowhere instead of stderr
        self._quiet = _LG_ERROR_HANDLER(lambda info, data: None)
        lib.lg_error_set_handler(self._quiet, None)
        self._lib = lib
        self._dictionary = lib.dictionary_create_lang(b"en")
        if not self._dictionary:
            raise EnglishToolMissing(
                "Link Grammar could not open its English dictionary: reinstall the Debian package "
                "link-grammar-dictionaries-en."
            )
        self._options = lib.parse_options_create()
        lib.parse_options_set_verbosity(self._options, 0)
        lib.parse_options_set_linkage_limit(self._options, 10)
        lib.parse_options_set_max_parse_time(self._options, max_parse_seconds)

    def _words(self, sentence) -> list[str]:
        linkage = self._lib.linkage_create(0, sentence, self._options)
        if not linkage:
            return []
        count = self._lib.linkage_get_num_words(linkage)
        words = [self._lib.linkage_get_word(linkage, i).decode("utf-8") for i in range(count)]
        self._lib.linkage_delete(linkage)
        return words

    @functools.lru_cache(maxsize=1 << 14)  # noqa: B019 -- one checker per process, sentences repeat
    def parse(self, text: str) -> Parse:
        """Parse ``text``: complete linkages, else the words a partial linkage skips."""
        lib, options = self._lib, self._options
        sentence = lib.sentence_create(text.encode("utf-8"), self._dictionary)
        try:
            lib.parse_options_set_min_null_count(options, 0)
            lib.parse_options_set_max_null_count(options, 0)
            linkages = max(lib.sentence_parse(sentence, options), 0)
            skipped: list[str] = []
            if not linkages:
                lib.parse_options_set_min_null_count(options, 1)
                lib.parse_options_set_max_null_count(options, lib.sentence_length(sentence))
                lib.sentence_parse(sentence, options)
            words = self._words(sentence)
        finally:
            lib.sentence_delete(sentence)
        skipped = [w[1:-1] for w in words if w.startswith("[") and w.endswith("]")] if not linkages else []
        guessed = [w.split("[")[0] for w in words if "[!" in w or "[?" in w or "[~" in w]
        return Parse(text, linkages, tuple(skipped), tuple(guessed))


@functools.lru_cache(maxsize=1)
def spell_checker() -> SpellChecker:
    """The process's Hunspell checker (made once)."""
    return SpellChecker()


@functools.lru_cache(maxsize=1)
def grammar_checker() -> GrammarChecker:
    """The process's Link Grammar parser (made once)."""
    return GrammarChecker()


_SLOTS = re.compile(r"\[X\]|\[Y\]|_{2,}")


def words_of(text: str) -> list[str]:
    """The words of a text, possessive endings aside ("[X]'s" gives no word)."""
    return [w for w in re.findall(r"[A-Za-z]+(?:['’-][A-Za-z]+)*", text) if w.lower() not in ("s",)]


def frame_words(template: str) -> list[str]:
    """The words of a template's frame: its own words, none of the slots' fillers."""
    return words_of(_SLOTS.sub(" ", template))


def fill_form(template: str, subject: str, obj: str) -> str:
    """A template, question or cloze filled: ``[X]`` by the subject, ``[Y]`` or a blank by the object.

    Articles agree with the label filled in (:func:`probesmith.builders.text.fill_template`); a
    sentence starts with a capital letter, as a writer would put it.
    """
    template = re.sub(r"_{2,}", "[Y]", template)
    text = fill_template(template, subject, obj if "[Y]" in template else None)
    return text[:1].upper() + text[1:]


@dataclass(frozen=True)
class TextProblem:
    """One failure of a template as English text."""

    origin: str  # where the template comes from: catalog, pararel, mquake_question, ...
    relation: str
    template: str
    kind: str  # "spelling" or "grammar"
    detail: str  # the unknown words (with suggestions), or the filled sentence and its skipped words


def check_template(
    origin: str,
    relation: str,
    template: str,
    samples: list[tuple[str, str]],
    spelling: SpellChecker | None = None,
    grammar: GrammarChecker | None = None,
) -> list[TextProblem]:
    """Spell-check a template's frame and parse it filled with each sample (subject, object).

    The frame fails the grammar check when half or more of its filled samples do not parse: the
    parser misreads some names on their own ("Douglas Adams's", "Elizabeth I of England", a title
    such as "To Rome with Love"), and one misread name does not condemn the frame.
    """
    spelling = spelling or spell_checker()
    grammar = grammar or grammar_checker()
    problems = []
    unknown = [w for w in frame_words(template) if w not in FRAME_NAMES and not spelling.known(w)]
    if unknown:
        detail = "; ".join(
            f"{w} (Hunspell suggests: {', '.join(spelling.suggestions(w)[:3]) or '-'})" for w in unknown
        )
        problems.append(TextProblem(origin, relation, template, "spelling", detail))
    parses = [grammar.parse(fill_form(template, subject, obj)) for subject, obj in samples]
    failed = [p for p in parses if not p.ok]
    if failed and len(failed) * 2 >= len(parses):
        detail = "; ".join(f"{p.sentence!r} (unlinked: {', '.join(p.skipped) or '-'})" for p in failed)
        problems.append(
            TextProblem(origin, relation, template, "grammar", f"{len(failed)}/{len(parses)}: {detail}")
        )
    return problems


# ---- sample fillers from the Wikidata source -----------------------------------------------------

_DIRECT = "http://www.wikidata.org/prop/direct/"
_PLAIN_LABEL = "^[A-Za-z][A-Za-z .'-]*[A-Za-z]$"


def sample_pairs_query(pid: str, subject_types=(), object_types=(), popularity: str = "", limit: int = 3):
    """SPARQL: (subject, object) label pairs of a relation, popular subjects first, plain labels only.

    Plain labels (letters, spaces, dots, apostrophes, hyphens) are asked so that the parser judges
    the template, not a name like "hsa-miR-548ab"; typed as the catalog types the relation.
    """
    types = ""
    for var, classes in (("s", subject_types), ("o", object_types)):
        if classes:
            values = " ".join(f"<http://www.wikidata.org/entity/{q}>" for q in classes)
            types += f"\n  VALUES ?{var}Type {{ {values} }} ?{var} <{_DIRECT}P31> ?{var}Type ."
    rank = f"\n  OPTIONAL {{ ?s <{popularity}> ?rank }}" if popularity else ""
    order = "DESC(?rank) ?s ?o" if popularity else "STRLEN(STR(?s)) ?s ?o"
    return f"""PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
SELECT DISTINCT ?s ?o ?sLabel ?oLabel WHERE {{
  ?s <{_DIRECT}{pid}> ?o .{types}
  ?s rdfs:label ?sLabel . FILTER(LANG(?sLabel) = "en" && REGEX(STR(?sLabel), "{_PLAIN_LABEL}"))
  ?o rdfs:label ?oLabel . FILTER(LANG(?oLabel) = "en" && REGEX(STR(?oLabel), "{_PLAIN_LABEL}")){rank}
}} ORDER BY {order} LIMIT {limit}"""


def sample_pairs(
    client, pid: str, subject_types=(), object_types=(), limit: int = 3
) -> list[tuple[str, str]]:
    """Up to ``limit`` (subject label, object label) pairs of the relation in the source, popular first.

    One pair per subject where the source has enough subjects, so that the samples differ.
    """
    rows = client.select(
        sample_pairs_query(pid, subject_types, object_types, popularity_predicate(client), limit * 4)
    )
    pairs, seen = [], set()
    for row in rows:
        if row["s"] not in seen:
            seen.add(row["s"])
            pairs.append((row["sLabel"], row["oLabel"]))
    return pairs[:limit]


# ---- fixes of external templates -------------------------------------------------------------------


@dataclass(frozen=True)
class TemplateFix:
    """One external template rewritten (``replace_with``) or dropped (``None``), with its reason."""

    kind: str  # patterns (paraphrase patterns of any external source), questions, clozes (MQuAKE's)
    relation: str
    template: str
    replace_with: str | None
    reason: str


def _fix_key(template: str) -> str:
    return re.sub(r"_{2,}", "__", re.sub(r"\s+", " ", template)).strip().rstrip(" .?").lower()


@functools.lru_cache(maxsize=8)
def load_template_fixes(name_or_path: str = DEFAULT_FIXES) -> dict[tuple[str, str, str], TemplateFix]:
    """The fixes catalog: ``{(kind, relation, template key): fix}`` (bundled name or path; ``''`` = none).

    The catalog holds, under ``patterns:``, ``questions:`` and ``clozes:``, lists of entries
    ``{relation, template, replace_with (optional), reason}``; no ``replace_with`` drops the template.
    """
    if not name_or_path:
        return {}
    path = resolve_spec_path(name_or_path)
    data = read_spec_yaml(path)
    if not isinstance(data, dict) or set(data) - set(FIX_KINDS):
        raise SpecError(f"template fixes {path}: needs only the keys {', '.join(FIX_KINDS)}, each a list.")
    fixes = {}
    for kind in FIX_KINDS:
        for number, entry in enumerate(data.get(kind) or [], 1):
            if not isinstance(entry, dict) or not {"relation", "template", "reason"} <= set(entry):
                raise SpecError(
                    f"template fixes {path}, {kind} entry {number}: needs `relation`, `template` and "
                    "`reason` (and `replace_with` to rewrite instead of drop)."
                )
            fix = TemplateFix(
                kind, str(entry["relation"]), entry["template"], entry.get("replace_with"), entry["reason"]
            )
            fixes[(kind, fix.relation, _fix_key(fix.template))] = fix
    return fixes


def apply_fixes(kind: str, relation: str, template: str, fixes_name: str = DEFAULT_FIXES) -> str | None:
    """The template as the fixes catalog has it: rewritten, unchanged, or ``None`` (dropped)."""
    fix = load_template_fixes(fixes_name).get((kind, relation, _fix_key(template)))
    if fix is None:
        return template
    return fix.replace_with


# ---- the forms the default builds use --------------------------------------------------------------


@dataclass(frozen=True)
class Form:
    """A template, pattern or question a build uses, and where it comes from."""

    origin: str  # catalog, pararel, causal_probe, lama, bear (paraphrases: joined by +), mquake_question, ...
    relation: str
    template: str
    used_by: str  # the family: relations, paraphrases, rules


def relation_samples(client, relations, catalog, limit: int = 3) -> dict[str, list[tuple[str, str]]]:
    """Typed sample (subject, object) label pairs of each relation, from the source (catalog types)."""
    samples = {}
    for pid in sorted(set(relations)):
        entry = catalog.get(pid)
        types = (entry.subject_types, entry.object_types) if entry else ((), ())
        samples[pid] = sample_pairs(client, pid, *types, limit=limit)
    return samples


def check_forms(
    forms: list[Form], samples: dict[str, list[tuple[str, str]]]
) -> tuple[list[TextProblem], list[Form]]:
    """Every form spell-checked and parsed with its relation's samples: (problems, forms with no sample).

    A form whose relation has no sample pair in the source is still spell-checked, and returned
    as unparsed, so that a caller can fail on it rather than pass it silently. A form the fixes
    catalog lists under ``read_by_hand`` is spell-checked only.
    """
    problems, unsampled = [], []
    checked = set()
    fixes = load_template_fixes()
    for form in forms:
        key = (form.origin, form.relation, form.template)
        if key in checked:
            continue
        checked.add(key)
        pairs = samples.get(form.relation, [])
        if not pairs:
            unsampled.append(form)
        if ("read_by_hand", form.relation, _fix_key(form.template)) in fixes:
            pairs = []  # read and found correct: the parser's verdict is not the reader's
        problems += check_template(form.origin, form.relation, form.template, pairs)
    return problems, unsampled
