# SPDX-License-Identifier: BSD-3-Clause
"""tests/skip_policy.py: a pytest run lists every skip with its reason, expected or not; under
CI=true an unexpected skip fails the run and an expected one does not. Seen from outside, on a
small test directory of its own run by a pytest of its own."""

import os
import subprocess
import sys

import pytest
from conftest import REPO
from skip_policy import allowed_skips

TESTS = '''
import pytest

def test_runs():
    pass

def test_expected():
    pytest.skip("the kernel has no device-mapper (none in /proc/misc)")

@pytest.mark.skipif(True, reason="SKIPMODE")
def test_other():
    pass
'''


def run_pytest(tmp_path, ci, reason):
    (tmp_path / "conftest.py").write_text(
        f"import sys\nsys.path.insert(0, {str(REPO / 'tests')!r})\n"
        "from skip_policy import pytest_runtest_logreport, pytest_sessionfinish, "
        "pytest_terminal_summary  # noqa: F401\n")
    (tmp_path / "test_x.py").write_text(TESTS.replace("SKIPMODE", reason))
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci:
        env["CI"] = "true"
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(tmp_path)], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("ci", [False, True])
def test_an_unexpected_skip_fails_ci_only(tmp_path, ci):
    proc = run_pytest(tmp_path, ci, "strace is not installed")
    assert proc.returncode == (1 if ci else 0), proc.stdout
    lines = proc.stdout.splitlines()
    assert "UNEXPECTED test_x.py::test_other: strace is not installed" in lines
    assert ("expected   test_x.py::test_expected: the kernel has no device-mapper (none in "
            "/proc/misc)") in lines
    assert any(ln.startswith("1 unexpected skip(s)") for ln in lines), proc.stdout


def test_expected_skips_pass_ci(tmp_path):
    proc = run_pytest(tmp_path, True, "sonde was built with PnetCDF")
    assert proc.returncode == 0, proc.stdout
    assert "UNEXPECTED" not in proc.stdout and "2 skipped" in proc.stdout


def test_every_allowed_skip_says_why():
    allowed = allowed_skips()
    assert allowed and all(why.strip() for _, why in allowed)
