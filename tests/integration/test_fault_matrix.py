# SPDX-License-Identifier: BSD-3-Clause
"""The fault matrix (fault_matrix.py): every workload x every I/O path x {disk full, file
removed, directory removed, rank killed, SIGTERM}, each cell one launch with asserted outcome:
the exit code, no hang (the run ends within BOUND seconds of the fault), one error line naming
the path, the end record's reason, every record before it whole and schema-valid, and no rate
printed for the failed phase, each as fault_matrix.expect() says for the cell, which is what
docs/reliability.md lists (test_reliability_page_lists_the_matrix). The MPICH leg (make
test-mpich) runs the disk-full and rank-killed columns, the ASan leg the disk-full and
file-removed ones. EIO from a device-mapper error target: test_eio_from_a_failing_device, where
the machine has device-mapper. Marked fault_matrix, so a leg can leave them out (-m).

Where every rank leaves by itself (an I/O error, or SIGTERM to every rank), Open MPI's
launcher kills what is left of the job without its default second of grace, as in every test
(conftest.mpi_env): that makes the cell stricter, since a rank that left before rank 0 wrote
the end record would take rank 0 with it. The rank-killed column keeps the grace
(SIGNAL_GRACE): there the launcher's SIGTERM is what makes rank 0 write its end record."""

import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from bounded import kill_session
from conftest import OPEN_MPI, REPO, SIGNAL_GRACE, launch_command, mpi_env, read_jsonl
from fault_matrix import (
    AFTER_WRITE,
    DURING_WRITE,
    FAULTS,
    HOOK,
    HOOK_CMD,
    MPICH_FAULTS,
    PATHS,
    expect,
    markdown,
    section,
)
from faultlib import (
    Watch,
    error_lines,
    mount_tmpfs,
    rank_pid,
    sonde_ranks,
    umount,
    wait_gone,
)
from preload import build_shim, preload_env
from sonde import report
from sonde import results as sonde_results

pytestmark = pytest.mark.fault_matrix

ASAN = "asan" in os.environ.get("SONDE_BIN", "")
# A fault must end the run within this many seconds (the bound is 15); the sanitized
# build runs several times slower, beside two other legs of make test, so it gets three times that.
BOUND = 45 if ASAN else 15

CELLS = [(p, f) for p in PATHS for f in FAULTS if f not in p.not_applicable]


def _argv(args, d, x, target=""):
    out = []
    for a in args:
        a = str(a)
        if a == HOOK_CMD:
            out.append(HOOK_CMD.format(x=x, target=target or f"{x}/nothing"))
        else:
            out.append(a.format(d=d, x=x))
    return out


def _with_json(path, argv, results):
    """The run's command line with --json: a mix's own option, before its groups."""
    if path.mix_group:
        return argv[:1] + ["--json", results] + argv[1:]
    return argv + ["--json", results]


def _prepare(path, d, x, sub=True):
    """The directories and inputs a run needs: {d}/sub, mpiio's -targets list, find's tree,
    train's folder and its first checkpoint's (which the run would make, watched for its files
    before)."""
    x.mkdir(exist_ok=True)
    where = d / "sub" if sub else d
    where.mkdir(parents=True, exist_ok=True)
    (x / "targets").write_text(f"{where}/t.0\n{where}/t.1\n")
    if path.name in ("train", "train hdf5"):
        (where / "train").mkdir(exist_ok=True)
    if path.name.startswith("train checkpoint"):
        (where / "ckpt" / "checkpoint-0").mkdir(parents=True, exist_ok=True)
    if path.name == "find":
        # A small tree: the walk is held at its first directory (path.held) until the fault,
        # so its size makes no difference to the cell; 10,000 files took 2-22 s to create on
        # the disk of a loaded CI machine, in each of find's cells.
        for i in range(10):
            (where / f"d{i}").mkdir()
            for k in range(10):
                (where / f"d{i}" / f"f{k}").touch()


def _skip_without_pnetcdf(stderr):
    if "needs PnetCDF" in stderr:
        pytest.skip("this sonde was built without PnetCDF (methods 2 and 3)")
    if "I/O backend NCMPI is not in this build" in stderr:
        pytest.skip("this sonde was built without PnetCDF")
    if "I/O backend HDF5 is not in this build" in stderr:
        pytest.skip("this sonde was built without parallel HDF5")


