# SPDX-License-Identifier: BSD-3-Clause
"""The tests' fixtures are records the binary wrote (golden.py). A test that needs a record the
binary cannot write derives it from one of them (a deep copy with one named change, or the
file's bytes cut) and says why; no test builds a record itself."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
from golden import (  # noqa: E402,F401  (fixtures)
    campaign,
    golden,
    golden_records,
    io500_campaign,
    ior_file,
    mib_profile_file,
    mix_file,
    quick_pair,
    record,
    series_file,
)
from leftovers import no_processes_left  # noqa: E402,F401 (autouse fixture)
from skip_policy import (  # noqa: E402,F401  (pytest's hooks: skips listed, unexpected ones fail CI)
    pytest_runtest_logreport,
    pytest_sessionfinish,
    pytest_terminal_summary,
)
