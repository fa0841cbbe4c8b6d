"""Which Wikidata a build read, as of when, and which of its relations change with time.

A fact of Wikidata is true *as of* a snapshot: "the head of government of Japan is Shinzo Abe"
was true in 2017 and is not now. Every Wikidata build names its snapshot in the manifest
(``sources.wikidata``) and in a card section, and marks the relations whose truth changes with
time (:data:`TIME_DEPENDENT_RELATIONS`) in ``relation_info`` and the card.

Where the snapshot's date comes from, first match wins:

* a sidecar ``<dump>.snapshot.json`` beside the dump (``{"name", "date", "dump_id", "note"}``),
  which ``probesmith wikidata snapshot`` writes with the endpoint and the query date;
* a dump probesmith knows by its sha256 (:data:`KNOWN_SNAPSHOTS`: the shared slice);
* a Wikidata dump id (``wikidata-20240101-truthy-BETA.nt.gz``: 2024-01-01) in the file name;
* for a live endpoint, the endpoint and the date the build queried it (UTC);
* else the date is ``unknown``, and the card says so and how to name it.

Whether the source has statement qualifiers (end times, ``pq:P582``) is asked of a local store
with one query (``LIMIT 1``); builds read truthy ``wdt:`` facts, so an end time is never used to
drop a fact: the card says what that means for the relations that change with time.
"""

from __future__ import annotations

import datetime
import json
import re
from pathlib import Path

#: The shared slice (``../shared/data/wikidata_slice/wikidata_slice.nt.gz``), by its sha256: its
#: README dates its facts (a union of benchmark fact lists, each from its own Wikidata snapshot).
KNOWN_SNAPSHOTS: dict[str, dict[str, str]] = {
    "eed0cf986b8ecf27af06f1d0c820ce9055bbf09852a9822200f87f5a34a444e3": {
        "name": "wikidata_slice (probesmith shared data): Wikidata facts, labels and aliases re-serialized "
        "from the fact lists of LAMA T-REx, LPAQA, X-FACTR, BEAR and CoDEx",
        "date": "2017 to 2024 (mixed snapshots)",
        "dump_id": "none (not a contiguous Wikidata dump)",
        "note": "T-REx and LPAQA facts are from Wikidata of about 2017, X-FACTR's of about 2020, BEAR's "
        "of about 2023-24 (the slice's README); a fact was true in Wikidata at one of those dates, "
        "not necessarily today, and not necessarily at the others.",
    }
}

#: Relations whose truth changes with time, each with the reason. The slice has no property
#: constraints (no ``P2302``) to decide it from, so it is declared here; on Wikidata these
#: relations' statements carry start/end-time qualifiers (P580/P582).
TIME_DEPENDENT_RELATIONS: dict[str, str] = {
    "P6": "heads of government leave office",
    "P35": "heads of state leave office",
    "P39": "positions are held for a term",
    "P54": "players move between sports teams",
    "P26": "marriages begin and end",
    "P451": "partnerships begin and end",
    "P108": "people change employers",
    "P463": "memberships begin and end",
    "P102": "people change political parties",
    "P264": "artists change record labels",
    "P551": "people move",
    "P937": "people work in different places over a career",
    "P127": "owners change (acquisitions, sales)",
    "P749": "parent organizations change (acquisitions, spin-offs)",
    "P159": "headquarters move",
    "P36": "capitals move (Bonn to Berlin) and are renamed (Nur-Sultan, Astana again since 2022)",
    "P1376": "capitals move (Bonn to Berlin) and are renamed (Nur-Sultan, Astana again since 2022)",
    "P17": "borders and states change (a town of the Soviet Union is in Russia today)",
    "P131": "administrative divisions are reorganized",
    "P27": "citizenship is gained and lost, and states dissolve",
    "P530": "diplomatic relations are opened and broken off",
    "P141": "conservation statuses are reassessed",
    "P195": "works of art change collections",
    "P276": "objects and events change location",
    # the twenty-second read: every catalog relation checked; these state a present fact that can end
    "P37": "official languages are changed by law",
    "P81": "lines open, close and are rerouted",
    "P115": "teams move to other venues",
    "P137": "operators change (an army disbands, a mission is handed over)",
    "P190": "twinnings are made and ended",
    "P466": "a venue's tenants come and go",
    # the thirty-first read: every catalog relation checked again; these too state a fact that can end
    "P98": "editors of a journal or a book series are succeeded",
    "P1532": "athletes change the country they compete for",
    "P611": "members leave and change religious orders",
    "P945": "allegiances are changed (soldiers and rulers change sides)",
    "P171": "taxa are moved to other genera and families",
    "P105": "taxa are raised or lowered in rank (a subspecies becomes a species)",
}

#: the qualifier that ends a statement's validity, in Wikidata's RDF
END_TIME_QUALIFIER = "http://www.wikidata.org/prop/qualifier/P582"
QUALIFIERS_QUERY = f"SELECT ?statement WHERE {{ ?statement <{END_TIME_QUALIFIER}> ?end }} LIMIT 1"

_DUMP_ID = re.compile(r"(?<!\d)(20\d{2})(\d{2})(\d{2})(?!\d)")


