# SPDX-License-Identifier: BSD-3-Clause
"""sonde find: the matches equal find(1)'s over the same tree, on 1, 2 and 4 ranks and on two
nodes; pfind's [DONE] and MATCHED lines agree with the tree and the JSON record; bad input."""

import os
import re
import subprocess

import pytest
from conftest import read_jsonl, run_sonde

QUERY = ["-newer", None, "-size", "3901c", "-name", "*01*"]


def make_tree(root):
    """Files of the IO500 find's size with and without "01" in their names, older ones, other
    sizes, nested directories (one whose own name matches), a symbolic link; returns the
    timestamp file and the number of entries find tests (every entry below root, and root)."""
    old = root / "old01"
    old.write_bytes(b"x" * 3901)
    stamp = root.parent / f"{root.name}.timestamp"
    stamp.write_bytes(b"")
    t = os.stat(stamp).st_mtime_ns
    os.utime(old, ns=(t - 10**9, t - 10**9))
    nondirs = 1
    for d in ["a", "a/b01", "a/b01/c", "d", "e/f/g"]:
        (root / d).mkdir(parents=True, exist_ok=True)
    for i in range(400):
        sub = ["a", "a/b01", "a/b01/c", "d", "e/f/g"][i % 5]
        size = 3901 if i % 3 else 3900
        (root / sub / f"file.{i % 7}.{i:04d}").write_bytes(b"y" * size)
        nondirs += 1
    (root / "d" / "link01").symlink_to("../a")
    nondirs += 1
    ndirs = sum(1 for p in root.rglob("*") if p.is_dir() and not p.is_symlink())
    # Newer than the stamp by a whole second, so that coarse clocks cannot tie.
    for p in root.rglob("*"):
        if p.is_file() and not p.is_symlink() and p.name != "old01":
            os.utime(p, ns=(t + 10**9, t + 10**9))
    return stamp, nondirs + ndirs + 1


def reference(root, stamp, *tests):
    out = subprocess.run(["find", str(root), "-newer", str(stamp), *tests], check=True,
                         capture_output=True, text=True).stdout
    return sorted(out.split())


def query(stamp):
    return ["-newer", stamp, "-size", "3901c", "-name", "*01*"]


def matches(stdout):
    return sorted(ln for ln in stdout.splitlines() if ln and not ln.startswith(("[", "MATCHED")))


@pytest.mark.parametrize("np", [1, 2, 4])
def test_matches_equal_find(shm_scratch, np):
    root = shm_scratch / "tree"
    root.mkdir()
    stamp, scanned = make_tree(root)
    want = reference(root, stamp, "-size", "3901c", "-name", "*01*")
    assert len(want) > 20  # the query selects something, not everything
    json = shm_scratch / "r.jsonl"
    out = run_sonde(["find", root, *query(stamp), "-D", "rates", "-q", 10, "-M", 7,
                     "--json", json], np=np)
    assert matches(out.stdout) == want
    done = re.search(r"^\[DONE\] rate: ([\d.]+) kiops time: ([\d.]+)s found: (\d+) \(scanned "
                     r"(\d+) files, scanned dirents: (\d+), unknown dirents: (\d+)\)$",
                     out.stdout, re.MULTILINE)
    assert done, out.stdout
    assert int(done[3]) == len(want)
    assert int(done[4]) == scanned
    assert int(done[5]) == scanned - 1  # every entry read: all but the start point
    assert re.search(rf"^MATCHED {len(want)}/{scanned}$", out.stdout, re.MULTILINE)
    records = read_jsonl(json)
    m = [r for r in records if r["type"] == "measurement"]
    assert len(m) == 1 and m[0]["phase"] == "find"
    assert m[0]["ops"] == scanned and m[0]["extra"]["found"] == len(want)
    assert sum(m[0]["extra"]["rank_found"]) == len(want)
    per_rank = m[0]["extra"]["rank_scanned"]
    assert sum(per_rank) == scanned and len(per_rank) == np
    # The printed rate is the record's: scanned entries over the slowest rank's time.
    assert float(done[1]) == pytest.approx(m[0]["ops_per_s"] / 1000, rel=1e-3, abs=1e-3)
    assert records[-1]["type"] == "end" and records[-1]["exit_code"] == 0


