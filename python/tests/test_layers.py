# SPDX-License-Identifier: BSD-3-Clause
"""The package's layers hold: every module of python/sonde imports only from its own layer or
the layers below it, and only at the top of the module (no import inside a function, where an
import cycle could hide). From the bottom: sonde.results (records, their names, schema, a suite
run's manifest, units), sonde.campaign (suites, runs, rules, scores, IO500), sonde.views (the
report's tables and figures), then the command-line modules at the top (sonde.suite,
sonde.report, sonde.manpage, sonde.cli)."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "sonde"
LAYERS = ("results", "campaign", "views")
TOP = len(LAYERS)


def module_of(path):
    """The dotted name of the module in path (a file below PACKAGE)."""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_of(module):
    """The layer of a module of the package (0 the lowest), None for one outside it."""
    parts = module.split(".")
    if parts[0] != "sonde":
        return None
    return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else TOP


def imported(node, module, is_package):
    """The modules of the package an import statement names (for `from X import a`, X.a
    when that is a module of the package, else X)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if node.level == 0:
        base = node.module
    else:
        package = module.split(".") if is_package else module.split(".")[:-1]
        base = ".".join(package[:len(package) - node.level + 1] + (
            [node.module] if node.module else []))
    found = []
    for a in node.names:
        sub = f"{base}.{a.name}"
        path = PACKAGE.parent.joinpath(*sub.split("."))
        found.append(sub if path.with_suffix(".py").exists() or path.is_dir() else base)
    return found


def problems(path, source):
    """What breaks the layering in one module's source: imports from a higher layer, and
    imports anywhere but at the module's top level."""
    module = module_of(path)
    own = layer_of(module)
    tree = ast.parse(source)
    top = {id(n) for n in tree.body}
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        where = f"{path.relative_to(PACKAGE.parent)}:{node.lineno}"
        if id(node) not in top:
            out.append(f"{where}: import inside a function or block")
        for target in imported(node, module, path.name == "__init__.py"):
            layer = layer_of(target)
            if layer is not None and layer > own:
                out.append(f"{where}: {module} (layer {own}) imports {target} (layer {layer})")
    return out


def modules():
    return sorted(PACKAGE.rglob("*.py"))


def test_every_module_is_in_a_layer():
    subpackages = {p.parent.name for p in modules() if p.parent != PACKAGE}
    assert subpackages == set(LAYERS)


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_go_down_the_layers_at_the_top_of_the_module(path):
    assert problems(path, path.read_text()) == []


@pytest.mark.parametrize("where,source,expected", [
    ("results/names.py", "from ..campaign import rules\n",
     "sonde.results.names (layer 0) imports sonde.campaign.rules (layer 1)"),
    ("results/__init__.py", "from ..views.words import size\n",
     "sonde.results (layer 0) imports sonde.views.words (layer 2)"),
    ("campaign/rules.py", "from .. import report\n",
     "sonde.campaign.rules (layer 1) imports sonde.report (layer 3)"),
    ("views/plots.py", "import sonde.suite\n",
     "sonde.views.plots (layer 2) imports sonde.suite (layer 3)"),
    ("campaign/io500.py", "def f():\n    from .runner import now_iso\n",
     "import inside a function or block"),
    ("results/__init__.py", "def f():\n    import pandas\n", "import inside a function or block"),
])
def test_the_check_finds_what_breaks_the_layers(where, source, expected):
    found = problems(PACKAGE / where, source)
    assert len(found) == 1 and found[0].endswith(expected), found


@pytest.mark.parametrize("where,source", [
    ("views/plots.py", "from ..results.units import parse_size\nfrom ..campaign import rules\n"),
    ("campaign/io500.py", "from .. import results as _results\nfrom .runner import now_iso\n"),
    ("report.py", "from .views import plots\nfrom . import cli\nimport json\n"),
])
def test_the_check_lets_imports_down_the_layers_pass(where, source):
    assert problems(PACKAGE / where, source) == []