class Run:
    """One launch in a session of its own; whatever is left of it goes at the end."""

    def __init__(self, np_, argv, fault, extra_env=None):
        env = mpi_env(dict(SIGNAL_GRACE if fault == "rank killed" else {}, **(extra_env or {})))
        self.proc = subprocess.Popen(launch_command(np_, argv), env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, start_new_session=True)
        self.np = np_
        self.pids = []

    def ranks(self):
        pids = sonde_ranks(self.proc.pid)
        self.pids = pids if len(pids) >= self.np else []
        return self.pids

    def finish(self):
        """rc, stdout, stderr and the ranks' pids, once the launcher ended (within BOUND s)."""
        try:
            out, err = self.proc.communicate(timeout=BOUND)
        except subprocess.TimeoutExpired:
            kill_session(self.proc, 0)
            out, err = self.proc.communicate()
            raise AssertionError(f"the run did not end within {BOUND} s of the fault:\n"
                                 f"{out[-3000:]}\n{err[-3000:]}") from None
        return self.proc.returncode, out, err, self.pids

    def kill(self):
        if self.proc.poll() is None:
            kill_session(self.proc, 0)
            self.proc.communicate()


# How often to look for the ranks: each look scans /proc (6 ms of CPU, 29 ms of wall time at
# load 10, measured), and every 2 ms it kept a core busy while the launch it waited for started.
# The ranks exist from their exec, hundreds of milliseconds before MPI_Init ends and any I/O.
RANKS_EVERY = 0.02


def _wait(cond, run, what, limit=60, watch=None, every=0.002):
    """Waits until cond() is true: woken by the watch (inotify) when there is one, else looking
    every `every` seconds."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        got = cond()
        if got:
            return got
        if run.proc.poll() is not None:
            _, err = run.proc.communicate()
            _skip_without_pnetcdf(err)
            raise AssertionError(f"the run ended before {what}: {err[-2000:]}")
        if watch:
            watch.wait(0.05)
        else:
            time.sleep(every)
    raise AssertionError(f"no {what} within {limit} s")


def _has(results, text):
    try:
        return text in results.read_text()
    except OSError:
        return False


def _signal_all(pids, sig):
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


@pytest.mark.parametrize("path,fault", CELLS, ids=[f"{p.name}|{f}" for p, f in CELLS])
def test_cell(path, fault, tmp_path):
    want = expect(path, fault, OPEN_MPI)
    if want is None:
        pytest.skip(f"the MPICH leg runs the {' and '.join(MPICH_FAULTS)} columns"
                    if fault not in MPICH_FAULTS else "build-mpich has no PnetCDF or parallel HDF5")
    if ASAN and fault not in ("disk full", "file removed"):
        pytest.skip("the ASan leg runs the columns that take the error paths in sonde's code")
    x = tmp_path / "x"
    results = x / "r.jsonl"
    if fault == "disk full":
        d = mount_tmpfs("1m", "the disk-full column")
        try:
            _prepare(path, d, x, sub=False)
            run = Run(path.np, _with_json(path, _argv(path.full, d, x), results), fault)
            got = run.finish()  # the whole run, fault included, within the bound
        finally:
            umount(d)
    else:
        d = tmp_path / "d"
        _prepare(path, d, x)
        if fault in ("file removed", "directory removed"):
            got = _removed(path, fault, d, x, results)
        else:
            got = _stopped(path, fault, d, x, results)
    _check(path, want, d, results, *got)


def _check(path, want, d, results, rc, out, err, pids):
    """Asserts the outcome: the exit code, the error line, the end record, the records and
    rates kept, and nothing written once every rank is gone."""
    _skip_without_pnetcdf(err)
    if want.exit is None:
        assert rc != 0, err
    else:
        assert rc == want.exit, err
    lines = error_lines(err)
    if want.error:
        (e,) = lines
        assert want.named.format(d=d) in e and re.search(want.error, e, re.I), e
    text = results.read_text()
    records = read_jsonl(results)  # every line whole and schema-valid
    if path.mix_group:
        records = _mix_group(path, records, rc, want)
        _mix_report(results, want)
    assert records and records[0]["type"] == "header"
    ends = [r for r in records if r["type"] == "end"]
    measured = [r["phase"] for r in records if r["type"] == "measurement"]
    if want.reason is None:
        assert not ends, ends
    else:
        (end,) = ends
        assert records[-1] is end and end["reason"] == want.reason, end
        assert end["exit_code"] == (want.exit if want.end_exit is None else want.end_exit), end
        assert end["measurements"] == len(measured), end
        if want.error:
            assert end["path"].startswith(str(d)) and re.search(want.error, end["error"], re.I)
        if want.reason == "peer-failed":
            assert end["rank"] == 1 and "rank 1 ended (killed or failed)" in err, end
        if want.reason == "signal":
            assert end["signal"] == "SIGTERM" and "stopped by SIGTERM" in err, end
    rates = re.findall(path.rates, out, re.M)
    if want.phases is not None:
        assert measured == list(want.phases), measured
        assert len(rates) == (len(want.phases) if want.rated is None else want.rated), out
    else:
        assert len(rates) <= len(measured), out  # no rate without its record
    wait_gone(pids, BOUND)
    assert results.read_text() == text  # nothing written after the end


def _mix_group(path, records, rc, want):
    """A mix: every other group's run ended ok with its records (where the fault hits the whole
    launch, a signal or a killed rank, ok or as the faulty group's (for a killed rank also
    "signal"), or without an end record where that has none), the mix's own run (_mix_run);
    the records of the group the fault hit, for the cell's checks."""
    runs = {}
    for r in records:
        runs.setdefault(r["run_id"], []).append(r)
    whole_launch = want.reason in ("peer-failed", "signal", None)
    # the mix's header comes first: written before any group runs
    assert (records[0]["type"], records[0]["workload"]) == ("header", "mix"), records[0]
    mine = []
    for run in runs.values():
        if run[0]["workload"] == "mix":
            _mix_run(run, rc, want)
        elif run[0].get("group") == path.mix_group:
            mine = run
        else:
            assert run[0]["type"] == "header", run[0]
            if whole_launch and want.reason is None and run[-1]["type"] != "end":
                continue
            reasons = ("ok", want.reason) if whole_launch else ("ok",)
            if want.reason == "peer-failed":
                # Only world rank 0 looks for the rank on its node that ended (src/core/stop.h):
                # another group's leader, stopped by the launcher's same SIGTERM, names it.
                reasons += ("signal",)
            assert run[-1]["type"] == "end" and run[-1]["reason"] in reasons, run[-1]
    return mine


