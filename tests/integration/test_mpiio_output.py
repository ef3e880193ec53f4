# SPDX-License-Identifier: BSD-3-Clause
"""sonde mpiio's report, line for line against mpi_io_test 1.00.009.

The original's label lists and layouts below are facts recorded from the original built from
github roblatham00/lanl-mpiio (1f5a7dd) and run on 2 and 4 ranks with the same command lines;
sonde's output is diffed against them, so a parser written for the original keeps working.
The command lines of the original's users that must keep working are here too."""

import re

import pytest
from conftest import run_sonde

# The Input Parameters block of the original, in order (labels before ": value").
ORIGINAL_PARAMETERS = [
    "I/O Testing type {type}",
    "Total number of processors (N)",
    "Total number of I/O processors (M)",
    # "Number of I/O processors per host" here with the aggregation types 3 and 4
    "Host Name List",
    "Number of circular buffers (-ahead)",
    "Number of objects (-nobj)",
    "Number of bytes in each object (-size)",
    "Circular buffer size (-csize)",
    "Preallocate file size (-preallocate)",
    "Check data read (-chkdata)",
    "Use collective read/write calls (-collective)",
    "Call MPI_Barrier before each write (-barrier)",
    "Flush data before file close (-sync)",
    "Strided data layout (-strided)",
    "Delete data file when done reading (-deletefile)",
    "Write output data to file (-nofile)",
    "Aggregators send data to themselves (-norsend)",
    "{target}",  # "Test data written to (-target)" or "File containing target files (-targets)"
    "Touch object option (-touch)",
    "Timing results written to (-output)",
    "Errors and warnings written to (-errout)",
]
PER_HOST = "Number of I/O processors per host"
TYPE_LABELS = {1: "N -> N", 2: "N -> 1", 3: "N -> M -> M", 4: "N -> M -> 1", 5: "N -> M"}

# The phase's summary lines in the original's order, some printed only with an option (write
# phase) or with aggregation; after a line, -verbose prints one line per rank with the label
# given ({op} is Write or Read): the bandwidths' after the time lines that follow them.
ORIGINAL_SUMMARY = [
    ("Effective Bandwidth", None, None),
    ("Total Time", None, "[{r}] Effective Bandwidth = "),
    ("{op} Bandwidth", None, None),
    ("{op} Time", None, "[{r}] {op} Bandwidth = "),
    ("MPI File Open Time", None, "[{r}] File Open Time = "),
    ("MPI File {op} Wait Time", None, "[{r}] File {op} Wait Time = "),
    ("MPI File Preallocate Time", None, "[{r}] File Preallocate Time = "),
    ("MPI Barrier Wait Time", "-barrier", "[{r}] MPI_Barrier Time before each write = "),
    ("MPI File Sync Time", "-sync", "[{r}] File Sync Time = "),
    ("MPI File Close Wait Time", None, "[{r}] File Close Time = "),
    ("MPI Processor send wait time", "aggregation", None),
    ("MPI Processor Receive Wait Time", "aggregation", "[{r}] Processor send wait time: "),
]
E = r"\d\.\d{6}e[-+]\d\d"
# Layouts that differ from line to line in the original (spacing included).
SEND_LINE = re.compile(rf"^=== MPI Processor send wait time \(min \[rank\] avg max \[rank\]\): "
                       rf"{E} \[\d+\]  {E} {E} \[\d+\]  sec\.$")
RECEIVE_LINE = re.compile(rf"^=== MPI Processor Receive Wait Time \(min avg max\): {E}\[\d+\]  "
                          rf"{E} {E}\[\d+\]  sec\.$")
CLOSE_LINE = re.compile(rf"^=== MPI File Close Wait Time \(min \[rank\]  avg max \[rank\]\): "
                        rf"{E} \[\d+\] {E} {E} \[\d+\]  sec\.$")
VERBOSE_SEND = re.compile(rf"^\[\d+\] Processor send wait time: {E} sec\.$")


def mpiio(args, np_, **kw):
    return run_sonde(["mpiio"] + [str(a) for a in args], np=np_, **kw)


