# SPDX-License-Identifier: BSD-3-Clause
"""sonde mdtest: the items on disk after each phase, mdtest's output parsed and recomputed from
the JSON records, -N across two nodes (seen with strace), the stonewall and its wear-out, data
verification, per-rank figures, errors and bad input."""

import math
import os
import re
import shutil
import stat

import pytest
from conftest import read_jsonl, run_sonde

ROW = re.compile(r"^   (Directory \w+|File \w+|Tree \w+) +([\d.]+) +([\d.]+) +([\d.]+) +([\d.]+)$")
PHASES = {"Directory creation": "dir-create", "Directory stat": "dir-stat",
          "Directory rename": "dir-rename", "Directory removal": "dir-remove",
          "File creation": "file-create", "File stat": "file-stat", "File read": "file-read",
          "File removal": "file-remove", "Tree creation": "tree-create",
          "Tree removal": "tree-remove"}


def mdtest(args, np=2, **kw):
    return run_sonde(["mdtest", *[str(a) for a in args]], np=np, **kw)


def tables(stdout):
    """{'rate' or 'time': {operation: (max, min, mean, sd)}} from the SUMMARY tables."""
    out, current = {}, None
    for line in stdout.splitlines():
        m = re.match(r"^SUMMARY (rate|time) \(in (ops/sec|seconds)\): \(of (\d+) iterations\)$",
                     line)
        if m:
            current = out.setdefault(m[1], {})
            continue
        m = ROW.match(line)
        if m and current is not None:
            current[m[1]] = tuple(m[i] for i in range(2, 6))
    return out


def entries(d):
    files, dirs = [], []
    for root, ds, fs in os.walk(d):
        files += [os.path.join(root, f) for f in fs]
        dirs += [os.path.join(root, x) for x in ds]
    return files, dirs


def measurements(path):
    return [r for r in read_jsonl(path) if r["type"] == "measurement"]


@pytest.mark.parametrize("np,hosts", [(1, None), (2, None), (4, None), (4, "nodeA:2,nodeB:2")])
def test_items_on_disk_after_create_and_none_after_remove(shm_scratch, np, hosts):
    d = shm_scratch / "md"

    # 7 directories per tree (depth 2, branching 2), 3 items in each, files and directories
    mdtest(hosts=hosts, args=["-I", 3, "-z", 2, "-b", 2, "-u", "-C", "-d", d], np=np)
    files, dirs = entries(d)
    assert len(files) == np * 21
    tree_dirs = np * 7
    assert len(dirs) == 1 + tree_dirs + np * 21  # test-dir.0-0, the trees, the items
    for r in range(np):
        # mdtest's names: rank r's items in its own tree (no -N), numbered by directory
        assert (d / "test-dir.0-0" / f"mdtest_tree.{r}.0" / f"mdtest_tree.{r}.2" /
                f"mdtest_tree.{r}.6" / f"file.mdtest.{r}.18").is_file()
        assert (d / "test-dir.0-0" / f"mdtest_tree.{r}.0" / f"dir.mdtest.{r}.0").is_dir()
    mdtest(hosts=hosts, args=["-I", 3, "-z", 2, "-b", 2, "-u", "-T", "-E", "-U", "-d", d], np=np)
    # stat and read change nothing; the renames move names around the same set
    after = entries(d)
    assert sorted(after[0]) == sorted(files) and sorted(after[1]) == sorted(dirs)
    mdtest(hosts=hosts, args=["-I", 3, "-z", 2, "-b", 2, "-u", "-r", "-d", d], np=np)
    assert entries(d) == ([], [])  # -d itself stays: an earlier run made it
    # A whole run on a directory it makes leaves nothing behind.
    mdtest(hosts=hosts, args=["-n", 10, "-d", shm_scratch / "whole"], np=np)
    assert not (shm_scratch / "whole").exists()


