# SPDX-License-Identifier: BSD-3-Clause
"""scripts/spdx.sh, the lint check that every source file names its licence: it fails for a
source file without the SPDX line, `fix` adds the line in each file's own comments (after a #!
line), and leaves data alone. make lint runs the check on the checkout."""

import os
import subprocess

from conftest import REPO

SCRIPT = REPO / "scripts" / "spdx.sh"
ID = "SPDX-License-Identifier: BSD-3-Clause"

SOURCES = {
    "src/a.c": "/* what a.c does */\nint a;\n",
    "src/a.h": "#ifndef A_H\n#define A_H\n#endif\n",
    "src/version.c.in": 'const char v[] = "@V@";\n',
    "tool.py": '"""A tool."""\n',
    "bench/run.py": "#!/usr/bin/env python3\n\"\"\"Runs.\"\"\"\n",
    "scripts/go.sh": "#!/usr/bin/env bash\necho go\n",
    ".ci/run": "#!/bin/sh\nexec make test\n",
    "CMakeLists.txt": "project(x)\n",
    "cmake/gen.cmake": "message(x)\n",
    "Makefile": "all:\n",
    "suites/q.toml": "[suite]\n",
    "python/sonde/templates/r.html": "<!DOCTYPE html>\n<p>{{ x }}</p>\n",
}
DATA = {
    "docs/x.md": "# x\n",
    "r.schema.json": "{}\n",
    "tests/fuzz/corpus/fuzz_size/seed00": "#!not a script\n",
    "tests/integration/fixtures/f.txt": "data\n",
}
HEADERS = {".c": f"/* {ID} */", ".h": f"/* {ID} */", ".in": f"/* {ID} */",
           ".html": f"{{# {ID} -#}}"}


def tree(tmp_path):
    for path, text in {**SOURCES, **DATA}.items():
        f = tmp_path / path
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text)
    for script in ("bench/run.py", "scripts/go.sh", ".ci/run"):
        (tmp_path / script).chmod(0o755)
    return tmp_path


def spdx(*args):
    return subprocess.run([str(SCRIPT), *map(str, args)], capture_output=True, text=True,
                          timeout=60)


def test_check_names_every_source_without_the_line(tmp_path):
    proc = spdx("check", tree(tmp_path))
    assert proc.returncode == 1
    listed = sorted(ln.strip() for ln in proc.stderr.splitlines()[1:])
    assert listed == sorted(SOURCES)


def test_fix_adds_the_line_in_each_files_comments(tmp_path):
    root = tree(tmp_path)
    assert spdx("fix", root).returncode == 0
    for path, text in SOURCES.items():
        got = (root / path).read_text()
        header = HEADERS.get(os.path.splitext(path)[1], f"# {ID}")
        if text.startswith("#!"):
            first, rest = text.split("\n", 1)
            assert got == f"{first}\n{header}\n{rest}", path
            assert os.access(root / path, os.X_OK)
        else:
            assert got == f"{header}\n{text}", path
    for path, text in DATA.items():
        assert (root / path).read_text() == text
    assert spdx("check", root).returncode == 0
    again = spdx("fix", root)
    assert again.returncode == 0 and again.stdout == ""


def test_the_template_renders_as_before(tmp_path):
    """The Jinja comment strips its own line, so the page still starts with its doctype."""
    from jinja2 import Template

    root = tree(tmp_path)
    spdx("fix", root)
    page = (root / "python/sonde/templates/r.html").read_text()
    assert Template(page).render(x=1) == "<!DOCTYPE html>\n<p>1</p>"
