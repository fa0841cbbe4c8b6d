"""The ``probesmith`` command: a thin layer over importable functions.

Every subcommand calls one function of the library (``probesmith.builders.build.build``,
``build_all``, ``probesmith.builders.data.check_sources``, ``probesmith.schemas.verify_folder``),
so a notebook can do the same without the command line.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import gc
import logging
import re
import signal
import sys
from dataclasses import fields
from pathlib import Path

import yaml

from probesmith import __version__
from probesmith.builders.batch import set_build_workers
from probesmith.builders.build import BuildResult, build, build_all, result_line, summary_markdown_table
from probesmith.builders.data import check_sources, prepare_sources
from probesmith.builders.registry import Converter, families, get_family, resolve_spec
from probesmith.builders.sources import snapshot_wikidata
from probesmith.builders.sources.wikidata import load_store
from probesmith.builders.sources.wikidata_dump import slice_dump
from probesmith.errors import OutputError, ProbesmithError, SpecError, UsageError
from probesmith.eval.harness import export_lm_eval
from probesmith.eval.review import read_review_sheet, write_review_sheet, write_template_sheet
from probesmith.probes.spec import describe_fields, spec_to_yaml
from probesmith.progress import show_progress
from probesmith.redact import redact_text
from probesmith.schemas.hub import publish
from probesmith.schemas.manifest import verify_folder
from probesmith.schemas.output import check_not_an_input

EPILOG_BUILD = """\
examples:
  probesmith build all                          every family from its default spec into artifacts/
  probesmith build wordnet --out /tmp/wn        the WordNet probes
  probesmith build wordnet --spec my.yaml       a spec of your own (it may `include: wordnet`)
  probesmith build dictionary --seed 3 --dry-run   print the resolved spec, build nothing
  probesmith build wordnet --help-spec          every spec key with its default and meaning
