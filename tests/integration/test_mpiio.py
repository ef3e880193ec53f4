# SPDX-License-Identifier: BSD-3-Clause
"""sonde mpiio (LANL MPI-IO Test), types 1, 2 and 5: the files hold exactly what the offsets
formula and the data pattern say (read back here with plain Python), the read phase verifies,
the report lines are in the original's format and their figures agree with each other and with
the JSON records, and a corrupted byte is reported with rank, object and count."""

import re

import pytest
from conftest import OPEN_MPI, read_jsonl, run_sonde
from mpiio_layout import PAGE, check_file, layout

LINE = re.compile(r"^=== (.+?) \(min \[rank\]\s+avg max \[rank\]\): (\S+) \[(\d+)\] (\S+) (\S+) "
                  r"\[(\d+)\]\s+(sec|Mbytes/s)\.$")


def phase_lines(stdout, phase):
    """{label: (min, min_rank, avg, max, max_rank)} of one phase's === lines."""
    head = "=== MPI write [" if phase == "write" else "=== MPI read ["
    end = "=== Completed MPI-IO Write." if phase == "write" else "=== Completed MPI-IO Read."
    body = stdout.split(head, 1)[1].split(end, 1)[0]
    out = {}
    for ln in body.splitlines():
        m = LINE.match(ln)
        if m:
            out[m.group(1)] = (float(m.group(2)), int(m.group(3)), float(m.group(4)),
                               float(m.group(5)), int(m.group(6)))
    return out


def close(a, b):
    return abs(a - b) <= 2e-6 * max(abs(a), abs(b))


def check_report(stdout, phase, mib):
    lines = phase_lines(stdout, phase)
    op = "Write" if phase == "write" else "Read"
    for bw, tm in (("Effective Bandwidth", "Total Time"), (f"{op} Bandwidth", f"{op} Time")):
        b, t = lines[bw], lines[tm]
        # min bandwidth = job MiB / slowest rank's time, at that rank; max at the fastest.
        assert close(b[0], mib / t[3]) and b[1] == t[4], (bw, b, t)
        assert close(b[2], mib / t[2]), (bw, b, t)
        assert close(b[3], mib / t[0]) and b[4] == t[1], (bw, b, t)
        assert t[0] <= t[2] <= t[3]
    for label in ("MPI File Open Time", f"MPI File {op} Wait Time", "MPI File Preallocate Time",
                  "MPI File Close Wait Time"):
        assert label in lines, (label, stdout)
    return lines


def target_paths(directory, type_, n, m):
    if type_ == 1:
        return [directory / f"nn.{r}" for r in range(n)]
    if type_ == 2:
        return [directory / "n1"]
    return [directory / f"file{c}" for c in range(m)]


CASES = [
    # (ranks, type, collective, strided, touch)
    (1, 1, 0, 0, 3), (2, 1, 1, 0, 2), (4, 1, 0, 0, 1), (4, 1, 1, 0, 3),
    (1, 2, 0, 0, 3), (2, 2, 1, 1, 3), (2, 2, 0, 1, 2), (4, 2, 0, 0, 3), (4, 2, 1, 0, 1),
    (4, 2, 0, 1, 3), (4, 2, 1, 1, 2),
    (1, 5, 0, 0, 3), (2, 5, 1, 0, 3), (4, 5, 0, 1, 3), (4, 5, 1, 1, 2), (4, 5, 0, 0, 1),
]


