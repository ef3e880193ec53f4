# SPDX-License-Identifier: BSD-3-Clause
"""sonde btio: the input file and the options over it, corruption caught with its index, and bad
input refused with one line, a non-zero exit and no hang."""

import os
import re

import pytest
from btio_util import (
    blocks,
    btio,
    element_offset,
    has_pnetcdf,
    nc_data_start,
    read_double,
    record_bytes,
    require,
    run_btio,
    value,
    write_double,
)
from conftest import read_jsonl

GRID = (12, 13, 14)


def input_file(path, mode="w", method=1, dumps=2, grid="12 13 14", directory=".", comments=True):
    c = (lambda text: "   # " + text) if comments else (lambda text: "")
    path.write_text(f"{mode}{c('IO mode: w for write, r for read')}\n"
                    f"{method}{c('IO method')}\n"
                    f"{dumps}{c('number of writes/reads')}\n"
                    f"{grid}{c('grid_points(1), grid_points(2), grid_points(3)')}\n"
                    f"{directory}\n")
    return path


def one_error(proc, *needles, code=2):
    """Exactly one error line, from one rank, holding every needle."""
    assert proc.returncode == code, proc.stdout + proc.stderr
    errors = [ln for ln in proc.stderr.splitlines() if "error:" in ln]
    assert len(errors) == 1, proc.stderr
    assert errors[0].startswith("sonde btio: error: "), errors[0]
    for n in needles:
        assert n in errors[0], (n, errors[0])
    return errors[0]


def test_default_input_file_in_the_current_directory(shm_scratch):
    require(2)
    input_file(shm_scratch / "inputbt.data", method=2, dumps=2, grid="12 12 12",
               directory=shm_scratch)
    out = btio([], np=4, cwd=shm_scratch)
    assert out.stdout.startswith(" Reading from input file inputbt.data\n")
    (b,) = blocks(out.stdout)
    assert b["banner"] == "Using Parallel netCDF blocking I/O method"
    assert int(b["dumps"]) == 2 and int(b["x"]) == 12
    assert (shm_scratch / "btio.nc").exists()


def test_input_file_argument_and_overrides(shm_scratch):
    """The single argument names the file; long options override its lines."""
    require(3)
    other = shm_scratch / "out"
    other.mkdir()
    f = input_file(shm_scratch / "mine.data", method=0, dumps=5, grid="64 64 64",
                   directory="/nonexistent", comments=False)
    out = btio([f, "--method", 3, "--dumps", 2, "--grid", "12x13x14", "--dir", other,
                "--mode", "rw"], np=4, cwd=shm_scratch)
    assert out.stdout.startswith(f" Reading from input file {f}\n")
    w, r = blocks(out.stdout)
    for b in (w, r):
        assert b["banner"] == "Using Parallel netCDF non-blocking I/O method"
        assert (int(b["x"]), int(b["y"]), int(b["z"]), int(b["dumps"])) == (12, 13, 14, 2)
        assert b["dir"] == str(other)
    assert (other / "btio.nc").stat().st_size > 2 * record_bytes(GRID)


def test_read_mode_from_the_file(shm_scratch):
    run_btio(shm_scratch, "w", 1, GRID, 2, np=4)
    f = input_file(shm_scratch / "r.data", mode="r", method=0, dumps=2, directory=shm_scratch)
    (b,) = blocks(btio([f], np=1, cwd=shm_scratch).stdout)
    assert b["op"] == "read "


def test_no_input_file_needed_with_the_long_options(shm_scratch):
    out = btio(["--method", 1, "--dumps", 1, "--grid", "12x12x12"], np=4, cwd=shm_scratch)
    assert not out.stdout.startswith(" Reading")
    (b,) = blocks(out.stdout)
    assert b["op"] == "write" and b["dir"] == "."
    assert (shm_scratch / "btio.mpi").stat().st_size == record_bytes((12, 12, 12))


