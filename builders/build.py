"""Build orchestration: spec -> family generator -> splits -> positions -> Hub-ready folder.

``build(spec)`` is what ``probesmith build <family>`` runs; ``build_all()`` runs every registered
family from its default spec, which is the README's main job.
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import os
import pickle
import queue
import threading
import time
import traceback
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from multiprocessing.reduction import ForkingPickler
from pathlib import Path
from types import MappingProxyType
from typing import Any

import polars as pl
import pyarrow as pa

import probesmith
from probesmith.builders.batch import arrow_on_the_c_heap, build_workers, cyclic_gc_paused, set_build_workers
from probesmith.builders.registry import (
    DraftItem,
    MultipleChoiceOutput,
    TableOutput,
    families,
    get_family,
    load_spec,
)
from probesmith.builders.sampling import assign_splits, balanced_positions, item_rng
from probesmith.builders.validity import VALIDITY_FILE, validity_markdown, validity_report
from probesmith.probes.spec import MultipleChoiceSpec, ProbeSpec, to_dict
from probesmith.progress import (
    bars_lock_in_this_process_only,
    progress,
    progress_shown,
    set_bar_row,
    show_progress,
)
from probesmith.schemas.artifact import DatasetFolderWriter
from probesmith.schemas.card import CardInfo
from probesmith.schemas.output import failpoint
from probesmith.schemas.tables import COLUMNS, MULTIPLE_CHOICE, TableSchema

log = logging.getLogger(__name__)

DEFAULT_OUT_ROOT = Path("artifacts")
REFERENCE_DIR = "reference"
SPLITS = ("train", "dev", "test")


@dataclass(frozen=True)
class BuildResult:
    """What a build produced: where, its manifest, its summary and what it dropped."""

    out: Path
    manifest: dict
    summary: pl.DataFrame
    dropped: dict[str, int]
    seconds: float
    timings: dict[str, float]
    #: how the build compares with its reference manifest (``build_all``): "matches", "differs", or
    #: "" where none was compared
    reference: str = ""

    @property
    def logical_hash(self) -> str:
        """The build's logical content hash (independent of row order and encoding)."""
        return self.manifest["logical_hash"]


def build(
    spec: ProbeSpec, out: str | Path | None = None, *, force: bool = False, allow_empty: bool = False
) -> BuildResult:
    """Build the dataset ``spec`` describes into ``out`` (default ``artifacts/<spec.name>``).

    ``out`` is checked and locked before anything is generated: it must be new, empty, or a
    build of the same family (``force`` also replaces a probesmith output of another kind). The
    folder appears complete or not at all, and a build with no rows is refused unless
    ``allow_empty``. Python's cyclic garbage collector is paused meanwhile
    (:func:`probesmith.builders.batch.cyclic_gc_paused`: a build makes few reference cycles, and
    the collector's passes over a large heap, such as WordNet's, cost seconds), and Arrow allocates
    from the C heap, where it reuses what the generation freed
    (:func:`probesmith.builders.batch.arrow_on_the_c_heap`).
    """
    with cyclic_gc_paused(), arrow_on_the_c_heap():
        return _build(spec, out, force=force, allow_empty=allow_empty)


