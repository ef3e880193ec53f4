# SPDX-License-Identifier: BSD-3-Clause
"""The Python tools' manual pages, generated from their argparse parsers: one per console
script, without a groff warning, with every option and command of the parser."""

import argparse
import os
import re
import shutil
import subprocess

import pytest

from sonde import manpage

pytestmark = pytest.mark.skipif(not shutil.which("man"), reason="man-db is not installed")


def rendered(tmp_path, name):
    path = tmp_path / f"{name}.1"
    path.write_text(manpage.page(name, manpage.tools()[name]))
    proc = subprocess.run(["man", "--warnings=all", "-l", str(path)], capture_output=True,
                          text=True, timeout=60,
                          env=dict(os.environ, MANWIDTH="250", LC_ALL="C.UTF-8"))
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    return proc.stdout


def test_every_console_script_is_a_tool():
    assert list(manpage.tools()) == ["sonde-report", "sonde-suite"]


@pytest.mark.parametrize("name", ["sonde-report", "sonde-suite"])
def test_page_has_every_option(tmp_path, name):
    text = rendered(tmp_path, name)
    parser = manpage.tools()[name].parser()
    assert re.search(rf"^NAME\n\s+{name} - {re.escape(parser.description)}$", text, re.M)
    parsers = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command, sub in action.choices.items():
                assert re.search(rf"^   {name} {command}$", text, re.M), command
                parsers.append(sub)
    lines = [ln.strip() for ln in text.splitlines()]
    for p in parsers:
        for action in p._actions:
            for option in action.option_strings:
                assert any(ln.startswith(option) or f", {option}" in ln for ln in lines), option
            if action.help and not isinstance(action, argparse._SubParsersAction):
                assert " ".join(action.help.split()) in " ".join(" ".join(lines).split())


def test_roff_escapes():
    assert manpage.text(".a -b \\c") == "\\&.a \\-b \\ec"
    assert manpage.text("'x") == "\\&'x"


def test_unknown_tool_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as e:
        manpage.main(["sonde-nothing"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "no tool 'sonde-nothing'; the tools: sonde-report, sonde-suite" in err
