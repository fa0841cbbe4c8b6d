"""Declarative probe specs: frozen dataclasses loaded from YAML.

A spec is a YAML file in ``probes/`` (or anywhere on disk). Its ``family`` key picks the
dataclass that reads it; every field of that dataclass carries help text in its metadata, which
serves the YAML reference, ``--dry-run`` and the docs alike. A spec can ``include:`` another spec
(a bundled name or a path relative to the including file) and override any of its keys::

    include: wordnet          # the bundled probes/wordnet.yaml
    name: wordnet-shallow
    distractors:
      sister_depth: 1         # only siblings, no nieces

Unknown keys, wrong types and unknown names fail with a message that says where and, where it
can, what was meant ("did you mean ...").
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import re
import reprlib
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import yaml

from probesmith.errors import SpecError

T = TypeVar("T")


def spec_field(
    default: Any = dataclasses.MISSING,
    *,
    help: str,  # noqa: A002
    minimum: float | None = 0,
    maximum: float | None = None,
    **kwargs: Any,
) -> Any:
    """A dataclass field with help text; mutable defaults are given as tuples or factories.

    Numeric fields are range-checked when a spec is loaded: at least ``minimum`` (0 unless said
    otherwise; None for no bound), at most ``maximum``, and never NaN or infinite.
    """
    metadata = {"help": help, "minimum": minimum, "maximum": maximum}
    if default is dataclasses.MISSING:
        return field(metadata=metadata, **kwargs)
    return field(default=default, metadata=metadata, **kwargs)


@dataclass(frozen=True)
class SplitSpec:
    """How items are divided into train, dev and test (always by cluster)."""

    train_items: int = spec_field(
        3000, help="Maximum number of items in train; clusters are added whole until it is full."
    )
    dev_share: float = spec_field(
        0.5, help="Share of the remaining clusters that go to dev; the rest go to test.", maximum=1
    )


@dataclass(frozen=True)
class ArtifactFilterSpec:
    """The optional pass that removes what a choice-only baseline exploits, before writing."""

    enabled: bool = spec_field(False, help="Run the artifact filter before writing the build.")
    margin: float = spec_field(
        0.05, help="Target: choice-only accuracy at most chance + margin in every cell.", maximum=1
    )
    max_rounds: int = spec_field(10, help="Rounds of retraining and removal at most.", minimum=1)
    folds: int = spec_field(5, help="Cross-fitting folds (by cluster) that score every item.", minimum=2)
    baselines: tuple[str, ...] = spec_field(
        ("choice_only",),
        help="Feature baselines to bring within the margin: choice_only, choice_to_choice, "
        "question_to_choice.",
    )


@dataclass(frozen=True)
class ProbeSpec:
    """Fields every probe spec has."""

    family: str = spec_field(help="Probe family; selects the builder (see `probesmith build --help`).")
    name: str = spec_field(
        help="Name of the dataset this spec builds; the output folder's name (letters, digits, "
        "'.', '_', '-'; no path)."
    )
    version: int = spec_field(1, help="Version of this spec; bump it when its output changes.")
    seed: int = spec_field(0, help="Seed of every random choice; same seed, same dataset.")
    description: str = spec_field("", help="One paragraph for the dataset card.")


@dataclass(frozen=True)
class MultipleChoiceSpec(ProbeSpec):
    """Fields of a multiple-choice family's spec (splits, the artifact filter).

    Its items are split by cluster, get balanced gold positions, and can be audited and filtered
    for artifacts. A family whose spec class derives from this one is a multiple-choice family;
    every other family is a table family, which writes tables of its own.
    """

    splits: SplitSpec = spec_field(default_factory=SplitSpec, help="Split sizes.")
    artifact_filter: ArtifactFilterSpec = spec_field(
        default_factory=ArtifactFilterSpec, help="Artifact filtering before writing."
    )


_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


def check_name(name: str, where: str) -> None:
    """A dataset name is one folder name: it can never point outside the output folder."""
    if not _NAME.fullmatch(name or "") or ".." in name:
        raise SpecError(
            f"{where}: {shown(name)} is not a dataset name; use letters, digits, '.', '_' and '-' "
            "(starting with a letter or digit, no '/' or '..'), e.g. wordnetqa-siblings."
        )


def bundled_spec_names() -> list[str]:
    """Names of the specs shipped in ``probesmith.probes`` (file names without ``.yaml``)."""
    return sorted(
        p.name[: -len(".yaml")]
        for p in resources.files("probesmith.probes").iterdir()
        if p.name.endswith(".yaml")
    )


def resolve_spec_path(name_or_path: str | Path, relative_to: Path | None = None) -> Path:
    """Find a spec by bundled name (``wordnet``) or by path; fail with the choices."""
    candidate = Path(name_or_path)
    if relative_to is not None and not candidate.is_absolute():
        relative = relative_to / candidate
        if relative.is_file():
            return relative
    if candidate.is_file():
        return candidate
    name = str(name_or_path)
    name = name[: -len(".yaml")] if name.endswith(".yaml") else name
    bundled = _bundled_spec(name)
    if bundled is not None:
        return bundled
    choices = bundled_spec_names()
    hint = _did_you_mean(name, choices)
    raise SpecError(
        f"spec {shown(str(name_or_path))} is neither a file nor a bundled spec{hint}. "
        f"Bundled specs: {', '.join(choices)}; or pass the path of a YAML file."
    )


def _bundled_spec(name: str) -> Path | None:
    """The bundled file called ``name`` (``wordnet``, ``catalogs/wikidata_relations``), or None.

    A name stays inside the bundled folder: no absolute path, no ``..``.
    """
    parts = name.replace("\\", "/").split("/")
    if not name or name.startswith("/") or any(part in ("", ".", "..") for part in parts):
        return None
    bundled = resources.files("probesmith.probes") / f"{name}.yaml"
    return Path(str(bundled)) if bundled.is_file() else None


SPEC_SUFFIXES = (".yaml", ".yml")


def resolve_include(parent: Any, including: Path) -> Path:
    """The spec an ``include:`` entry names, found without reading anything that is not a spec.

    An include is either a bundled spec name (``wordnet``) or a path ending in ``.yaml``/``.yml``
    (relative to the including file, or absolute). Anything else (``/etc/shadow``, ``notes.txt``)
    is refused before it is opened, and the message never shows what such a file holds.
    """
    if not isinstance(parent, str) or not parent.strip():
        raise SpecError(
            f"spec {including}: `include:` takes spec names or .yaml paths, not {shown(parent)}; "
            f"e.g. `include: wordnet` or `include: base.yaml`."
        )
    if parent.endswith(SPEC_SUFFIXES):
        return resolve_spec_path(parent, relative_to=including.parent)
    bundled = _bundled_spec(parent)
    if bundled is not None:
        return bundled
    choices = bundled_spec_names()
    raise SpecError(
        f"spec {including}: include {shown(parent)} is neither a bundled spec"
        f"{_did_you_mean(parent, choices)} nor a path ending in .yaml or .yml, so it was not read. "
        f"Include only specs: {', '.join(choices)}, or the path of a spec's .yaml file."
    )


SPEC_MAX_BYTES = 1_000_000
"""A spec file larger than this is refused before it is parsed (bundled specs are a few kB)."""

SPEC_MAX_VALUES = 20_000
"""The most values (scalars, lists, mappings) a spec file may stand for, aliases expanded.