def _build(spec: ProbeSpec, out: str | Path | None, *, force: bool, allow_empty: bool) -> BuildResult:
    started = time.perf_counter()
    out = Path(out) if out is not None else DEFAULT_OUT_ROOT / spec.name
    family = get_family(spec.family)
    log.info("building %s (family %s, seed %d) into %s", spec.name, family.name, spec.seed, out)
    timings = {}
    with DatasetFolderWriter(out, f"build:{family.name}", force=force, allow_empty=allow_empty) as writer:
        failpoint("generate")
        output = family.generate(spec)
        timings["generate_s"] = time.perf_counter() - started
        if not isinstance(output, family.output_class):
            raise TypeError(
                f"family {family.name} returned a {type(output).__name__}, but its spec class "
                f"{family.spec_class.__name__} makes it a {family.kind} family, whose generator returns a "
                f"{family.output_class.__name__}"
            )
        assemble = _assemble_items if isinstance(output, MultipleChoiceOutput) else _assemble_tables
        all_tables, summary, card, filter_report = assemble(output, spec, writer)
        timings["assemble_s"] = time.perf_counter() - started - timings["generate_s"]
        for (config, split), (table, schema) in progress(
            all_tables.items(), desc=f"{family.name}: writing", unit="table", total=len(all_tables)
        ):
            writer.add_table(config, split, table, schema)
        manifest_fields = {
            "name": spec.name,
            "family": family.name,
            "spec": to_dict(spec),
            "seed": spec.seed,
            "sources": output.sources,
            "probesmith_version": probesmith.__version__,
            "dropped": dict(sorted(output.dropped.items())),
        }
        if filter_report is not None:
            manifest_fields["artifact_filter"] = asdict(filter_report)
        manifest_fields.update(output.manifest_extra)
        totals = _totals({key: table for key, (table, _) in all_tables.items()})
        manifest = writer.commit(card, manifest_fields, summary_markdown(summary, totals, output.dropped))
    seconds = time.perf_counter() - started
    timings["write_s"] = seconds - timings["generate_s"] - timings["assemble_s"]
    log.info(
        "built %s in %.1f s (%s): logical hash %s",
        out,
        seconds,
        ", ".join(f"{k} {v:.1f}" for k, v in timings.items()),
        manifest["logical_hash"],
    )
    return BuildResult(out, manifest, summary, dict(output.dropped), seconds, timings)


Assembled = tuple[dict[tuple[str, str], tuple[pa.Table, TableSchema]], pl.DataFrame, CardInfo, Any]


def _assemble_items(output: MultipleChoiceOutput, spec: ProbeSpec, writer: DatasetFolderWriter) -> Assembled:
    """A multiple-choice output's tables: split, balanced, filtered and checked (validity.json)."""
    card, filter_report = output.card, None
    tables, overflow, assignment = assemble_tables(output, spec)
    if spec.artifact_filter.enabled:  # type: ignore[attr-defined]
        tables, overflow, filter_report = _filter_artifacts(output, spec, tables, assignment)
    output.dropped.update(overflow)
    # the drafts are in the tables now: nothing after this reads them, and on the default WordNet
    # build they are ~570k items (~0.7 GB) that would otherwise live through the validity report
    output.items.clear()
    if tables:
        validity = validity_report(
            tables, output.dropped, output.distractor_mixes, output.mix_tolerance, output.item_checks
        )
        writer.add_file(VALIDITY_FILE, json.dumps(validity, indent=1, sort_keys=True) + "\n")
        card = replace(card, extra_sections=(*card.extra_sections, ("Validity", validity_markdown(validity))))
    # the item checks are done too: on the default WordNet build their caches hold ~0.1 GB, which the
    # summary and the Parquet writing reuse once freed
    release = getattr(output.item_checks, "release", None)  # optional (validity.ItemChecks)
    if release is not None:
        release()
    output.item_checks = None
    all_tables = {key: (table, MULTIPLE_CHOICE) for key, table in tables.items()}
    return all_tables, summarize(tables), card, filter_report


def _assemble_tables(output: TableOutput, spec: ProbeSpec, writer: DatasetFolderWriter) -> Assembled:
    """A table family's output as it made it; its own validity report, if any, as validity.json."""
    if output.validity is not None:
        writer.add_file(VALIDITY_FILE, json.dumps(output.validity, indent=1, sort_keys=True) + "\n")
    summary = output.summary if output.summary is not None else pl.DataFrame()
    return dict(output.tables), summary, output.card, None


