"""The registry of probe families, filled by the family modules themselves.

A family module in ``probesmith.builders`` declares its spec dataclass and its generator with
``@register_family(...)``; :func:`families` imports every module of the package once, so a new
family needs no registration code anywhere else.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa

from probesmith.errors import SpecError
from probesmith.probes.spec import (
    MultipleChoiceSpec,
    ProbeSpec,
    _did_you_mean,
    from_dict,
    load_spec_layers,
    merge_layers,
    shown,
)
from probesmith.schemas.card import CardInfo
from probesmith.schemas.tables import TableSchema, add_schema_finder


@dataclass(slots=True)
class DraftChoice:
    """One answer option before positions are assigned."""

    text: str
    concept: str
    kind: str  # "gold", or the distractor type
    hops: int | None


@dataclass(slots=True)
class DraftItem:
    """A multiple-choice item as a family generates it: the gold and its distractors."""

    id: str
    probe: str
    question: str
    gold: DraftChoice
    distractors: list[DraftChoice]
    cluster: str
    concept: str
    hops: int
    pos: str
    framing: str
    perturbation: int
    source: str


@dataclass
class FamilyOutput:
    """What a family's generator returns: one of its two kinds.

    :class:`MultipleChoiceOutput` (items per config, which the build splits and places golds in)
    or :class:`TableOutput` (finished tables per (config, split) with their schemas). Both carry
    card text, source versions, drop counts and manifest extras; a generator returns one of the
    two, never the base.
    """

    card: CardInfo
    sources: dict[str, dict]
    dropped: Counter = field(default_factory=Counter)
    manifest_extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class MultipleChoiceOutput(FamilyOutput):
    """A multiple-choice family's output: draft items per config (see the shared fields above)."""

    items: dict[str, list[DraftItem]] = field(default_factory=dict)
    # the distractor mix each config asked for, and how far the delivered share of a type may lie
    # from the asked one (the validity rule mix_delivered)
    distractor_mixes: dict[str, dict[str, int]] = field(default_factory=dict)
    mix_tolerance: float = 0.03
    # a rule over a config's items applied again to what a build keeps (after train overflow and
    # the artifact filter): (config, items, drop counter) -> kept items
    rebalance: Callable[[str, list[DraftItem], Counter], list[DraftItem]] | None = None
    # the family's own rules, checked on every item written
    # (validity.ItemChecks: rules, columns, check(rows) -> broken (rule, detail) pairs per row)
    item_checks: Any = None


@dataclass
class TableOutput(FamilyOutput):
    """A table family's output: its finished tables, a summary frame, its own validity report."""

    tables: dict[tuple[str, str], tuple[pa.Table, TableSchema]] = field(default_factory=dict)
    summary: pl.DataFrame | None = None
    validity: dict[str, Any] | None = None  # the family's validity report (validity.json)


def single_split_tables(
    configs: dict[str, tuple[TableSchema, list[dict]]], split: str = "test"
) -> dict[tuple[str, str], tuple[pa.Table, TableSchema]]:
    """``TableOutput.tables`` for families whose every config has one split: config -> (schema, rows)."""
    return {(config, split): (schema.from_rows(rows), schema) for config, (schema, rows) in configs.items()}


GenerateFn = Callable[[Any], FamilyOutput]


@dataclass(frozen=True)
class Converter:
    """A format a family's builds convert to or from: ``probesmith export NAME`` / ``import NAME``.

    The command line offers one subcommand per converter a family registers
    (:func:`register_exporter`, :func:`register_importer`); none is named in the CLI's code.
    """

    name: str  # the subcommand, e.g. "bear"
    help: str  # one line for ``--help``
    # (folder, out, force=) -> what was written: the path of an export, the manifest of an import
    run: Callable[..., Any]
    # (what run returned, out) -> the line printed when it is done
    done: Callable[[Any, Path], str] = lambda written, out: f"written to {written}"
    out_help: str = "Where to write it."


@dataclass(frozen=True)
class Family:
    """A registered probe family.

    Its kind is stated by its spec class: a ``MultipleChoiceSpec`` makes a multiple-choice family
    (items split by cluster, balanced gold positions, audit and artifact filter, the evaluation of
    every multiple-choice family); any other ``ProbeSpec`` a table family, which writes its own
    tables and registers its own evaluation (``probesmith.eval.families``). Its exporters and
    importers (other projects' layouts) are registered beside it.
    """

    name: str
    spec_class: type[ProbeSpec]
    generate: GenerateFn
    default_spec: str
    description: str

    @property
    def multiple_choice(self) -> bool:
        """Whether this is a multiple-choice family."""
        return issubclass(self.spec_class, MultipleChoiceSpec)

    @property
    def kind(self) -> str:
        """``multiple_choice`` or ``table``."""
        return MULTIPLE_CHOICE_KIND if self.multiple_choice else TABLE_KIND

    @property
    def output_class(self) -> type[FamilyOutput]:
        """The kind of output its generator returns."""
        return MultipleChoiceOutput if self.multiple_choice else TableOutput

    @property
    def exporters(self) -> dict[str, Converter]:
        """The formats its builds export to, by subcommand name."""
        return dict(_EXPORTERS.get(self.name, {}))

    @property
    def importers(self) -> dict[str, Converter]:
        """The formats imported as its builds, by subcommand name."""
        return dict(_IMPORTERS.get(self.name, {}))


