"""Every module of the package imports on its own, in a fresh interpreter (no import cycle that
only a lucky import order hides: ``import probesmith.builders.data`` first once failed)."""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

from probesmith.paths import REPOSITORY_ROOT

ROLES = ("probesmith", "builders", "schemas", "probes", "eval")


def package_modules() -> list[str]:
    """Dotted names of every module under the package's role folders."""
    names = []
    for role in ROLES:
        for path in sorted((REPOSITORY_ROOT / role).rglob("*.py")):
            parts = path.relative_to(REPOSITORY_ROOT).with_suffix("").parts
            if parts[-1] == "__main__":
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            dotted = ".".join(parts)
            names.append(dotted if role == "probesmith" else f"probesmith.{dotted}")
    return names


def test_every_module_imports_first_in_a_fresh_interpreter():
    modules = package_modules()
    assert "probesmith.builders.data" in modules and "probesmith.eval.scoring" in modules

    def try_import(module: str) -> tuple[str, str]:
        done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True)
        return module, (done.stderr.strip().splitlines() or ["?"])[-1] if done.returncode else ""

    with ThreadPoolExecutor(max_workers=2) as pool:
        failures = {m: err for m, err in pool.map(try_import, modules) if err}
    assert not failures, failures