@pytest.mark.parametrize("method,read_method,np", [(1, 1, 4), (3, 3, 4), (3, 0, 1)])
def test_corruption_is_reported_with_its_index(shm_scratch, method, read_method, np):
    """One changed value: its (dump, z, y, x, f) index and byte offset, whatever reads it."""
    require(method, read_method)
    dumps = 3
    run_btio(shm_scratch, "w", method, GRID, dumps, np=np)
    name = "btio.nc" if method >= 2 else "btio.mpi"
    path = shm_scratch / name
    big = method >= 2
    start = nc_data_start(path, GRID, dumps) if big else 0
    bad = (1, 3, 4, 5, 2)
    off = start + element_offset(GRID, *bad)
    assert read_double(path, off, big) == value(*bad)
    write_double(path, off, 0.0, big)
    extra = ["--file", name]
    out = run_btio(shm_scratch, "r", read_method, GRID, dumps, np=np, check=False,
                   extra=extra + ["--json", shm_scratch / "r.jsonl"])
    one_error(out, "verification failed: 1 of the", str(path), code=3)
    lines = [ln for ln in out.stderr.splitlines() if "verify:" in ln]
    assert len(lines) == 1, out.stderr
    assert f"element (dump 1, z 3, y 4, x 5, f 2) at byte {off}:" in lines[0]
    assert f"expected {value(*bad)!r}"[:18] in lines[0] and "found 0" in lines[0]
    (rec,) = [x for x in read_jsonl(shm_scratch / "r.jsonl") if x["type"] == "measurement"]
    assert rec["verify"] == {"checked": True, "errors": 1,
                             "bytes_checked": dumps * record_bytes(GRID)}
    # The same file read without verification: the original's behaviour.
    out = run_btio(shm_scratch, "r", read_method, GRID, dumps, np=np,
                   extra=extra + ["--no-verify"])
    assert "verify" not in out.stderr


def test_foreign_data_needs_no_verify(shm_scratch):
    """A file of the right size but other values (the original writes random numbers)."""
    (shm_scratch / "btio.mpi").write_bytes(os.urandom(2 * record_bytes(GRID)))
    out = run_btio(shm_scratch, "r", 0, GRID, 2, np=4, check=False)
    err = one_error(out, "verification failed", code=3)
    total = int(re.search(r"of the (\d+) values", err).group(1))
    assert total == 2 * record_bytes(GRID) // 8
    assert len([ln for ln in out.stderr.splitlines() if "verify:" in ln]) <= 4 * 5
    run_btio(shm_scratch, "r", 0, GRID, 2, np=4, extra=["--no-verify"])


@pytest.mark.parametrize("method,name", [(0, "btio.mpi"), (3, "btio.nc")])
def test_too_many_dumps(shm_scratch, method, name):
    require(method)
    run_btio(shm_scratch, "w", method, GRID, 2, np=1)
    out = run_btio(shm_scratch, "r", method, GRID, 3, np=4, check=False)
    one_error(out, f"{shm_scratch / name} holds 2 dumps; cannot read 3")


@pytest.mark.parametrize("method,name", [(1, "btio.mpi"), (2, "btio.nc")])
def test_mismatched_grid(shm_scratch, method, name):
    require(method)
    run_btio(shm_scratch, "w", method, GRID, 1, np=1)
    out = run_btio(shm_scratch, "r", method, (12, 13, 15), 1, np=4, check=False)
    one_error(out, str(shm_scratch / name), "12x13x15")


def test_netcdf_method_refuses_a_raw_file(shm_scratch):
    require(3)
    run_btio(shm_scratch, "w", 0, GRID, 1, np=1)
    out = run_btio(shm_scratch, "r", 3, GRID, 1, np=4, check=False,
                   extra=["--file", "btio.mpi"])
    one_error(out, "cannot open", "btio.mpi")


def test_missing_file_to_read(shm_scratch):
    out = run_btio(shm_scratch, "r", 1, GRID, 1, np=4, check=False)
    one_error(out, "cannot open", "btio.mpi")


def test_hints(shm_scratch):
    out = run_btio(shm_scratch, "rw", 0, GRID, 1, np=4,
                   extra=["--hints", "cb_nodes=1,romio_cb_write=enable", "--hints",
                          "cb_buffer_size=1048576"])
    assert len(blocks(out.stdout)) == 2
    out = run_btio(shm_scratch, "w", 1, GRID, 1, np=4, check=False,
                   extra=["--hints", "cb_nodes"])
    one_error(out, "--hints", "cb_nodes")


