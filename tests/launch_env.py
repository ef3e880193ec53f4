# SPDX-License-Identifier: BSD-3-Clause
"""The launch environment of the tests and the bench, from tests/launch.env (one source for
the integration tests, the golden records, the install test, ctest and make bench)."""

import re
from pathlib import Path

FILE = Path(__file__).resolve().with_name("launch.env")
# What CMakeLists.txt takes from the file (file(STRINGS ... REGEX)); a setting CMake would read
# otherwise is refused here, so ctest cannot launch with less than the Python consumers.
SETTING = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=([^;]*)")


def launch_env():
    """{KEY: VALUE} of tests/launch.env; blank lines and # comments skipped."""
    env = {}
    for number, line in enumerate(FILE.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        setting = SETTING.fullmatch(line)
        if not setting:
            raise ValueError(f"{FILE}:{number}: not KEY=VALUE (no spaces before the key, "
                             f"no ';' in the value, which ends a CMake list item): {line}")
        env[setting[1]] = setting[2]
    return env
