"""The relation catalog: Wikidata relations with their templates, cardinality, domains and types.

``probes/catalogs/wikidata_relations.yaml`` (BEAR's 60 relations and more) is the bundled one;
relation sets, paraphrase grids, rule mining and snapshots read it through :func:`load_catalog`.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from probesmith.builders.text import template_key
from probesmith.errors import SpecError
from probesmith.probes.spec import read_spec_yaml, resolve_spec_path

#: The bundled relation catalog: BEAR's 60 relations and more, with templates, types and domains.
DEFAULT_CATALOG = "catalogs/wikidata_relations"
#: Classes whose members' labels are names of persons, works or bands (never read with "the").
DEFAULT_NAME_CLASSES = "catalogs/name_classes"


@dataclass(frozen=True)
class Relation:
    """One relation of the catalog."""

    pid: str
    label: str
    templates: tuple[str, ...]
    cardinality: str = "auto"
    description: str = ""
    domains: tuple[str, ...] = ()
    subject_types: tuple[str, ...] = ()
    object_types: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not re.fullmatch(r"P\d+", self.pid):
            raise SpecError(f"relation catalog: {self.pid!r} is not a Wikidata property id (P123).")
        distinct = {template_key(t) for t in self.templates}
        if len(distinct) < 3:
            raise SpecError(
                f"relation catalog: {self.pid} needs at least 3 distinct templates, has {len(distinct)} "
                f"({list(self.templates)})."
            )
        for qid in self.subject_types + self.object_types:
            if not re.fullmatch(r"Q\d+", qid):
                raise SpecError(f"relation catalog: {self.pid} type {qid!r} is not a Wikidata item id (Q5).")
        for template in self.templates:
            if template.count("[X]") != 1 or template.count("[Y]") != 1:
                raise SpecError(
                    f"relation catalog: {self.pid} template {template!r} needs one [X] and one [Y]."
                )


@functools.lru_cache(maxsize=8)
def load_catalog(name_or_path: str) -> dict[str, Relation]:
    """A relation catalog by bundled name (``catalogs/wikidata_relations``) or path (read once)."""
    path = resolve_spec_path(name_or_path)
    data = read_spec_yaml(path)  # bounded: size and alias-expansion budget, as every spec
    entries = data.get("relations") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not entries:
        raise SpecError(f"relation catalog {path} needs a non-empty list under `relations:`.")
    relations = {}
    for number, entry in enumerate(entries, 1):
        missing = [k for k in ("pid", "templates") if not isinstance(entry, dict) or k not in entry]
        if missing or not isinstance(entry["templates"], list) or not entry["templates"]:
            raise SpecError(
                f"relation catalog {path}, entry {number}: needs `pid` and a non-empty list of "
                f"`templates` (missing or empty: {missing or ['templates']})."
            )
        relation = Relation(
            pid=str(entry["pid"]),
            label=entry.get("label", entry["pid"]),
            templates=tuple(entry["templates"]),
            cardinality=entry.get("cardinality", "auto"),
            description=entry.get("description", ""),
            domains=tuple(entry.get("domains", [])),
            subject_types=tuple(entry.get("subject_types", [])),
            object_types=tuple(entry.get("object_types", [])),
        )
        relations[relation.pid] = relation
    return relations


def is_object_final(template: str) -> bool:
    """Whether [Y] ends the template (final punctuation and spaces aside)."""
    return template.rstrip(" .!?;:").endswith("[Y]")


@functools.lru_cache(maxsize=8)
def load_name_classes(name_or_path: str = DEFAULT_NAME_CLASSES) -> frozenset[str]:
    """Wikidata classes whose members are named like persons, works or bands: no "the" before their labels.

    ``probes/catalogs/name_classes.yaml`` holds ``classes: {Q-id: what it is}``.
    """
    path = resolve_spec_path(name_or_path)
    data = read_spec_yaml(path)
    classes = data.get("classes") if isinstance(data, dict) else None
    if not isinstance(classes, dict) or not classes:
        raise SpecError(f"name classes {path}: needs a non-empty mapping `classes: {{Q5: human, ...}}`.")
    bad = [q for q in classes if not re.fullmatch(r"Q\d+", str(q))]
    if bad:
        raise SpecError(f"name classes {path}: {bad} are not Wikidata item ids (Q5).")
    return frozenset(str(q) for q in classes)