def build_all(
    out_root: str | Path | None = None,
    on_built: Callable[[BuildResult], None] | None = None,
    specs: Sequence[ProbeSpec] | None = None,
) -> list[BuildResult]:
    """Build every registered family from its default spec into ``out_root/<spec name>``.

    Each build is compared with the reference manifest ``out_root/reference/<name>.manifest.json``
    where one exists (the repository commits those of the default specs); the outcome is in the
    result's ``reference`` and a difference is logged as a warning. ``on_built(result)`` is called
    as each family finishes (the command line prints its line then). ``specs`` replaces the
    default specs (smaller builds, in tests). Each smaller build runs in a spawned process of its own,
    one after another (:func:`_build_side_by_side`), so no build's memory outlives it; with more than
    one worker (:func:`build_workers`) they run beside the largest, which is built here; with one,
    they are all done before it (the peak is the largest build's, not a sum). The results come back
    in ``specs`` order either way, and each build is the one it would be alone.
    """
    root = Path(out_root) if out_root is not None else DEFAULT_OUT_ROOT
    if specs is None:
        specs = [load_spec(family.default_spec) for family in families().values()]
    if len(specs) > 1:
        return _build_side_by_side(list(specs), root, on_built, in_turn=build_workers() <= 1)
    results = []
    for spec in specs:
        result = _build_and_compare(spec, root)
        if on_built is not None:
            on_built(result)
        results.append(result)
    return results


def _build_and_compare(spec: ProbeSpec, root: Path) -> BuildResult:
    """``build(spec)`` into ``root/<spec name>``, compared with its reference manifest (:func:`build_all`)."""
    result = build(spec, root / spec.name)
    differences = compare_with_reference(result.manifest, root / REFERENCE_DIR)
    if differences is None:
        log.info("%s: no reference manifest to compare with", spec.name)
    elif differences:
        log.warning("%s differs from its reference build: %s", spec.name, "; ".join(differences))
        result = replace(result, reference="differs")
    else:
        log.info("%s matches its reference build (logical hash %s)", spec.name, result.logical_hash[:16])
        result = replace(result, reference="matches")
    return result


def _reference_bytes(spec: ProbeSpec, root: Path) -> int:
    """Bytes of ``spec``'s reference build (its manifest's files); 0 where there is none."""
    path = root / REFERENCE_DIR / f"{spec.name}.manifest.json"
    if not path.is_file():
        return 0
    try:
        return sum(entry.get("bytes", 0) for entry in json.loads(path.read_text())["files"].values())
    except (ValueError, KeyError, TypeError, AttributeError):
        return 0


def _build_side_by_side(
    specs: list[ProbeSpec],
    root: Path,
    on_built: Callable[[BuildResult], None] | None,
    in_turn: bool = False,
) -> list[BuildResult]:
    """Build the largest spec here and the others, one after another, each in a process of its own beside it.

    ``in_turn``: the other builds are all done before the largest is built here (one build at a time).

    One process per build: a build's memory is returned when its process ends. Four builds in one
    process kept what each left (caches, memory the paused collector had not freed): the default
    side builds peaked at 2.6 GB together against 0.8 GB for the largest of them alone. The largest
    spec is the one whose reference build wrote the most bytes (the default WordNet build: its
    generation shares itself over the worker processes, :func:`build_workers`); the first spec where
    none has a reference. The side processes are spawned (a fresh interpreter: polars and Arrow
    deadlock in a forked child once they have run here) with this process's log, progress-bar and
    workers settings, draw their bars one row lower beside the largest, and each sends its result:
    ``on_built`` is called for it here, from a thread, once those before it are in.
    """
    sizes = [_reference_bytes(spec, root) for spec in specs]
    here = sizes.index(max(sizes))
    beside = [index for index in range(len(specs)) if index != here]
    context = multiprocessing.get_context("spawn")  # polars and Arrow deadlock in a child forked after use
    messages = context.Queue()
    settings = _ProcessSettings.here()
    bar_row = 0 if in_turn else 1
    results: dict[int, BuildResult] = {}
    failures: list[BaseException] = []
    reported = 0  # on_built has had the results of specs[:reported]
    lock = threading.Lock()
    processes: list = []  # the side processes started, guarded by `starting`
    starting = threading.Lock()
    stopped = threading.Event()

    def arrived(index: int, result: BuildResult) -> None:
        nonlocal reported
        with lock:  # on_built in specs order, each as soon as those before it are in
            results[index] = result
            while reported in results:
                if on_built is not None:
                    on_built(results[reported])
                reported += 1

    def run_lane() -> None:
        try:
            for index in beside:
                with starting:
                    if stopped.is_set():
                        return
                    side = context.Process(
                        target=_side_build, args=(specs[index], root, messages, settings, bar_row)
                    )
                    side.start()
                    processes.append(side)
                outcome = _outcome_of(side, messages)
                side.join()
                if isinstance(outcome, BaseException):
                    failures.append(outcome)
                    return
                arrived(index, outcome)
        except BaseException as exc:  # on_built failed, or a side process died: raised by the building thread
            failures.append(exc)

    lane = threading.Thread(target=run_lane, name="build-all-side-lane", daemon=True)
    lane.start()

    def wait_for_side() -> None:
        lane.join()
        if failures:
            raise failures[0]

    try:
        if in_turn:
            wait_for_side()
        arrived(here, _build_and_compare(specs[here], root))
        wait_for_side()
    finally:
        with starting:
            stopped.set()
            for side in processes:
                if side.is_alive():
                    side.terminate()
                    side.join()
        messages.close()
    return [results[index] for index in range(len(specs))]


