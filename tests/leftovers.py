# SPDX-License-Identifier: BSD-3-Clause
"""No test leaves a process behind: an autouse fixture of both test trees' conftest.py.

pytest becomes a child subreaper (prctl PR_SET_CHILD_SUBREAPER), so a process a test started
stays its descendant even when its parent is gone (a report worker whose sonde-report a timeout
killed, a rank whose launcher died): the kernel gives orphans to pytest, not to init. After each
test, a live descendant that the test started (its line to pytest passes through no process that
was there before the test: a session fixture's browser keeps its own children) is killed with
all its descendants, and the test fails naming it. The processes a test starts are bounded by
its end, whatever started them."""

import ctypes
import gc
import multiprocessing
import os
import signal
import subprocess
import time

import pytest

PR_SET_CHILD_SUBREAPER = 36
# Seconds a test's processes get to finish leaving after it (a launcher reaping its ranks).
SETTLE = 2.0


def _become_subreaper():
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")


def process_stats():
    """{pid: the fields of /proc/PID/stat after the command name} of every process, zombies
    included (state letter first, then parent pid, process group, session ...)."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        found[int(entry)] = stat[stat.rindex(")") + 2:].split()
    return found


def _processes():
    """{pid: (parent pid, state letter)} of every process, zombies included: a dead parent not
    yet waited for still links its children to the tree while the kernel hands them on."""
    return {pid: (int(fields[1]), fields[0]) for pid, fields in process_stats().items()}


def descendants(root, live=True):
    """{pid: parent pid} of the descendants of root (the live ones, or the dead not yet waited
    for when live is False)."""
    procs = _processes()
    children = {}
    for pid, (ppid, _) in procs.items():
        children.setdefault(ppid, []).append(pid)
    out, todo = {}, [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if (procs[child][1] not in "ZX") == live:
                out[child] = procs[child][0]
            todo.append(child)
    return out


def started_since(before, root):
    """The live descendants of root that are not, and do not descend from, a pid of before."""
    now = descendants(root) | descendants(root, live=False)
    new = []
    for pid in descendants(root):
        p = pid
        while p != root and p not in before:
            p = now.get(p, root)
        if p == root:
            new.append(pid)
    return new


def _reap_orphans():
    """Waits for the dead orphans pytest was given as their subreaper, so that none stays a
    zombie that a test would take for a live process; a child that Python's own Popen or
    multiprocessing objects will wait for is theirs to reap."""
    zombies = {pid for pid, ppid in descendants(os.getpid(), live=False).items()
               if ppid == os.getpid()}
    if not zombies:
        return
    owned = {p.pid for p in multiprocessing.active_children()}
    owned |= {o.pid for o in gc.get_objects() if isinstance(o, subprocess.Popen)}
    for pid in zombies - owned:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass


def _command(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"


def _kill(pids):
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.fixture(autouse=True)
def no_processes_left():
    """Fails the test when a process it started outlives it (killing it first)."""
    root = os.getpid()
    before = set(descendants(root))
    yield
    deadline = time.monotonic() + SETTLE
    left = started_since(before, root)
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = started_since(before, root)
    _reap_orphans()
    if not left:
        return
    named = [f"{pid}: {_command(pid)}" for pid in left]
    _kill(left)
    time.sleep(0.1)
    _reap_orphans()
    pytest.fail("the test left processes running (killed now):\n" + "\n".join(named))


_become_subreaper()
