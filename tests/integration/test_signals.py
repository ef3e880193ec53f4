# SPDX-License-Identifier: BSD-3-Clause
"""Stop signals under the launcher: SIGTERM or SIGINT sent to mpirun / mpiexec.mpich (which pass
it to the ranks) ends every run with an end record that names the signal, after every
measurement the run announced, and nothing is written after it. A rank that dies makes the
launcher stop the others: under Open MPI the end record says peer-failed and names the rank;
MPICH's launcher ends the others with SIGKILL, so there is no end record, and the records
before stay whole. srun: test_slurm.py."""

import os
import signal
import subprocess
import time

import pytest
from bounded import kill_session
from conftest import OPEN_MPI, SIGNAL_GRACE, launch_command, mpi_env, read_jsonl
from faultlib import rank_pid, sonde_ranks, wait_gone

# Many sizes and iterations: far longer than the moment before the signal.
LONG_RUN = ["coll", "-b", 8, "-e", "1m", "-i", 3000, "Allreduce", "Bcast", "Reduce", "Alltoall"]
# The same with a tenth of the iterations, for 3 ranks on 2 cores, where MPICH's ranks spin
# without yielding: its first measurement took 27-45 s there (docs/reliability.md); the rest of
# the run still lasts seconds after it.
LONG_RUN_3_RANKS = [300 if a == 3000 else a for a in LONG_RUN]


@pytest.fixture
def start():
    """Starts the long run under the launcher in a session of its own; whatever is left of it
    is killed when the test ends, failed or not."""
    procs = []

    def launch(results, np_=2, run=LONG_RUN):
        cmd = launch_command(np_, run + ["--json", results])
        proc = subprocess.Popen(cmd, env=mpi_env(SIGNAL_GRACE), stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
        procs.append(proc)
        return proc

    yield launch
    for proc in procs:
        if proc.poll() is None:
            kill_session(proc, 0)
            proc.wait()


def _wait_for(results, what, proc, limit=60):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if what in results.read_text():
                return
        except OSError:
            pass
        time.sleep(0.05)
    raise AssertionError(f"the run ended or stalled before writing {what}")


def _finish(proc):
    _, err = proc.communicate(timeout=30)
    return proc.returncode, err


@pytest.mark.parametrize("repeat", range(4))
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_stop_signal_to_the_launcher_always_leaves_an_end_record(tmp_path, start, sig, repeat):
    """Repeated: the end record was once lost in about one run in ten."""
    results = tmp_path / "r.jsonl"
    proc = start(results)
    _wait_for(results, '"type":"measurement"', proc)
    ranks = sonde_ranks(proc.pid)
    assert len(ranks) == 2, ranks
    proc.send_signal(sig)
    rc, err = _finish(proc)
    # mpirun exits non-zero; mpiexec.mpich, signalled itself, sometimes exits 0 (its status is
    # that of the first process it collects); the ranks' status is in the end record either way
    assert rc != 0 or not OPEN_MPI
    text = results.read_text()
    wait_gone(ranks, 30)
    assert results.read_text() == text  # nothing is appended after the end record
    records = read_jsonl(results)
    end = records[-1]
    assert end["type"] == "end" and end["reason"] == "signal", end
    # mpirun passes SIGINT on as SIGTERM; mpiexec.mpich passes it as it came
    assert end["signal"] == ("SIGTERM" if OPEN_MPI else sig.name) and end["exit_code"] == 4
    assert sum(r["type"] == "end" for r in records) == 1
    assert end["measurements"] == sum(r["type"] == "measurement" for r in records)
    assert f"stopped by {end['signal']}" in err


def test_rank_killed_is_named_as_the_cause(tmp_path, start):
    results = tmp_path / "r.jsonl"
    proc = start(results, np_=3, run=LONG_RUN_3_RANKS)
    _wait_for(results, '"type":"measurement"', proc)
    pid = rank_pid(proc.pid, 1)
    assert pid, "rank 1 not found under the launcher"
    os.kill(pid, signal.SIGKILL)
    rc, err = _finish(proc)
    assert rc != 0
    records = read_jsonl(results)
    assert records[0]["type"] == "header"
    if OPEN_MPI:
        end = records[-1]
        assert end["type"] == "end" and end["reason"] == "peer-failed", end
        assert end["rank"] == 1 and end["exit_code"] == 1 and "signal" not in end
        assert "rank 1 ended (killed or failed)" in err
    else:
        # Hydra ends the other ranks with SIGKILL: nothing can write an end record.
        assert all(r["type"] != "end" for r in records)


def test_stop_without_a_results_file_says_none_was_kept():
    """Without --json or --csv nothing is on disk: the line says so instead of "the results
    recorded so far are kept"."""
    cmd = launch_command(2, LONG_RUN)
    proc = subprocess.Popen(cmd, env=mpi_env(SIGNAL_GRACE), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while len(sonde_ranks(proc.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.0)  # into the measurements
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            kill_session(proc, 0)
            proc.wait()
    line = next(ln for ln in err.splitlines() if "stopped by" in ln)
    assert "no results file was named" in line and "kept" not in line, line