def _outcome_of(side, messages) -> BuildResult | BaseException:
    """What the side process ``side`` sent (its result or its error); an error if it died without sending."""
    while True:
        ended = side.exitcode is not None  # read before waiting: what it sent before it ended is in the pipe
        try:
            return messages.get(timeout=2)
        except queue.Empty:
            if ended:
                raise RuntimeError(f"a side build's process died (exit code {side.exitcode})") from None


def _mapping_proxy(mapping: dict) -> MappingProxyType:
    return MappingProxyType(mapping)


def _reduce_mapping_proxy(proxy: MappingProxyType) -> tuple:
    return _mapping_proxy, (dict(proxy),)


# specs hold read-only mappings (MappingProxyType), which pickle cannot send to a spawned process as they are
ForkingPickler.register(MappingProxyType, _reduce_mapping_proxy)


@dataclass(frozen=True)
class _ProcessSettings:
    """What a spawned process takes over of this one's settings: logging, progress bars, workers."""

    root_level: int
    probesmith_level: int
    root_has_handlers: bool
    progress: bool | None
    workers: int

    @classmethod
    def here(cls) -> _ProcessSettings:
        root = logging.getLogger()
        return cls(
            root.level,
            logging.getLogger("probesmith").level,
            bool(root.handlers),
            progress_shown(),
            build_workers(),
        )

    def apply(self) -> None:
        if self.root_has_handlers:  # as the command line sets them (probesmith.cli._configure_output)
            logging.basicConfig(
                level=self.root_level,
                format="%(asctime)s %(levelname)s %(name)s: %(message)s",
                datefmt="%H:%M:%S",
            )
        logging.getLogger("probesmith").setLevel(self.probesmith_level)
        show_progress(self.progress)
        set_build_workers(self.workers)


def _side_build(spec: ProbeSpec, root: Path, messages, settings: _ProcessSettings, bar_row: int) -> None:
    """In a spawned side process: ``spec`` built and compared, its result (or error) sent, then the end."""
    settings.apply()
    set_bar_row(bar_row)
    bars_lock_in_this_process_only()  # it ends by os._exit: no semaphore left behind
    try:
        outcome = _build_and_compare(spec, root)
    except BaseException as exc:  # sent, raised by the parent
        try:
            pickle.dumps(exc)
        except Exception:
            exc = RuntimeError(f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}")
        outcome = exc
    messages.put(outcome)
    messages.close()
    messages.join_thread()  # everything sent
    os._exit(0)  # no interpreter teardown of the heap (seconds)


def result_line(result: BuildResult) -> str:
    """One line that says what a build wrote: family, rows, tables, seconds, folder, reference."""
    tables = result.manifest.get("tables", {})
    rows = sum(entry.get("rows", 0) for entry in tables.values())
    outcome = {
        "matches": "; matches its reference build",
        "differs": "; DIFFERS from its reference build (see the warning above)",
    }.get(result.reference, "")
    return (
        f"built {result.manifest.get('name')} ({result.manifest.get('family')}): {rows:,} rows in "
        f"{len(tables)} tables, {result.seconds:.1f} s -> {result.out}{outcome}"
    )


