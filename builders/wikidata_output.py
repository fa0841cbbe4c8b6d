"""What the table families built from Wikidata share: their output.

Above the sources (it builds a registry ``TableOutput`` from a source's provenance), below the
families that call it.
"""

from __future__ import annotations

from dataclasses import replace

from probesmith.builders.registry import TableOutput, single_split_tables
from probesmith.builders.sources.catalog import DEFAULT_CATALOG, load_catalog
from probesmith.builders.sources.wikidata_snapshot import snapshot_markdown


def wikidata_output(
    card, source: dict, queries: list[dict], configs: dict, *, summary, dropped, validity, **manifest
) -> TableOutput:
    """The ``TableOutput`` of a Wikidata family: its one-split tables, its source and every query.

    ``configs`` maps config -> (schema, rows), one ``test`` split each. The manifest records the
    source's provenance, each query (text hash, rows, seconds) and ``manifest``'s other entries
    (``popularity_measure``, ``inverse_relations``).
    """
    labels = {pid: relation.label for pid, relation in load_catalog(DEFAULT_CATALOG).items()}
    section = snapshot_markdown(source, _relations_of(configs), labels)
    card = replace(card, extra_sections=(("Snapshot and time", section), *card.extra_sections))
    return TableOutput(
        card,
        {"wikidata": source},
        tables=single_split_tables(configs),
        summary=summary,
        dropped=dropped,
        validity=validity,
        manifest_extra={"queries": queries, **manifest},
    )


def _relations_of(configs: dict) -> list[str]:
    """The Wikidata relations a build's tables hold (``relation_id``, ``relation``, rule atoms)."""
    found: set[str] = set()
    for _, rows in configs.values():
        for row in rows:
            for key in ("relation_id", "relation", "r1", "r2", "r3"):
                value = row.get(key)
                if isinstance(value, str) and value:
                    found.add(value.removesuffix("^-1"))
    return sorted(pid for pid in found if pid.startswith("P") and pid[1:].isdigit())