def _mix_run(run, rc, want):
    """The mix's own run: a header, then its end record with the launch's exit code; where the
    whole launch was stopped (a signal, a killed rank), the end record says so as the faulty
    group's does (the reason, the signal or the rank), or is missing where that group's is,
    and no overlap is claimed."""
    assert run[0]["type"] == "header", run[0]
    if want.reason in ("peer-failed", "signal"):
        assert [r["type"] for r in run] == ["header", "end"], run
        end = run[-1]
        assert end["reason"] == want.reason and end["measurements"] == 0, end
        assert end["exit_code"] == (want.exit if want.end_exit is None else want.end_exit), end
        if want.reason == "peer-failed":
            assert end["rank"] == 1, end
        else:
            assert end["signal"] == "SIGTERM", end
    elif want.reason is None:
        assert [r["type"] for r in run] == ["header"], run
    else:
        assert run[-1]["type"] == "end" and run[-1]["exit_code"] == rc, run[-1]


def _mix_report(results, want):
    """sonde-report on the launch's file: a mix stopped early is shown as incomplete, each
    group's run with how it ended (group 1's as the fault made it end), and no overlap."""
    runs = sonde_results.load(results, validate=True)
    (section,) = [s for s in report.build([str(results)], runs).sections if s.id == "mix"]
    ids = [t.id.rsplit("-", 1)[0] for t in section.tables]
    if want.reason not in ("peer-failed", "signal", None):
        assert ids == ["mix-interference"], ids
        return
    assert ids == ["mix-incomplete"], ids
    (table,) = section.tables
    group1 = next(row for row in table.rows if row[0].text == "group 1")
    assert group1[4].text == (want.reason or sonde_results.Run.KILLED), group1[4]
    said = {"signal": "stopped by SIGTERM", "peer-failed": "rank 1 died or failed",
            None: sonde_results.Run.KILLED}[want.reason]
    assert f"The mix ended early: {said}" in table.note, table.note


