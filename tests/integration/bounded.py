# SPDX-License-Identifier: BSD-3-Clause
"""Launches with a bound: a test's launch that outlives its time is killed, every process of it.

A launch runs in a session of its own (start_new_session). Past its time the whole session gets
SIGTERM, a short grace, then SIGKILL: the launcher's process group is not enough, since Open
MPI's mpirun puts each rank in a process group of its own, and a launcher that ignores SIGTERM
(an mpiexec once hung 10 minutes so after a failed IO500 launch) must not hold the suite."""

import collections
import os
import signal
import subprocess
import time

from leftovers import process_stats

# Seconds between SIGTERM and SIGKILL: the launcher's chance to stop its ranks and say why.
GRACE = 3

# Bounded launches per test file in this pytest session, printed at its end (launch_summary):
# each mpirun costs some 0.5-1 s of start-up and exit, most of the integration tests' time
# (docs/reliability.md, "Where make test's time goes"), so a file that adds many shows here.
launches = collections.Counter()


class LaunchTimeout(AssertionError):
    """A launch that did not finish in time; it and every process it started are gone."""

    def __init__(self, cmd, pid, timeout, stdout, stderr):
        self.cmd, self.pid, self.timeout = cmd, pid, timeout
        self.stdout, self.stderr = stdout, stderr
        super().__init__(f"{' '.join(map(str, cmd))} did not finish within {timeout} s and "
                         f"was killed\n--- stdout\n{stdout}\n--- stderr\n{stderr}")


def session_members(sid):
    """Process ids of the live processes of session sid (zombies left out)."""
    return [pid for pid, fields in process_stats().items()
            if int(fields[3]) == sid and fields[0] != "Z"]


def signal_session(sid, sig):
    for pid in session_members(sid):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def kill_session(proc, grace=GRACE):
    """SIGTERM to every process of proc's session, then SIGKILL to what is left after grace
    seconds, until none is left."""
    signal_session(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while session_members(proc.pid) and time.monotonic() < deadline:
        proc.poll()  # reaps the launcher itself, so that it does not stay a zombie
        time.sleep(0.05)
    for _ in range(100):
        proc.poll()
        if not session_members(proc.pid):
            return
        signal_session(proc.pid, signal.SIGKILL)
        time.sleep(0.05)
    raise AssertionError(f"session {proc.pid} still has {session_members(proc.pid)}")


def run_bounded(cmd, timeout=600, grace=GRACE, capture_output=False, check=False, input=None,
                **kwargs):
    """subprocess.run(cmd, ...) in a session of its own, the same arguments meaning the same;
    past timeout seconds (600 unless given: no test's launch takes that long) the whole
    session is killed and LaunchTimeout raised."""
    test = os.environ.get("PYTEST_CURRENT_TEST", "")
    launches[test.split("::")[0] or "(outside a test)"] += 1
    if capture_output:
        kwargs["stdout"] = kwargs["stderr"] = subprocess.PIPE
    if input is not None:
        kwargs["stdin"] = subprocess.PIPE
    with subprocess.Popen(cmd, start_new_session=True, **kwargs) as proc:
        try:
            out, err = proc.communicate(input, timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_session(proc, grace)
            out, err = proc.communicate(timeout=30)
            raise LaunchTimeout(cmd, proc.pid, timeout, out, err) from None
        except BaseException:
            kill_session(proc, 0)
            raise
    done = subprocess.CompletedProcess(cmd, proc.returncode, out, err)
    if check:
        done.check_returncode()
    return done


def launch_summary(terminalreporter, top=10):
    """The session's bounded launches, and the files that made the most."""
    if not launches:
        return
    total = sum(launches.values())
    terminalreporter.section(f"{total} bounded launch{'' if total == 1 else 'es'} "
                             "(bounded.py), the files with the most")
    for path, n in launches.most_common(top):
        terminalreporter.write_line(f"{n:6}  {path}")