def parameters(text):
    """(label, value) pairs of the Input Parameters block."""
    block = text.split("Input Parameters:\n", 1)[1].split("\n\nEnvironment Variables (MPI):\n")[0]
    return [tuple(ln.rsplit(": ", 1)) if ": " in ln else (ln, "") for ln in block.splitlines()]


def expected_labels(type_, targets=False):
    labels = [lb.format(type=TYPE_LABELS[type_],
                        target="File containing target files (-targets)" if targets
                        else "Test data written to (-target)")
              for lb in ORIGINAL_PARAMETERS]
    if type_ in (3, 4):
        labels.insert(3, PER_HOST)
    return labels


def check_original_labels_first(text, type_, targets=False):
    got = [label for label, _ in parameters(text)]
    want = expected_labels(type_, targets)
    assert got[:len(want)] == want, "\n".join(got)
    # sonde's own lines come after the original's, never between them.
    assert not set(got[len(want):]) & set(want)
    return dict(parameters(text))


def test_type1_with_num_io_and_csize_is_accepted_and_echoed(shm_scratch):
    """`-type 1 -num_io 2 -csize 256K` was refused; the original runs it and echoes both."""
    out = mpiio(["-type", 1, "-num_io", 2, "-csize", "256K", "-nobj", 2, "-size", "64K",
                 "-target", shm_scratch / "f.%r", "-touch", 3, "-chkdata", 3], 2)
    p = check_original_labels_first(out.stdout, 1)
    # Types 1 and 2 buffer one object (the original printed -size here), and print no
    # per-host line although -num_io was given.
    assert p["Circular buffer size (-csize)"] == "65536"
    assert p["Total number of I/O processors (M)"] == "2"
    assert PER_HOST not in p
    warnings = [ln for ln in out.stderr.splitlines() if "warning" in ln]
    assert warnings == [
        "sonde mpiio: warning: -num_io has no effect here: it applies to types 3, 4 and 5 "
        "(with types 1 and 2 every process does its own I/O)",
        "sonde mpiio: warning: -csize has no effect here: it applies to the aggregation types "
        "3 and 4",
    ]
    assert "=== Completed MPI-IO Read." in out.stdout


def test_num_io_naming_fewer_processes_with_type1_is_refused(shm_scratch):
    # The original refused it too ("Test N->(N or 1), but number of I/O processors ...").
    out = mpiio(["-type", 1, "-num_io", 1, "-target", shm_scratch / "f.%r"], 2, check=False)
    assert out.returncode == 2
    assert "-num_io 1: with type 1 all 2 processes do I/O" in out.stderr


def test_aggregation_block_and_summary_lines(shm_scratch):
    out = mpiio(["-type", 3, "-num_io", 2, "-nobj", 2, "-size", "1K", "-csize", "4K",
                 "-target", shm_scratch / "a.%r", "-touch", 2, "-op", "write", "-verbose"], 4)
    p = check_original_labels_first(out.stdout, 3)
    assert p[PER_HOST] == "2"
    assert p["Circular buffer size (-csize)"] == "4096"
    lines = out.stdout.splitlines()
    assert sum(bool(SEND_LINE.match(ln)) for ln in lines) == 1, out.stdout
    assert sum(bool(RECEIVE_LINE.match(ln)) for ln in lines) == 1, out.stdout
    assert sum(bool(VERBOSE_SEND.match(ln)) for ln in lines) == 4, out.stdout
    check_summary(out.stdout, "Write", 4, aggregation=True)


def test_type5_targets_label_and_csize(shm_scratch):
    targets = shm_scratch / "t.txt"
    targets.write_text(f"{shm_scratch}/file0\n{shm_scratch}/file1\n")
    out = mpiio(["-type", 5, "-num_io", 2, "-nobj", 2, "-size", "1K", "-targets", targets,
                 "-touch", 2], 4)
    p = check_original_labels_first(out.stdout, 5, targets=True)
    assert p["File containing target files (-targets)"] == str(targets)
    assert p["Circular buffer size (-csize)"] == "0"
    assert f"=== MPI write [4->2->2 {shm_scratch}/file0] Starting ..." in out.stdout


