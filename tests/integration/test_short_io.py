# SPDX-License-Identifier: BSD-3-Clause
"""Short transfers: every write(2) (or read(2)) on the run's files moves half its bytes, or
writes move nothing and give no error (a stall), through tests/shim/faultshim.c (LD_PRELOAD).
A short transfer is finished (the rest asked for at once: sonde's wrappers under the MPI
library, src/io/completion.c, and its POSIX backend do it) or is an error. Open MPI 4.1's OMPIO
did neither: it reported btio's collective write complete over short pwritev calls (245760 of
327680 bytes on disk, exit 0, a bandwidth). The oracle is the file itself: every value btio or
ior was to write is there, read back without the shim."""

import re
import struct
from pathlib import Path

import pytest
from btio_util import BANNERS, element_offset, has_pnetcdf, nc_data_start, value
from conftest import read_jsonl, run_sonde
from faultlib import NEEDS_SHIM, SHIM, error_lines

GRID = (16, 16, 16)
DUMPS = 2
DATA = DUMPS * GRID[0] * GRID[1] * GRID[2] * 5 * 8  # 327680 bytes



pytestmark = NEEDS_SHIM


def shim_env(d, short):
    return {"LD_PRELOAD": str(SHIM), "SONDE_FAULT_DIR": str(d), "SONDE_FAULT_SHORT": short}


def btio_args(d, mode, method, results):
    return ["btio", "--mode", mode, "--method", method, "--dumps", DUMPS,
            "--grid", "x".join(map(str, GRID)), "--dir", d, "--json", results]


def assert_failed_short(out, results, path):
    """A phase that failed on a stalled write: one line naming the file and the counts, exit 1,
    no rate and no measurement of it, an io-error end record."""
    assert out.returncode == 1, out.stdout + out.stderr
    (e,) = error_lines(out.stderr)
    assert str(path) in e and re.search(r"short write: 0 of \d+ bytes", e), e
    assert "bandwidth" not in out.stdout.lower(), out.stdout
    records = read_jsonl(results)
    assert records[-1]["type"] == "end" and records[-1]["reason"] == "io-error"
    assert not [r for r in records if r["type"] == "measurement"]


def btio_values_whole(path, method):
    """Every double of every dump in the file is the value btio writes there."""
    nc = method >= 2
    start = nc_data_start(path, GRID, DUMPS) if nc else 0
    raw = Path(path).read_bytes()[start:]
    assert len(raw) == DATA, (len(raw), DATA)
    doubles = struct.unpack(f"{'>' if nc else '<'}{DATA // 8}d", raw)
    gx, gy, gz = GRID
    for dump in range(DUMPS):
        for z in range(gz):
            for y in range(gy):
                for x in range(gx):
                    for f in range(5):
                        at = element_offset(GRID, dump, z, y, x, f) // 8
                        assert doubles[at] == value(dump, z, y, x, f), (dump, z, y, x, f)


def skip_without_pnetcdf(method):
    if method >= 2 and not has_pnetcdf():
        pytest.skip("this sonde was built without PnetCDF")


@pytest.mark.parametrize("method", sorted(BANNERS))
def test_btio_short_writes_are_finished(shm_scratch, tmp_path, method):
    skip_without_pnetcdf(method)
    results = tmp_path / "r.jsonl"
    out = run_sonde(btio_args(shm_scratch, "rw", method, results), np=4, check=False,
                    env=shim_env(shm_scratch, "write"), timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    phases = [r for r in read_jsonl(results) if r["type"] == "measurement"]
    assert [m["bytes"] for m in phases] == [DATA, DATA]
    btio_values_whole(shm_scratch / ("btio.nc" if method >= 2 else "btio.mpi"), method)


@pytest.mark.parametrize("method", sorted(BANNERS))
def test_btio_stalled_writes_fail(shm_scratch, tmp_path, method):
    """--mode rw: the stalled write is the error, never the data read after it ("written with
    another grid?")."""
    skip_without_pnetcdf(method)
    results = tmp_path / "r.jsonl"
    out = run_sonde(btio_args(shm_scratch, "rw", method, results), np=4, check=False,
                    env=shim_env(shm_scratch, "stall"), timeout=120)
    assert_failed_short(out, results, shm_scratch)


@pytest.mark.parametrize("method", sorted(BANNERS))
def test_btio_short_reads_are_finished(shm_scratch, tmp_path, method):
    skip_without_pnetcdf(method)
    run_sonde(btio_args(shm_scratch, "w", method, tmp_path / "w.jsonl"), np=4)
    results = tmp_path / "r.jsonl"
    out = run_sonde(btio_args(shm_scratch, "r", method, results), np=4, check=False,
                    env=shim_env(shm_scratch, "read"), timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    (m,) = [r for r in read_jsonl(results) if r["type"] == "measurement"]
    assert m["bytes"] == DATA and m["verify"]["errors"] == 0


IOR_BLOCK, IOR_XFER = 128 * 1024, 64 * 1024

IOR_PATHS = {
    "POSIX": [],
    "MPIIO": ["-a", "MPIIO"],
    "MPIIO collective": ["-a", "MPIIO", "-c"],
}


def ior_base(path, f):
    return ["ior", *IOR_PATHS[path], "-k", "-G", 77, "-t", IOR_XFER, "-b", IOR_BLOCK, "-o", f]


@pytest.mark.parametrize("path", sorted(IOR_PATHS))
def test_ior_short_transfers_are_finished(shm_scratch, tmp_path, path):
    """Halved writes, then halved reads with ior's own check of every byte."""
    f = shm_scratch / "f"
    results = tmp_path / "r.jsonl"
    run_sonde(ior_base(path, f) + ["-w", "--json", results], np=2,
              env=shim_env(shm_scratch, "write"), timeout=120)
    (m,) = [r for r in read_jsonl(results) if r["type"] == "measurement"]
    assert m["bytes"] == 2 * IOR_BLOCK == f.stat().st_size
    run_sonde(ior_base(path, f) + ["-r", "-R"], np=2, env=shim_env(shm_scratch, "read"),
              timeout=120)
    run_sonde(ior_base(path, f) + ["-r", "-R"], np=2)


@pytest.mark.parametrize("path", ["MPIIO", "MPIIO collective"])
def test_ior_stalled_writes_fail(shm_scratch, tmp_path, path):
    f = shm_scratch / "f"
    results = tmp_path / "r.jsonl"
    out = run_sonde(ior_base(path, f) + ["-w", "--json", results], np=2, check=False,
                    env=shim_env(shm_scratch, "stall"), timeout=120)
    assert_failed_short(out, results, f)


@pytest.mark.parametrize("collective", [False, True], ids=["independent", "collective"])
def test_mpiio_short_writes(shm_scratch, tmp_path, collective):
    """mpiio's nonblocking writes (glibc's aio threads call the system directly, so the shim
    reaches them only under a collective write's two-phase I/O): whole data, checked by a read
    without the shim."""
    base = ["mpiio", "-type", 2, "-nobj", 4, "-size", "8K", "-target", shm_scratch / "f"]
    base += ["-collective"] if collective else []
    run_sonde(base + ["-op", "write"], np=2, env=shim_env(shm_scratch, "write"), timeout=120)
    assert (shm_scratch / "f").stat().st_size == 2 * 4 * 8192
    run_sonde(base + ["-op", "read", "-chkdata", 1], np=2)
