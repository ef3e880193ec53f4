# SPDX-License-Identifier: BSD-3-Clause
"""The ASan leg's selection (tests/asan_selection.py, docs/reliability.md "What the ASan leg
runs"): the tests it leaves out reach nothing the kept ones do not, the tests gcov cannot see
into are kept, and every line of asan_covered.txt names a test that exists."""

import subprocess
import sys

from asan_selection import left_out, short_id
from conftest import REPO

ITEMS = {
    "test_a.py::wide": {("src/a.c", 1), ("src/a.c", 2), ("src/a.c", 2, 0), ("src/a.c", 3)},
    "test_a.py::narrow": {("src/a.c", 2), ("src/a.c", 2, 0)},
    "test_a.py::other_branch": {("src/a.c", 2), ("src/a.c", 2, 1)},
    "test_b.py::same_as_wide": {("src/a.c", 1), ("src/a.c", 3)},
    "test_b.py::skipped": set(),
    "test_signals.py::sigterm": {("src/a.c", 1)},
}


def test_left_out_tests_reach_nothing_the_kept_ones_miss():
    seconds = dict.fromkeys(ITEMS, 1.0)
    out = left_out(ITEMS, seconds)
    kept = set(ITEMS) - set(out)
    reached = set().union(*(ITEMS[t] for t in kept))
    assert reached == set().union(*ITEMS.values())
    # a branch outcome of its own keeps a test; no counts (skipped) and signals keep one too
    assert {"test_a.py::other_branch", "test_b.py::skipped", "test_signals.py::sigterm"} <= kept
    # what wide reaches, narrow and same_as_wide reach only parts of: one run of it is enough
    assert set(out) == {"test_a.py::narrow", "test_b.py::same_as_wide"}


def test_cheaper_tests_that_reach_as_much_are_kept_first():
    items = {"test_a.py::slow": {1, 2, 3}, "test_a.py::quick1": {1, 2}, "test_a.py::quick2": {3}}
    seconds = {"test_a.py::slow": 10.0, "test_a.py::quick1": 1.0, "test_a.py::quick2": 1.0}
    assert left_out(items, seconds) == ["test_a.py::slow"]


def test_every_listed_test_exists():
    listed = {ln for ln in (REPO / "tests" / "integration" / "asan_covered.txt").read_text()
              .splitlines() if ln and not ln.startswith("#")}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "--collect-only", "-m", "not once", "tests/integration"],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    collected = {short_id(ln) for ln in proc.stdout.splitlines() if "::" in ln}
    assert collected, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert listed - collected == set(), "asan_covered.txt names tests that are gone: remove " \
        "them, or make asan-selection"
