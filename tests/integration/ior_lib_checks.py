# SPDX-License-Identifier: BSD-3-Clause
"""Checks shared by the tests of ior's library backends (test_ior_hdf5.py, test_ior_ncmpi.py)."""

import re

from conftest import read_jsonl, run_sonde
from faultlib import SHIM, error_lines

# Faults under the library's writes (tests/shim/faultshim.c) and the words of their error line.
WRITE_FAULTS = [
    ("SONDE_FAULT_EIO=write", "Input/output error"),
    ("SONDE_FAULT_SHORT=stall", r"short write: 0 of \d+ bytes"),
]


def refusal(api, args):
    """The one line sonde --parse-only refuses `ior -a api -w args` with (exit 2)."""
    out = run_sonde(["--parse-only", 2, 2, "ior", "-a", api, "-w", *args], mpi=False,
                    check=False)
    assert out.returncode == 2, out.stderr
    (line,) = out.stderr.strip().splitlines()
    return line


def assert_failed_writes_give_no_figure(api, scratch, results, fault, words, collective):
    """Writes that fail or stall under the library: exit 1, one line naming the file, no rate
    and no measurement, an io-error end record (and no crash in the library's termination)."""
    f = scratch / "f"
    key, value = fault.split("=")
    env = {"LD_PRELOAD": str(SHIM), "SONDE_FAULT_DIR": str(scratch), key: value}
    out = run_sonde(["ior", "-a", api, *collective, "-w", "-r", "-t", "64k", "-b", "128k",
                     "-o", f, "--json", results], np=2, env=env, check=False, timeout=120)
    assert out.returncode == 1, out.stdout + out.stderr
    (line,) = error_lines(out.stderr)
    assert str(f) in line and re.search(words, line), line
    assert not re.search(r"^(write|read)\s+\d", out.stdout, re.MULTILINE), out.stdout
    records = read_jsonl(results)
    assert records[-1]["type"] == "end" and records[-1]["reason"] == "io-error"
    assert not [r for r in records if r["type"] == "measurement"]
