# SPDX-License-Identifier: BSD-3-Clause
"""Skips made visible: every skipped test is listed with its reason at the end of a pytest run,
each marked expected (tests/expected_skips.toml says why) or not, and under CI=true an
unexpected skip fails the run, since CI has every prerequisite installed and a skip there means
a test that silently did not run.

The conftest files of tests/integration and python/tests take these hooks in."""

import os
import re
import tomllib
from pathlib import Path

import pytest

ALLOWED_FILE = Path(__file__).resolve().with_name("expected_skips.toml")

# nodeid -> reason, for every test skipped in this session
_skipped = {}


def allowed_skips(path=ALLOWED_FILE):
    """[(compiled reason pattern, why), ...] from the allow-list."""
    with open(path, "rb") as f:
        entries = tomllib.load(f)["allow"]
    return [(re.compile(e["reason"]), e["why"]) for e in entries]


def skip_reason(report):
    if isinstance(report.longrepr, tuple):
        reason = report.longrepr[2]
    else:
        reason = str(report.longrepr)
    return reason.removeprefix("Skipped: ")


def why_expected(reason, allowed):
    return next((why for pattern, why in allowed if pattern.search(reason)), None)


def pytest_runtest_logreport(report):
    if report.skipped and not hasattr(report, "wasxfail"):
        _skipped[report.nodeid] = skip_reason(report)


def unexpected_skips():
    allowed = allowed_skips()
    return {n: r for n, r in _skipped.items() if why_expected(r, allowed) is None}


def in_ci():
    return os.environ.get("CI", "").lower() == "true"


def pytest_sessionfinish(session):
    if in_ci() and unexpected_skips() and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter):
    if not _skipped:
        return
    allowed = allowed_skips()
    tr = terminalreporter
    tr.section(f"{len(_skipped)} skipped (tests/expected_skips.toml)")
    unexpected = 0
    for nodeid, reason in sorted(_skipped.items()):
        why = why_expected(reason, allowed)
        unexpected += why is None
        tr.write_line(f"{'expected  ' if why else 'UNEXPECTED'} {nodeid}: {reason}")
    if unexpected:
        tr.write_line(f"{unexpected} unexpected skip(s)"
                      + (": CI=true, so this run fails" if in_ci() else
                         " (they fail the run under CI=true)"))