def test_other_tests_equal_find(shm_scratch):
    """-size with units and signs, -name alone, -newer alone: find(1)'s meaning each time."""
    root = shm_scratch / "tree"
    root.mkdir()
    stamp, _ = make_tree(root)
    for tests in (["-size", "+7b"], ["-size", "-8b"], ["-size", "4k"], ["-name", "file.3.*"],
                  ["-size", "3900c"]):
        out = run_sonde(["find", root, *tests], np=2)
        want = subprocess.run(["find", str(root), *tests], check=True, capture_output=True,
                              text=True).stdout.split()
        assert matches(out.stdout) == sorted(want), tests
    out = run_sonde(["find", f"{root}/", "-newer", stamp], np=2)
    assert matches(out.stdout) == reference(root, stamp)


def test_count_only_per_process_and_results_dir(shm_scratch):
    root = shm_scratch / "tree"
    root.mkdir()
    stamp, scanned = make_tree(root)
    want = reference(root, stamp, "-size", "3901c", "-name", "*01*")
    out = run_sonde(["find", root, *query(stamp), "-C", "-P", "-v"], np=3)
    assert matches(out.stdout) == []
    ranks = re.findall(r"^\[(\d)\] found: (\d+) \(scanned (\d+) files.*work items stolen: \d+",
                       out.stdout, re.MULTILINE)
    assert [r[0] for r in ranks] == ["0", "1", "2"]
    assert sum(int(r[1]) for r in ranks) == len(want)
    assert sum(int(r[2]) for r in ranks) == scanned
    res = shm_scratch / "res"
    out = run_sonde(["find", root, *query(stamp), "-r", res], np=3)
    assert matches(out.stdout) == []
    got = sorted(ln for r in range(3) for ln in (res / f"{r}.txt").read_text().split())
    assert got == want


def test_two_nodes(shm_scratch):
    root = shm_scratch / "tree"
    root.mkdir()
    stamp, scanned = make_tree(root)
    out = run_sonde(["find", root, *query(stamp), "-P"], np=4, hosts="nodeA:2,nodeB:2")
    assert matches(out.stdout) == reference(root, stamp, "-size", "3901c", "-name", "*01*")
    assert f"/{scanned}\n" in out.stdout


def test_a_path_too_long_is_an_error_and_no_figure(shm_scratch):
    """An entry find cannot examine: exit 1, the path named, no rate and no MATCHED line."""
    root = shm_scratch / "deep"
    root.mkdir()
    fd = os.open(root, os.O_RDONLY)
    try:
        for _ in range(20):
            os.mkdir("d" * 250, dir_fd=fd)
            nxt = os.open("d" * 250, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = nxt
    finally:
        os.close(fd)
    json = shm_scratch / "r.jsonl"
    out = run_sonde(["find", root, "-name", "x", "--json", json], np=2, check=False)
    assert out.returncode == 1
    errors = [ln for ln in out.stderr.splitlines() if ln.startswith("sonde find")]
    assert len(errors) == 1 and "path too long" in errors[0] and str(root) in errors[0]
    assert "MATCHED" not in out.stdout and "[DONE]" not in out.stdout
    records = read_jsonl(json)
    assert not [r for r in records if r["type"] == "measurement"]
    assert records[-1]["type"] == "end" and records[-1]["exit_code"] == 1


@pytest.mark.parametrize("args,message", [
    ([], "give the directory to search"),
    (["{d}", "{d}"], "one directory to search"),
    (["{d}/missing"], "missing: No such file or directory"),
    (["{d}", "-newer", "{d}/missing"], "-newer {d}/missing: No such file or directory"),
    (["{d}", "-size", "12x"], "option -size"),
    (["{d}", "-regex", "01"], "-regex is not supported by sonde"),
    (["{d}", "-D", "more"], "the only debug output is 'rates'"),
    (["{d}", "-q", "5"], "option -q"),
    (["{d}", "-e"], "erasing the matched files is not implemented"),
    ([""], "empty path"),
])
def test_bad_input(shm_scratch, args, message):
    before = sorted(os.listdir(shm_scratch))
    args = [a.replace("{d}", str(shm_scratch)) for a in args]
    out = run_sonde(["find", *args], np=2, check=False)
    assert out.returncode == 2
    lines = [ln for ln in out.stderr.splitlines() if ln.startswith("sonde find")]
    assert len(lines) == 1 and message.replace("{d}", str(shm_scratch)) in lines[0], lines
    assert sorted(os.listdir(shm_scratch)) == before
