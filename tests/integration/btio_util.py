# SPDX-License-Identifier: BSD-3-Clause
"""Helpers for the sonde btio tests: run it, parse its output block, and compute the values it
writes independently of sonde (the same splitmix64 arithmetic as src/core/pattern.c), so tests
check the bytes in the files, not only what sonde reports."""

import functools
import re
import struct
from pathlib import Path

import pytest
from conftest import run_sonde

# `ncdump -h btio.nc` as the BTIO README shows it (512^3 grid, 40 dumps).
SEED_NCDUMP = """netcdf btio {
dimensions:
        FIVE_DBL = 5 ;
        X = 512 ;
        Y = 512 ;
        Z = 512 ;
        NUM_DUMPS = UNLIMITED ; // (40 currently)
variables:
        double var(NUM_DUMPS, Z, Y, X, FIVE_DBL) ;
}
"""

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
BTIO_SEED = 0x4254494F
POINT = 5 * 8  # bytes per grid point


def _mix64(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def _stream(a, b, c):
    h = _mix64((a + GOLDEN) & MASK)
    h = _mix64(h ^ ((b + 2 * GOLDEN) & MASK))
    return _mix64(h ^ ((c + 3 * GOLDEN) & MASK))


def value(dump, z, y, x, f):
    """The double sonde btio writes at (dump, z, y, x, f)."""
    base = _mix64(BTIO_SEED ^ _mix64((_stream(dump, z, y) + GOLDEN) & MASK))
    word = _mix64((base + (x * 5 + f + 1) * GOLDEN) & MASK)
    return (word >> 11) * 2.0 ** -53


def element_offset(grid, dump, z, y, x, f):
    """Byte offset of an element within the data of a file (record after record)."""
    gx, gy, gz = grid
    return ((((dump * gz + z) * gy + y) * gx + x) * 5 + f) * 8


def record_bytes(grid):
    return grid[0] * grid[1] * grid[2] * POINT


def grid_arg(grid):
    return "x".join(str(g) for g in grid)


def btio(args, np=1, cwd=None, check=True, timeout=120):
    """np=0 runs sonde as an MPI singleton, without the launcher (quicker when it fails: mpirun
    takes seconds to wind down a job that exits non-zero)."""
    return run_sonde(["btio"] + [str(a) for a in args], np=max(np, 1), cwd=cwd, check=check,
                     timeout=timeout, mpi=np > 0)


def run_btio(directory, mode, method, grid, dumps, np=1, extra=(), check=True):
    args = ["--mode", mode, "--method", method, "--grid", grid_arg(grid), "--dumps", dumps,
            "--dir", directory] + list(extra)
    return btio(args, np=np, cwd=directory, check=check)


BLOCK = re.compile(
    r"-- BT-IO Benchmark \((?P<op>write|read ) operation only\) --\n"
    r"Number of MPI processes     : (?P<np>[ \d]{9})\n"
    r"Global array size X         : (?P<x>[ \d]{9})\n"
    r"Global array size Y         : (?P<y>[ \d]{9})\n"
    r"Global array size Z         : (?P<z>[ \d]{9})\n"
    r"Number of I/O iterations    : (?P<dumps>[ \d]{9})\n"
    r"Total I/O amount            : (?P<mib>[ \d.]{12}) MiB\n"
    r"Total I/O time in sec       : (?P<time>[ \d.]{12})\n"
    r"Max file (?:create|open  ) time in sec : (?P<open>[ \d.]{12})\n"
    r"Max (?:write post |read post  ) time in sec : (?P<post>[ \d.]{12})\n"
    r"Max (?:write wait |read wait  ) time in sec : (?P<wait>[ \d.]{12})\n"
    r"I/O bandwidth            : (?P<bw>[ \d.]{12}) MiB/s\n"
    r"------------------------------------------\n"
    r"(?P<banner>Using .* method)\n"
    r"output file path         : (?P<dir>.*)\n"
    r"file striping count      : (?P<count>[ \d]{9})\n"
    r"file striping size       : (?P<size>[ \d]{9}) bytes\n")

BANNERS = {
    0: "Using MPI collective I/O method",
    1: "Using MPI independent I/O method",
    2: "Using Parallel netCDF blocking I/O method",
    3: "Using Parallel netCDF non-blocking I/O method",
}


def blocks(stdout):
    """The output blocks in stdout, which must hold nothing else but the input-file line."""
    found = list(BLOCK.finditer(stdout))
    rest = BLOCK.sub("", stdout)
    assert re.fullmatch(r"( Reading from input file \S+\n)?", rest), stdout
    return [m.groupdict() for m in found]


def read_double(path, offset, big_endian):
    with open(path, "rb") as f:
        f.seek(offset)
        return struct.unpack(">d" if big_endian else "<d", f.read(8))[0]


def write_double(path, offset, v, big_endian):
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(struct.pack(">d" if big_endian else "<d", v))


def nc_data_start(path, grid, dumps):
    """Where var's records start in a btio.nc holding dumps records (its only variable)."""
    size = Path(path).stat().st_size
    start = size - dumps * record_bytes(grid)
    assert 0 < start <= 4096, (size, start)
    with open(path, "rb") as f:
        assert f.read(4) == b"CDF\x05"
    return start


@functools.cache
def has_pnetcdf():
    """Whether this sonde was built with PnetCDF (methods 2 and 3)."""
    out = run_sonde(["btio", "--mode", "r", "--method", 2, "--grid", "12x12x12", "--dumps", 1,
                     "--dir", "/nonexistent-sonde-btio-probe"], mpi=False, check=False,
                    timeout=60)
    return "built without" not in out.stderr


def require(*methods):
    """Skips the test when it needs PnetCDF and sonde was built without it."""
    if any(m >= 2 for m in methods) and not has_pnetcdf():
        pytest.skip("sonde was built without PnetCDF")