def test_summary_recomputed_from_the_records(shm_scratch):
    json = shm_scratch / "r.jsonl"
    out = mdtest(["-n", 40, "-i", 3, "-P", "-w", 100, "-e", 100, "-d", shm_scratch / "md",
                  "--json", json], np=2)
    lines = out.stdout.splitlines()
    assert re.match(r"^-- started at \d\d/\d\d/\d{4} \d\d:\d\d:\d\d --$", lines[0])
    assert lines[1] == ""
    assert re.match(r"^mdtest-4\.1\.0 \(sonde \S+\) was launched with 2 total task\(s\) on 1 "
                    r"node\(s\)$", lines[2])
    assert lines[3].startswith("Command line used: sonde mdtest '-n' '40' '-i' '3'")
    assert "Nodemap: 11" in lines
    assert any(re.match(r"^Path {16}: ", ln) for ln in lines)
    assert any(re.match(r"^FS {18}: [\d.]+ [GT]iB   Used FS: [\d.]+%   Inodes: [\d.]+ Mi   "
                        r"Used Inodes: [\d.]+%$", ln) for ln in lines)
    assert "2 tasks, 80 files/directories" in lines
    assert re.match(r"^-- finished at .* --$", lines[-2]) and lines[-1] == ""
    t = tables(out.stdout)
    assert set(t["rate"]) == set(PHASES) and set(t["time"]) == set(PHASES)
    ms = measurements(json)
    for title, phase in PHASES.items():
        per_iter = sorted((m for m in ms if m["phase"] == phase), key=lambda m: m["iteration"])
        assert [m["iteration"] for m in per_iter] == [0, 1, 2], phase
        for kind, values in (("rate", [m["ops"] / m["seconds"] for m in per_iter]),
                             ("time", [m["seconds"] for m in per_iter])):
            mean = sum(values) / 3
            sd = math.sqrt(sum((v - mean) ** 2 for v in values) / 2)  # N-1, as mdtest
            want = tuple(f"{v:.3f}" for v in (max(values), min(values), mean, sd))
            assert t[kind][title] == want, (kind, title, t[kind][title], want)
        for m in per_iter:
            # items of both ranks; the tree rows count one tree's directories, as mdtest's
            # (without -u rank 0 makes the one shared tree)
            assert m["ops"] == (1 if phase.startswith("tree") else 80)
            assert m["latency"]["count"] == m["ops"]
            assert m["ops_per_s"] == pytest.approx(m["ops"] / m["seconds"])
            assert m["extra"]["operation"] == title
    created = [m for m in ms if m["phase"] == "file-create"]
    assert all(m["bytes"] == 80 * 100 for m in created)


def test_verbose_lines_are_the_iterations(shm_scratch):
    out = mdtest(["-n", 20, "-F", "-i", 2, "-v", "-d", shm_scratch / "md"], np=2)
    lines = [ln for ln in out.stdout.splitlines() if re.match(r"^V-1: Rank   0    File \w+ +:", ln)]
    created = [float(re.search(r"([\d.]+) ops/sec", ln)[1]) for ln in lines if "creation" in ln]
    assert len(created) == 2
    row = tables(out.stdout)["rate"]["File creation"]
    assert row[0] == f"{max(created):.3f}" and row[1] == f"{min(created):.3f}"
    assert "V-1: Rank   0 unique_dir_per_task     : False" in out.stdout


def test_stride_stats_another_nodes_files(shm_scratch):
    """Two nodes of two ranks: with -N 1 the shift is one node (two ranks), so each rank stats
    the files a rank of the other node made. strace shows which files each rank touches."""
    if not shutil.which("strace"):
        pytest.skip("strace is not installed")
    from conftest import SONDE
    traces = shm_scratch / "trace"
    out = run_sonde(["-f", "-ff", "-qq", "-e", "trace=openat,newfstatat,stat,statx",
                     "-o", traces, SONDE, "mdtest", "-n", 5, "-u", "-F", "-N", 1, "-C", "-T",
                     "-d", shm_scratch / "md"], np=4, hosts="nodeA:2,nodeB:2", program="strace")
    assert "V-0: Rank   0 Shifting ranks by 2 for each phase." in out.stdout
    assert "Nodemap: 1100" in out.stdout
    seen = {}
    for f in shm_scratch.glob("trace.*"):
        text = f.read_text()
        made = set(re.findall(r'openat\([^"]*"[^"]*/file\.mdtest\.(\d)\.\d+", [^)]*O_CREAT', text))
        if not made:
            continue
        (rank,) = made
        stated = set(re.findall(r'stat\w*\([^"]*"[^"]*/mdtest_tree\.(\d)\.0/file\.mdtest\.(\d)\.',
                                text))
        seen[int(rank)] = stated
    assert set(seen) == {0, 1, 2, 3}
    for rank, stated in seen.items():
        owner = (rank + 2) % 4
        # the files of the rank two ahead (the other node), where they were made: the tree of
        # the rank two ahead of it
        assert stated == {(str((owner + 2) % 4), str(owner))}, (rank, stated)
        assert owner // 2 != rank // 2