def test_hints_reach_pnetcdf(shm_scratch):
    """A PnetCDF hint moves the data of btio.nc; MPI-IO reads find it from the header."""
    require(3)
    run_btio(shm_scratch, "w", 2, GRID, 2, np=4, extra=["--hints", "nc_var_align_size=4096"])
    assert nc_data_start(shm_scratch / "btio.nc", GRID, 2) == 4096
    run_btio(shm_scratch, "w", 2, GRID, 2, np=4)
    assert nc_data_start(shm_scratch / "btio.nc", GRID, 2) < 4096
    run_btio(shm_scratch, "w", 3, GRID, 2, np=1, extra=["--hints", "nc_var_align_size=4096"])
    run_btio(shm_scratch, "r", 0, GRID, 2, np=4, extra=["--file", "btio.nc"])


BAD = [
    # (ranks (0: singleton), arguments, file text or None, words the one error line must hold)
    (2, ["--method", 0, "--grid", "12x12x12", "--dumps", 1], None,
     ["Number of processes must be a square number", "2 ranks"]),
    (4, ["--method", 1, "--grid", "4x12x12", "--dumps", 1], None,
     ["Cell size too small. Min size is 3", "along X"]),
    (4, [], "w\n0\n1\n12 12 5\n.\n", ["Cell size too small. Min size is 3", "along Z"]),
    (0, ["nosuch.data"], None, ["No input file nosuch.data. Exiting ..."]),
    (4, [], None, ["No input file inputbt.data. Exiting ...", "--grid"]),
    (0, ["inputbt.data"], "DIR", ["inputbt.data"]),
    (0, ["--method", 4, "--grid", "12x12x12", "--dumps", 1], None, ["--method", "'4'"]),
    (4, [], "w\n7\n1\n12 12 12\n.\n", ["line 2", "bad I/O method '7'"]),
    (0, [], "w\nthree\n1\n12 12 12\n.\n", ["line 2", "'three'"]),
    (0, ["--method", 1, "--grid", "12x12", "--dumps", 1], None, ["bad grid '12x12'"]),
    (0, ["--method", 1, "--grid", "12x0x12", "--dumps", 1], None, ["bad grid '12x0x12'"]),
    (4, [], "w\n1\n1\n12 12\n.\n", ["line 4", "X Y Z"]),
    (0, [], "q\n1\n1\n12 12 12\n.\n", ["line 1", "bad I/O mode 'q'"]),
    (0, [], "w\n1\n0\n12 12 12\n.\n", ["line 3", "number of dumps"]),
    (0, [], "w\n1\n1\n12 12 12\n", ["line 5 is missing"]),
    (0, ["a.data", "b.data"], None, ["Usage: sonde btio [filename]"]),
    (0, ["--mode", "x", "--method", 1, "--grid", "12x12x12", "--dumps", 1], None,
     ["bad --mode 'x'"]),
    (4, ["--method", 1, "--grid", "12x12x12", "--dumps", 1, "--dir", "/nonexistent/d"], None,
     ["cannot create /nonexistent/d/btio.mpi"]),
]


@pytest.mark.parametrize("np,args,text,needles", BAD)
def test_bad_input_one_line(shm_scratch, np, args, text, needles):
    if text == "DIR":
        (shm_scratch / "inputbt.data").mkdir()
    elif text is not None:
        (shm_scratch / "inputbt.data").write_text(text)
    out = btio(args, np=np, cwd=shm_scratch, check=False, timeout=60)
    one_error(out, *needles)
    assert "BT-IO Benchmark" not in out.stdout


def test_netcdf_methods_without_pnetcdf(shm_scratch):
    if has_pnetcdf():
        pytest.skip("sonde was built with PnetCDF")
    for method in (2, 3):
        out = run_btio(shm_scratch, "w", method, GRID, 1, np=4, check=False)
        one_error(out, f"I/O method {method} needs PnetCDF")
