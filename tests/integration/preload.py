# SPDX-License-Identifier: BSD-3-Clause
"""LD_PRELOAD shims of the tests (tests/integration/preload/*.c), built once per session."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

SOURCES = Path(__file__).resolve().parent / "preload"


def build_shim(name, directory):
    """Compiles preload/<name>.c into directory/<name>.so and returns its path; the test is
    skipped when no C compiler is installed."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("building an LD_PRELOAD shim needs a C compiler")
    out = Path(directory) / f"{name}.so"
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", str(out), str(SOURCES / f"{name}.c"),
                    "-ldl", "-lm"], check=True, capture_output=True, timeout=120)
    return out


def preload_env(shim, extra=None):
    """The environment additions that load shim into sonde. Under AddressSanitizer (make
    test's ASan leg) the shim comes before ASan's runtime, which ASan refuses unless told the
    order does not matter."""
    env = {"LD_PRELOAD": str(shim)}
    asan = os.environ.get("ASAN_OPTIONS")
    env["ASAN_OPTIONS"] = (asan + ":" if asan else "") + "verify_asan_link_order=0"
    env.update(extra or {})
    return env