#: The kind of multiple-choice families, and the name evaluation gives AI2 JSONL (no family).
MULTIPLE_CHOICE_KIND = "multiple_choice"
TABLE_KIND = "table"


_FAMILIES: dict[str, Family] = {}
_EXPORTERS: dict[str, dict[str, Converter]] = {}
_IMPORTERS: dict[str, dict[str, Converter]] = {}
_DISCOVERED = False


def register_family(
    name: str, spec_class: type[ProbeSpec], default_spec: str, description: str
) -> Callable[[GenerateFn], GenerateFn]:
    """Register ``generate(spec) -> FamilyOutput`` as the builder of family ``name``."""

    def decorator(generate: GenerateFn) -> GenerateFn:
        _FAMILIES[name] = Family(name, spec_class, generate, default_spec, description)
        return generate

    return decorator


def register_exporter(family: str, converter: Converter) -> Converter:
    """Offer ``probesmith export <converter.name>`` for builds of ``family``."""
    _EXPORTERS.setdefault(family, {})[converter.name] = converter
    return converter


def register_importer(family: str, converter: Converter) -> Converter:
    """Offer ``probesmith import <converter.name>``, which writes a build of ``family``."""
    _IMPORTERS.setdefault(family, {})[converter.name] = converter
    return converter


def unregister_family(name: str) -> None:
    """Forget the family ``name`` and its converters (one registered by a notebook or a test)."""
    _FAMILIES.pop(name, None)
    _EXPORTERS.pop(name, None)
    _IMPORTERS.pop(name, None)


def multiple_choice_families() -> list[str]:
    """Names of the registered multiple-choice families."""
    return [name for name, family in families().items() if family.multiple_choice]


def families() -> dict[str, Family]:
    """Every registered family, after importing every module of ``probesmith.builders.families``."""
    global _DISCOVERED
    if not _DISCOVERED:
        import probesmith.builders.families as package  # deferred: plugin discovery, the families sit above

        for module in pkgutil.iter_modules(package.__path__):
            importlib.import_module(f"probesmith.builders.families.{module.name}")
        _DISCOVERED = True
    return dict(sorted(_FAMILIES.items()))


add_schema_finder(families)  # a family's own table schemas, declared when its module is imported


def get_family(name: str) -> Family:
    """The family called ``name``; fail with the known names."""
    known = families()
    if name not in known:
        raise SpecError(
            f"unknown probe family {shown(name)}{_did_you_mean(name, list(known))}. "
            f"Known families: {', '.join(known)}."
        )
    return known[name]


def load_spec(name_or_path: str | Path, *, seed: int | None = None) -> ProbeSpec:
    """Load a spec by bundled name or path, resolve includes, type-check it, apply overrides."""
    layers = load_spec_layers(name_or_path)
    family_name = merge_layers(layers).get("family")
    if not isinstance(family_name, str):
        raise SpecError(
            f"spec {name_or_path}: key 'family' is missing or not a string; "
            f"set it to one of {', '.join(families())}."
        )
    family = get_family(family_name)
    data = merge_layers(layers, family.spec_class)
    spec = from_dict(family.spec_class, data, where=f"spec {Path(str(name_or_path)).name}")
    if seed is not None:
        spec = replace(spec, seed=seed)
    return spec


def resolve_spec(
    name_or_path: str | Path,
    *,
    family: str | None = None,
    seed: int | None = None,
    filter_artifacts: bool = False,
    wikidata: str | None = None,
) -> ProbeSpec:
    """The spec ``probesmith build FAMILY --spec ...`` builds: loaded, with the command's overrides.

    ``family``: the spec must be of that family (a clear error names the right command).
    ``filter_artifacts`` turns the artifact filter on (multiple-choice families only);
    ``wikidata`` replaces the Wikidata source (the families that query it).
    """
    spec = load_spec(name_or_path, seed=seed)
    if family is not None and spec.family != family:
        raise SpecError(
            f"spec {name_or_path} is of family {shown(spec.family)}, not {family!r}: run "
            f"`probesmith build {spec.family} --spec {name_or_path}`."
        )
    if filter_artifacts:
        if not isinstance(spec, MultipleChoiceSpec):
            raise SpecError(
                f"the artifact filter is for multiple-choice builds; {spec.family} is a table family."
            )
        spec = replace(spec, artifact_filter=replace(spec.artifact_filter, enabled=True))
    if wikidata:
        if not hasattr(spec, "wikidata"):
            raise SpecError(f"spec {name_or_path} (family {spec.family}) does not query Wikidata.")
        spec = replace(spec, wikidata=replace(spec.wikidata, source=wikidata))
    return spec
