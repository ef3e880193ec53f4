# SPDX-License-Identifier: BSD-3-Clause
"""Short transfers: every write(2) (or read(2)) on the run's files moves half its bytes
(tests/shim/faultshim.c, loaded with LD_PRELOAD). A library or backend that retries makes the
data whole; one that neither retries nor reports it (Open MPI 4.1's OMPIO reported a collective
write complete over short pwritev calls: btio wrote 245760 of 327680 bytes, exit 0, with a
bandwidth) must make the phase fail with "short write: N of M bytes". The oracle is the file
itself: a run that exits 0 left every byte it recorded, with the values it was to write."""

import re
import struct
import subprocess
from pathlib import Path

import pytest
from btio_util import BANNERS, element_offset, has_pnetcdf, nc_data_start, value
from conftest import SONDE, read_jsonl, run_sonde
from faultlib import error_lines

SHIM = Path(SONDE).parent / "libfaultshim.so"
GRID = (16, 16, 16)
DUMPS = 2
DATA = DUMPS * GRID[0] * GRID[1] * GRID[2] * 5 * 8  # 327680 bytes


def sanitized():
    ldd = subprocess.run(["ldd", SONDE], capture_output=True, text=True).stdout
    return "libasan" in ldd


pytestmark = [
    pytest.mark.skipif(not SHIM.exists(), reason=f"no fault shim at {SHIM} (cmake builds it)"),
    # ASan must be the first library loaded; a preloaded one comes before it.
    pytest.mark.skipif(sanitized(), reason="LD_PRELOAD and the ASan runtime do not mix"),
]


def shim_env(d, short):
    return {"LD_PRELOAD": str(SHIM), "SONDE_FAULT_DIR": str(d), "SONDE_FAULT_SHORT": short}


def btio_args(d, mode, method, results):
    return ["btio", "--mode", mode, "--method", method, "--dumps", DUMPS,
            "--grid", "x".join(map(str, GRID)), "--dir", d, "--json", results]


def assert_failed_short(out, results, short, path):
    """A phase that failed on a short transfer: one line naming the file and the counts, exit
    1, no rate and no measurement of it, an io-error end record."""
    assert out.returncode == 1, out.stdout + out.stderr
    (e,) = error_lines(out.stderr)
    assert str(path) in e and re.search(rf"short {short}: \d+ of \d+ bytes", e), e
    assert "bandwidth" not in out.stdout.lower(), out.stdout
    records = read_jsonl(results)
    assert records[-1]["type"] == "end" and records[-1]["reason"] == "io-error"
    return records


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


@pytest.mark.parametrize("method", sorted(BANNERS))
def test_btio_short_writes(shm_scratch, tmp_path, method):
    if method >= 2 and not has_pnetcdf():
        pytest.skip("this sonde was built without PnetCDF")
    results = tmp_path / "r.jsonl"
    out = run_sonde(btio_args(shm_scratch, "w", method, results), np=4, check=False,
                    env=shim_env(shm_scratch, "write"), timeout=120)
    path = shm_scratch / ("btio.nc" if method >= 2 else "btio.mpi")
    if out.returncode != 0:
        assert_failed_short(out, results, "write", path)
        assert not [r for r in read_jsonl(results) if r["type"] == "measurement"]
        return
    # The library retried: the file holds every byte the record counts, with its values.
    (m,) = [r for r in read_jsonl(results) if r["type"] == "measurement"]
    assert m["bytes"] == DATA
    btio_values_whole(path, method)


@pytest.mark.parametrize("method", [0, 2])
def test_btio_short_writes_then_read(shm_scratch, tmp_path, method):
    """--mode rw: the write's short transfer is the error, never the data read after it
    ("written with another grid?")."""
    if method >= 2 and not has_pnetcdf():
        pytest.skip("this sonde was built without PnetCDF")
    results = tmp_path / "r.jsonl"
    out = run_sonde(btio_args(shm_scratch, "rw", method, results), np=4, check=False,
                    env=shim_env(shm_scratch, "write"), timeout=120)
    assert "another grid" not in out.stderr, out.stderr
    if out.returncode != 0:
        assert_failed_short(out, results, "write", shm_scratch)


