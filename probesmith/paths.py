"""Where the source tree is: the bundled specs name ``../shared/data`` paths relative to it.

A module with no imports of its own, so that sources, builders and specs can all read it without
an import cycle (``builders.data`` imports the source modules, which need the root too).
"""

from pathlib import Path

REPOSITORY_ROOT = Path(__file__).resolve().parents[1]
