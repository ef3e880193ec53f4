# SPDX-License-Identifier: BSD-3-Clause
"""Every file sonde writes results into gets the care of --json: the files in the originals'
own formats (IOR's summaryFile, saveRankPerformanceDetailsCSV and stoneWallingStatusFile,
mdtest's --saveRankPerformanceDetails, mpiio's -output, mib's profiles) on a full disk make the
run fail with one line naming the file, exit 1 and an io-error end record naming it. Before,
mpiio -output and ior -O summaryFile on a full disk exited 0 (end reason ok) with the file
empty: stdio drops a buffer whose write failed, and fclose then returns 0. And when both --json
and --csv fail, each is named, not only the first."""

import subprocess
from pathlib import Path

import pytest
from conftest import SONDE, read_jsonl, run_sonde
from faultlib import error_lines, fill, mount_tmpfs, umount


@pytest.fixture
def full_fs():
    """A 64 KiB tmpfs with no block left."""
    d = mount_tmpfs("64k", "the full output file test")
    fill(d, 0)
    yield d
    umount(d)


IOR = ["ior", "-w", "-t", "8k", "-b", "16k", "-o", "{data}/f"]

# (args, the file named; {out} is the full file system, {data} a directory with room)
OUTPUTS = {
    "ior summaryFile": (IOR + ["-O", "summaryFile={out}/sum"], "{out}/sum"),
    "ior summaryFile JSON": (IOR + ["-O", "summaryFile={out}/sum", "-O", "summaryFormat=JSON"],
                             "{out}/sum"),
    "ior summaryFile CSV": (IOR + ["-O", "summaryFile={out}/sum", "-O", "summaryFormat=CSV"],
                            "{out}/sum"),
    "ior saveRankPerformanceDetailsCSV": (IOR + ["-O", "saveRankPerformanceDetailsCSV={out}/rk"],
                                          "{out}/rk"),
    "ior stoneWallingStatusFile": (IOR + ["-k", "-D", 1, "-O", "stoneWallingWearOut=1",
                                          "-O", "stoneWallingStatusFile={out}/st"], "{out}/st"),
    "mdtest --saveRankPerformanceDetails": (["mdtest", "-F", "-n", 4, "-d", "{data}/md",
                                             "--saveRankPerformanceDetails", "{out}/md"],
                                            "{out}/md"),
    "mpiio -output": (["mpiio", "-type", 2, "-nobj", 2, "-size", "8K", "-target", "{data}/f",
                       "-output", "{out}/out"], "{out}/out"),
    "mib -p": (["mib", "-F", "-t", "{data}", "-s", "4k", "-l", 4, "-p", "{out}/prof"],
               "{out}/prof.write"),
}


@pytest.mark.parametrize("case", sorted(OUTPUTS))
def test_output_file_on_a_full_disk_fails_the_run(full_fs, shm_scratch, tmp_path, case):
    args, named = OUTPUTS[case]
    fmt = {"out": full_fs, "data": shm_scratch}
    named = named.format(**fmt)
    results = tmp_path / "r.jsonl"
    out = run_sonde([str(a).format(**fmt) for a in args] + ["--json", results], np=2,
                    check=False)
    assert out.returncode == 1, out.stdout + out.stderr
    (e,) = error_lines(out.stderr)
    assert named in e and "No space left on device" in e, e
    end = read_jsonl(results)[-1]
    assert end["type"] == "end" and end["reason"] == "io-error" and end["exit_code"] == 1
    assert end["path"] == named


SHIM = Path(SONDE).parent / "libfaultshim.so"


def sanitized():
    ldd = subprocess.run(["ldd", SONDE], capture_output=True, text=True).stdout
    return "libasan" in ldd


@pytest.mark.parametrize("fault", ["full", "EIO"])
def test_each_failing_results_file_is_named(full_fs, tmp_path, fault):
    """--json and --csv both fail: a line names each (before, only the first was named and
    the other stopped without a word)."""
    if fault == "EIO":
        if not SHIM.exists() or sanitized():
            pytest.skip("needs the fault shim (tests/shim) in a build without ASan")
        d = tmp_path / "eio"
        d.mkdir()
        env = {"LD_PRELOAD": str(SHIM), "SONDE_FAULT_DIR": str(d), "SONDE_FAULT_EIO": "write"}
        words = "Input/output error"
    else:
        d, env, words = full_fs, None, "No space left on device"
    out = run_sonde(["coll", "-e", 8, "-i", 5, "Bcast", "--json", d / "r.jsonl",
                     "--csv", d / "r.csv"], np=2, check=False, env=env)
    assert out.returncode == 1, out.stderr
    errors = error_lines(out.stderr)
    assert sorted(errors) == sorted(f"sonde coll: error: results file {d / name}: {words}; "
                                    "its records from here on are lost"
                                    for name in ("r.jsonl", "r.csv")), out.stderr