def compare_with_reference(manifest: dict, reference_dir: Path) -> list[str] | None:
    """Tables whose logical hash differs from the reference manifest; None without a reference."""
    path = reference_dir / f"{manifest['name']}.manifest.json"
    if not path.is_file():
        return None
    reference = json.loads(path.read_text())
    differences = []
    for table in sorted(set(reference["tables"]) | set(manifest["tables"])):
        ours = manifest["tables"].get(table, {}).get("logical_hash")
        theirs = reference["tables"].get(table, {}).get("logical_hash")
        if ours != theirs:
            differences.append(
                f"{table}: {'missing' if ours is None else ours[:12]} "
                f"vs reference {'missing' if theirs is None else theirs[:12]}"
            )
    return differences


def assemble_tables(
    output: MultipleChoiceOutput, spec: MultipleChoiceSpec, assignment: tuple[dict, set] | None = None
) -> tuple[dict[tuple[str, str], pa.Table], Counter, tuple[dict, set]]:
    """Split items, place golds at balanced positions, and build one Arrow table per split.

    Splits are by cluster, one split per concept across all configs. Items that overflow a
    full train split are left out; then the family's ``rebalance`` (if any) sees each config's
    remaining items, so a rule over a whole config (no answer more frequent than its share) holds
    on the tables as written. Drop counts per reason are returned beside the tables, with the
    split assignment, which a second assembly (after filtering) can reuse.
    """
    if assignment is None:
        sizes: dict[str, Counter] = defaultdict(Counter)
        for config, items in output.items.items():
            for item in items:
                sizes[item.cluster][config] += 1
        assignment = assign_splits(sizes, spec.seed, spec.splits.train_items, spec.splits.dev_share)
    split_of, overflow = assignment
    dropped: Counter = Counter()
    tables = {}
    for config, items in output.items.items():
        kept = []
        for item in items:
            if (item.cluster, config) in overflow:
                dropped[f"{config}: concept in train after this config's train was full"] += 1
            else:
                kept.append(item)
        if output.rebalance is not None:  # the family's rules over a whole config, on what is kept
            kept = output.rebalance(config, kept, dropped)
        by_split: dict[str, list[DraftItem]] = defaultdict(list)
        for item in kept:
            by_split[split_of[item.cluster]].append(item)
        for split in SPLITS:
            split_items = sorted(by_split.get(split, []), key=lambda i: i.id)
            if split_items:
                tables[(config, split)] = _to_table(split_items, spec.seed)
    return tables, dropped, assignment


def _filter_artifacts(
    output: MultipleChoiceOutput, spec: MultipleChoiceSpec, tables: dict, assignment: tuple
):
    """Remove what the choice-only baseline exploits; assemble again with the same splits."""
    # deferred: the filter's baselines import scipy, which a build without the filter never needs
    from probesmith.builders.artifact_filter import filter_artifacts

    frames: dict[str, list[pl.DataFrame]] = defaultdict(list)
    for (config, split), table in tables.items():
        frames[config].append(pl.from_arrow(table).with_columns(split=pl.lit(split)).select(list(COLUMNS)))
    options = spec.artifact_filter
    removed, report = filter_artifacts(
        {config: pl.concat(parts) for config, parts in frames.items()},
        margin=options.margin,
        max_rounds=options.max_rounds,
        folds=options.folds,
        seed=spec.seed,
        baselines=options.baselines,
    )
    for config, ids in removed.items():
        output.items[config] = [item for item in output.items[config] if item.id not in ids]
        output.dropped[f"{config}: removed by the artifact filter"] += len(ids)
    tables, overflow, _ = assemble_tables(output, spec, assignment)
    return tables, overflow, report