def snapshot_sidecar(dump: Path) -> Path:
    """The sidecar that names a dump's snapshot: ``<dump>.snapshot.json``."""
    return dump.with_name(dump.name + ".snapshot.json")


def describe_snapshot(
    *,
    dump: Path | None = None,
    dump_sha256: str | None = None,
    endpoint: str | None = None,
    today: datetime.date | None = None,
) -> dict[str, str]:
    """The snapshot a Wikidata source holds: ``snapshot`` (its name), ``snapshot_date``, ``dump_id``.

    ``endpoint``: a live SPARQL endpoint, dated by ``today`` (UTC). Otherwise a dump (or the dump a
    store was loaded from) by its sidecar, its sha256, or a dump id in its name.
    """
    if endpoint is not None:
        day = (today or datetime.datetime.now(datetime.UTC).date()).isoformat()
        return {
            "snapshot": f"live endpoint {endpoint}",
            "snapshot_date": f"{day} (the day the build queried it)",
            "dump_id": "none (live endpoint)",
        }
    if dump is not None and snapshot_sidecar(dump).is_file():
        declared = json.loads(snapshot_sidecar(dump).read_text(encoding="utf-8"))
        return {
            "snapshot": str(declared.get("name") or dump.name),
            "snapshot_date": str(declared.get("date") or "unknown"),
            "dump_id": str(declared.get("dump_id") or "none"),
            **({"snapshot_note": str(declared["note"])} if declared.get("note") else {}),
        }
    if dump_sha256 in KNOWN_SNAPSHOTS:
        known = KNOWN_SNAPSHOTS[dump_sha256]
        return {
            "snapshot": known["name"],
            "snapshot_date": known["date"],
            "dump_id": known["dump_id"],
            "snapshot_note": known["note"],
        }
    name = dump.name if dump is not None else "an unnamed dump"
    found = _DUMP_ID.search(name)
    if found:
        year, month, day = found.groups()
        return {"snapshot": name, "snapshot_date": f"{year}-{month}-{day}", "dump_id": found.group(0)}
    return {
        "snapshot": name,
        "snapshot_date": "unknown",
        "dump_id": "unknown",
        "snapshot_note": f"name the date in a sidecar {name}.snapshot.json "
        '({"name": ..., "date": "YYYY-MM-DD", "dump_id": ...}) beside the dump',
    }


def end_time_qualifiers(client) -> str:
    """``present`` or ``absent``: whether the source has any end-time qualifier (one LIMIT 1 query)."""
    return "present" if client.select(QUALIFIERS_QUERY) else "absent"


def changes_over_time(pid: str) -> bool:
    """Whether the relation's truth changes with time (:data:`TIME_DEPENDENT_RELATIONS`)."""
    return pid in TIME_DEPENDENT_RELATIONS


def snapshot_markdown(source: dict, relations: list[str], labels: dict[str, str] | None = None) -> str:
    """The card section that names the snapshot and says what "true" means in this build."""
    labels = labels or {}
    where = source.get("endpoint") or source.get("dump") or source.get("store") or "unknown"
    lines = [
        f"- Source: `{where}`" + (f" (sha256 `{sha}`)" if (sha := source.get("dump_sha256")) else ""),
        f"- Snapshot: {source.get('snapshot', 'unknown')}",
        f"- Date: **{source.get('snapshot_date', 'unknown')}**; dump id: {source.get('dump_id', 'unknown')}",
    ]
    if source.get("snapshot_note"):
        lines.append(f"- {source['snapshot_note']}")
    lines += [
        "",
        f'What "true" means: a fact was a statement of Wikidata in this snapshot, dated '
        f"{source.get('snapshot_date', 'unknown')}; a gold answer is such a statement's object or an answer "
        "the rules of this card add to it (a place or a class containing it, an answer labelled with its "
        "name). It is not checked against today's Wikidata.",
    ]
    qualifiers = source.get("end_time_qualifiers")
    if qualifiers == "absent":
        lines.append(
            "The source has no statement qualifiers (no end time, `pq:P582`): the build cannot tell a "
            "statement that still holds from one that ended before the snapshot, so a fact of a relation "
            "below may be a past one (a former head of government, an earlier club)."
        )
    elif qualifiers == "present":
        lines.append(
            "The source has end-time qualifiers (`pq:P582`), but the build reads truthy `wdt:` facts (the "
            "best-ranked statements) and does not drop a statement with an end time: not checked."
        )
    else:
        lines.append(
            "Whether the source's statements carry end times was not asked (a live endpoint); the build "
            "reads truthy `wdt:` facts (the best-ranked statements), which can still include ended ones."
        )
    changing = [pid for pid in sorted(set(relations), key=_pid_order) if changes_over_time(pid)]
    if changing:
        lines += ["", "Relations of this build whose truth changes with time (`changes_over_time`):", ""]
        lines += [
            f"- {pid}" + (f" ({labels[pid]})" if pid in labels else "") + f": {TIME_DEPENDENT_RELATIONS[pid]}"
            for pid in changing
        ]
    else:
        lines += ["", "No relation of this build is one whose truth changes with time (declared list)."]
    return "\n".join(lines)


def _pid_order(pid: str) -> tuple:
    return (int(pid[1:]), pid) if pid[1:].isdigit() else (10**9, pid)