def _removed(path, fault, d, x, results):
    target = Path((path.file if fault == "file removed" else "{d}/sub").format(d=d))
    run = Run(path.np, _with_json(path, _argv(path.rw, d, x, target), results), fault)
    try:
        if path.removal == AFTER_WRITE:
            _wait(run.ranks, run, "the ranks", every=RANKS_EVERY)
            _wait(lambda: _has(results, path.written), run, "the write record")
            _remove(target)
        elif path.removal == DURING_WRITE:
            # Data in the file: every rank is past the (collective) open. A file removed
            # during Open MPI's MPI_File_open can hang OMPIO (docs/reliability.md).
            data = [Path(f.format(d=d)) for f in path.data_files or (path.file,)]
            pids = _wait(run.ranks, run, "the ranks", every=RANKS_EVERY)
            watch = Watch(data[0].parent)
            try:
                _wait(lambda: all(_size(f) > path.data_bytes for f in data), run,
                      "data in the files", watch=watch)
            finally:
                watch.close()
            _signal_all(pids, signal.SIGSTOP)
            _remove(target)
            _signal_all(pids, signal.SIGCONT)
        else:
            assert path.removal == HOOK
            _wait(run.ranks, run, "the ranks", every=RANKS_EVERY)
        return run.finish()
    finally:
        run.kill()


def _size(path):
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _remove(target):
    if target.is_dir():
        subprocess.run(["rm", "-rf", str(target)], check=True)
    else:
        target.unlink()


def _stopped(path, fault, d, x, results):
    """The ranks are stopped right after the header (the run is under way and cannot end
    meanwhile), the fault is injected, and they go on: rank 1 is killed, or every rank gets
    SIGTERM (as Slurm's time limit does; test_signals.py sends it to the launcher, which
    passes it on, in runs long enough for that)."""
    watch = Watch(x)
    held = {}
    if path.held:  # never let through: the fault lands while the walk waits
        held = preload_env(build_shim("gated_walk", x), {"SONDE_TEST_GATE_DIR": str(d),
                                                         "SONDE_TEST_GATE": str(x / "gate")})
    run = Run(path.np, _with_json(path, _argv(path.rw, d, x), results), fault, held)
    try:
        # before the header: they exist already
        pids = _wait(run.ranks, run, "the ranks", every=RANKS_EVERY)
        _wait(lambda: all(_has(results, h) for h in path.headers), run, "the header",
              watch=watch)
        _signal_all(pids, signal.SIGSTOP)
        if fault == "rank killed":
            victim = rank_pid(run.proc.pid, 1)
            assert victim in pids
            # The others go on before rank 1 dies. Open MPI's mpirun then sends them SIGCONT,
            # SIGTERM and SIGKILL with its grace between, a sleep that any SIGCHLD cuts short:
            # had they still been stopped, its SIGCONT would have woken them, each wake a
            # SIGCHLD, and SIGKILL came 0.2 ms after SIGTERM, before rank 0 wrote its end
            # record (seen in CI: 1 cell in about 60; the kernel's signal trace showed it).
            _signal_all([p for p in pids if p != victim], signal.SIGCONT)
            os.kill(victim, signal.SIGKILL)
        else:
            _signal_all(pids, signal.SIGTERM)
            _signal_all(pids, signal.SIGCONT)
        return run.finish()
    finally:
        run.kill()
        watch.close()


def test_reliability_page_lists_the_matrix():
    page = (REPO / "docs" / "reliability.md").read_text()
    assert section(page) == markdown(), (
        "docs/reliability.md and tests/integration/fault_matrix.py disagree: run "
        "python tests/integration/fault_matrix.py --write docs/reliability.md")


def _device_mapper():
    for tool in ("dmsetup", "losetup", "mkfs.ext2"):
        if not shutil.which(tool):
            pytest.skip(f"{tool} is not installed (Debian: dmsetup, mount, e2fsprogs)")
    try:
        with open("/proc/misc") as f:
            has_dm = any(line.split()[-1] == "device-mapper" for line in f if line.strip())
    except OSError:
        has_dm = False
    if not has_dm:
        pytest.skip("the kernel has no device-mapper (none in /proc/misc): no EIO from a dm "
                    "error target here")
    if subprocess.run(["dmsetup", "version"], capture_output=True, check=False).returncode:
        pytest.skip("dmsetup cannot talk to the kernel's device-mapper")


