# SPDX-License-Identifier: BSD-3-Clause
"""Faults under sonde mdtest and sonde find: a full disk (bytes and inodes), a read-only target,
a rank killed in a phase, a directory removed under find. Each: one error line naming the path,
a non-zero exit within a bound, no rate printed for the failed phase, and an end record that
says why."""

import os
import signal
import subprocess
import time

import pytest
from bounded import kill_session
from conftest import launch_command, mpi_env, read_jsonl, run_sonde
from faultlib import error_lines, mount_tmpfs, umount

BOUND = 90


@pytest.fixture
def small_fs():
    d = mount_tmpfs("2m", "mdtest's disk-full test")
    yield d
    umount(d)


@pytest.fixture
def few_inodes():
    d = mount_tmpfs("64m,nr_inodes=200", "mdtest's out-of-inodes test")
    yield d
    umount(d)


def failed_phase(out, results, path_part, words):
    assert out.returncode == 1, out.stderr
    (e,) = error_lines(out.stderr)
    assert path_part in e and words in e, e
    assert "SUMMARY" not in out.stdout
    records = read_jsonl(results)
    end = records[-1]
    assert end["type"] == "end" and end["exit_code"] == 1 and end["reason"] == "io-error"
    assert path_part in end["path"]
    return records


def test_disk_full_while_writing_files(small_fs, tmp_path):
    results = tmp_path / "r.jsonl"
    out = run_sonde(["mdtest", "-n", 400, "-F", "-u", "-w", 8192, "-d", small_fs / "md",
                     "--json", results], np=2, check=False, timeout=BOUND)
    records = failed_phase(out, results, f"{small_fs}/md/test-dir.0-0/mdtest_tree.",
                           "No space left on device")
    # the tree was made and measured before the files filled the disk
    assert [r["phase"] for r in records if r["type"] == "measurement"] == ["tree-create"]


def test_out_of_inodes_while_creating(few_inodes, tmp_path):
    results = tmp_path / "r.jsonl"
    out = run_sonde(["mdtest", "-n", 300, "-F", "-d", few_inodes / "md", "--json", results],
                    np=2, check=False, timeout=BOUND)
    failed_phase(out, results, f"{few_inodes}/md/test-dir.0-0/mdtest_tree.0/file.mdtest.",
                 "No space left on device")


def test_read_only_target(tmp_path):
    d = mount_tmpfs("1m", "mdtest's read-only target test")
    try:
        (d / "sub").mkdir()
        proc = subprocess.run(["mount", "-o", "remount,ro", str(d)], capture_output=True,
                              text=True, check=False)
        if proc.returncode != 0:
            pytest.skip(f"cannot remount a tmpfs read-only: {proc.stderr.strip()}")
        results = tmp_path / "r.jsonl"
        out = run_sonde(["mdtest", "-n", 10, "-d", d / "sub", "--json", results], np=2,
                        check=False, timeout=BOUND)
        assert out.returncode == 1
        (e,) = error_lines(out.stderr)
        assert f"{d}/sub/test-dir.0-0" in e and "Read-only file system" in e
        assert read_jsonl(results)[-1]["reason"] == "io-error"
    finally:
        umount(d)


def _pid_of_rank(root, rank):
    out = subprocess.run(["ps", "-e", "-o", "pid=,ppid=,comm="], capture_output=True,
                         text=True).stdout
    children = {}
    for line in out.splitlines():
        pid, ppid, comm = line.split(None, 2)
        children.setdefault(int(ppid), []).append((int(pid), comm))
    todo, found = [root], []
    while todo:
        for pid, comm in children.get(todo.pop(), []):
            todo.append(pid)
            if comm == "sonde":
                found.append(pid)
    for pid in found:
        try:
            env = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
        except OSError:
            continue
        if f"OMPI_COMM_WORLD_RANK={rank}".encode() in env or f"PMI_RANK={rank}".encode() in env:
            return pid
    return None


def test_rank_killed_while_creating(shm_scratch, tmp_path):
    """Rank 1 dies in a long create phase under a stonewall: the job ends within the bound,
    and what rank 0 wrote before parses."""
    results = tmp_path / "r.jsonl"
    cmd = launch_command(2, ["mdtest", "-n", 10**7, "-F", "-u", "-W", 60, "-d",
                             shm_scratch / "md", "--json", results])
    proc = subprocess.Popen(cmd, env=mpi_env(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, start_new_session=True, text=True)
    try:
        deadline = time.monotonic() + 60
        pid = None
        tree = shm_scratch / "md" / "test-dir.0-0" / "mdtest_tree.1.0"
        while time.monotonic() < deadline and proc.poll() is None:
            pid = _pid_of_rank(proc.pid, 1)
            if pid and tree.is_dir() and len(os.listdir(tree)) > 100:
                break
            time.sleep(0.1)
        assert proc.poll() is None and pid, "the run ended before the fault was injected"
        os.kill(pid, signal.SIGKILL)
        killed = time.monotonic()
        rc = proc.wait(timeout=BOUND)
        assert time.monotonic() - killed < BOUND
    finally:
        if proc.poll() is None:
            kill_session(proc, 0)
            proc.wait()
    assert rc != 0
    records = read_jsonl(results)
    assert records[0]["type"] == "header"
    assert not [r for r in records if r["type"] == "measurement" and r["phase"] == "file-create"]


def test_find_with_its_results_on_a_full_disk(small_fs, shm_scratch):
    """A results file on a full disk fails find's run: exit 1 and an error line, never a rate
    with its record lost."""
    (shm_scratch / "t").mkdir()
    for i in range(50):
        (shm_scratch / "t" / f"f{i:03d}").write_bytes(b"x")
    with open(small_fs / "filler", "wb") as f:
        try:
            f.write(b"\0" * (4 << 20))
        except OSError:
            pass
    out = run_sonde(["find", shm_scratch / "t", "-name", "*0*", "-C", "--json",
                     small_fs / "r.jsonl"], np=2, check=False, timeout=BOUND)
    assert out.returncode == 1, out.stderr
    assert error_lines(out.stderr)
