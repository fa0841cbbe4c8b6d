r"""The bridge to lm-evaluation-harness: a build exported as harness tasks that run offline.

``export_lm_eval(build, out)`` writes a folder that ``lm_eval --include_path OUT --tasks NAME``
runs unchanged:

* multiple-choice builds (WordNetQA, DictionaryQA): one ``multiple_choice`` task per config
  over its test split, and a group per build. ``doc_to_text`` is ``{question}\nAnswer:``, the
  choices are the build's, scored after a space: the same strings ``probesmith eval`` scores;
* relation sets: whole-statement multiple choice as the harness's own BEAR task (empty context,
  ``target_delimiter: ""``, one statement per answer of the relation's answer space), one
  document per (instance, template), every gold listed (``acc`` counts any gold, as
  ``probesmith eval`` does). One task over every template (probesmith's headline accuracy) and
  one over template 0 (the harness's BEAR convention).

Data are read from the build's own Parquet by paths relative to the export (multiple choice),
or from statement tables the export writes (relation sets), through a small ``utils.py`` that
resolves them beside the task files; with ``hub_repo`` multiple-choice tasks load the published
build from the Hub instead.

Conventions, stated in the export's README and pinned by tests/eval/test_harness.py: the
harness conditions a choice on its question alone where probesmith puts a BOS token first
(``probesmith eval --no-bos`` gives the harness's scores); ``acc_norm`` divides by the choice's
characters in both.
"""

from __future__ import annotations

import json
import logging
import os
import re
from pathlib import Path

import yaml

from probesmith import __version__
from probesmith.builders.registry import families, multiple_choice_families
from probesmith.errors import UsageError
from probesmith.eval.registry import evaluated, evaluation_for
from probesmith.schemas.artifact import require_family, table_files
from probesmith.schemas.output import OutputFolder, path_under

log = logging.getLogger(__name__)

#: The harness version the export is tested with (tests/eval/test_harness.py).
LM_EVAL_VERSION = "0.4.13"


def _multiple_choice(family: str) -> bool:
    return family in multiple_choice_families()


UTILS_PY = '''"""Loads this export's data beside its task files (written by probesmith; do not edit)."""

from pathlib import Path

import datasets

HERE = Path(__file__).resolve().parent


def load(files, split="test", **task_metadata):
    """The Parquet files (paths relative to this folder) as a DatasetDict with one split."""
    paths = [str((HERE / f).resolve()) for f in files]
    return datasets.load_dataset("parquet", data_files={split: paths})
'''


def export_lm_eval(
    build_folder: str | Path,
    out: str | Path,
    *,
    hub_repo: str | None = None,
    task_prefix: str | None = None,
    force: bool = False,
) -> dict:
    """Write lm-evaluation-harness tasks for the build ``build_folder`` into ``out``.

    ``hub_repo`` (multiple-choice builds): load the data from that published dataset repository
    instead of the local Parquet. ``task_prefix`` names the tasks (default ``probesmith_`` + the
    build folder's name). Returns what was written: the group, the tasks and their documents.
    """
    if task_prefix is not None:
        check_task_prefix(task_prefix)
    build_folder = Path(build_folder)
    exportable = [
        name
        for name in families()
        if _multiple_choice(name) or (evaluated(name) and evaluation_for(name).lm_eval_tasks is not None)
    ]
    manifest = require_family(build_folder, tuple(exportable), "export lm-eval")
    family = manifest["family"]
    prefix = _task_name(task_prefix or f"probesmith_{build_folder.resolve().name}")
    out = Path(out)
    if hub_repo and not _multiple_choice(family):
        raise UsageError(
            f"--hub-repo: a {family} build publishes instances, templates and answer spaces, not the "
            "statements the harness scores; export without --hub-repo (the statements go to data/)."
        )
    with OutputFolder(out, "export:lm-eval", force=force) as staging:
        if _multiple_choice(family):
            summary = _multiple_choice_tasks(build_folder, manifest, staging, out, prefix, hub_repo)
        else:  # a table family's own statement documents (relation sets: BEAR's statements)
            summary = evaluation_for(family).lm_eval_tasks(build_folder, manifest, staging, prefix)
        numbers = summary.pop("numbers", ["acc (the harness)", "the same accuracy (probesmith eval)"])
        summary["commands"] = reproducing_commands(summary["group"], out, build_folder, family, numbers)
        summary.update(
            build=str(build_folder.resolve()),
            build_hash=manifest.get("logical_hash"),
            family=family,
            probesmith_version=__version__,
            lm_eval_version=LM_EVAL_VERSION,
        )
        if not hub_repo:
            (staging / "utils.py").write_text(UTILS_PY, encoding="utf-8")
        (staging / "README.md").write_text(_readme(summary, hub_repo), encoding="utf-8")
        (staging / "probesmith_export.json").write_text(json.dumps(summary, indent=1) + "\n")
    log.info(
        "lm-eval export of %s: %s (%d tasks) in %s",
        build_folder,
        summary["group"],
        len(summary["tasks"]),
        out,
    )
    return summary


