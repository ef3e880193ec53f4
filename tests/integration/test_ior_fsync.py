# SPDX-License-Identifier: BSD-3-Clause
"""ior -e and -Y issue their fsyncs where IOR does (reference/ior.md): -e one per file at the
end of each write phase, before the read phase starts; -Y one after every write call. The
oracle is the system calls themselves: strace -f -y records each rank's pwrite64, pread64,
fsync and fdatasync on the test files, in order."""

import re
import shutil

import pytest
from bounded import run_bounded
from conftest import OPEN_MPI, launch_command, mpi_env

pytestmark = [
    pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace"),
    pytest.mark.skipif(not OPEN_MPI, reason="strace -f follows the ranks Open MPI's mpirun forks"),
]

LETTER = {"pwrite64": "W", "pread64": "R", "fsync": "F", "fdatasync": "F"}


def calls_per_rank(tmp_path, np, args, target):
    """{pid: "WWFRR..."}: each process's writes, reads and syncs of files named target*."""
    log = tmp_path / "strace.log"
    cmd = ["strace", "-f", "-qq", "-y", "-s", "0", "-e",
           "trace=pwrite64,pread64,fsync,fdatasync", "-o", str(log),
           *launch_command(np, ["ior", "-a", "POSIX", "-t", "4k", "-b", "16k", "-o", target,
                                *args])]
    proc = run_bounded(cmd, env=mpi_env(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    call = re.compile(r"(\d+) +(\w+)\(\d+<" + re.escape(str(target)) + r"[.>]")
    seqs = {}
    for line in log.read_text().splitlines():
        m = call.match(line)
        if m and m.group(2) in LETTER:
            seqs[m.group(1)] = seqs.get(m.group(1), "") + LETTER[m.group(2)]
    return seqs


@pytest.mark.parametrize("args,per_rank", [
    # four 4 KiB writes a phase; the read phase follows each write phase
    (["-w", "-r", "-i", "2", "-F"], "WWWWRRRR" * 2),
    (["-w", "-r", "-e", "-i", "2", "-F"], "WWWWFRRRR" * 2),
    (["-w", "-e", "-i", "2"], "WWWWF" * 2),
    (["-w", "-r", "-Y", "-F"], "WFWFWFWFRRRR"),
    (["-w", "-e", "-Y"], "WFWFWFWFF"),
])
def test_fsync_calls_per_rank(tmp_path, args, per_rank):
    target = tmp_path / "f"
    seqs = calls_per_rank(tmp_path, 2, args, target)
    assert len(seqs) == 2, seqs
    assert all(s == per_rank for s in seqs.values()), seqs