@pytest.mark.parametrize("np_,type_,collective,strided,touch", CASES)
def test_layout_and_verification(shm_scratch, np_, type_, collective, strided, touch):
    nobj, size = 3, 2 * PAGE + 512  # a partial last page, so -touch 3 stamps three pages
    m = min(2, np_) if type_ == 5 else None
    args = ["-type", type_, "-nobj", nobj, "-size", size, "-touch", touch, "-chkdata", 3,
            "--json", shm_scratch / "r.jsonl"]
    if type_ == 1:
        args += ["-target", shm_scratch / "nn.%r"]
    elif type_ == 2:
        args += ["-target", shm_scratch / "n1"]
    else:
        targets = shm_scratch / "targets.txt"
        targets.write_text("".join(f"{shm_scratch}/file{c}\n" for c in range(m)))
        args += ["-targets", targets, "-num_io", m]
    if collective:
        args.append("-collective")
    if strided:
        args += ["-strided", 1]
    out = run_sonde(["mpiio"] + args, np=np_)

    files = layout(type_, np_, nobj, size, strided, m)
    paths = target_paths(shm_scratch, type_, np_, m)
    assert len(paths) == len(files)
    for index, path in enumerate(paths):
        check_file(path, files[index], size, touch)

    mib = np_ * nobj * size / 2**20
    check_report(out.stdout, "write", mib)
    check_report(out.stdout, "read", mib)
    writers = m if type_ == 5 else np_
    assert f"=== MPI write [{np_}->{writers}->{len(paths)} {paths[0]}] Starting ..." in out.stdout
    assert f"=== MPI read [{len(paths)}->{writers}->{np_} {paths[0]}] Starting ..." in out.stdout
    assert f"Total number of I/O processors (M): {writers}\n" in out.stdout

    recs = read_jsonl(shm_scratch / "r.jsonl")
    meas = {r["phase"]: r for r in recs if r["type"] == "measurement"}
    assert set(meas) == {"write", "read"}
    for rec in meas.values():
        assert rec["bytes"] == np_ * nobj * size
        assert rec["ops"] == np_ * nobj
        eff = rec["extra"]["effective_bandwidth_mib_s"]
        assert close(eff["min"], mib / rec["extra"]["times_s"]["total"]["max"])
        assert close(rec["seconds"], rec["extra"]["times_s"]["total"]["max"])
        pr = rec["per_rank"]
        assert pr["n"] == np_ and pr["min"] <= pr["mean"] <= pr["max"]
        assert pr["stddev"] <= (pr["max"] - pr["min"]) / 2 + 1e-12
    verify = meas["read"]["verify"]
    assert verify["checked"] and verify["errors"] == 0
    # chkdata 3 looks at every element; stamps lie inside the objects.
    assert verify["bytes_checked"] == np_ * nobj * size
    assert not meas["write"]["verify"]["checked"]
    assert recs[-1]["type"] == "end" and recs[-1]["exit_code"] == 0


def test_input_parameters_block(shm_scratch):
    out = run_sonde(["mpiio", "-type", 2, "-nobj", 2, "-size", "1K", "-target",
                     shm_scratch / "f", "-touch", 2, "-chkdata", 2, "-sync", "-barrier",
                     "-verbose", "-deletefile"], np=2)
    text = out.stdout
    assert re.match(r"MPI-IO TEST v1\.00\.009 \(sonde \S+\): \w{3} \w{3} [ \d]\d "
                    r"\d\d:\d\d:\d\d \d{4}\n\nInput Parameters:\n", text)
    for line in ("I/O Testing type N -> 1: 2", "Total number of processors (N): 2",
                 "Total number of I/O processors (M): 2", "Number of objects (-nobj): 2",
                 "Number of bytes in each object (-size): 1024", "Check data read (-chkdata): 2",
                 "Flush data before file close (-sync): 1",
                 "Delete data file when done reading (-deletefile): 1",
                 "Write output data to file (-nofile): 1", "Touch object option (-touch): 2",
                 f"Test data written to (-target): {shm_scratch / 'f'}",
                 "Preallocate file size (-preallocate): -1",
                 "Errors and warnings written to (-errout): stderr",
                 "Environment Variables (MPI):"):
        assert line + "\n" in text, line
    # Only variables whose name or value mentions MPI are listed, then a blank line.
    env = text.split("Environment Variables (MPI):\n", 1)[1].split("\n\n=== MPI write", 1)[0]
    assert env and all("MPI" in ln for ln in env.splitlines())
    w = phase_lines(text, "write")
    assert "MPI Barrier Wait Time" in w and "MPI File Sync Time" in w
    for r in (0, 1):
        for label in ("Effective Bandwidth", "Write Bandwidth", "File Open Time",
                      "File Write Wait Time", "File Preallocate Time", "File Sync Time",
                      "MPI_Barrier Time before each write", "File Close Time", "Read Bandwidth"):
            assert re.search(rf"^\[{r}\] {label} = \S+e[+-]\d\d$", text, re.MULTILINE), (r, label)
    assert not (shm_scratch / "f").exists()  # -deletefile


def test_hints_printed_after_write(shm_scratch):
    out = run_sonde(["mpiio", "-type", 2, "-nobj", 1, "-size", "4K", "-target",
                     shm_scratch / "f", "-hints", "cb_nodes", "1", "striping_factor", "2",
                     "-dio"], np=2)
    after = out.stdout.split("=== Completed MPI-IO Write.\n", 1)[1]
    assert after.startswith("\nMPI_info Hints Used (RANK 0):\n")
    hints = after.split("=== MPI read", 1)[0]
    assert re.fullmatch(r"\nMPI_info Hints Used \(RANK 0\):\n(Key: \S+  = .*\n)+\n", hints), hints
    # What the file carries is the library's choice: Open MPI keeps -dio's hint, MPICH's ROMIO
    # drops the hints its file system driver does not use.
    if OPEN_MPI:
        assert "Key: direct_write  = true\n" in hints