def _to_table(items: list[DraftItem], seed: int) -> pa.Table:
    positions: dict[str, int] = {}
    by_width: dict[int, list[str]] = defaultdict(list)
    for item in items:
        by_width[len(item.distractors) + 1].append(item.id)
    for width, ids in by_width.items():
        positions.update(balanced_positions(ids, width, seed))
    columns: dict[str, list] = {name: [] for name in MULTIPLE_CHOICE.schema.names}
    for item in items:
        distractors = list(item.distractors)
        item_rng(seed, "order", item.id).shuffle(distractors)
        choices = list(distractors)
        answer = positions[item.id]
        choices.insert(answer, item.gold)
        columns["id"].append(item.id)
        columns["probe"].append(item.probe)
        columns["question"].append(item.question)
        columns["choices"].append([c.text for c in choices])
        columns["answer_index"].append(answer)
        columns["cluster"].append(item.cluster)
        columns["concept"].append(item.concept)
        columns["hops"].append(item.hops)
        columns["distractor_types"].append([c.kind for c in distractors])
        columns["distractor_hops"].append([c.hops for c in distractors])
        columns["choice_concepts"].append([c.concept for c in choices])
        columns["pos"].append(item.pos)
        columns["framing"].append(item.framing)
        columns["perturbation"].append(item.perturbation)
        columns["source"].append(item.source)
    return pa.Table.from_pydict(columns, schema=MULTIPLE_CHOICE.schema)


def _totals(tables: dict[tuple[str, str], pa.Table]) -> dict[str, int]:
    totals: Counter = Counter()
    for (config, _split), table in tables.items():
        totals[config] += table.num_rows
    return dict(totals)


def summarize(tables: dict[tuple[str, str], pa.Table]) -> pl.DataFrame:
    """Items per config x hops x distractor type (an item counts once per type it contains, none if none).

    Counted table by table and summed: polars copies what it reads into memory of its own, which it
    keeps, and all the default WordNet build's tables exploded at once were ~0.1 GB of it.
    """
    keys = ["config", "hops", "distractor_type"]
    counts = [
        pl.from_arrow(table.select(["hops", "distractor_types"]))
        .filter(pl.col("distractor_types").list.len() > 0)  # counted under no type, whatever the polars
        .with_columns(config=pl.lit(config), distractor_type=pl.col("distractor_types").list.unique())
        .explode("distractor_type")
        .group_by(keys)
        .agg(items=pl.len())
        for (config, _split), table in tables.items()
    ]
    schema = {"config": pl.String, "hops": pl.Int32, "distractor_type": pl.String, "items": pl.UInt32}
    if not counts:
        return pl.DataFrame(schema=schema)
    return (
        pl.concat(counts)
        .group_by(keys)
        .agg(items=pl.col("items").sum())
        .select(list(schema))
        .cast(schema)
        .sort("config", "hops", "distractor_type")
    )


def summary_markdown_table(summary: pl.DataFrame) -> str:
    """Items per config x hops (rows) x distractor type (columns), as a Markdown table.

    A summary of another shape (a family's own) is rendered as it is.
    """
    if summary.is_empty():
        return "No items."
    if not {"config", "hops", "distractor_type", "items"} <= set(summary.columns):
        lines = ["| " + " | ".join(summary.columns) + " |", "|" + "---|" * len(summary.columns)]
        lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in summary.iter_rows()]
        return "\n".join(lines)
    wide = summary.pivot(on="distractor_type", index=["config", "hops"], values="items")
    wide = wide.fill_null(0).sort("config", "hops")
    lines = ["| " + " | ".join(wide.columns) + " |", "|" + "---|" * len(wide.columns)]
    for row in wide.iter_rows():
        lines.append("| " + " | ".join(f"{v:,}" if isinstance(v, int) else str(v) for v in row) + " |")
    return "\n".join(lines)


def summary_markdown(summary: pl.DataFrame, totals: dict[str, int], dropped: Counter) -> str:
    """The card's summary: items per config, the config x hops x type table, and drops."""
    lines = [
        "Items per config: " + ", ".join(f"`{c}` {n:,}" for c, n in sorted(totals.items())) + ".",
        "",
        "Summary:"
        if "distractor_type" not in summary.columns
        else "Items containing each distractor type, per config and ISA hops:",
        "",
        summary_markdown_table(summary),
    ]
    if dropped:
        lines += ["", "Candidates dropped, by reason:", "", "| reason | count |", "|---|---|"]
        lines += [f"| {reason} | {n:,} |" for reason, n in sorted(dropped.items())]
    return "\n".join(lines)