def reproducing_commands(group: str, out: Path, build: Path, family: str, numbers: list[str]) -> list[dict]:
    """Which command gives which number: the harness's, and the ``probesmith eval`` that equals it.

    Multiple choice: the harness scores a choice after its question alone, ``probesmith eval``
    after a BOS token and the question unless ``--no-bos``; so ``--no-bos`` reproduces the
    harness's ``acc``/``acc_norm`` and the default is lm-pub-quiz's convention (another number).
    A table family's tasks name their two numbers (``numbers``: the harness's, then the equal
    ``probesmith eval`` one, as its ``lm_eval_tasks`` summary says under ``numbers``); relation sets
    condition an empty context on the harness's prefix token (the BOS), as ``probesmith eval`` does
    by default. (tests/eval/test_harness.py checks both agreements on real builds.)
    """
    harness = f"lm_eval --model hf --model_args pretrained=MODEL --include_path {out} --tasks {group}"
    ours = f"probesmith eval --model MODEL --probes {build}"
    if _multiple_choice(family):
        return [
            {"number": "acc, acc_norm (the harness: choice after the question alone)", "command": harness},
            {"number": "the same acc, acc_norm (question alone)", "command": f"{ours} --no-bos"},
            {"number": "probesmith's default: BOS token, then the question (lm-pub-quiz's)", "command": ours},
        ]
    return [{"number": numbers[0], "command": harness}, {"number": numbers[1], "command": ours}]


TASK_PREFIX = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")
"""What ``--task-prefix`` accepts: an lm-eval task name that is also a file name (no path)."""


def check_task_prefix(prefix: str) -> None:
    """Refuse a ``--task-prefix`` that is not a task name (it would name an empty group or a path)."""
    if not TASK_PREFIX.fullmatch(prefix):
        shown = prefix if len(prefix) <= 80 else prefix[:77] + "..."
        raise UsageError(
            f"--task-prefix {shown!r} is not a task name; use a letter, then letters, digits or '_' "
            "(64 characters at most), e.g. --task-prefix probesmith_wordnet."
        )


def _task_name(text: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in text.lower()).strip("_")


def task_metadata(manifest: dict) -> dict:
    """The ``metadata`` of a task YAML: the spec's version and name, the build's logical hash."""
    spec = manifest.get("spec", {})
    return {
        "version": spec.get("version", 1),
        "probesmith_spec": spec.get("name"),
        "build_hash": manifest.get("logical_hash"),
    }


def write_task(staging: Path, config: dict, loader: dict | None) -> None:
    """A task YAML; ``loader`` (local data) becomes ``custom_dataset: !function utils.load``."""
    text = yaml.safe_dump(config, sort_keys=False, allow_unicode=True, width=1000)
    if loader is not None:
        text += "custom_dataset: !function utils.load\n"
        text += yaml.safe_dump({"dataset_kwargs": loader}, sort_keys=False, allow_unicode=True, width=1000)
    path_under(staging, f"{config['task']}.yaml").write_text(text, encoding="utf-8")


