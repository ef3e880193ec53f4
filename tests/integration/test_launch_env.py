# SPDX-License-Identifier: BSD-3-Clause
"""tests/launch.env is the one source of the launch environment: every consumer launches with
each of its settings (the bench leaves out one, on purpose, and says so)."""

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import REPO, SONDE, launch_env, mpi_env

sys.path.insert(0, str(REPO / "python" / "tests"))
sys.path.insert(0, str(REPO / "bench"))
import benchlib  # noqa: E402 (after the path is set)
import golden  # noqa: E402

BENCH_LEAVES_OUT = {"OMPI_MCA_btl_vader_single_copy_mechanism"}


def holds(env, settings):
    return {k: env.get(k) for k in settings} == settings


def test_the_file_holds_the_settings_the_tests_rely_on():
    settings = launch_env()
    assert settings["PMIX_MCA_psec"] == "native"
    assert settings["OMPI_ALLOW_RUN_AS_ROOT"] == settings["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] == "1"


def test_python_consumers_launch_with_it():
    settings = launch_env()
    assert holds(mpi_env(), settings)
    assert holds(golden.env(), settings)
    bench = benchlib.mpi_env()
    assert holds(bench, {k: v for k, v in settings.items() if k not in BENCH_LEAVES_OUT})
    assert not BENCH_LEAVES_OUT & set(bench) - set(os.environ)


def test_ctest_launches_with_it():
    build = Path(SONDE).parent
    proc = subprocess.run(["ctest", "--show-only=json-v1"], cwd=build, capture_output=True,
                          text=True, timeout=60, check=True)
    tests = json.loads(proc.stdout)["tests"]
    mpi_tests = [t for t in tests if any(p["name"] == "ENVIRONMENT"
                                         for p in t.get("properties", []))]
    assert mpi_tests, "no ctest test has an ENVIRONMENT"
    for t in mpi_tests:
        env = dict(kv.split("=", 1) for p in t["properties"] if p["name"] == "ENVIRONMENT"
                   for kv in p["value"])
        assert holds(env, launch_env()), t["name"]
