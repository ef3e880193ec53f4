# SPDX-License-Identifier: BSD-3-Clause
"""sonde ior -a MMAP against IOR's MMAP backend: the output of the same command lines line by line
(numbers masked) against IOR's own output recorded in fixtures/ior-mmap-*.txt (IOR 4.1.0+dev,
commit 5fcf0ba, built with --with-mmap), the file sizes IOR's backend gives them, and the system
calls IOR's backend makes (strace: the file sized and mapped once, msync per write under -Y, the
advice asked for). Verification, latency, progress and the records go through the same launch."""

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from bounded import run_bounded
from conftest import OPEN_MPI, launch_command, mpi_env, read_jsonl, run_sonde

FIXTURES = Path(__file__).parent / "fixtures"


def masked(text, path):
    """The lines both tools print, numbers, dates and the paths masked. IOR's
    "assuming POSIX-based backend" lines (printed by every rank as its MMAP backend starts)
    and its file-size warnings of -F (below) are not sonde's; --latency's lines are sonde's
    own."""
    out = []
    for line in text.splitlines():
        if re.search(r"assuming POSIX-based backend|aggregate (file size|bytes moved)|"
                     r"^(write|read) latency", line):
            continue
        line = re.sub(r"^(Began|StartTime|Finished|Command line|Machine|FS|Path|test filename)"
                      r"( *):.*", r"\1\2: X", line)
        line = re.sub(r"^IOR-4\.1\.0[^:]*:", "IOR:", line)
        line = line.replace(str(path), "F")
        line = re.sub(r"\d+(\.\d+)?", "N", line)
        out.append(re.sub(r" +", " ", line).rstrip())
    return out


def ior_recorded(name):
    text = (FIXTURES / name).read_text()
    return text, re.search(r"^Command line *: \S+ (.*) -o (\S+)$", text, re.MULTILINE).groups()


def test_shared_file_as_ior(shm_scratch):
    """One launch: IOR's output lines, the file IOR's command makes, verification of the
    written data (-W and -R), --latency's lines, --progress's lines, the records."""
    text, (args, ior_path) = ior_recorded("ior-mmap-shared.txt")
    target = shm_scratch / "m"
    results = shm_scratch / "r.jsonl"
    proc = run_sonde(["ior", *args.split(), "-o", target, "--latency",
                      "--progress-interval", "0", "--json", results], np=2)
    assert masked(proc.stdout, target) == masked(text, ior_path)
    # -b 64k -s 3 on 2 ranks: one file of 384 KiB, as IOR's backend sizes it
    assert os.stat(target).st_size == 2 * 3 * 65536
    assert "WARNING: Incorrect data" not in proc.stdout
    # 12 transfers of each rank per phase
    assert re.search(r"^read latency \(iteration 0, 24 calls\): p50 ", proc.stdout, re.MULTILINE)
    for phase in ("write", "check", "read"):
        assert re.search(rf"^sonde ior: {phase} 100% +384 KiB of 384 KiB", proc.stderr,
                         re.MULTILINE)
    recs = read_jsonl(results)
    ms = [r for r in recs if r["type"] == "measurement"]
    assert {m["phase"] for m in ms} >= {"write", "read"}
    for m in ms:
        assert m["params"]["api"] == "MMAP" and m["bytes"] == 2 * 3 * 65536
        assert m["params"]["mmap.madv_pattern"] is False
        assert m["params"]["mmap.madv_dont_need"] is False