def _multiple_choice_tasks(build, manifest, staging, out, prefix, hub_repo) -> dict:
    configs = sorted(
        {key.split("/")[0] for key, entry in manifest["tables"].items() if key.endswith("/test")}
    )
    if not configs:
        raise UsageError(f"{build} has no test split to export; rebuild it with the default splits.")
    tasks = {}
    for config in configs:
        task = f"{prefix}_{_task_name(config)}"
        body = {
            "task": task,
            "tag": ["probesmith"],
            **({"dataset_path": hub_repo, "dataset_name": config} if hub_repo else {}),
            "test_split": "test",
            "output_type": "multiple_choice",
            "doc_to_text": "{{question}}\nAnswer:",
            "doc_to_choice": "choices",
            "doc_to_target": "answer_index",
            "target_delimiter": " ",
            "should_decontaminate": False,
            "metric_list": [
                {"metric": "acc", "aggregation": "mean", "higher_is_better": True},
                {"metric": "acc_norm", "aggregation": "mean", "higher_is_better": True},
            ],
            "metadata": task_metadata(manifest),
        }
        loader = None
        if not hub_repo:
            files = [
                os.path.relpath(path.resolve(), out.resolve())
                for path in table_files(build, config, "test", manifest)
            ]
            loader = {"files": files}
        write_task(staging, body, loader)
        tasks[task] = {"config": config, "documents": manifest["tables"][f"{config}/test"]["rows"]}
    group = {
        "group": prefix,
        "task": sorted(tasks),
        "aggregate_metric_list": [
            {"metric": "acc", "aggregation": "mean", "weight_by_size": True},
            {"metric": "acc_norm", "aggregation": "mean", "weight_by_size": True},
        ],
        "metadata": {"version": task_metadata(manifest)["version"]},
    }
    path_under(staging, f"_{prefix}.yaml").write_text(
        yaml.safe_dump(group, sort_keys=False), encoding="utf-8"
    )
    return {"group": prefix, "tasks": tasks, "convention": "multiple choice after the question"}


def _readme(summary: dict, hub_repo: str | None) -> str:
    tasks = "\n".join(
        f"| `{name}` | {entry.get('config', '—')} | {entry['documents']:,} |"
        for name, entry in summary["tasks"].items()
    )
    if _multiple_choice(summary["family"]):
        measures = (
            "Each task is one config of the build's test split: a question and its choices; the harness "
            "scores each choice after `question\\nAnswer:` and a space and picks the most likely. "
            "`acc` is raw log-likelihood, `acc_norm` divides by the choice's characters. The group "
            f"`{summary['group']}` averages the configs weighted by size."
        )
        convention = (
            "The harness conditions a choice on its question alone; `probesmith eval` by default puts "
            "a BOS token before the question (lm-pub-quiz's convention). `probesmith eval --no-bos` "
            "gives the harness's log-likelihoods (equal within 1e-4) and the same `acc` and `acc_norm`."
        )
    else:
        measures = (
            "Each document is one (subject, template) of a relation: one statement per answer of the "
            "relation's answer space, scored whole with an empty context, as the harness's BEAR task "
            "does. `acc` counts the prediction correct when it is any gold of the subject "
            f"(`gold_indices`). `{summary['group']}` holds every template (probesmith's headline "
            f"accuracy); `{summary['group']}_template0` only the first (BEAR's lm-eval task)."
        )
        convention = (
            "With an empty context the harness conditions on its prefix token (GPT-2: `<|endoftext|>`), "
            "as `probesmith eval` does with its BOS: the statements' log-likelihoods are equal within "
            "1e-4 and `acc` equals probesmith's `accuracy` (all templates) and "
            "`accuracy_first_template`."
        )
    data = (
        f"Data: the Hub dataset `{hub_repo}`."
        if hub_repo
        else "Data: read through `utils.py` from paths relative to this folder; keep the export "
        "where it was written relative to the build (multiple choice), or with its `data/` folder."
    )
    commands = "\n".join(f"| {c['number']} | `{c['command']}` |" for c in summary["commands"])
    return f"""# lm-evaluation-harness tasks for `{Path(summary["build"]).name}`

Written by probesmith {summary["probesmith_version"]} from a {summary["family"]} build (logical hash
`{summary["build_hash"]}`); tested with lm-eval {summary["lm_eval_version"]}.

```bash
lm_eval --model hf --model_args pretrained=MODEL --include_path {{this folder}} --tasks {summary["group"]}
```

| task | config | documents |
|---|---|---:|
{tasks}

## What the tasks measure

{measures}

## Convention

{convention}

Which command gives which number (`MODEL` is the same model in both):

| number | command |
|---|---|
{commands}

{data}
"""