def test_stonewall_wearout_and_status_file(shm_scratch):
    d, status, json = shm_scratch / "md", shm_scratch / "sw", shm_scratch / "r.jsonl"
    common = ["-n", 5000000, "-u", "-L", "-F", "-N", 1, "-d", d, "-x", status]
    out = mdtest(common + ["-C", "-W", 1, "--json", json], np=3, timeout=300)
    count = int(status.read_text())
    assert 0 < count < 5000000
    for r in range(3):
        made = os.listdir(d / "test-dir.0-0" / f"mdtest_tree.{r}.0")
        assert len(made) == count  # every rank caught up to the same count
    (m,) = [m for m in measurements(json) if m["phase"] == "file-create"]
    assert m["ops"] == 3 * count and m["extra"]["wearout_items_per_rank"] == count
    assert m["extra"]["stonewall_seconds"] >= 1 and m["extra"]["stonewall_items"] <= 3 * count
    assert m["extra"]["rank_items"] == [count] * 3
    if m["extra"]["stonewall_items"] < 3 * count:
        assert re.search(r"^Continue stonewall hit min: \d+ max: \d+ avg: [\d.]+ $", out.stdout,
                         re.MULTILINE)
    # later runs work on the saved count
    json2 = shm_scratch / "r2.jsonl"
    mdtest(common + ["-T", "--json", json2], np=3)
    mdtest(common + ["-r", "--json", json2], np=3)
    for m in measurements(json2):
        if m["phase"].startswith("file"):
            assert m["ops"] == 3 * count
    assert entries(d) == ([], [])


def test_verify_read_catches_a_corrupted_byte(shm_scratch):
    d = shm_scratch / "md"
    hard = ["-n", 30, "-t", "-w", 3901, "-e", 3901, "-P", "-G", 77, "-N", 1, "-F", "-d", d]
    mdtest(hard + ["-C"], np=2)
    mdtest(hard + ["-E", "-X"], np=2)  # clean
    victim = d / "test-dir.0-0" / "mdtest_tree.0" / "file.mdtest.1.7"
    data = bytearray(victim.read_bytes())
    data[1234] ^= 0x10
    victim.write_bytes(data)
    json = shm_scratch / "r.jsonl"
    out = mdtest(hard + ["-E", "-X", "--json", json], np=2, check=False)
    assert out.returncode == 3
    # the read phase is the third: rank r reads the files of rank r + 2N, its own on two ranks
    assert re.search(rf"verify: rank 1: {re.escape(str(victim))}: offset 1234: expected "
                     r"0x[0-9a-f]{2}, found 0x[0-9a-f]{2}", out.stderr)
    assert "ERROR: verifying the data on read (1 errors)!" in out.stdout
    assert "File read" in tables(out.stdout)["rate"]
    (m,) = measurements(json)
    assert m["verify"] == {"checked": True, "errors": 1, "bytes_checked": 60 * 3901}
    # another seed is other data
    out = mdtest(hard[:-2] + ["-G", 78, "-d", d, "-E", "-X"], np=2, check=False)
    assert out.returncode == 3
    mdtest(hard + ["-r"], np=2)


def test_rank_details_csv_and_all_procs(shm_scratch):
    csv = shm_scratch / "ranks.csv"
    json = shm_scratch / "r.jsonl"
    out = mdtest(["-n", 20, "-F", "--print-all-procs", "--showRankStatistics",
                  f"--saveRankPerformanceDetails={csv}", "-d", shm_scratch / "md",
                  "--json", json], np=2)
    rows = [ln.split(",") for ln in csv.read_text().splitlines()]
    assert rows[0][:4] == ["rank", "items", "rate-Directory creation", "time-Directory creation"]
    assert len(rows[0]) == 2 + 2 * 11
    assert [r[0] for r in rows[1:]] == ["all", "0", "1"]
    ms = {m["phase"]: m for m in measurements(json)}
    col = rows[0].index("time-File stat")
    for r in (0, 1):
        t = ms["file-stat"]["extra"]["rank_seconds_before_barrier"][r]
        assert float(rows[2 + r][col]) == pytest.approx(t, rel=1e-9)
        assert float(rows[2 + r][col - 1]) == pytest.approx(20 / t, rel=1e-9)
    assert "\nPer process result (rate):\niteration: 0\nTest File creation " in out.stdout
    assert "per Rank: Max" in out.stdout