@pytest.mark.parametrize("method", sorted(BANNERS))
def test_btio_short_reads(shm_scratch, tmp_path, method):
    """A short read is a short read: reported as such, or retried to the whole data (which
    btio checks value by value), never blamed on the file."""
    if method >= 2 and not has_pnetcdf():
        pytest.skip("this sonde was built without PnetCDF")
    run_sonde(btio_args(shm_scratch, "w", method, tmp_path / "w.jsonl"), np=4)
    results = tmp_path / "r.jsonl"
    out = run_sonde(btio_args(shm_scratch, "r", method, results), np=4, check=False,
                    env=shim_env(shm_scratch, "read"), timeout=120)
    assert "another grid" not in out.stderr and out.returncode != 3, out.stderr
    if out.returncode != 0:
        assert_failed_short(out, results, "read", shm_scratch)
    else:
        (m,) = [r for r in read_jsonl(results) if r["type"] == "measurement"]
        assert m["bytes"] == DATA


IOR_BLOCK, IOR_XFER = 128 * 1024, 64 * 1024

IOR_PATHS = {
    "POSIX": [],
    "MPIIO": ["-a", "MPIIO"],
    "MPIIO collective": ["-a", "MPIIO", "-c"],
}


@pytest.mark.parametrize("path", sorted(IOR_PATHS))
def test_ior_short_writes(shm_scratch, tmp_path, path):
    """ior: the write either moves every byte (its verification reads them back without the
    shim) or fails naming the short write."""
    f = shm_scratch / "f"
    base = ["ior", *IOR_PATHS[path], "-k", "-G", 77, "-t", IOR_XFER, "-b", IOR_BLOCK, "-o", f]
    results = tmp_path / "r.jsonl"
    out = run_sonde(base + ["-w", "--json", results], np=2, check=False,
                    env=shim_env(shm_scratch, "write"), timeout=120)
    if out.returncode != 0:
        assert_failed_short(out, results, "write", f)
        return
    (m,) = [r for r in read_jsonl(results) if r["type"] == "measurement"]
    assert m["bytes"] == 2 * IOR_BLOCK == f.stat().st_size
    run_sonde(base + ["-r", "-R"], np=2)


@pytest.mark.parametrize("path", sorted(IOR_PATHS))
def test_ior_short_reads(shm_scratch, tmp_path, path):
    f = shm_scratch / "f"
    base = ["ior", *IOR_PATHS[path], "-k", "-G", 77, "-t", IOR_XFER, "-b", IOR_BLOCK, "-o", f]
    run_sonde(base + ["-w"], np=2)
    results = tmp_path / "r.jsonl"
    out = run_sonde(base + ["-r", "-R", "--json", results], np=2, check=False,
                    env=shim_env(shm_scratch, "read"), timeout=120)
    if out.returncode != 0:
        assert_failed_short(out, results, "read", f)
        return
    (m,) = [r for r in read_jsonl(results) if r["type"] == "measurement"]
    assert m["bytes"] == 2 * IOR_BLOCK


@pytest.mark.parametrize("collective", [False, True], ids=["independent", "collective"])
def test_mpiio_short_writes(shm_scratch, tmp_path, collective):
    """mpiio's nonblocking writes (glibc's aio threads call the system directly, so the shim
    reaches them only under a collective write's two-phase I/O): whole data, checked by a read
    without the shim, or a short write named."""
    base = ["mpiio", "-type", 2, "-nobj", 4, "-size", "8K", "-target", shm_scratch / "f"]
    base += ["-collective"] if collective else []
    results = tmp_path / "r.jsonl"
    out = run_sonde(base + ["-op", "write", "--json", results], np=2, check=False,
                    env=shim_env(shm_scratch, "write"), timeout=120)
    if out.returncode != 0:
        assert_failed_short(out, results, "write", shm_scratch / "f")
        return
    assert (shm_scratch / "f").stat().st_size == 2 * 4 * 8192
    run_sonde(base + ["-op", "read", "-chkdata", 1], np=2)