YAML aliases (``*name``) let a few hundred bytes stand for billions of values (the "billion
laughs"): PyYAML shares the aliased object, but everything that walks the result afterwards
(merging, type checks, error messages) sees every copy. So the budget counts each alias as the
full size of what it names, and a file over the budget is refused right after composing, before
any value is built; counting visits every distinct node once, so the check is linear in the
file. Aliases themselves are allowed (a few are handy); only what they expand to is bounded.
Bundled specs stand for a few hundred values.
"""

_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_spec_yaml(path: Path) -> Any:
    """Parse the spec file ``path`` within a size and expansion budget; SpecError otherwise.

    Refuses a file over :data:`SPEC_MAX_BYTES` before parsing it, and YAML whose aliases expand
    to more than :data:`SPEC_MAX_VALUES` values (see there) before building it.
    """
    with open(path, "rb") as handle:
        raw = handle.read(SPEC_MAX_BYTES + 1)
    if len(raw) > SPEC_MAX_BYTES:
        raise SpecError(
            f"spec {path} is larger than {SPEC_MAX_BYTES // 1_000_000} MB, far more than a spec needs; "
            "pass the spec's .yaml file, not a data file."
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SpecError(
            f"spec {path} is not UTF-8 text ({exc.reason} at byte {exc.start}); save it as UTF-8."
        ) from None
    loader = _YAML_LOADER(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_expansion(node, path)
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        raise SpecError(
            f"spec {path} is not valid YAML: {_yaml_problem(exc)}. Fix the syntax and retry."
        ) from None
    except RecursionError:
        raise SpecError(
            f"spec {path} nests its values too deeply to be a spec; flatten it (a spec is a few levels deep)."
        ) from None
    finally:
        loader.dispose()


def _check_expansion(root: yaml.Node, path: Path) -> None:
    """Refuse YAML that stands for more than SPEC_MAX_VALUES values once its aliases are expanded."""
    sizes: dict[int, int] = {}
    in_progress = -1

    def size(node: yaml.Node) -> int:
        known = sizes.get(id(node))
        if known == in_progress:
            raise SpecError(
                f"spec {path}: an alias (*name) refers to a value that contains it, so the value "
                "never ends; write the value out instead of the alias."
            )
        if known is not None:
            return known
        sizes[id(node)] = in_progress
        if isinstance(node, yaml.SequenceNode):
            children = node.value
        elif isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        else:
            children = []
        total = 1
        for child in children:
            total += size(child)
            if total > SPEC_MAX_VALUES:
                raise SpecError(
                    f"spec {path} stands for more than {SPEC_MAX_VALUES:,} values once its aliases "
                    "(*name) are expanded (an alias bomb?); a spec needs a few hundred. Write the "
                    "values out, or use fewer and smaller aliases."
                )
        sizes[id(node)] = total
        return total

    size(root)


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """What a YAML error says, with its place but without echoing the file's text."""
    problem = getattr(exc, "problem", None) or getattr(exc, "context", None) or type(exc).__name__
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    return f"{shown_text(str(problem))}{where}"


_SHOWN_CHARS = 80
_REPR = reprlib.Repr()
_REPR.maxlevel = 2
_REPR.maxstring = _SHOWN_CHARS
_REPR.maxother = _SHOWN_CHARS
for _attribute in ("maxlist", "maxtuple", "maxdict", "maxset"):
    setattr(_REPR, _attribute, 4)


def shown(value: Any) -> str:
    """``repr(value)`` as an error message shows it: at most 80 characters, however large the value."""
    return shown_text(_REPR.repr(value))


def shown_text(text: str, limit: int = _SHOWN_CHARS) -> str:
    """``text`` cut to ``limit`` characters (with "...") for an error message."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def load_spec_layers(name_or_path: str | Path, *, _seen: tuple[Path, ...] = ()) -> list[dict[str, Any]]:
    """A spec's YAML and everything it includes, as layers: the most basic first, itself last."""
    path = resolve_spec_path(name_or_path).resolve()
    if path in _seen:
        chain = " -> ".join(str(p) for p in (*_seen, path))
        raise SpecError(f"spec includes itself: {chain}. Remove one of the `include:` keys.")
    data = read_spec_yaml(path)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise SpecError(f"spec {path} must be a mapping of keys to values, not a {type(data).__name__}.")
    include = data.pop("include", None)
    layers: list[dict[str, Any]] = []
    for parent in [] if include is None else include if isinstance(include, list) else [include]:
        layers += load_spec_layers(resolve_include(parent, path), _seen=(*_seen, path))
    return [*layers, data]


def merge_layers(layers: list[dict[str, Any]], cls: type | None = None) -> dict[str, Any]:
    """Merge spec layers, later ones overriding earlier ones.

    Sections that are spec dataclasses (``distractors:``, ``splits:``) merge key by key, so an
    override names only what it changes; every other value, mappings such as ``mix:`` or
    ``framings:`` included, is replaced whole. A section may name keys that a layer's value
    replaces along with its own (``SPEC_KEY_REPLACES``: setting ``distractors.mix`` drops the
    ``mix_by_probe`` of the layers below). Without ``cls`` every mapping merges.
    """
    merged: dict[str, Any] = {}
    for layer in layers:
        merged = deep_merge(merged, layer, cls)
    return merged


def load_spec_dict(name_or_path: str | Path, cls: type | None = None) -> dict[str, Any]:
    """Read a spec's YAML and everything it includes, merged; no type checking yet."""
    return merge_layers(load_spec_layers(name_or_path), cls)


def deep_merge(
    base: Mapping[str, Any], override: Mapping[str, Any], cls: type | None = None
) -> dict[str, Any]:
    """Merge ``override`` into ``base`` (see :func:`merge_layers` for what merges)."""
    hints = typing.get_type_hints(cls) if cls is not None else {}
    merged = dict(base)
    # a key that stands for others: a layer that sets `mix` means its mix for every probe, so the
    # per-probe mixes of the layers below it go, unless the same layer sets them too
    for key, replaced in getattr(cls, "SPEC_KEY_REPLACES", {}).items():
        if key in override:
            for other in replaced:
                if other not in override:
                    merged.pop(other, None)
    for key, value in override.items():
        section = hints.get(key)
        mergeable = cls is None or (section is not None and dataclasses.is_dataclass(section))
        if mergeable and isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = deep_merge(merged[key], value, section if cls is not None else None)
        else:
            merged[key] = value
    return merged


def from_dict(cls: type[T], data: Mapping[str, Any], where: str = "spec") -> T:
    """Build the frozen dataclass ``cls`` from ``data``, checking keys and types."""
    if not isinstance(data, Mapping):
        raise SpecError(f"{where} must be a mapping, got {type(data).__name__} {shown(data)}.")
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = [key for key in data if key not in fields]
    if unknown:
        key = unknown[0]
        raise SpecError(
            f"{where}: unknown key {shown(key)}{_did_you_mean(str(key), list(fields))}. "
            f"Known keys: {', '.join(fields)}."
        )
    values = {}
    for name, f in fields.items():
        if name in data:
            values[name] = _coerce(hints[name], data[name], f"{where}.{name}")
            _check_range(values[name], f, f"{where}.{name}")
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise SpecError(f"{where}: required key {name!r} is missing ({f.metadata.get('help')}).")
    if issubclass(cls, ProbeSpec) and "name" in values:
        check_name(values["name"], f"{where}.name")
    try:
        return cls(**values)
    except (TypeError, ValueError) as exc:
        raise SpecError(f"{where}: {shown_text(str(exc), limit=400)}") from None


def _check_range(value: Any, f: dataclasses.Field, where: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return
    if isinstance(value, float) and not math.isfinite(value):
        raise SpecError(f"{where}: {shown(value)} is not a finite number.")
    low, high = f.metadata.get("minimum", 0), f.metadata.get("maximum")
    if low is not None and value < low:
        raise SpecError(f"{where}: {shown(value)} is below the smallest allowed value, {low}.")
    if high is not None and value > high:
        raise SpecError(f"{where}: {shown(value)} is above the largest allowed value, {high}.")


def _coerce(hint: Any, value: Any, where: str) -> Any:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if dataclasses.is_dataclass(hint):
        return from_dict(hint, value, where)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        non_none = [a for a in args if a is not type(None)]
        return _coerce(non_none[0], value, where)
    if origin is typing.Literal:
        if value not in args:
            choices = [str(a) for a in args]
            raise SpecError(
                f"{where}: {shown(value)} is not one of {', '.join(choices)}"
                f"{_did_you_mean(str(value), choices)}."
            )
        return value
    if origin in (tuple, list):
        if not isinstance(value, list | tuple):
            raise SpecError(f"{where}: expected a list, got {type(value).__name__} {shown(value)}.")
        item_hint = args[0] if args else Any
        return tuple(_coerce(item_hint, v, f"{where}[{i}]") for i, v in enumerate(value))
    if origin in (dict, Mapping) or hint is dict:
        if not isinstance(value, Mapping):
            raise SpecError(f"{where}: expected a mapping, got {type(value).__name__} {shown(value)}.")
        value_hint = args[1] if len(args) == 2 else Any
        return types.MappingProxyType(
            {str(k): _coerce(value_hint, v, f"{where}.{shown_text(str(k))}") for k, v in value.items()}
        )
    if hint is Any:
        return value
    if hint is bool:
        if not isinstance(value, bool):
            raise SpecError(f"{where}: expected true or false, got {shown(value)}.")
        return value
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise SpecError(f"{where}: expected an integer, got {shown(value)}.")
        return value
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise SpecError(f"{where}: expected a number, got {shown(value)}.")
        return float(value)
    if hint is str:
        if not isinstance(value, str):
            raise SpecError(f"{where}: expected a string, got {type(value).__name__} {shown(value)}.")
        return value
    return value


def to_dict(spec: Any) -> Any:
    """The plain-data form of a spec (for YAML, JSON and manifests)."""
    if dataclasses.is_dataclass(spec):
        return {f.name: to_dict(getattr(spec, f.name)) for f in dataclasses.fields(spec)}
    if isinstance(spec, Mapping):
        return {k: to_dict(v) for k, v in spec.items()}
    if isinstance(spec, list | tuple):
        return [to_dict(v) for v in spec]
    return spec


def spec_to_yaml(spec: Any) -> str:
    """The resolved spec as YAML, the form ``--dry-run`` prints."""
    return yaml.safe_dump(to_dict(spec), sort_keys=False, allow_unicode=True)


def describe_fields(cls: type, prefix: str = "") -> list[tuple[str, str, str]]:
    """(key, default, help) for every field of a spec class, nested ones flattened with dots."""
    rows = []
    for f in dataclasses.fields(cls):
        hint = typing.get_type_hints(cls)[f.name]
        key = f"{prefix}{f.name}"
        if dataclasses.is_dataclass(hint):
            rows.extend(describe_fields(hint, f"{key}."))
            continue
        if f.default is not dataclasses.MISSING:
            default = repr(to_dict(f.default))
        elif f.default_factory is not dataclasses.MISSING:
            default = repr(to_dict(f.default_factory()))
        else:
            default = "(required)"
        rows.append((key, default, f.metadata.get("help", "")))
    return rows


def _did_you_mean(word: str, choices: list[str]) -> str:
    if len(word) > 200:  # no name is this long; difflib on a huge string would take minutes
        return ""
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""
