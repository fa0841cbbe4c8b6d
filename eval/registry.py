"""How each kind of build is evaluated, reported, compared and reviewed, registered beside its code.

A family's evaluation is registered under the family's name; the evaluation of every
multiple-choice family is registered once, under the kind ``multiple_choice`` (which is also
what AI2 JSONL files are), so a new multiple-choice family needs no evaluation code at all.
``evaluate``, the report, ``eval-compare`` and ``review-sample`` look a build's family up here;
none of them names a family.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from probesmith.builders.registry import MULTIPLE_CHOICE_KIND, families
from probesmith.errors import ArtifactError, UsageError
from probesmith.probes.spec import from_dict
from probesmith.schemas.tables import add_schema_finder

#: (context, build folder, manifest) -> None: scores the build and fills ``context.result``.
RunFn = Callable[[Any, Path, dict], None]
#: (metrics, results folder) -> Markdown lines of the report's family section (plots into the folder).
ReportFn = Callable[[dict, Path], list[str]]
#: (build folder, n, seed) -> (header, rows) of a human review sheet.
ReviewRowsFn = Callable[[Path, int, int], tuple[list[str], list[list]]]
#: (build folder, fills per template, seed) -> per template: (template id, group, template, fills).
TemplateRowsFn = Callable[[Path, int, int], list[tuple[str, str, str, list[str]]]]


@dataclass(frozen=True)
class Evaluation:
    """What ``probesmith eval`` and the commands around it do with one family's builds."""

    name: str
    run: RunFn
    report: ReportFn
    item_keys: tuple[str, ...]  # the columns that identify an item in items.parquet
    outcome: str  # its 0/1 outcome column, which eval-compare pairs between models
    uses_editors: bool = False  # the evaluation runs knowledge editors (``--editors``)
    review_rows: ReviewRowsFn | None = None  # a review sheet's rows; None: no review sheet
    # every template, pattern or question form of a build filled as the evaluation fills it; None: no
    # template sheet (``review-sample --templates``)
    template_rows: TemplateRowsFn | None = None
    # (runs by model, n_subsets=, subset_size=, seed=) -> what eval-compare adds for this family
    compare: Callable[..., dict] | None = None
    # (build folder, manifest, staging folder, task prefix) -> summary: a table family's
    # lm-evaluation-harness tasks (multiple-choice families share one export)
    lm_eval_tasks: Callable[..., dict] | None = None
    # a frozen dataclass of the family's own ``probesmith eval`` options (spec fields with help text),
    # set with ``--option NAME=VALUE`` and read by its runner as ``context.family_options``
    options: type | None = None


_EVALUATIONS: dict[str, Evaluation] = {}


def register_evaluation(evaluation: Evaluation) -> Evaluation:
    """Register ``evaluation`` for the family (or kind) ``evaluation.name``."""
    _EVALUATIONS[evaluation.name] = evaluation
    return evaluation


def family_options(evaluation: Evaluation, given: Mapping[str, Any]) -> Any:
    """``evaluation``'s own options (its ``options`` dataclass) from ``given`` names and values.

    Names, types and ranges are checked as a spec's are: a name the family does not take is an
    error that lists the ones it does.
    """
    if evaluation.options is None:
        if given:
            raise UsageError(
                f"{evaluation.name} builds take no options of their own; drop --option "
                f"{', '.join(map(repr, given))}."
            )
        return None
    return from_dict(evaluation.options, dict(given), f"--option ({evaluation.name} builds)")


def unregister_evaluation(name: str) -> None:
    """Forget the evaluation registered as ``name``."""
    _EVALUATIONS.pop(name, None)


_DISCOVERED = False


def _discover() -> None:
    """Import every module of ``probesmith.eval`` and of ``probesmith.eval.families`` once.

    A module registers its evaluations there (and declares its result schema).
    """
    global _DISCOVERED
    if not _DISCOVERED:
        _DISCOVERED = True
        here = Path(__file__).parent
        for module in pkgutil.iter_modules([str(here)]):  # this module's package
            importlib.import_module(f"{__package__}.{module.name}")
        for module in pkgutil.iter_modules([str(here / "families")]):
            importlib.import_module(f"{__package__}.families.{module.name}")


add_schema_finder(_discover)  # a table family's result schema, declared beside its evaluation


def evaluation_for(family: str | None) -> Evaluation:
    """The evaluation of builds of ``family``: its own, or that of its kind; else a clear error."""
    _discover()
    if family in _EVALUATIONS:
        return _EVALUATIONS[family]  # type: ignore[index]
    registered = families()
    if family in registered and registered[family].kind in _EVALUATIONS:
        return _EVALUATIONS[registered[family].kind]
    known = sorted({*_EVALUATIONS, *(n for n, f in registered.items() if f.kind in _EVALUATIONS)})
    raise ArtifactError(
        f"a {family!r} build has no evaluation; evaluated: {', '.join(known)} "
        f"({MULTIPLE_CHOICE_KIND}: AI2 JSONL)."
    )


def evaluated(family: str | None) -> bool:
    """Whether builds of ``family`` can be evaluated."""
    try:
        evaluation_for(family)
    except ArtifactError:
        return False
    return True
