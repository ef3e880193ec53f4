# SPDX-License-Identifier: BSD-3-Clause
"""Helpers of the fault tests: small file systems of their own (tmpfs, and a device-mapper
device whose sectors fail with EIO), error lines, and a rank's process."""

import ctypes
import os
import re
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from bounded import kill_session
from conftest import SONDE

# The LD_PRELOAD fault shim (tests/shim/faultshim.c), built beside the binary under test.
SHIM = Path(SONDE).parent / "libfaultshim.so"


def sanitized():
    """Whether the binary under test is the ASan/UBSan build."""
    ldd = subprocess.run(["ldd", SONDE], capture_output=True, text=True).stdout
    return "libasan" in ldd


# The marks of a module whose launches preload the shim.
NEEDS_SHIM = [
    pytest.mark.skipif(not SHIM.exists(), reason=f"no fault shim at {SHIM} (cmake builds it)"),
    # ASan must be the first library loaded; a preloaded one comes before it.
    pytest.mark.skipif(sanitized(), reason="LD_PRELOAD and the ASan runtime do not mix"),
]


def error_lines(stderr):
    """sonde's own error lines ("sonde <workload>: [group G: ][rank R: ]error: ...", a group
    of `sonde mix` named)."""
    return [ln for ln in stderr.splitlines()
            if re.match(r"^sonde \w+: (group \d+: )?(rank \d+: )?error: ", ln)]


def mount_tmpfs(size, why):
    """A tmpfs of `size` at a new directory; the test is skipped with the reason when mount is
    not allowed here."""
    d = Path(tempfile.mkdtemp(prefix="sonde-fault-"))
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(d)],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        d.rmdir()
        pytest.skip(f"{why} needs a tmpfs of its own and mount is not allowed here: "
                    f"{proc.stderr.strip() or proc.returncode}")
    return d


def umount(d):
    subprocess.run(["umount", "-l", str(d)], capture_output=True, check=False)
    shutil.rmtree(d, ignore_errors=True)


def fill(d, leave):
    """Fills the file system of d until about `leave` bytes are free."""
    st = os.statvfs(d)
    free = st.f_bavail * st.f_frsize
    with open(d / "filler", "wb") as f:
        f.write(b"\0" * max(0, free - leave))


def descendants(root):
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [root]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def sonde_ranks(root):
    """The pids of the sonde processes under launcher pid root."""
    return [p for p in descendants(root) if comm(p) == "sonde"]


def comm(pid):
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return None


def _state(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "X"


def wait_gone(pids, limit):
    """Waits until none of the ranks pids is left running (a rank that outlived its launcher
    could still write): then nothing more can be written, with no sleep to guess at."""
    deadline = time.monotonic() + limit
    while any(comm(p) == "sonde" and _state(p) not in "ZX" for p in pids):
        assert time.monotonic() < deadline, f"a rank outlived its launcher by {limit} s"
        time.sleep(0.01)


def stop_launch(proc, sig, ready, limit=60):
    """Once ready() is true, with the launch (proc, in a session of its own) still running,
    sends sig to the launcher and waits for its end; whatever is left of it is killed. Returns
    the ranks' pids and the launcher's stderr."""
    try:
        deadline = time.monotonic() + limit
        while not ready():
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
            time.sleep(0.02)
        ranks = sonde_ranks(proc.pid)
        proc.send_signal(sig)
        return ranks, proc.communicate(timeout=30)[1]
    finally:
        if proc.poll() is None:
            kill_session(proc, 0)
            proc.wait()


def rank_pid(root, rank):
    """The pid of MPI rank `rank` under launcher pid root (Open MPI's or MPICH's variable)."""
    for pid in descendants(root):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read().split(b"\0")
            with open(f"/proc/{pid}/comm") as f:
                comm = f.read().strip()
        except OSError:
            continue
        if comm == "sonde" and any(e in env for e in (f"OMPI_COMM_WORLD_RANK={rank}".encode(),
                                                      f"PMI_RANK={rank}".encode())):
            return pid
    return None


class Watch:
    """Wakes up as soon as a file in a directory is written (inotify): a fault is injected
    within microseconds of the record that announces a phase, not a polling interval later."""

    IN_MODIFY, IN_CREATE = 0x2, 0x100

    def __init__(self, directory):
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self.libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        if self.libc.inotify_add_watch(self.fd, os.fsencode(str(directory)),
                                       self.IN_MODIFY | self.IN_CREATE) < 0:
            raise OSError(ctypes.get_errno(), f"inotify_add_watch {directory}")

    def wait(self, timeout):
        """Blocks until something in the directory changes or timeout seconds pass."""
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if ready:
            try:
                os.read(self.fd, 65536)
            except BlockingIOError:
                pass

    def close(self):
        os.close(self.fd)
