# SPDX-License-Identifier: BSD-3-Clause
"""tests/launch.env is the one source of the launch environment: every consumer launches with
each of its settings (the bench leaves out one, on purpose, and says so), and a setting added
to the file reaches every Python consumer without an edit to it."""

import json
import os
import subprocess
import sys
from pathlib import Path

import launch_env as launch_env_file
import pytest
from conftest import REPO, SONDE, launch_env, mpi_env
from test_install import clean_env

sys.path.insert(0, str(REPO / "python" / "tests"))
sys.path.insert(0, str(REPO / "bench"))
import benchlib  # noqa: E402 (after the path is set)
import golden  # noqa: E402

BENCH_LEAVES_OUT = {"OMPI_MCA_btl_vader_single_copy_mechanism"}


def holds(env, settings):
    return {k: env.get(k) for k in settings} == settings


def python_consumers():
    """The environment each Python consumer launches with, built now from the file."""
    return {"conftest.mpi_env": mpi_env(), "golden.env": golden.env(),
            "test_install.clean_env": clean_env(), "benchlib.mpi_env": benchlib.mpi_env()}


def test_the_file_holds_the_settings_the_tests_rely_on():
    settings = launch_env()
    assert settings["PMIX_MCA_psec"] == "native"
    assert settings["OMPI_ALLOW_RUN_AS_ROOT"] == settings["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] == "1"


def test_python_consumers_launch_with_it():
    settings = launch_env()
    for name, env in python_consumers().items():
        left_out = BENCH_LEAVES_OUT if name == "benchlib.mpi_env" else set()
        assert holds(env, {k: v for k, v in settings.items() if k not in left_out}), name
        assert not left_out & set(env) - set(os.environ), name


def test_a_setting_added_to_the_file_reaches_every_python_consumer(tmp_path, monkeypatch):
    """A consumer holding its own copy of today's values passes the test above; this one
    fails it."""
    edited = tmp_path / "launch.env"
    edited.write_text(launch_env_file.FILE.read_text() + "SONDE_LAUNCH_ENV_PROBE=reached\n")
    monkeypatch.setattr(launch_env_file, "FILE", edited)
    for name, env in python_consumers().items():
        assert env.get("SONDE_LAUNCH_ENV_PROBE") == "reached", name


def test_a_line_cmake_would_read_otherwise_is_refused(tmp_path, monkeypatch):
    for line in ("  OMPI_MCA_btl=self,tcp", "OMPI_MCA_btl=self;tcp", "no setting"):
        edited = tmp_path / "launch.env"
        edited.write_text(f"# a comment\n\n{line}\n")
        monkeypatch.setattr(launch_env_file, "FILE", edited)
        with pytest.raises(ValueError, match=f"{edited}:3: not KEY=VALUE"):
            launch_env()


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