def test_separate_write_and_read_runs(shm_scratch):
    base = ["mpiio", "-type", 1, "-nobj", 4, "-size", "8K", "-target", shm_scratch / "nn.%r",
            "-touch", 3]
    w = run_sonde(base + ["-op", "write"], np=2)
    assert "=== Completed MPI-IO Write." in w.stdout and "MPI read" not in w.stdout
    r = run_sonde(base + ["-op", "read", "-chkdata", 3], np=2)
    assert "=== Completed MPI-IO Read." in r.stdout and "MPI write" not in r.stdout


def corrupt(path, element):
    with open(path, "r+b") as f:
        f.seek(element * 8)
        b = f.read(1)
        f.seek(element * 8)
        f.write(bytes([b[0] ^ 0x01]))


@pytest.mark.parametrize("collective", [0, 1])
def test_corruption_is_reported(shm_scratch, collective):
    size = 2 * PAGE
    base = ["mpiio", "-type", 1, "-nobj", 4, "-size", size, "-target", shm_scratch / "nn.%r",
            "-touch", 3] + (["-collective"] if collective else [])
    run_sonde(base + ["-op", "write"], np=2)
    # Element 5 of object 3 (index 2) of rank 1: a plain element, not a stamp.
    corrupt(shm_scratch / "nn.1", 2 * size // 8 + 5)
    # chkdata 1 looks at the first element and the stamps only: it cannot see it.
    ok = run_sonde(base + ["-op", "read", "-chkdata", 1], np=2)
    assert "ERROR" not in ok.stderr
    bad = run_sonde(base + ["-op", "read", "-chkdata", 3, "--json", shm_scratch / "r.jsonl"],
                    np=2, check=False)
    assert bad.returncode == 3, bad.stderr
    lines = [ln for ln in bad.stderr.splitlines() if "Data elements" in ln]
    assert lines == ["[RANK 1] ERROR: 1 Data elements in object 3 does not match expected "
                     "values."], bad.stderr
    assert "=== Completed MPI-IO Read." in bad.stdout
    read = [r for r in read_jsonl(shm_scratch / "r.jsonl") if r.get("phase") == "read"][0]
    assert read["verify"]["errors"] == 1 and read["extra"]["bad_objects"] == 1


def test_corrupted_stamp_caught_at_chkdata_1(shm_scratch):
    size = 2 * PAGE
    base = ["mpiio", "-type", 2, "-nobj", 2, "-size", size, "-target", shm_scratch / "n1",
            "-touch", 3]
    run_sonde(base + ["-op", "write"], np=2)
    # Rank 0's object 2 starts at byte size; its second page's stamp is at size + PAGE.
    corrupt(shm_scratch / "n1", (size + PAGE) // 8)
    bad = run_sonde(base + ["-op", "read", "-chkdata", 1], np=2, check=False)
    assert bad.returncode == 3
    assert "[RANK 0] ERROR: 1 Data elements in object 2 does not match expected values." \
        in bad.stderr


def test_wrong_touch_on_read_fails(shm_scratch):
    base = ["mpiio", "-type", 1, "-nobj", 2, "-size", "4K", "-target", shm_scratch / "nn.%r"]
    run_sonde(base + ["-op", "write", "-touch", 3], np=2)
    bad = run_sonde(base + ["-op", "read", "-touch", 1, "-chkdata", 1], np=2, check=False)
    assert bad.returncode == 3
    assert "[RANK 0] ERROR: 1 Data elements in object 1 does not match" in bad.stderr


def test_short_file_is_an_error(shm_scratch):
    base = ["mpiio", "-type", 2, "-nobj", 2, "-size", "4K", "-target", shm_scratch / "n1"]
    run_sonde(base + ["-op", "write"], np=2)
    with open(shm_scratch / "n1", "r+b") as f:
        f.truncate(4096 * 3)
    bad = run_sonde(base + ["-op", "read", "-chkdata", 0], np=2, check=False)
    assert bad.returncode == 1
    assert "read(s) returned less data" in bad.stderr


def test_setup_file_overridden_by_command_line(shm_scratch):
    setup = shm_scratch / "master.txt"
    setup.write_text(f"# master file\n-type 2 -nobj 3\n-size 2K -target {shm_scratch}/f\n"
                     "-touch 3 -hints cb_nodes 1\n")
    out = run_sonde(["mpiio", "-setup", setup, "-nobj", 5, "-op", "write"], np=2)
    assert "Number of objects (-nobj): 5\n" in out.stdout
    assert "Number of bytes in each object (-size): 2048\n" in out.stdout
    assert "MPI-IO hints (-hints): cb_nodes 1\n" in out.stdout
    check_file(shm_scratch / "f", layout(2, 2, 5, 2048)[0], 2048, 3)


def test_output_file_and_nofile(shm_scratch):
    report = shm_scratch / "report.txt"
    out = run_sonde(["mpiio", "-type", 2, "-nobj", 2, "-size", "1K", "-nofile", "-output",
                     report], np=2)
    assert out.stdout.startswith("MPI-IO TEST v1.00.009") and out.stdout.count("\n") == 2
    text = report.read_text()
    assert "Write output data to file (-nofile): 0" in text
    assert "=== Completed MPI-IO Write." in text and "MPI read" not in text
    assert not (shm_scratch / "test_file.out").exists()


def test_targets_and_host_template(shm_scratch):
    import socket
    host = socket.gethostname()
    run_sonde(["mpiio", "-type", 1, "-nobj", 1, "-size", "1K", "-target",
               shm_scratch / "f.%h.%r.%%"], np=2)
    assert (shm_scratch / f"f.{host}.0.%").exists() and (shm_scratch / f"f.{host}.1.%").exists()
    targets = shm_scratch / "t.txt"
    targets.write_text(f"{shm_scratch}/alpha\n{shm_scratch}/beta.%r\n")
    run_sonde(["mpiio", "-type", 1, "-nobj", 2, "-size", "1K", "-targets", targets,
               "-touch", 2, "-chkdata", 3], np=2)
    check_file(shm_scratch / "alpha", layout(1, 2, 2, 1024)[0], 1024, 2)
    check_file(shm_scratch / "beta.1", layout(1, 2, 2, 1024)[1], 1024, 2)


def test_uneven_type5_files(shm_scratch):
    # 4 ranks, 3 files: file 0 holds ranks 0 and 3, files 1 and 2 one rank each.
    targets = shm_scratch / "t.txt"
    targets.write_text("".join(f"{shm_scratch}/file{c}\n" for c in range(3)))
    run_sonde(["mpiio", "-type", 5, "-num_io", 3, "-nobj", 2, "-size", 1024, "-strided", 1,
               "-targets", targets, "-touch", 2, "-chkdata", 3], np=4)
    files = layout(5, 4, 2, 1024, strided=1, m=3)
    assert [w for _, w in files[0]] == [0, 3, 0, 3]
    for c in range(3):
        check_file(shm_scratch / f"file{c}", files[c], 1024, 2)


def test_errout_collects_errors(shm_scratch):
    base = ["mpiio", "-type", 1, "-nobj", 2, "-size", "1K", "-target", shm_scratch / "nn.%r",
            "-touch", 2]
    run_sonde(base + ["-op", "write"], np=2)
    corrupt(shm_scratch / "nn.0", 128)
    errs = shm_scratch / "errors.txt"
    bad = run_sonde(base + ["-op", "read", "-chkdata", 3, "-errout", errs], np=2, check=False)
    assert bad.returncode == 3
    text = errs.read_text()
    assert "[RANK 0] ERROR: 1 Data elements in object 2 does not match expected values." in text
    assert "sonde mpiio: error: data check failed" in text
    assert "Data elements" not in bad.stderr


def test_rewrite_over_a_longer_file(shm_scratch):
    # An earlier run with more objects left a longer file: the new one holds exactly its own.
    base = ["mpiio", "-type", 2, "-size", 1024, "-target", shm_scratch / "n1", "-touch", 2,
            "-op", "write"]
    run_sonde(base + ["-nobj", 4], np=2)
    assert (shm_scratch / "n1").stat().st_size == 2 * 4 * 1024
    run_sonde(base + ["-nobj", 2], np=2)
    check_file(shm_scratch / "n1", layout(2, 2, 2, 1024)[0], 1024, 2)
    run_sonde(base + ["-nobj", 3], np=2)
    check_file(shm_scratch / "n1", layout(2, 2, 3, 1024)[0], 1024, 2)
