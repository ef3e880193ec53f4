# SPDX-License-Identifier: BSD-3-Clause
"""mpiio -sync reaches the storage: every rank that wrote a file makes an fsync of it after its
writes, on either MPI library, counted below sonde and the library by the fault shim
(tests/shim/faultshim.c, SONDE_FAULT_LOG). MPICH 4.0's ROMIO skipped the fsync of
MPI_File_sync where its bookkeeping had not marked the rank's writes, which its nonblocking
independent writes are not: -sync without -collective made no fsync at all."""


import pytest
from conftest import run_sonde
from faultlib import NEEDS_SHIM, SHIM

NP = 2



pytestmark = NEEDS_SHIM


@pytest.mark.parametrize("collective", [False, True], ids=["independent", "collective"])
@pytest.mark.parametrize("type_", [1, 2, 3])
def test_mpiio_sync_reaches_every_file(shm_scratch, tmp_path, type_, collective):
    log = tmp_path / "syncs"
    env = {"LD_PRELOAD": str(SHIM), "SONDE_FAULT_DIR": str(shm_scratch),
           "SONDE_FAULT_LOG": str(log)}
    args = ["mpiio", "-type", type_, "-sync", "-nobj", 2, "-size", "8K",
            "-target", shm_scratch / "f.%r", "-op", "write"]
    run_sonde(args + (["-collective"] if collective else []), np=NP, env=env)
    written = sorted(str(p) for p in shm_scratch.iterdir())
    syncs = [ln.split(" ", 2) for ln in log.read_text().splitlines()] if log.exists() else []
    synced = {(pid, path) for call, pid, path in syncs if call in ("fsync", "fdatasync")}
    assert sorted({path for _, path in synced}) == written, syncs
    if type_ in (1, 2):
        # every rank writes (its own file, or its part of the shared one) and syncs it
        assert len({pid for pid, _ in synced}) == NP, syncs