def test_file_per_process_sync_and_advice(tmp_path):
    """-F -e -Y: IOR's output lines; each rank's system calls on its file, which IOR's MMAP
    backend makes too (strace of IOR 4.1.0+dev, the same command): the file sized with
    ftruncate and mapped once, per write msync of the transfer then of the whole mapping (IOR
    syncs the file after each -Y write, whatever the backend), -e's msync, the advice asked."""
    text, (args, ior_path) = ior_recorded("ior-mmap-fpp.txt")
    target = tmp_path / "f"
    proc = run_sonde(["ior", *args.split(), "-o", target], np=2)
    assert masked(proc.stdout, target) == masked(text, ior_path)
    if shutil.which("strace") is None:
        pytest.skip("needs strace")  # as test_ior_fsync.py
    if not OPEN_MPI:
        pytest.skip("strace -f follows the ranks Open MPI's mpirun forks (the system call part)")
    log = tmp_path / "strace"
    # one log per process (-ff): no call of a rank split by another's
    cmd = ["strace", "-ff", "-qq", "-y", "-e", "trace=ftruncate,mmap,msync,madvise,munmap", "-o",
           str(log), *launch_command(2, ["ior", "-a", "MMAP", "-F", "-w", "-r", "-e", "-Y",
                                         "--mmap.madv_pattern", "-t", "4k", "-b", "16k", "-o",
                                         str(tmp_path / "s")])]
    done = run_bounded(cmd, env=mpi_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    calls = {}
    mapped = {}
    lines = [(p.suffix, line) for p in tmp_path.glob("strace.*")
             for line in p.read_text().splitlines()]
    for pid, line in lines:
        m = re.match(r"(\w+)\((.*)\) += (\S+)", line)
        if not m:
            continue
        name, argv, ret = m.groups()
        seq = calls.setdefault(pid, [])
        ours = f"<{tmp_path}/s." in argv
        if name == "ftruncate" and ours:
            seq.append(f"T{argv.split(', ')[1]}")
        elif name == "mmap" and ours:
            seq.append("M" + ("w" if "PROT_WRITE" in argv else "r"))
            mapped[pid] = ret
        elif name == "madvise" and argv.startswith(mapped.get(pid, "-")):
            seq.append("A" + argv.split(", ")[2])
        elif name == "msync" and mapped.get(pid):
            seq.append(f"S{argv.split(', ')[1]}")
    ranks = [s for s in calls.values() if "Mw" in s]
    assert len(ranks) == 2, calls
    expected = (["T16384", "Mw", "AMADV_SEQUENTIAL"] + ["S4096", "S16384"] * 4 + ["S16384"] +
                ["Mr", "AMADV_SEQUENTIAL"])
    for seq in ranks:
        assert seq == expected, seq


def test_refusals_and_warnings(shm_scratch):
    """IOR's rule for -Y, capabilities, a backend option given for another backend, and
    --mmap.madv_dont_need, a no-op on Linux in IOR as well."""
    bad = run_sonde(["ior", "-a", "MMAP", "-w", "-Y", "-t", "2k", "-b", "8k", "-o",
                     shm_scratch / "y"], check=False)
    assert bad.returncode == 2 and "multiple of the page size" in bad.stderr
    bad = run_sonde(["ior", "-a", "MMAP", "-w", "-c", "-o", shm_scratch / "c"], check=False)
    assert bad.returncode == 2 and "the MMAP backend has no collective I/O" in bad.stderr
    bad = run_sonde(["ior", "-a", "MMAP", "-w", "--posix.odirect", "-o", shm_scratch / "d"],
                    check=False)
    assert bad.returncode == 2 and "the MMAP backend has no direct I/O" in bad.stderr
    ok = run_sonde(["ior", "-a", "POSIX", "-w", "--mmap.madv_pattern", "-t", "4k", "-b", "8k",
                    "-o", shm_scratch / "p"])
    assert "--mmap.madv_pattern has no effect here: it applies to -a MMAP" in ok.stderr
    ok = run_sonde(["ior", "-a", "mmap", "-w", "--mmap.madv_dont_need", "-t", "4k", "-b", "8k",
                    "-o", shm_scratch / "n"])
    assert "--mmap.madv_dont_need has no effect here: it is a no-op on Linux" in ok.stderr


def test_mdtest_backends(shm_scratch):
    """mdtest -a takes the backends IOR's mdtest runs on (of sonde's: POSIX) and refuses the
    others by name, as IOR's mdtest does ("Backend doesn't support MDTest")."""
    for api in ("MMAP", "MPIIO"):
        bad = run_sonde(["mdtest", "-a", api, "-n", "2", "-d", shm_scratch / "md"], check=False)
        assert bad.returncode == 2
        assert f"mdtest does not run on the {api} backend" in bad.stderr
        assert "mdtest runs on: POSIX" in bad.stderr
    help_text = run_sonde(["mdtest", "--help"], mpi=False).stdout
    assert "-a POSIX " in help_text and "--posix.odirect" in help_text
    assert "--mmap." not in help_text and "--mpiio." not in help_text
    params = json.loads(run_sonde(["--parse-only", "1", "1", "mdtest", "-a", "posix", "-n", "2"],
                                  mpi=False).stdout)["params"]
    assert params["api"] == "POSIX" and params["posix.odirect"] is False