def test_variants(shm_scratch):
    # -c: rank 0 makes and removes every rank's items
    d = shm_scratch / "c"
    mdtest(["-n", 10, "-F", "-c", "-u", "-C", "-d", d], np=3)
    assert len(entries(d)[0]) == 30
    mdtest(["-n", 10, "-F", "-c", "-u", "-r", "-d", d], np=3)
    assert entries(d) == ([], [])
    # -S: every rank the same names, so 10 files in all
    d = shm_scratch / "s"
    out = mdtest(["-n", 10, "-S", "-C", "-d", d], np=3)
    assert "3 tasks, 1 file" in out.stdout
    assert len(entries(d)[0]) == 10
    # -k: mknod'ed files, mode 0400
    d = shm_scratch / "k"
    mdtest(["-n", 5, "-F", "-k", "-C", "-d", d], np=2)
    files = entries(d)[0]
    assert len(files) == 10 and all(stat.S_IMODE(os.stat(f).st_mode) == 0o400 for f in files)
    # -f/-l/-s: one table per task count
    out = mdtest(["-n", 5, "-F", "-B", "-f", 1, "-l", 3, "-s", 2, "-R", "--random-seed", 9,
                  "-d", shm_scratch / "f"], np=3)
    assert re.findall(r"^(\d) tasks, (\d+) files$", out.stdout, re.MULTILINE) == [("1", "5"),
                                                                                  ("3", "15")]
    assert out.stdout.count("SUMMARY rate") == 2 and "random seed: 9" in out.stdout
    # -d a@b: rank r works under the (r mod 2)-th directory
    a, b = shm_scratch / "a", shm_scratch / "b"
    mdtest(["-n", 4, "-F", "-u", "-C", "-d", f"{a}@{b}"], np=3)
    assert sorted(os.listdir(a / "test-dir.0-0")) == ["mdtest_tree.0.0", "mdtest_tree.2.0"]
    assert os.listdir(b / "test-dir.0-0") == ["mdtest_tree.1.0"]
    mdtest(["-n", 4, "-F", "-u", "-r", "-d", f"{a}@{b}"], np=3)
    assert entries(a) == entries(b) == ([], [])
    # -U alone renames the directories an earlier run made; they are all still there
    d = shm_scratch / "u"
    mdtest(["-n", 6, "-D", "-C", "-d", d], np=2)
    before = sorted(entries(d)[1])
    mdtest(["-n", 6, "-D", "-U", "-d", d], np=2)
    assert sorted(entries(d)[1]) == before


def test_a_failed_phase_prints_no_rate(shm_scratch):
    """Stat of files nobody made: one error line with the path, exit 1, no table, and the end
    record says why."""
    json = shm_scratch / "r.jsonl"
    d = shm_scratch / "md"
    mdtest(["-n", 4, "-F", "-u", "-C", "-d", d], np=2)
    (d / "test-dir.0-0" / "mdtest_tree.1.0" / "file.mdtest.1.2").unlink()
    out = mdtest(["-n", 4, "-F", "-u", "-T", "-d", d, "--json", json], np=2, check=False)
    assert out.returncode == 1
    errors = [ln for ln in out.stderr.splitlines() if ln.startswith("sonde mdtest")]
    assert len(errors) == 1 and "file.mdtest.1.2" in errors[0] and "No such file" in errors[0]
    assert "SUMMARY" not in out.stdout
    records = read_jsonl(json)
    assert not [r for r in records if r["type"] == "measurement"]
    end = records[-1]
    assert end["type"] == "end" and end["exit_code"] == 1 and end["reason"] == "io-error"
    assert end["path"].endswith("file.mdtest.1.2")


