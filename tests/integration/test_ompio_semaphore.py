# SPDX-License-Identifier: BSD-3-Clause
"""A semaphore Open MPI left taken never hangs sonde (src/io/ompio_semaphore.h).

Open MPI 4.1's OMPIO opens its shared-file-pointer component in every MPI_File_open whose ranks
share a node, with a POSIX semaphore named after the file's base name only
(/dev/shm/sem.OMPIO_<name>) that rank 0 takes and gives back once. A run killed in between
leaves it taken, and every later open of a file with that base name on the node waits forever:
one such leftover of a killed test run hung every mpiio test of a later CI run (files f.0).

The oracle that the semaphore is what MPI_File_open waits on is the run itself: with the
semaphore held by a live process (created here, taken, mapped) the run waits, and it goes on
once that process gives it back; sonde leaves a live holder's semaphore alone. A semaphore left
taken by a process that is gone is removed, with one warning, on every MPI-IO path."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from btio_util import has_pnetcdf
from conftest import OPEN_MPI, launch_command, mpi_env, run_sonde
from test_ior_hdf5 import has_hdf5

pytestmark = pytest.mark.skipif(not OPEN_MPI, reason="the semaphore is Open MPI's (OMPIO)")

SHM = Path("/dev/shm")

# A process that creates the semaphore taken (count 0), keeps it mapped, says "held", and gives
# it back when a line arrives on its stdin.
HOLDER = r"""
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.sem_open.restype = ctypes.c_void_p
libc.sem_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_uint, ctypes.c_uint]
s = libc.sem_open(sys.argv[1].encode(), os.O_CREAT | os.O_EXCL, 0o644, 0)
assert s not in (None, ctypes.c_void_p(-1).value), ctypes.get_errno()
print("held", flush=True)
sys.stdin.readline()
libc.sem_post(ctypes.c_void_p(s))
libc.sem_close(ctypes.c_void_p(s))
"""


def plant_dead(base):
    """A semaphore for files named base, taken by a process that has ended."""
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, f"/OMPIO_{base}"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline() == "held\n"
    holder.kill()
    holder.wait()
    sem = SHM / f"sem.OMPIO_{base}"
    assert sem.exists()
    return sem


PATHS = {
    # (argv with {d} for the directory, the base name of the file its rank 0 opens first, needs)
    "mpiio type 1": (["mpiio", "-type", 1, "-nobj", 2, "-size", "64K", "-target", "{d}/f.%r"],
                     "f.0", None),
    "mpiio type 2 collective": (["mpiio", "-type", 2, "-collective", "-nobj", 2, "-size",
                                 "64K", "-target", "{d}/f"], "f", None),
    "ior MPIIO": (["ior", "-a", "MPIIO", "-w", "-r", "-b", "64k", "-t", "16k", "-o",
                   "{d}/testfile"], "testfile", None),
    "ior MPIIO -F": (["ior", "-a", "MPIIO", "-F", "-w", "-r", "-b", "64k", "-t", "16k", "-o",
                      "{d}/testfile"], "testfile.00000000", None),
    "ior HDF5": (["ior", "-a", "HDF5", "-w", "-r", "-b", "64k", "-t", "16k", "-o",
                  "{d}/testfile"], "testfile", has_hdf5),
    "ior NCMPI": (["ior", "-a", "NCMPI", "-w", "-r", "-b", "64k", "-t", "16k", "-o",
                   "{d}/testfile"], "testfile", has_pnetcdf),
}


def _argv(argv, d):
    return [str(a).replace("{d}", str(d)) for a in argv]


@pytest.mark.parametrize("name", PATHS)
def test_a_semaphore_left_taken_by_a_dead_run_is_removed(name, shm_scratch):
    argv, base, needs = PATHS[name]
    if needs and not needs():
        pytest.skip(f"this sonde has no {name.split()[-1]} backend")
    sem = plant_dead(base)
    try:
        out = run_sonde(_argv(argv, shm_scratch), np=2, timeout=60)
    finally:
        sem.unlink(missing_ok=True)
    removed = [ln for ln in out.stderr.splitlines() if f"removed {sem}:" in ln]
    assert len(removed) == 1, out.stderr
    assert removed[0].startswith(f"sonde {argv[0]}: rank 0: warning: removed {sem}: Open MPI's")


def test_a_semaphore_a_live_process_holds_is_left_alone(shm_scratch):
    base = "f.0"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, f"/OMPIO_{base}"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    sem = SHM / f"sem.OMPIO_{base}"
    try:
        assert holder.stdout.readline() == "held\n"
        argv = _argv(PATHS["mpiio type 1"][0], shm_scratch)
        run = subprocess.Popen(launch_command(2, argv), env=mpi_env(), text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)
        try:
            time.sleep(3)
            # Open MPI waits on the held semaphore, and sonde has not taken it away
            assert run.poll() is None
            assert sem.exists()
            holder.stdin.write("go\n")
            holder.stdin.flush()
            out, err = run.communicate(timeout=60)
        finally:
            if run.poll() is None:
                os.killpg(run.pid, 9)
                run.communicate()
        assert run.returncode == 0, err
        assert "semaphore" not in err, err
        assert "=== Completed MPI-IO Read." in out
    finally:
        holder.kill()
        holder.wait()
        sem.unlink(missing_ok=True)

