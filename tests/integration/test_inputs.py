# SPDX-License-Identifier: BSD-3-Clause
"""Input files are read by rank 0 alone and shared (src/core/input.c): an IOR script, IOR's
stonewall status file, mpiio's -setup, BTIO's input deck. Every open of a process is traced
(strace -f follows mpirun's ranks), and exactly one process opens the file."""

import re
import shutil

import pytest
from bounded import run_bounded
from conftest import OPEN_MPI, launch_command, mpi_env

pytestmark = [
    pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace"),
    pytest.mark.skipif(not OPEN_MPI, reason="strace -f follows the ranks Open MPI's mpirun forks"),
]


def opens_of(path, args, np, tmp_path):
    """Runs sonde args on np ranks under strace; returns how many processes opened path."""
    log = tmp_path / "strace.log"
    cmd = ["strace", "-f", "-qq", "-e", "trace=open,openat", "-o", str(log),
           *launch_command(np, args)]
    proc = run_bounded(cmd, env=mpi_env(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    pids = set()
    for line in log.read_text().splitlines():
        m = re.match(r"(\d+) +open(at)?\(.*\"" + re.escape(str(path)) + r"\".* = \d+$", line)
        if m:
            pids.add(m.group(1))
    return len(pids)


def test_ior_script_is_read_by_rank_zero(tmp_path):
    script = tmp_path / "script"
    script.write_text(f"IOR START\n transferSize=4k\n blockSize=8k\n testFile={tmp_path}/f\n"
                      "RUN\n segmentCount=2\nRUN\nIOR STOP\n")
    assert opens_of(script, ["ior", "-w", "-f", script], 3, tmp_path) == 1


def test_ior_status_file_is_read_by_rank_zero(tmp_path):
    status, target = tmp_path / "status", tmp_path / "f"
    common = ["-t", "4k", "-b", "4k", "-s", "100", "-k", "-o", target, "-O",
              f"stoneWallingStatusFile={status}"]
    run_bounded(launch_command(3, ["ior", "-w", "-D", "5", "-O", "stoneWallingWearOut=1",
                                   *common]), env=mpi_env(), check=True, capture_output=True,
                timeout=120)
    assert opens_of(status, ["ior", "-r", *common], 3, tmp_path) == 1


def test_mpiio_setup_is_read_by_rank_zero(tmp_path):
    setup = tmp_path / "setup"
    setup.write_text(f"-type 2 -nobj 2 -size 4K -target {tmp_path}/f\n")
    assert opens_of(setup, ["mpiio", "-setup", setup], 3, tmp_path) == 1


def test_btio_input_is_read_by_rank_zero(tmp_path):
    deck = tmp_path / "inputbt.data"
    deck.write_text(f"w\n1\n2\n8 8 8\n{tmp_path}\n")
    assert opens_of(deck, ["btio", deck], 4, tmp_path) == 1
