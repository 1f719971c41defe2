"""The layers of softmech (docs/architecture.md): no module imports, directly or through others,
a module that imports it back. The graph is read from the sources with `ast`, so it holds every
import of a softmech module, at module level and inside functions alike (an import moved into a
function still ties the layers)."""
import ast
import pathlib

import softmech

SRC = pathlib.Path(softmech.__file__).parent


def _modules():
    """{module name: (path, is_package)} of every module of the softmech package."""
    out = {}
    for path in SRC.rglob("*.py"):
        parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
        package = parts[-1] == "__init__"
        if package:
            parts = parts[:-1]
        out[".".join(parts)] = (path, package)
    return out


def _owner(name, modules):
    """The softmech module that `name` (a module, or a name inside one) lives in, or None."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _imported(module, package, node, modules):
    """Softmech modules named by one import statement of `module`."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:                                   # relative: from . import x
            parts = module.split(".")[:len(module.split(".")) - node.level + package]
            base = ".".join(parts + ([node.module] if node.module else []))
        names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                 for alias in node.names]
    return {owner for owner in (_owner(n, modules) for n in names) if owner}


def import_graph():
    """{module: {(imported module, line)}} over every import statement of softmech's sources."""
    modules = _modules()
    graph = {}
    for module, (path, package) in modules.items():
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                edges |= {(m, node.lineno) for m in _imported(module, package, node, modules)
                          if m != module}
        graph[module] = edges
    return graph


def find_cycle(graph):
    """One import cycle as [(module, imported module, line), ...] closing on itself, or []."""
    targets = {m: sorted(edges) for m, edges in graph.items()}
    state = {}                                           # 1: on the path, 2: done
    path = []

    def visit(module):
        state[module] = 1
        for target, line in targets[module]:
            path.append((module, target, line))
            if state.get(target) == 1:
                start = next(i for i, edge in enumerate(path) if edge[0] == target)
                return path[start:]
            if target not in state:
                found = visit(target)
                if found:
                    return found
            path.pop()
        state[module] = 2
        return []

    for module in sorted(targets):
        if module not in state:
            found = visit(module)
            if found:
                return found
    return []


def test_the_graph_sees_module_and_function_level_imports():
    graph = import_graph()
    assert "softmech.scene" in {m for m, _ in graph["softmech"]}
    # a function-level import: the report of a scene picks its plotting module when it runs
    assert "softmech.scenarios.snake" in {m for m, _ in graph["softmech.commands.reports"]}


def test_find_cycle_reports_a_cycle():
    graph = {"a": {("b", 3)}, "b": {("c", 5)}, "c": {("a", 9)}, "d": set()}
    assert find_cycle(graph) == [("a", "b", 3), ("b", "c", 5), ("c", "a", 9)]
    assert find_cycle({"a": {("b", 1)}, "b": set()}) == []


def test_no_import_cycles():
    cycle = find_cycle(import_graph())
    assert not cycle, "import cycle among softmech modules (move the code to the right layer):\n" \
        + "\n".join(f"  {a} imports {b} (line {line})" for a, b, line in cycle)