def summary_labels(text, op):
    head = "=== MPI write [" if op == "Write" else "=== MPI read ["
    body = text.split(head, 1)[1].split(f"=== Completed MPI-IO {op}.", 1)[0]
    return body.splitlines()[1:]


def check_summary(text, op, nranks, options=(), aggregation=False):
    """The phase's lines, in the original's order, each followed by its -verbose lines."""
    want = []
    for label, when, verbose in ORIGINAL_SUMMARY:
        if when == "aggregation" and not aggregation:
            continue
        if when and when != "aggregation" and (op == "Read" or when not in options):
            continue
        want.append(("=== " + label.format(op=op) + " (", None))
        if verbose:
            want += [(verbose.format(r=r, op=op), r) for r in range(nranks)]
    got = summary_labels(text, op)
    assert len(got) == len(want), "\n".join(got)
    for line, (prefix, _) in zip(got, want, strict=True):
        assert line.startswith(prefix), (line, prefix)


def test_write_and_read_lines_in_order_with_verbose(shm_scratch):
    out = mpiio(["-type", 2, "-nobj", 2, "-size", "1K", "-target", shm_scratch / "f",
                 "-touch", 2, "-chkdata", 2, "-sync", "-barrier", "-preallocate", "64K",
                 "-verbose"], 2)
    check_summary(out.stdout, "Write", 2, options=("-barrier", "-sync"))
    check_summary(out.stdout, "Read", 2)
    assert sum(bool(CLOSE_LINE.match(ln)) for ln in out.stdout.splitlines()) == 2
    # Blank lines around the environment block, as the original prints them.
    assert "): 4096\n\nEnvironment Variables (MPI):\n" in out.stdout  # after the page size
    env_and_after = out.stdout.split("Environment Variables (MPI):\n", 1)[1]
    assert "\n\n=== MPI write [" in env_and_after


def test_hints_block_between_blank_lines(shm_scratch):
    out = mpiio(["-type", 2, "-nobj", 1, "-size", "4K", "-target", shm_scratch / "f",
                 "-hints", "cb_nodes", "1"], 2)
    after = out.stdout.split("=== Completed MPI-IO Write.\n", 1)[1]
    assert re.match(r"\nMPI_info Hints Used \(RANK 0\):\n(Key: \S+  = .*\n)+\n=== MPI read \[",
                    after), after


def test_lhosts_after_the_environment_block(shm_scratch):
    import socket
    out = mpiio(["-type", 1, "-nobj", 1, "-size", "1K", "-target", shm_scratch / "f.%r",
                 "-lhosts"], 3)
    after_env = out.stdout.split("Environment Variables (MPI):\n", 1)[1]
    host = socket.gethostname()
    assert f"\n\nHosts List:\nRANK 0: {host}\nRANK 1: {host}\nRANK 2: {host}\n=== MPI write" \
        in after_env, after_env


def test_output_keeps_the_header_line_on_stdout(shm_scratch):
    report = shm_scratch / "report.txt"
    out = mpiio(["-type", 2, "-nobj", 2, "-size", "1K", "-target", shm_scratch / "f",
                 "-output", report], 2)
    assert re.fullmatch(r"MPI-IO TEST v1\.00\.009 \(sonde \S+\): .*\n\n", out.stdout), out.stdout
    text = report.read_text()
    assert text.startswith("Input Parameters:\n")
    assert "=== Completed MPI-IO Read." in text


def test_quoted_host_and_num_io_lists(shm_scratch):
    """The guide's (and sonde's help's) quoted form: -host "nodeA nodeB" -num_io "1 1"."""
    out = mpiio(["-type", 3, "-host", "nodeA nodeB", "-num_io", "1 1", "-nobj", 1,
                 "-size", "1K", "-target", shm_scratch / "a.%r", "-touch", 2, "-chkdata", 3,
                 "-lhosts"], 4, hosts="nodeA:2,nodeB:2")
    p = dict(parameters(out.stdout))
    assert p["Host Name List"] == "nodeA nodeB"
    assert p[PER_HOST] == "1 1"
    assert p["Total number of I/O processors (M)"] == "2"
    assert "=== Completed MPI-IO Read." in out.stdout


