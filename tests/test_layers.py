"""Layers import downward only, and no module imports itself back through others (issue 26).

Every module of the package is parsed with ``ast``; every ``import``/``from ... import`` of a
``probesmith`` module counts, at the top of a file or inside a function (an in-function import
still runs, it only runs later). The layer map, bottom to top, is ``LAYERS`` below and
docs/architecture.md says why. A module may import its own layer or a lower one; the graph of all
such imports has no cycle. Known offenders in files whose owners have not moved them yet are in
``ALLOWED``, each with the reason; an import that is not listed fails, naming the importing file
and line, the imported module, and the rule it breaks. A listed import that no longer exists also
fails, so the list only shrinks.

Not modelled: the implicit import of a package's ``__init__`` when one of its modules is
imported (a package's own ``__init__`` is checked like any module), and ``importlib`` calls by
name (the registry's discovery of family modules).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from probesmith.paths import REPOSITORY_ROOT

#: Role folder -> dotted package it is installed as.
ROLES = {
    "probesmith": "probesmith",
    "probes": "probesmith.probes",
    "schemas": "probesmith.schemas",
    "builders": "probesmith.builders",
    "eval": "probesmith.eval",
}

#: Layers, bottom first: (name, module prefixes). A module belongs to the layer of its longest
#: matching prefix; a prefix ending in "." matches the package's modules, one without matches the
#: module (or package ``__init__``) of that exact name.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "core",
        (
            "probesmith",
            "probesmith.errors",
            "probesmith.paths",
            "probesmith.stats",
            "probesmith.redact",
            "probesmith.progress",
        ),
    ),
    ("specs", ("probesmith.probes", "probesmith.probes.")),
    ("schemas", ("probesmith.schemas", "probesmith.schemas.")),
    (
        "builders.helpers",
        (
            "probesmith.builders",
            "probesmith.builders.text",
            "probesmith.builders.names",
            "probesmith.builders.morphology",
            "probesmith.builders.sampling",
            "probesmith.builders.random_draws",
            "probesmith.builders.batch",
            "probesmith.builders.nltk_import",
        ),
    ),
    ("sources", ("probesmith.builders.sources", "probesmith.builders.sources.")),
    (
        "builders.machinery",
        (
            "probesmith.builders.registry",
            "probesmith.builders.data",
            "probesmith.builders.validity",
            "probesmith.builders.textcheck",
            "probesmith.builders.baselines",
            "probesmith.builders.artifact_filter",
            "probesmith.builders.wikidata_output",
        ),
    ),
    ("families", ("probesmith.builders.families", "probesmith.builders.families.")),
    ("build", ("probesmith.builders.build",)),
    ("eval", ("probesmith.eval", "probesmith.eval.")),
    ("cli", ("probesmith.cli", "probesmith.__main__")),
)

#: (importer, imported) -> why it is still there. Each is an upward import or an edge of a cycle
#: in a file this change does not own; issue 26 part 1 (each family one unit) removes them.
ALLOWED: dict[tuple[str, str], str] = {
    # Plugin discovery, by design: the registry imports the families package (an __init__ with no
    # imports) to list its modules, then imports each by name.
    ("probesmith.builders.registry", "probesmith.builders.families"): "plugin discovery (by design)",
}


@dataclass(frozen=True)
class Import:
    """One import of a probesmith module: who, what, where."""

    importer: str
    imported: str
    path: Path
    line: int
    in_function: bool

    def where(self) -> str:
        """``file:line`` of the import, relative to the repository."""
        kind = "in a function" if self.in_function else "at module level"
        return f"{self.path.relative_to(REPOSITORY_ROOT)}:{self.line} ({kind})"


def module_files() -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package."""
    modules = {}
    for folder, package in ROLES.items():
        for path in sorted((REPOSITORY_ROOT / folder).rglob("*.py")):
            parts = list(path.relative_to(REPOSITORY_ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join([package, *parts])] = path
    return modules


def _resolve(base: str, names: list[str], known: dict[str, Path]) -> list[str]:
    """``from base import a, b``: the submodules among the names, else the module ``base`` itself."""
    targets = [f"{base}.{name}" for name in names if f"{base}.{name}" in known]
    return targets if len(targets) == len(names) else [*targets, base]


def imports_of(module: str, path: Path, known: dict[str, Path]) -> list[Import]:
    """Every import of a probesmith module in ``path``, top level and inside functions."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found: list[Import] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            nested = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            targets: list[str] = []
            if isinstance(child, ast.Import):
                targets = [alias.name for alias in child.names if alias.name.split(".")[0] == "probesmith"]
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
                    package = package[: len(package) - child.level + 1]
                    base = ".".join([*package, *([child.module] if child.module else [])])
                else:
                    base = child.module or ""
                if base.split(".")[0] == "probesmith":
                    targets = _resolve(base, [alias.name for alias in child.names], known)
            for target in targets:
                while target not in known and "." in target:  # `import probesmith.x.y` of an attribute
                    target = target.rsplit(".", 1)[0]
                if target != module:
                    found.append(Import(module, target, path, child.lineno, in_function))
            visit(child, nested)

    visit(tree, False)
    return found


def layer_of(module: str) -> int:
    """Index in ``LAYERS`` of the module's layer; fails for a module the map does not place."""
    best, best_length = None, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            matches = module.startswith(prefix) if prefix.endswith(".") else module == prefix
            if matches and len(prefix) > best_length:
                best, best_length = index, len(prefix)
    assert best is not None, f"{module} is in no layer: add it to LAYERS in tests/test_layers.py"
    return best


def all_imports() -> list[Import]:
    """Every probesmith import of every module."""
    known = module_files()
    return [found for module, path in known.items() for found in imports_of(module, path, known)]


def cycles(edges: set[tuple[str, str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    graph: dict[str, set[str]] = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        components.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = counter
                counter += 1
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return components


def test_every_module_has_a_layer():
    modules = module_files()
    assert "probesmith.builders.build" in modules and "probesmith.eval.audit" in modules
    for module in modules:
        layer_of(module)


def test_imports_go_downward_only():
    problems = []
    for found in all_imports():
        if (found.importer, found.imported) in ALLOWED:
            continue
        own, theirs = layer_of(found.importer), layer_of(found.imported)
        if theirs > own:
            problems.append(
                f"{found.where()}: {found.importer} imports {found.imported}; layer "
                f"{LAYERS[own][0]!r} may not import the higher layer {LAYERS[theirs][0]!r} "
                "(docs/architecture.md): move the shared code down, or pass it in"
            )
    assert not problems, "\n".join(problems)


def test_no_import_cycles():
    imports = [i for i in all_imports() if (i.importer, i.imported) not in ALLOWED]
    edges = {(i.importer, i.imported) for i in imports}
    problems = []
    for component in cycles(edges):
        members = set(component)
        inside = [i for i in imports if i.importer in members and i.imported in members]
        lines = "\n    ".join(f"{i.where()}: {i.importer} -> {i.imported}" for i in inside)
        problems.append(f"import cycle among {', '.join(component)}:\n    {lines}")
    assert not problems, "modules that import each other (break the cycle):\n" + "\n".join(problems)


def test_the_allow_list_only_names_imports_that_exist():
    present = {(i.importer, i.imported) for i in all_imports()}
    stale = sorted(pair for pair in ALLOWED if pair not in present)
    assert not stale, f"remove these from ALLOWED in tests/test_layers.py (the import is gone): {stale}"


def deferral_reason(found: Import) -> str:
    """The comment that says why an in-function import waits: on its line or the lines just above."""
    lines = found.path.read_text(encoding="utf-8").splitlines()
    index = found.line - 1
    said = [lines[index].partition("#")[2]]
    while index > 0 and lines[index - 1].strip().startswith(("#", "from ", "import ")):
        index -= 1
        said.append(lines[index].partition("#")[2])
    return " ".join(part.strip() for part in said if part.strip())


def test_in_function_imports_say_why_they_wait():
    # issue 26: an import inside a function hides a cycle or an upward import unless it defers a heavy
    # one (torch, transformers, scipy, ...); each says so in a comment ("deferred: imports torch")
    problems = [
        f"{found.where()}: {found.importer} imports {found.imported} inside a function with no comment "
        "saying why: move it to the top of the module, or say what it defers (# deferred: imports torch)"
        for found in all_imports()
        if found.in_function and "deferred" not in deferral_reason(found)
    ]
    assert not problems, "\n".join(problems)


def test_the_checker_finds_an_upward_import_and_a_cycle(tmp_path):
    known = {"probesmith.schemas.x": tmp_path / "x.py", "probesmith.eval.y": tmp_path / "y.py"}
    known["probesmith.schemas.x"].write_text("def f():\n    from probesmith.eval import y\n")
    found = imports_of("probesmith.schemas.x", known["probesmith.schemas.x"], known)
    assert [(i.imported, i.in_function) for i in found] == [("probesmith.eval.y", True)]
    assert layer_of("probesmith.eval.y") > layer_of("probesmith.schemas.x")
    assert cycles({("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")}) == [["a", "b", "c"]]
    assert cycles({("a", "b"), ("b", "c")}) == []
