"""The validity report's shared multiple-choice rules: per-row (before issue 26) vs columnar.

    python benchmarks/validity_speed.py BUILD_DIR [--repeat 3]

Reads the multiple-choice tables of a written build (e.g. a WordNetQA build restricted to one
config: ``probesmith build wordnet --spec SPEC --out BUILD_DIR`` with ``probes: [hypernymy]``),
then times, back to back in one process, the per-row reading of the shared rules (the oracle of
``tests/builders/test_validity_columnar.py``, the code ``validity_report`` ran before) and
``builders.validity.validity_report`` (the family's own item checks aside in both; the word-token
cache cleared before each run, as a build starts), checks the
two reports are equal, and prints the best of ``--repeat`` runs of each with the items read.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from probesmith.builders.text import word_tokens  # noqa: E402
from probesmith.builders.validity import validity_report  # noqa: E402
from tests.builders.test_validity_columnar import per_row_report, written_tables  # noqa: E402


def best_of(repeat: int, run) -> tuple[float, dict]:
    """The fastest of ``repeat`` calls of ``run`` (seconds) and its result."""
    times, result = [], None
    for _ in range(repeat):
        word_tokens.cache_clear()  # as in a build: no choice text read before
        started = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - started)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("build", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    tables = written_tables(args.build)
    dropped = json.loads((args.build / "manifest.json").read_text())["dropped"]
    items = sum(t.num_rows for t in tables.values())
    per_row_s, before = best_of(args.repeat, lambda: per_row_report(tables, dropped))
    columnar_s, after = best_of(args.repeat, lambda: validity_report(tables, dropped))
    assert before == after, "the columnar report differs from the per-row one"
    print(
        json.dumps(
            {
                "build": str(args.build),
                "items": items,
                "per_row_s": round(per_row_s, 2),
                "columnar_s": round(columnar_s, 2),
                "speedup": round(per_row_s / columnar_s, 1),
                "machine": f"{platform.machine()} {platform.python_version()}",
            }
        )
    )


if __name__ == "__main__":
    main()