def test_aggregation_without_a_file(shm_scratch):
    """-type 3 -num_io 2 -nofile complained about target files it never writes."""
    out = mpiio(["-type", 3, "-num_io", 2, "-nofile", "-nobj", 2, "-size", "1K"], 2,
                cwd=shm_scratch)
    assert "=== Completed MPI-IO Write." in out.stdout
    assert "error" not in out.stderr
    assert not list(shm_scratch.iterdir())
    out = mpiio(["-type", 3, "-num_io", 2, "-nofile", "-target", shm_scratch / "a.%r",
                 "-chkdata", 3], 2)
    assert "-target has no effect here: it applies to file I/O, which -nofile leaves out" \
        in out.stderr
    assert "-chkdata has no effect here" in out.stderr
    assert not list(shm_scratch.iterdir())


def test_scripts_switching_op_with_fixed_options(shm_scratch):
    """Scripts pass -chkdata 3 (and -deletefile) whatever -op they run."""
    base = ["-type", 1, "-nobj", 2, "-size", "1K", "-target", shm_scratch / "f.%r", "-touch", 2,
            "-chkdata", 3]
    w = mpiio(base + ["-op", "write", "-deletefile"], 2)
    assert "-chkdata has no effect here: it applies to the read phase" in w.stderr
    # -deletefile on a write-only run removes what it wrote, as the original did.
    assert not list(shm_scratch.iterdir())
    mpiio(base + ["-op", "write"], 2)
    r = mpiio(base + ["-op", "read", "-deletefile", "-sync", "-barrier"], 2)
    assert "=== Completed MPI-IO Read." in r.stdout
    assert "-sync has no effect here: it applies to the write phase" in r.stderr
    assert "-barrier has no effect here" in r.stderr
    assert "-deletefile with -op read deletes the files this run reads" in r.stderr
    assert not list(shm_scratch.iterdir())


def test_deletefile_with_op_read_keeps_files_that_failed_the_check(shm_scratch):
    base = ["-type", 1, "-nobj", 2, "-size", "1K", "-target", shm_scratch / "f.%r", "-touch", 2]
    mpiio(base + ["-op", "write"], 2)
    with open(shm_scratch / "f.1", "r+b") as f:
        f.seek(8)
        f.write(b"\xff" * 8)
    r = mpiio(base + ["-op", "read", "-chkdata", 3, "-deletefile"], 2, check=False)
    assert r.returncode == 3
    assert sorted(p.name for p in shm_scratch.iterdir()) == ["f.0", "f.1"]


@pytest.mark.parametrize("args,option,where", [
    (["-type", 1, "-strided", 1], "-strided", "the shared-file types 2 and 5"),
    (["-type", 2, "-ahead", 2], "-ahead", "the aggregation types 3 and 4"),
    (["-type", 2, "-norsend"], "-norsend", "the aggregation types 3 and 4"),
    (["-type", 1, "-host", "nodeX"], "-host", "the aggregation types 3 and 4"),
    (["-type", 1, "-op", "write", "-sleep", 1], "-sleep", None),
    (["-type", 1, "-op", "read", "-preallocate", "1M"], "-preallocate", "the write phase"),
])
def test_options_without_effect_warn_once(shm_scratch, args, option, where):
    if "read" in args:
        mpiio(["-type", 1, "-nobj", 1, "-size", "1K", "-target", shm_scratch / "f.%r",
               "-op", "write"], 2)
    out = mpiio(args + ["-nobj", 1, "-size", "1K", "-target", shm_scratch / "f.%r"], 2)
    warnings = [ln for ln in out.stderr.splitlines() if "warning" in ln]
    assert len(warnings) == 1, out.stderr
    assert warnings[0].startswith(f"sonde mpiio: warning: {option} has no effect here: it ")
    if where:
        assert where in warnings[0]