EIO_RUNS = [
    (["ior", "-w", "-k", "-t", "64k", "-b", "256k", "-o", "{d}/f"],
     ["ior", "-r", "-t", "64k", "-b", "256k", "-o", "{d}/f"], "{d}/f"),
    (["ior", "-a", "MPIIO", "-w", "-k", "-t", "64k", "-b", "256k", "-o", "{d}/f"],
     ["ior", "-a", "MPIIO", "-r", "-t", "64k", "-b", "256k", "-o", "{d}/f"], "{d}/f"),
    # the page fault of the mapping is SIGBUS: the backend's handler makes it this error
    (["ior", "-a", "MMAP", "-w", "-k", "-t", "64k", "-b", "256k", "-o", "{d}/f"],
     ["ior", "-a", "MMAP", "-r", "-t", "64k", "-b", "256k", "-o", "{d}/f"], "{d}/f"),
    (["mib", "-F", "-t", "{d}", "-s", "64k", "-l", 8, "-W"],
     ["mib", "-F", "-t", "{d}", "-s", "64k", "-l", 8, "-R"], "{d}/mibData"),
    (["mpiio", "-type", 2, "-nobj", 8, "-size", "64K", "-target", "{d}/f", "-op", "write"],
     ["mpiio", "-type", 2, "-nobj", 8, "-size", "64K", "-target", "{d}/f", "-op", "read"],
     "{d}/f"),
]


@pytest.mark.parametrize("write,read,named", EIO_RUNS, ids=lambda a: " ".join(map(str, a[:3]))
                         if isinstance(a, list) else None)
def test_eio_from_a_failing_device(tmp_path, write, read, named):
    """A file system on a loop device through a device-mapper table: written while the table
    maps the device, read after the table was swapped for an `error` target (every sector
    fails with EIO) and the caches dropped. Exit 1, one line naming the file and EIO."""
    if not OPEN_MPI:
        pytest.skip("the MPICH leg runs the disk-full and kill rows")
    _device_mapper()
    image, mnt, dm = tmp_path / "image", tmp_path / "mnt", f"sonde-eio-{os.getpid()}"
    with open(image, "wb") as f:
        f.truncate(64 << 20)
    loop = subprocess.run(["losetup", "-f", "--show", str(image)], capture_output=True,
                          text=True, check=True).stdout.strip()
    sectors = (64 << 20) // 512
    try:
        subprocess.run(["dmsetup", "create", dm, "--table", f"0 {sectors} linear {loop} 0"],
                       check=True, capture_output=True)
        subprocess.run(["mkfs.ext2", "-q", f"/dev/mapper/{dm}"], check=True, capture_output=True)
        mnt.mkdir()
        subprocess.run(["mount", "-o", "errors=continue", f"/dev/mapper/{dm}", str(mnt)],
                       check=True, capture_output=True)
        try:
            w = launch_command(2, [str(a).format(d=mnt) for a in write])
            subprocess.run(w, env=mpi_env(), check=True, capture_output=True, timeout=120)
            subprocess.run(["sync"], check=True)
            for step in (["suspend", dm], ["load", dm, "--table", f"0 {sectors} error"],
                         ["resume", dm]):
                subprocess.run(["dmsetup", *step], check=True, capture_output=True)
            Path("/proc/sys/vm/drop_caches").write_text("3\n")
            results = tmp_path / "r.jsonl"
            r = launch_command(2, [str(a).format(d=mnt) for a in read] + ["--json", results])
            out = subprocess.run(r, env=mpi_env(), capture_output=True, text=True,
                                 timeout=120, check=False)
            assert out.returncode == 1, out.stderr
            (e,) = error_lines(out.stderr)
            assert named.format(d=mnt) in e and "Input/output error" in e, e
            assert read_jsonl(results)[-1]["reason"] == "io-error"
        finally:
            subprocess.run(["umount", "-l", str(mnt)], capture_output=True, check=False)
    finally:
        subprocess.run(["dmsetup", "remove", "--force", dm], capture_output=True, check=False)
        subprocess.run(["losetup", "-d", loop], capture_output=True, check=False)
