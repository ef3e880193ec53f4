# SPDX-License-Identifier: BSD-3-Clause
"""The launch environment of the tests and the bench, from tests/launch.env (one source for
the integration tests, the golden records, the install test, ctest and make bench)."""

from pathlib import Path

FILE = Path(__file__).resolve().with_name("launch.env")


def launch_env():
    """{KEY: VALUE} of tests/launch.env; blank lines and # comments skipped."""
    env = {}
    for number, line in enumerate(FILE.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        if not sep or not key:
            raise ValueError(f"{FILE}:{number}: not KEY=VALUE: {line}")
        env[key] = value
    return env