"""

EPILOG_EVAL = """\
examples:
  probesmith eval --model gpt2 --probes artifacts/wordnetqa            hub id, GPU when present
  probesmith eval --model ./my-bert --probes artifacts/relations --dtype bfloat16 --out runs/bert
  probesmith eval --model ./gpt2 --probes artifacts/paraphrases --max-items 50 --option max_candidates=20
  probesmith eval --model ./gpt2 --probes obqa/ --split test          AI2 JSONL (train/dev/test.jsonl)
  torchrun --nproc-per-node 4 -m probesmith eval --model gpt2 --probes artifacts/relations   data-parallel
  probesmith eval-compare runs/gpt2 runs/bert runs/opt     paired differences (and grids' rank consistency)
"""

EPILOG_AUDIT = """\
examples:
  probesmith audit artifacts/wordnetqa          report into artifacts/wordnetqa/audit/
  probesmith audit obqa/ --out /tmp/obqa-audit  AI2 JSONL folder (train/dev/test.jsonl)
  probesmith audit data.jsonl --baselines choice_only encoder_choice_only --encoder tiny
"""


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``probesmith`` console command.

    Exit codes: 0 done; 1 a problem with data, sources or the machine; 2 a problem with what was
    asked (arguments, spec, output path); 130 interrupted (Ctrl-C), 143 terminated (SIGTERM).
    Errors are one line that names the problem and the fix; ``--debug`` adds the traceback.
    """
    parser = _parser()
    args = parser.parse_args(argv)
    _configure_output(args)
    if not hasattr(args, "run"):
        parser.print_help()
        return 2
    signal.signal(signal.SIGTERM, _interrupt)  # `kill`: clean up as for Ctrl-C
    # at exit, Python's cyclic garbage collector would traverse everything a command leaves (a
    # WordNet build's graph and caches: seconds); frozen, the operating system frees it at once
    atexit.unregister(gc.freeze)
    atexit.register(gc.freeze)
    try:
        _refuse_inputs_as_outputs(args)
        return args.run(args) or 0
    except ProbesmithError as exc:
        if args.debug:
            raise
        print(f"probesmith: error: {redact_text(str(exc))}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:  # `probesmith ... | head`: the reader left; nothing to say
        sys.stderr.close()
        return 141
    except KeyboardInterrupt as exc:
        if args.debug:
            raise
        signum = getattr(exc, "signum", signal.SIGINT)
        print(
            f"probesmith: interrupted ({signal.Signals(signum).name}); outputs were left as they were "
            "before.",
            file=sys.stderr,
        )
        return 128 + signum  # the shell's convention: 130 for Ctrl-C, 143 for `kill`
    except OSError as exc:
        if args.debug:
            raise
        where = f": {exc.filename}" if exc.filename else ""
        print(
            f"probesmith: error: {redact_text(f'{exc.strerror or exc}{where}')}. Check the path and retry.",
            file=sys.stderr,
        )
        return 1
    except Exception as exc:  # the last line of defence: a bug, said in one line
        if args.debug:
            raise
        print(
            f"probesmith: internal error: {type(exc).__name__}: {redact_text(str(exc))}. Nothing was "
            "replaced. This is a "
            "bug: rerun with --debug for the traceback and report it.",
            file=sys.stderr,
        )
        return 1


def _configure_output(args: argparse.Namespace) -> None:
    """Logs and progress bars: warnings and bars by default, every probesmith log line with ``-v``.

    By default a console run shows warnings and errors, and progress bars on a terminal; ``-v``
    adds probesmith's own log lines down to DEBUG (one per SPARQL query, every file written), and
    ``-q`` hides the bars too. Where logging already has handlers (a notebook, pytest), they are
    left as they are.
    """
    logging.basicConfig(
        level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s", datefmt="%H:%M:%S"
    )
    if args.verbose:
        logging.getLogger("probesmith").setLevel(logging.DEBUG)
    show_progress(False if args.quiet else None)
    set_build_workers(getattr(args, "workers", None))


class _Terminated(KeyboardInterrupt):
    """A signal asked the command to stop; it unwinds (and cleans up) as Ctrl-C does."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _interrupt(signum, frame) -> None:
    raise _Terminated(signum)


#: Arguments that name what a command writes, and what it reads (``spec`` only as a YAML path).
_OUTPUT_ARGS = ("out", "store")
_INPUT_ARGS = {
    "path": "PATH",
    "probes": "--probes",
    "model": "--model",
    "folder": "FOLDER",
    "dump": "DUMP",
    "spec": "--spec",
    "runs": "RUNS",
}


def _refuse_inputs_as_outputs(args: argparse.Namespace) -> None:
    """Refuse, before any work and whatever ``--force`` says, an output that is, holds or lies in an input."""
    inputs: dict[str, object] = {}
    for attribute, given_as in _INPUT_ARGS.items():
        value = getattr(args, attribute, None)
        if attribute == "spec" and not str(value).endswith((".yaml", ".yml")):
            continue
        for index, item in enumerate(value if isinstance(value, list) else [value]):
            inputs[given_as if index == 0 else f"{given_as}[{index}]"] = item
    nested = "audit" if getattr(args, "run", None) is _run_audit else None
    for attribute in _OUTPUT_ARGS:
        out = getattr(args, attribute, None)
        if out is not None:
            check_not_an_input(out, inputs, nested=nested)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
    return value


def _positive_int_or_auto(text: str) -> int | str:
    return "auto" if text == "auto" else _positive_int(text)


def _add_force(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--force",
        action="store_true",
        help=f"Replace {what} even if it is a probesmith output of another kind (never anything else).",
    )


def _add_workers(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--workers",
        type=_positive_int,
        help="Processes a build may use (default 1): WordNet's concept "
        "loop and `build all`'s families side by side. The same rows either way; more memory.",
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="probesmith", description="Build, audit, score and publish knowledge probes."
    )
    parser.add_argument("--version", action="version", version=f"probesmith {__version__}")
    loudness = parser.add_mutually_exclusive_group()
    loudness.add_argument(
        "-q", "--quiet", action="store_true", help="Only results, warnings and errors: no progress bars."
    )
    loudness.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="Also probesmith's log lines (every SPARQL query, every file written) on stderr.",
    )
    parser.add_argument("--debug", action="store_true", help="Show the traceback of an error.")
    commands = parser.add_subparsers(title="commands")

    build = commands.add_parser(
        "build",
        help="Build probe datasets.",
        epilog=EPILOG_BUILD,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    targets = build.add_subparsers(title="what to build", dest="target")
    all_parser = targets.add_parser("all", help="Every family from its default spec.")
    all_parser.add_argument(
        "--out",
        type=Path,
        default=Path("artifacts"),
        help="Folder that receives one dataset folder per family.",
    )
    _add_workers(all_parser)
    all_parser.set_defaults(run=_run_build_all)
    for family in families().values():
        sub = targets.add_parser(
            family.name,
            help=family.description,
            epilog=EPILOG_BUILD,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        group = sub.add_argument_group("spec")
        group.add_argument(
            "--spec",
            default=family.default_spec,
            help=f"Spec name or YAML path (default: {family.default_spec}).",
        )
        group.add_argument("--seed", type=int, help="Override the spec's seed.")
        group.add_argument("--dry-run", action="store_true", help="Print the resolved spec and exit.")
        group.add_argument(
            "--help-spec", action="store_true", help="List every spec key with its default and help text."
        )
        sub.add_argument("--out", type=Path, help="Output folder (default: artifacts/<spec name>).")
        _add_force(sub, "--out")
        _add_workers(sub)
        sub.add_argument("--allow-empty", action="store_true", help="Write the build even if it has no rows.")
        if family.multiple_choice:  # table families have no artifact filter
            sub.add_argument(
                "--filter-artifacts",
                action="store_true",
                help="Run the artifact filter before writing (spec key artifact_filter).",
            )
        if "wikidata" in {f.name for f in fields(family.spec_class)}:
            group.add_argument(
                "--wikidata",
                metavar="SOURCE",
                help="Endpoint URL, store folder, or N-Triples dump (overrides wikidata.source).",
            )
        sub.set_defaults(run=_run_build, family=family.name)

    data = commands.add_parser("data", help="Knowledge sources: check and prepare.")
    data_commands = data.add_subparsers(title="data commands")
    data_commands.add_parser("check", help="Which sources are available, and fixes.").set_defaults(
        run=_run_data_check
    )
    data_commands.add_parser("prepare", help="Prepare offline WordNet for NLTK.").set_defaults(
        run=_run_data_prepare
    )

    audit = commands.add_parser(
        "audit",
        help="Audit multiple-choice data with partial-input baselines.",
        epilog=EPILOG_AUDIT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    audit.add_argument("path", type=Path, help="Build folder, AI2 JSONL file, or folder of them.")
    audit.add_argument(
        "--out", type=Path, help="Report folder (default: PATH/audit for a build folder, else audit-<name>)."
    )
    audit.add_argument(
        "--baselines",
        nargs="+",
        help="Baselines to run (default: all feature baselines; "
        "add encoder_choice_only for the transformer).",
    )
    audit.add_argument("--margin", type=float, default=0.05, help="Flag cells this far above chance.")
    audit.add_argument(
        "--encoder", default="tiny", help="Encoder of encoder_choice_only: a local path or hub id, or 'tiny'."
    )
    audit.add_argument(
        "--max-eval-items", type=_positive_int, default=20_000, help="Held-out items per config."
    )
    _add_force(audit, "--out")
    audit.add_argument(
        "--filter",
        action="store_true",
        help="Also run the artifact filter and write the ids it removes (filter.json).",
    )
    audit.set_defaults(run=_run_audit)

    evaluation = commands.add_parser(
        "eval",
        help="Score a causal or masked LM on a build folder: per-item Parquet, metrics, report.",
        epilog=EPILOG_EVAL,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    evaluation.add_argument("--model", help="Hub id or local folder (save_pretrained); required to score.")
    evaluation.add_argument(
        "--probes",
        required=True,
        type=Path,
        help="A build folder, or AI2 multiple-choice JSONL (file or folder).",
    )
    evaluation.add_argument("--out", type=Path, help="Results folder (default: runs/<model>-<build>).")
    _add_force(evaluation, "--out (e.g. results of another model)")
    evaluation.add_argument("--device", help="cpu, cuda, cuda:1 ... (default: the GPU when there is one).")
    evaluation.add_argument(
        "--dtype",
        default="auto",
        choices=["auto", "float32", "bfloat16", "float16"],
        help="auto: the checkpoint's dtype, bfloat16 for a float32 checkpoint on a GPU with bf16, "
        "float32 on CPU (recorded in metrics.json).",
    )
    evaluation.add_argument("--kind", default="auto", choices=["auto", "causal", "masked"])
    evaluation.add_argument(
        "--batch-tokens",
        type=_positive_int_or_auto,
        default="auto",
        help="Token budget of one forward pass; auto: from free GPU memory and the model's size, "
        "4096 on CPU (recorded in metrics.json).",
    )
    evaluation.add_argument(
        "--device-map",
        choices=["auto", "balanced", "sequential"],
        help="Place a model larger than one device across the GPUs, the CPU and --offload-folder "
        "(accelerate's big-model inference); --device is then not used.",
    )
    evaluation.add_argument(
        "--max-memory", help="With --device-map: memory per device, e.g. 0=20GiB,1=20GiB,cpu=64GiB."
    )
    evaluation.add_argument(
        "--offload-folder", type=Path, help="With --device-map: where weights that fit no device go."
    )
    evaluation.add_argument("--split", default="test", help="Split of multiple-choice builds.")
    evaluation.add_argument("--pll", default="within_word_l2r", choices=["original", "within_word_l2r"])
    evaluation.add_argument(
        "--no-bos",
        dest="bos",
        action="store_false",
        help="Causal: score choices after the question alone, as lm-evaluation-harness does.",
    )
    evaluation.add_argument(
        "--max-items", type=_positive_int, help="Items per config / instances per relation / sets."
    )
    evaluation.add_argument(
        "--option",
        action="append",
        type=_family_option,
        default=[],
        metavar="NAME=VALUE",
        help="An option of the build's family (a YAML value: 10, null, [in_context]); repeat for more. "
        "--list-options shows those of the build given by --probes.",
    )
    evaluation.add_argument(
        "--list-options", action="store_true", help="Print the options of --probes' family and exit."
    )
    evaluation.add_argument("--seed", type=int, default=0)
    evaluation.set_defaults(run=_run_eval)

    compare = commands.add_parser(
        "eval-compare",
        help="Paired accuracy differences of several models on the same build (bootstrap 95%% CI); "
        "for grids also their rank consistency (Cao et al. 2022).",
    )
    compare.add_argument(
        "runs", nargs="+", type=Path, help="Results folders of `probesmith eval` on one grid build."
    )
    compare.add_argument("--subsets", type=_positive_int, default=100, help="Random subsets of relations.")
    compare.add_argument("--subset-size", type=_positive_int, default=5, help="Relations per subset.")
    compare.add_argument(
        "--resamples", type=_positive_int, default=2000, help="Bootstrap resamples of the items."
    )
    compare.add_argument("--seed", type=int, default=0)
    compare.add_argument(
        "--force", action="store_true", help="Compare runs of different builds or settings anyway."
    )
    compare.set_defaults(run=_run_eval_compare)

    publish = commands.add_parser("publish", help="Upload a build folder to the Hugging Face Hub.")
    publish.add_argument("folder", type=Path)
    publish.add_argument("--repo-id", required=True, help="Dataset repository, e.g. user/wordnetqa.")
    publish.add_argument("--private", action="store_true", help="Create the repository private.")
    publish.add_argument("--revision", help="Branch to commit to (created when missing).")
    publish.add_argument(
        "--force",
        action="store_true",
        help="Publish even if the manifest mismatches or the audit flags artifacts.",
    )
    publish.set_defaults(run=_run_publish)

    wikidata = commands.add_parser("wikidata", help="Local Wikidata stores and snapshots.")
    wikidata_commands = wikidata.add_subparsers(title="wikidata commands")
    load = wikidata_commands.add_parser("load", help="Load an N-Triples dump into an oxigraph store.")
    load.add_argument("dump", type=Path, help=".nt, .nt.gz or .nt.bz2")
    load.add_argument("--store", type=Path, required=True, help="Store folder to create.")
    _add_force(load, "--store")
    load.set_defaults(run=_run_wikidata_load)
    snapshot = wikidata_commands.add_parser(
        "snapshot", help="Freeze the facts, labels and aliases a spec needs into an N-Triples file."
    )
    snapshot.add_argument("--spec", required=True, help="A relations or paraphrases spec.")
    snapshot.add_argument("--out", type=Path, required=True, help="FILE.nt, FILE.nt.gz or FILE.nt.bz2")
    _add_force(snapshot, "--out")
    snapshot.add_argument("--wikidata", metavar="SOURCE", help="Source to pull from (default: the spec's).")
    snapshot.set_defaults(run=_run_wikidata_snapshot)
    cut = wikidata_commands.add_parser(
        "slice",
        help="Stream a Wikidata truthy dump once and keep what a spec needs (facts, labels, aliases, "
        "popularity) as N-Triples that `wikidata load` loads.",
    )
    cut.add_argument("dump", type=Path, help="latest-truthy.nt.bz2 / .nt.gz / .nt.zst / .nt")
    cut.add_argument(
        "--spec",
        default="relations",
        help="A Wikidata family's spec (default: relations, the whole catalog).",
    )
    cut.add_argument("--out", type=Path, required=True, help="FILE.nt.gz or FILE.nt")
    _add_force(cut, "--out")
    cut.set_defaults(run=_run_wikidata_slice)

    export = commands.add_parser("export", help="Export a build to another project's layout.")
    export_commands = export.add_subparsers(title="formats")
    for family in families().values():  # each family's own formats, as it registered them
        for converter in family.exporters.values():
            _add_converter(export_commands, converter, family.name)
    harness = export_commands.add_parser(
        "lm-eval", help="A multiple-choice or relations build to lm-evaluation-harness tasks."
    )
    harness.add_argument("folder", type=Path)
    harness.add_argument("--out", type=Path, required=True, help="Folder for `lm_eval --include_path`.")
    harness.add_argument(
        "--hub-repo", help="Multiple choice: load the data from this published dataset (after `publish`)."
    )
    harness.add_argument("--task-prefix", help="Task names (default: probesmith_<build folder name>).")
    _add_force(harness, "--out")
    harness.set_defaults(run=_run_export_lm_eval)
    importer = commands.add_parser("import", help="Import another project's layout as a build folder.")
    import_commands = importer.add_subparsers(title="formats")
    for family in families().values():
        for converter in family.importers.values():
            _add_converter(import_commands, converter, family.name)

    review = commands.add_parser(
        "review-sample",
        help="Write a stratified review sheet of a build (multiple choice or relations), or read one back; "
        "or list every template of a build filled (--templates).",
    )
    review.add_argument("folder", type=Path, help="A wordnet, dictionary or relations build folder.")
    review.add_argument("--n", type=_positive_int, default=200, help="Items on the sheet.")
    review.add_argument("--seed", type=int, default=0)
    review.add_argument(
        "--read", type=Path, metavar="SHEET", help="A filled sheet: report its validated accuracy."
    )
    review.add_argument(
        "--templates",
        type=_positive_int,
        metavar="K",
        help="Instead of an item sample, write review/templates.csv: every template, pattern or question "
        "form of a relations, paraphrases or rules build, each filled with K of its instances as the "
        "evaluation fills them (the item sheet is kept).",
    )
    _add_force(review, "BUILD/review")
    review.set_defaults(run=_run_review)

    verify = commands.add_parser("verify", help="Check a build folder against its manifest.")
    verify.add_argument("folder", type=Path)
    verify.set_defaults(run=_run_verify)
    return parser


def _run_build_all(args: argparse.Namespace) -> int:
    # one line per family as it finishes; the summary tables (as `build FAMILY` prints) with -v
    def report(result: BuildResult) -> None:
        print(result_line(result), flush=True)
        if args.verbose:
            _print_result(result)

    build_all(args.out, on_built=report)
    return 0


def _run_build(args: argparse.Namespace) -> int:
    family = get_family(args.family)
    if args.help_spec:
        for key, default, help_text in describe_fields(family.spec_class):
            print(f"{key:28} {default:24} {help_text}")
        return 0
    spec = resolve_spec(
        args.spec,
        family=family.name,
        seed=args.seed,
        filter_artifacts=getattr(args, "filter_artifacts", False),
        wikidata=getattr(args, "wikidata", None),
    )
    if args.dry_run:
        print(redact_text(spec_to_yaml(spec)), end="")
        return 0
    _print_result(build(spec, args.out, force=args.force, allow_empty=args.allow_empty))
    return 0


def _print_result(result) -> None:
    print(f"\n{result.out}  ({result.seconds:.1f} s, logical hash {result.logical_hash[:16]})")
    print(summary_markdown_table(result.summary))
    for reason, count in sorted(result.dropped.items()):
        print(f"  dropped {count:>8,}  {reason}")


def _run_data_check(args: argparse.Namespace) -> int:
    statuses = check_sources()
    for status in statuses:
        mark = "ok     " if status.available else "MISSING"
        print(f"{mark} {status.name:14} {status.where}  {status.detail}")
        if status.fix:
            print(f"        fix: {status.fix}")
    return 0 if all(s.available or s.name == "wordnet-nltk" for s in statuses) else 1


def _run_data_prepare(args: argparse.Namespace) -> int:
    print(f"WordNet for NLTK: {prepare_sources()}")
    return 0


def _run_audit(args: argparse.Namespace) -> int:
    # deferred: the audit's baselines import scipy, which the other commands never need
    from probesmith.eval.audit import AuditOptions, run_audit
    from probesmith.eval.baselines import DEFAULT_BASELINES

    options = AuditOptions(
        baselines=tuple(args.baselines or DEFAULT_BASELINES),
        margin=args.margin,
        max_eval_items=args.max_eval_items,
        encoder_model=args.encoder,
    )
    result, out, report = run_audit(
        args.path, options, out=args.out, with_filter=args.filter, force=args.force
    )
    overall = result.cells.filter(pl_overall())
    for row in overall.sort("config", "baseline").iter_rows(named=True):
        flag = "  FLAGGED" if row["flagged"] else ""
        print(
            f"{row['config']:14} {row['baseline']:20} {row['accuracy']:.3f} "
            f"[{row['ci_low']:.3f}, {row['ci_high']:.3f}]  chance {row['chance']:.3f}{flag}"
        )
    print(f"{result.flagged.height} flagged cell(s); report: {out / 'report.md'}")
    if args.filter:
        print(f"filter: removed {report.removed}, converged={report.converged}; ids in {out / 'filter.json'}")
    return 0


def _family_option(text: str) -> tuple[str, object]:
    """``NAME=VALUE`` of ``--option``, the value read as YAML (``20``, ``null``, ``[in_context]``)."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip().isidentifier():
        raise argparse.ArgumentTypeError(f"{text!r}: give NAME=VALUE, e.g. --option max_candidates=10")
    try:
        return name.strip(), yaml.safe_load(value)
    except yaml.YAMLError as exc:
        raise argparse.ArgumentTypeError(f"{text!r}: the value is not YAML ({exc})") from None


def _run_eval(args: argparse.Namespace) -> int:
    from probesmith.eval.placement import parse_max_memory  # deferred: imports torch
    from probesmith.eval.run import EvalOptions, family_option_fields, run_evaluation  # deferred: torch

    if args.list_options:
        found = family_option_fields(args.probes)
        for name, default, help_text in found:
            print(f"{name:22} {default:24} {help_text}")
        if not found:
            print(f"{args.probes}: its family takes no options of its own")
        return 0
    if not args.model:
        raise UsageError("probesmith eval: give --model (a hub id or a local folder) to score a build")
    options = EvalOptions(
        split=args.split,
        pll=args.pll,
        batch_tokens=args.batch_tokens,
        bos=args.bos,
        max_items=args.max_items,
        seed=args.seed,
        family=dict(args.option),
    )
    result, out, reports = run_evaluation(
        args.model,
        args.probes,
        options,
        out=args.out,
        kind=args.kind,
        device=args.device,
        dtype=args.dtype,
        force=args.force,
        device_map=args.device_map,
        max_memory=parse_max_memory(args.max_memory),
        offload_folder=args.offload_folder,
    )
    if reports:
        headline = {k: v for k, v in result.metrics.items() if isinstance(v, float)}
        print(" ".join(f"{k}={v:.4f}" for k, v in sorted(headline.items())))
        print(f"{result.statements} statements in {result.seconds:.1f} s; results: {out}")
    return 0


def _run_eval_compare(args: argparse.Namespace) -> int:
    import json

    from probesmith.eval.compare import compare_runs, load_runs_for_comparison  # deferred: torch

    family, runs = load_runs_for_comparison(args.runs, force=args.force)
    result = compare_runs(
        family,
        runs,
        resamples=args.resamples,
        seed=args.seed,
        subsets=args.subsets,
        subset_size=args.subset_size,
    )
    print(json.dumps(result, indent=2))
    return 0


def pl_overall():
    """The polars predicate selecting each config x baseline's overall cell."""
    import polars as pl

    return pl.col("hops").is_null() & (pl.col("distractor_type") == "all")


def _run_publish(args: argparse.Namespace) -> int:
    info = publish(args.folder, args.repo_id, private=args.private, revision=args.revision, force=args.force)
    print(f"published {args.folder} to {getattr(info, 'commit_url', args.repo_id)}")
    return 0


def _run_wikidata_load(args: argparse.Namespace) -> int:
    info = load_store(args.dump, args.store, force=args.force)
    print(f"{args.store}: {info['triples']:,} triples from {args.dump} in {info['seconds']} s")
    return 0


def _run_wikidata_snapshot(args: argparse.Namespace) -> int:
    spec = resolve_spec(args.spec, wikidata=args.wikidata)
    if not hasattr(spec, "wikidata"):
        raise SpecError(f"spec {args.spec} (family {spec.family}) does not query Wikidata.")
    info = snapshot_wikidata(spec, args.out, force=args.force)
    print(f"{args.out}: {info['triples']:,} triples for {len(info['relations'])} relations")
    return 0


def _run_wikidata_slice(args: argparse.Namespace) -> int:
    spec = resolve_spec(args.spec)
    if not hasattr(spec, "wikidata"):
        querying = [
            name
            for name, family in families().items()
            if "wikidata" in {f.name for f in fields(family.spec_class)}
        ]
        raise SpecError(
            f"spec {args.spec} (family {spec.family}) does not query Wikidata, so there is nothing to "
            f"slice for it; pass a spec of a family that does ({', '.join(querying)}), e.g. --spec relations."
        )
    report = slice_dump(args.dump, spec, args.out, force=args.force)
    print(
        f"{args.out}: {report.facts:,} facts of {len(report.relations)} relations, {report.entities:,} "
        f"entities ({report.labels:,} labels, {report.aliases:,} aliases, popularity: {report.popularity}); "
        f"{report.triples:,} triples read at {report.text_mb_per_s:.1f} MB/s of text in {report.seconds} s "
        f"({report.malformed:,} malformed lines skipped)"
    )
    return 0


def _add_converter(commands: argparse._SubParsersAction, converter: Converter, family: str) -> None:
    """``probesmith export|import NAME FOLDER --out OUT [--force]`` for a family's converter."""
    command = commands.add_parser(converter.name, help=f"{converter.help} ({family})")
    command.add_argument("folder", type=Path)
    command.add_argument("--out", type=Path, required=True, help=converter.out_help)
    _add_force(command, "--out")
    command.set_defaults(run=_run_converter, converter=converter)


def _run_converter(args: argparse.Namespace) -> int:
    written = args.converter.run(args.folder, args.out, force=args.force)
    print(args.converter.done(written, args.out))
    return 0


def _run_export_lm_eval(args: argparse.Namespace) -> int:
    summary = export_lm_eval(
        args.folder, args.out, hub_repo=args.hub_repo, task_prefix=args.task_prefix, force=args.force
    )
    print(f"{len(summary['tasks'])} lm-eval tasks written to {args.out}; which command gives which number:")
    for entry in summary["commands"]:
        print(f"  {entry['number']}:\n    {entry['command']}")
    return 0


def _run_review(args: argparse.Namespace) -> int:
    with _fix_without_out("review-sample", args.folder / "review"):
        return _review(args)


def _review(args: argparse.Namespace) -> int:
    if args.read:
        result = read_review_sheet(args.folder, args.read, force=args.force)
        for config, entry in [*result["configs"].items(), ("overall", result["overall"])]:
            low, high = entry["ci95"]
            print(
                f"{config:14} validated accuracy {entry['validated_accuracy']:.3f} [{low:.3f}, {high:.3f}] "
                f"({entry['reviewed']} reviewed)"
            )
        return 0
    if args.templates:
        sheet = write_template_sheet(args.folder, args.templates, args.seed, force=args.force)
        print(f"template sheet: {sheet} (and {sheet.with_suffix('.html')}): every template, filled")
        return 0
    sheet = write_review_sheet(args.folder, args.n, args.seed, force=args.force)
    print(f"review sheet: {sheet} (and {sheet.with_suffix('.html')}); fill it, then --read it")
    return 0


@contextlib.contextmanager
def _fix_without_out(command: str, place: Path):
    """Reword an output error's fix for a command that has no ``--out``: it always writes ``place``.

    The output checks end their messages with fixes such as "pass another --out", which a user of
    ``review-sample`` cannot follow; the sentences that say so are replaced by the fix that works.
    """
    try:
        yield
    except OutputError as exc:
        sentences = re.split(r"(?<=[.;]) (?=[A-Z])", str(exc))
        kept = [s for s in sentences if "--out" not in s and not s.startswith("Pass ")]
        if len(kept) == len(sentences):
            raise
        force = " or add --force to replace it," if "--force" in str(exc) else ""
        fix = f"{command} always writes {place} (no --out): move what is there away,{force} then rerun."
        raise OutputError(" ".join([*kept, fix])) from None


def _run_verify(args: argparse.Namespace) -> int:
    problems = verify_folder(args.folder)
    for problem in problems:
        print(f"MISMATCH {problem}")
    if not problems:
        print(f"{args.folder}: every file matches the manifest")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
