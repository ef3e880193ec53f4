# SPDX-License-Identifier: BSD-3-Clause
"""Results files are data, never collateral: a results file that cannot be written fails the run
(exit 1, after the measurements) and keeps only whole records; sonde refuses to start when a
file it would write is the results file (or --json and --csv are one file), and the file keeps
its bytes."""

import json
import os
from pathlib import Path

import pytest
from conftest import read_jsonl, run_sonde
from faultlib import error_lines, fill, mount_tmpfs, umount
from sonde.results import load, load_csv


@pytest.fixture
def small_fs():
    d = mount_tmpfs("64k", "the full results file test")
    yield d
    umount(d)


def whole_lines(path):
    text = path.read_text()
    assert text == "" or text.endswith("\n"), f"{path} ends in half a line: {text[-80:]!r}"
    return text


@pytest.mark.parametrize("option", ["--json", "--csv"])
def test_full_results_file_system_fails_the_run_with_whole_records(small_fs, option):
    """One page left: the header and the first rows fit, a later record does not. The run
    measures everything, then exits 1 with one line naming the results file, and the file
    holds whole records only (a write that stopped halfway was cut back)."""
    fill(small_fs, 4096)
    results = small_fs / "r"
    out = run_sonde(["coll", "-e", "64k", "-i", "10", "Allreduce", "Bcast", "Reduce", "Allgather",
                     option, results], np=2, check=False)
    assert out.returncode == 1, out.stderr
    (e,) = error_lines(out.stderr)
    assert f"results file {results}: No space left on device" in e
    whole_lines(results)
    if option == "--json":
        runs = load(results, validate=True)
        assert len(runs) == 1 and not runs[0].truncated and runs[0].header
        assert 0 < len(runs[0].measurements) < 4 * 8  # some rows fitted, not all
    else:
        rows = load_csv(results)
        assert 0 < len(rows) < 4 * 8


def test_results_written_elsewhere_say_why_the_other_failed(small_fs, tmp_path):
    """--csv on the full file system, --json elsewhere: the JSON end record names the CSV."""
    fill(small_fs, 0)
    results, csv = tmp_path / "r.jsonl", small_fs / "r.csv"
    out = run_sonde(["coll", "-e", 64, "Barrier", "--json", results, "--csv", csv], np=2,
                    check=False)
    assert out.returncode == 1
    end = read_jsonl(results)[-1]
    assert end["type"] == "end" and end["exit_code"] == 1 and end["reason"] == "io-error"
    assert end["path"] == str(csv) and "No space left on device" in end["error"]


def test_results_file_that_is_no_file_is_refused(tmp_path):
    out = run_sonde(["coll", "-e", 8, "Barrier", "--json", "/dev/null"], np=2, check=False)
    assert out.returncode == 2
    assert error_lines(out.stderr) == [
        "sonde coll: error: results file /dev/null is not a regular file"]
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    out = run_sonde(["coll", "-e", 8, "Barrier", "--csv", fifo], np=2, check=False, timeout=60)
    assert out.returncode == 2 and "is not a regular file" in out.stderr


def test_results_file_write_error_after_open_fails_the_run():
    """/proc/version opens for writing but takes no bytes: the measurement runs, exit 1."""
    out = run_sonde(["coll", "-e", 8, "Barrier", "--json", "/proc/version"], np=1,
                    check=False)
    assert out.returncode == 1
    (e,) = error_lines(out.stderr)
    assert "results file /proc/version" in e


def _earlier(path):
    path.write_text(json.dumps({"type": "header", "run_id": "earlier"}) + "\n")
    return path.read_bytes()


COLLISIONS = [
    (["ior", "-w", "-k", "-t", "8k", "-b", "16k", "-o", "{r}"], "the test file {r}"),
    (["ior", "-w", "-k", "-t", "8k", "-b", "16k", "-F", "-o", "{d}/f", "--json", "{d}/f.00000001"],
     "the test file {d}/f.00000001"),
    (["ior", "-w", "-k", "-t", "8k", "-b", "16k", "-o", "{d}/f", "-O", "summaryFile={r}"],
     "the summaryFile {r}"),
    (["ior", "-w", "-k", "-t", "8k", "-b", "16k", "-o", "{d}/f", "-O",
      "saveRankPerformanceDetailsCSV={r}"], "the saveRankPerformanceDetailsCSV file {r}"),
    (["mib", "-F", "-t", "{d}", "-l", 1, "-s", "4k", "--json", "{d}/mibData.00000001"],
     "the data file {d}/mibData.00000001"),
    (["mib", "-F", "-t", "{d}", "-l", 1, "-s", "4k", "-p", "{d}/prof", "--json", "{d}/prof.read"],
     "the profile {d}/prof.read"),
    (["mpiio", "-type", 2, "-nobj", 2, "-size", "4K", "-target", "{r}"], "the test file {r}"),
    (["mpiio", "-type", 1, "-nobj", 2, "-size", "4K", "-target", "{d}/f.%r", "-output", "{r}"],
     "the -output file {r}"),
    (["btio", "--method", 1, "--grid", "8x8x8", "--dumps", 1, "--dir", "{d}", "--json",
      "{d}/btio.mpi"], "the data file {d}/btio.mpi"),
]


@pytest.mark.parametrize("args,named", COLLISIONS, ids=lambda x: x[0] if isinstance(x, list)
                         else None)
def test_a_file_sonde_writes_that_is_the_results_file_is_refused(tmp_path, args, named):
    d = tmp_path / "d"
    d.mkdir()
    r = d / "results.jsonl"
    argv = [str(a).format(d=d, r=r) for a in args]
    if "--json" not in argv:
        argv += ["--json", str(r)]
    target = argv[argv.index("--json") + 1]
    before = _earlier(Path(target))
    np_ = 1 if argv[0] == "btio" else 2
    out = run_sonde(argv, np=np_, check=False)
    assert out.returncode == 2, out.stderr
    (e,) = error_lines(out.stderr)
    assert named.format(d=d, r=r) in e and "is the results file --json" in e, e
    assert Path(target).read_bytes() == before
    assert sorted(p.name for p in d.iterdir()) == [Path(target).name]


def test_summary_file_that_is_the_test_file_is_refused(tmp_path):
    f = tmp_path / "f"
    out = run_sonde(["ior", "-w", "-k", "-t", "8k", "-b", "16k", "-o", f, "-O",
                     f"summaryFile={f}"], np=2, check=False)
    assert out.returncode == 2
    (e,) = error_lines(out.stderr)
    assert f"the summaryFile {f} is the test file {f}" in e
    assert not f.exists()


def test_json_and_csv_of_one_file_are_refused(tmp_path):
    r = tmp_path / "r"
    out = run_sonde(["coll", "-e", 8, "Barrier", "--json", r, "--csv", tmp_path / "." / "r"],
                    np=2, check=False)
    assert out.returncode == 2
    (e,) = error_lines(out.stderr)
    assert "are the same file" in e
    assert not r.exists()  # created by the refused run, and removed again


def test_a_run_refused_before_its_header_leaves_no_results_file(tmp_path):
    r = tmp_path / "r.jsonl"
    out = run_sonde(["ior", "--no-such-option", "--json", r], np=2, check=False)
    assert out.returncode == 2
    assert not r.exists()
    _earlier(r)
    before = r.read_bytes()
    out = run_sonde(["ior", "-w", "-t", "3k", "-b", "16k", "-o", tmp_path / "f", "--json", r],
                    np=2, check=False)
    assert out.returncode == 2
    assert r.read_bytes() == before  # no end record without a header