def test_planted_links_are_not_followed(shm_scratch):
    victim = shm_scratch / "victim"
    victim.mkdir()
    d = shm_scratch / "md"
    d.mkdir()
    (d / "test-dir.0-0").symlink_to(victim)
    out = mdtest(["-n", 5, "-F", "-C", "-d", d], np=2, check=False)
    assert out.returncode != 0 and "symbolic link is not followed" in out.stderr
    assert os.listdir(victim) == []
    link = shm_scratch / "dlink"
    link.symlink_to(victim)
    out = mdtest(["-n", 5, "-F", "-C", "-d", link], np=2, check=False)
    assert out.returncode == 2 and "symbolic link is not followed" in out.stderr
    assert os.listdir(victim) == []
    # a run that removes what an earlier run made: a tree root replaced by a link is refused
    # before anything is removed
    (victim / "file.mdtest.0.1").write_bytes(b"")
    d2 = shm_scratch / "md2"
    (d2 / "test-dir.0-0").mkdir(parents=True)
    (d2 / "test-dir.0-0" / "mdtest_tree.0.0").symlink_to(victim)
    out = mdtest(["-n", 3, "-F", "-u", "-r", "-d", d2], np=2, check=False)
    assert out.returncode == 2
    (e,) = [ln for ln in out.stderr.splitlines() if ln.startswith("sonde mdtest")]
    assert "mdtest_tree.0.0: not a directory (a symbolic link is not followed)" in e
    assert os.listdir(victim) == ["file.mdtest.0.1"]


def test_a_run_without_create_needs_the_earlier_runs_tree(shm_scratch):
    out = mdtest(["-n", 3, "-F", "-T", "-d", shm_scratch / "none"], np=2, check=False)
    assert out.returncode == 2 and "-d " + str(shm_scratch / "none") in out.stderr
    assert os.listdir(shm_scratch) == []  # nothing made
    (shm_scratch / "md").mkdir()
    out = mdtest(["-n", 3, "-F", "-T", "-d", shm_scratch / "md"], np=2, check=False)
    assert out.returncode == 2
    assert "mdtest_tree.0: No such file or directory (without -C the tree must be there" \
        in out.stderr


@pytest.mark.parametrize("args,message", [
    (["-a", "DUMMY"], "unknown I/O backend 'DUMMY' (known: "),
    (["-B", "-N", "1"], "-B not compatible with -N"),
    (["-c", "-S"], "-c not compatible with -S"),
    (["-u", "-S"], "-u not compatible with -S"),
    (["-d", "{d}/a@@{d}/b"], "an empty directory path"),
    (["-n", "0"], "no items to work on"),
    (["-n", "5", "-z", "2", "-b", "2"], "fewer than one item"),
    (["-n", "8", "-I", "4", "-u"], "only specify the number of items"),
    (["-w", "10", "-k"], "-k not compatible with -w"),
    (["-X", "-T", "-e", "10"], "Verify read requires that the read test is used"),
    (["-X", "-E"], "Verify read requires that read bytes is > 0"),
    (["-w", "10", "-e", "20"], "read bytes must be smaller than write bytes"),
    (["-W", "1", "-z", "1", "-b", "2"], "stone wall timer does only work"),
    (["-W", "1", "-z", "2", "-b", "1"], "-W needs each rank's files in one directory"),
    (["-l", "9"], "last > number of processes"),
    (["-f", "2", "-l", "1"], "first > last"),
    (["--posix.odirect", "-w", "100", "-e", "100"], "multiples of 4096"),
    (["-E", "-X", "-e", "10"], "give that run's -G"),
    (["-x", ""], "option -x: empty value"),
    (["--savePerOpDataCSV", "x"], "--savePerOpDataCSV is not supported by sonde"),
    (["-g"], "-g is not supported by sonde"),
    (["-i", "0"], "option -i"),
    (["extra"], "unexpected argument 'extra'"),
])
def test_bad_input(shm_scratch, args, message):
    args = [a.replace("{d}", str(shm_scratch)) for a in args]
    if "-d" not in args:
        args += ["-d", str(shm_scratch / "md")]
    if "-n" not in args and "-I" not in args:
        args += ["-n", "10"]
    out = mdtest(args, np=2, check=False)
    assert out.returncode == 2, out.stderr
    lines = [ln for ln in out.stderr.splitlines() if ln.startswith("sonde mdtest: error")]
    assert len(lines) == 1 and message in lines[0], out.stderr
    assert os.listdir(shm_scratch) == []  # nothing made


def test_inert_options_warn(shm_scratch):
    out = mdtest(["-n", 5, "-F", "-t", "-y", "--dataPacketType=t", "--warningAsErrors", "-d",
                  shm_scratch / "md"], np=1)
    for opt in ("-t has no effect", "-y has no effect", "--dataPacketType has no effect",
                "--warningAsErrors has no effect"):
        assert opt in out.stderr, out.stderr
