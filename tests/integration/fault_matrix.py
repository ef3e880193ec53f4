# SPDX-License-Identifier: BSD-3-Clause
"""The fault matrix: every workload x every I/O path x every fault, as data.

Each cell is one launch and one expected Outcome (expect()). test_fault_matrix.py runs the
cells and asserts their outcomes; docs/reliability.md carries the tables this module prints
(`python tests/integration/fault_matrix.py --write docs/reliability.md` rewrites them, and
test_reliability_page_lists_the_matrix fails when the page and this module disagree).

In the arguments, {d} is the directory the run works in (on a 1 MiB tmpfs for the disk-full
column), and {x} a directory of the test's own beside it (results, counters, target lists)."""

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

# How each fault is injected, in the order of the columns.
FAULTS = {
    "disk full": "a 1 MiB tmpfs of the test's own (`mount -t tmpfs -o size=1m`; skipped with "
                 "the reason where mount is refused) and a run that writes more than it holds",
    "file removed": "a run that writes, then reads back; the file goes while it runs, at the "
                    "moment each cell names",
    "directory removed": "as a removed file, the run's directory (`{d}/sub`) instead",
    "rank killed": "the ranks are stopped (SIGSTOP) as the header is written, the others go "
                   "on (SIGCONT), then rank 1 gets SIGKILL",
    "SIGTERM": "the ranks are stopped as the header is written, every rank gets SIGTERM, as "
               "from a Slurm time limit, and they go on",
}
# The MPICH leg runs these columns only (make test-mpich).
MPICH_FAULTS = ("disk full", "rank killed")

# When a removal happens: while the run waits between its write and its read (ior -d 1,
# mpiio -sleep 1), once the write record is on disk; during the write, with the ranks stopped
# meanwhile (mib and btio have no pause); or by the workload's own hook before its second phase
# (mdtest --run-cmd-before-phase).
AFTER_WRITE = "after the write record, while the run waits before the read"
DURING_WRITE = "during the write, once data is in the file (the ranks stopped meanwhile)"
HOOK = "by the workload's hook before its second phase"

# mdtest's hook: on rank 0, before the second phase, removes {target}.
HOOK_CMD = ('[ "${{OMPI_COMM_WORLD_RANK:-$PMI_RANK}}" = 0 ] || exit 0; '
            "n=$(cat {x}/phases 2>/dev/null || echo 0); n=$((n+1)); echo $n > {x}/phases; "
            "[ $n = 2 ] && rm -rf {target}; exit 0")

NO_SPACE = "No space left on device"
MISSING = "No such file or directory|does not exist|No file:"


@dataclass(frozen=True)
class Outcome:
    """What a cell asserts. exit None: non-zero, whatever the launcher makes of it; reason
    None: no end record. error: the words of the one error line, which names `named` (a path
    template); None: no error line of sonde's own. phases: the measurement records (phase
    names) the run keeps before the fault, each with its rate printed; None: as many as
    finished before the fault, as the end record counts them."""
    exit: object
    reason: object
    error: object = None
    named: str = ""
    phases: object = ()
    rated: object = None  # rate lines printed, when not one per phase kept
    note: str = ""
    end_exit: object = None  # the end record's exit_code, when not the launcher's

    def text(self):
        parts = [f"exit {self.exit if self.exit is not None else 'non-zero'}",
                 f"end `{self.reason}`" if self.reason else "no end record"]
        if self.end_exit is not None:
            parts[1] += f" with exit_code {self.end_exit}"
        if self.error:
            what = "ENOSPC" if self.error == NO_SPACE else "ENOENT"
            parts.append(f"one line naming `{self.named}`, {what}")
        if self.phases is None:
            parts.append("the measurements before it kept and counted")
        else:
            parts.append("kept: " + (", ".join(self.phases) if self.phases else "header only"))
        return "; ".join(parts) + (f" ({self.note})" if self.note else "")


@dataclass
class IoPath:
    name: str
    np: int
    full: list  # writes more than a 1 MiB file system holds
    rw: list  # writes, then reads back, with a moment to remove something in between
    file: str  # the file the "file removed" column removes
    removal: str  # AFTER_WRITE, DURING_WRITE or HOOK
    rates: str  # a rate line of the workload's human output (regex)
    full_named: str = "{d}/f"  # the file the disk-full error names
    kept: tuple = ("write",)  # phases done when a removal is noticed
    rated: object = None  # rate lines printed by then, when not one per phase kept
    first: str = "write"  # the phase the disk-full column fails
    full_kept: tuple = ()  # phases done when the disk is full
    pnetcdf: bool = False
    hdf5: bool = False  # parallel HDF5: Debian has none for MPICH
    removal_note: str = ""
    not_applicable: dict = field(default_factory=dict)  # fault -> why the cell has no run
    # sonde mix: the group the fault hits (its records are the cell's; the other groups' runs
    # must end ok), 0 for a workload alone
    mix_group: int = 0
    written: str = '"type":"measurement"'  # in the results once the write is recorded
    # in the results once the run is under way (every rank's stop handler in place): the
    # rank-killed and SIGTERM columns stop the ranks then
    headers: tuple = ('"type":"header"',)
    stop_note: str = ""  # what the rank-killed and SIGTERM cells add to their outcome
    # a run too quick to stop by watching its results (find's walk takes milliseconds): held at
    # its first directory of {d} (tests/integration/preload/gated_walk.c) in the columns that
    # stop the ranks after the header, so the fault lands while it is under way, not after
    # its end record, where Open MPI's launcher makes a stopped MPI_Finalize exit status 1
    held: bool = False
    # DURING_WRITE: the files that must all hold more than data_bytes before the removal
    # (every rank past its create and writing), when not only `file`
    data_files: tuple = ()
    data_bytes: int = 0


def _ior(api_args, name):
    return IoPath(
        name=name, np=2, hdf5="HDF5" in api_args, pnetcdf="NCMPI" in api_args,
        full=["ior", *api_args, "-w", "-t", "64k", "-b", "1m", "-o", "{d}/f"],
        rw=["ior", *api_args, "-w", "-r", "-k", "-d", 1, "-t", "64k", "-b", "256k", "-o",
            "{d}/sub/f"],
        file="{d}/sub/f", removal=AFTER_WRITE, rates=r"^(write|read)\s+\d")


def _mix():
    """ior POSIX as group 1 (2 ranks) of a mix whose group 2 (mdtest, 1 rank) works elsewhere."""
    other = ["--group", "1:", "mdtest", "-n", 4, "-F", "-d", "{x}/md"]
    return IoPath(
        name="mix: ior POSIX as group 1", np=3,
        full=["mix", "--group", "2:", "ior", "-w", "-t", "64k", "-b", "1m", "-o", "{d}/f",
              *other],
        rw=["mix", "--group", "2:", "ior", "-w", "-r", "-k", "-d", 1, "-t", "64k", "-b", "256k",
            "-o", "{d}/sub/f", *other],
        file="{d}/sub/f", removal=AFTER_WRITE, rates=r"^(write|read)\s+\d", mix_group=1,
        written='"workload":"ior","group":1,"phase":"write"',
        headers=('"workload":"ior","group":1,"schema_version"',
                 '"workload":"mdtest","group":2,"schema_version"'),
        removal_note="the read cannot open the file; group 2 (mdtest) runs to its end",
        stop_note="group 1's records; group 2's run ends `ok` or as group 1's (a killed rank: "
                  "or `signal`, only world rank 0 looks for the rank that ended); the mix's own "
                  "run: its header, written before the groups run, no overlaps (they come at "
                  "its end), and, where group 1's end record is written, its end record with "
                  "the same reason and exit code; the report shows an incomplete mix")


def _mpiio(type_, collective):
    extra = ["-collective"] if collective else []
    target = {1: ["-target", "{d}/sub/f.%r"], 2: ["-target", "{d}/sub/f"],
              3: ["-num_io", 2, "-target", "{d}/sub/f.%r"],
              4: ["-num_io", 2, "-target", "{d}/sub/f.%r"],
              5: ["-num_io", 2, "-targets", "{x}/targets"]}[type_]
    full_target = [a.replace("/sub/", "/") if isinstance(a, str) else a for a in target]
    removed = {1: "f.1", 2: "f", 3: "f.2", 4: "f.0", 5: "t.1"}[type_]
    return IoPath(
        name=f"mpiio type {type_}{' collective' if collective else ''}",
        np=4 if type_ in (3, 4) else 2,
        full=["mpiio", "-type", type_, *extra, "-nobj", 48, "-size", "64K", *full_target],
        rw=["mpiio", "-type", type_, *extra, "-nobj", 4, "-size", "64K", "-sleep", 1,
            *target],
        file="{d}/sub/" + removed, removal=AFTER_WRITE, rates=r"^=== (Write|Read) Bandwidth",
        full_named="{d}/" + {1: "f.", 2: "f", 3: "f.", 4: "f.", 5: "t."}[type_])


def _train(fmt):
    """sonde train's dataset generation and epochs: npy files through POSIX, or DLIO's HDF5
    files through HDF5's sec2 driver."""
    format_args = [] if fmt == "npy" else ["--format", fmt]
    return IoPath(
        name="train" if fmt == "npy" else f"train {fmt}", np=2, hdf5=fmt == "hdf5",
        full=["train", "-d", "{d}", "--generate", *format_args, "--num-files", 4,
              "--record-size", "512k"],
        rw=["train", "-d", "{d}/sub", "--generate", "--train", *format_args, "--num-files", 2,
            "--record-size", "32m"],
        file=f"{{d}}/sub/train/img_1_of_2.{fmt}", removal=DURING_WRITE,
        # each rank writes one of the two files; HDF5 writes its superblock at create, so a
        # file holds data once it is past a header's size
        data_files=tuple(f"{{d}}/sub/train/img_{i}_of_2.{fmt}" for i in range(2)),
        data_bytes=64 << 10,
        rates=r"^(generate|epoch \d+|train):", full_named="{d}/train/img_",
        kept=("generate",), first="generate", written='"phase":"generate"',
        removal_note="the generation goes on into the unlinked file (an open file outlives "
                     "its name), is rated and recorded; the look at the dataset before the first "
                     "epoch finds the file missing")


def _train_checkpoint(shared):
    """sonde train's checkpoint-only mode: each rank's shard files, or one MPI-IO shared file."""
    extra = ["--checkpoint-shared-file"] if shared else []
    name = "checkpoint" if shared else "layer-0-shard-"
    return IoPath(
        name=f"train checkpoint{' shared file' if shared else ''}", np=2,
        full=["train", "-d", "{d}", "--checkpoint-folder", "{d}/ckpt", "--model-size", "4m",
              "--checkpoint-type", "all_ranks", "--checkpoint-writes", 1, *extra],
        rw=["train", "-d", "{d}/sub", "--checkpoint-folder", "{d}/sub/ckpt", "--model-size",
            "128m", "--checkpoint-type", "all_ranks", "--checkpoint-writes", 1,
            "--checkpoint-reads", 1, *extra],
        file="{d}/sub/ckpt/checkpoint-0/" + (name if shared else name + "1"),
        removal=DURING_WRITE, rates=r"^checkpoint \d+ (write|read):",
        full_named="{d}/ckpt/checkpoint-0/" + name, kept=("checkpoint-write",),
        first="checkpoint write", written='"phase":"checkpoint-write"',
        removal_note="the write goes on into the unlinked file (an open file outlives its "
                     "name), is rated and recorded; the read cannot open the file")


def _btio(method):
    name = "btio.nc" if method >= 2 else "btio.mpi"
    return IoPath(
        name=f"btio method {method}", np=4,
        full=["btio", "--mode", "w", "--method", method, "--dumps", 4, "--grid", "32x32x32",
              "--dir", "{d}"],
        rw=["btio", "--mode", "rw", "--method", method, "--dumps", 400, "--grid", "8x8x8",
            "--dir", "{d}/sub"],
        file="{d}/sub/" + name, removal=DURING_WRITE, rates=r"I/O bandwidth",
        full_named="{d}/" + name, pnetcdf=method >= 2,
        removal_note="the write goes on into the unlinked file (an open file outlives its "
                     "name), is rated and recorded; the read cannot open the file")


PATHS = [
    _ior([], "ior POSIX"),
    _ior(["-a", "MPIIO"], "ior MPI-IO independent"),
    _ior(["-a", "MPIIO", "-c"], "ior MPI-IO collective"),
    _ior(["-a", "HDF5"], "ior HDF5 independent"),
    _ior(["-a", "HDF5", "-c"], "ior HDF5 collective"),
    _ior(["-a", "NCMPI"], "ior NCMPI independent"),
    _ior(["-a", "NCMPI", "-c"], "ior NCMPI collective"),
    _ior(["-a", "MMAP"], "ior MMAP"),
    IoPath(
        name="mib", np=2,
        full=["mib", "-F", "-t", "{d}", "-s", "64k", "-l", 40],
        rw=["mib", "-F", "-t", "{d}/sub", "-s", 16, "-l", 10**9, "-L", 1],
        file="{d}/sub/mibData.00000001", removal=DURING_WRITE, rated=0,
        rates=r"^\w{3} \w{3} .*\d+\.\d+\s+\d+\.\d+$", full_named="{d}/mibData.",
        removal_note="the write goes on into the unlinked file for its time limit (-L 1) and "
                     "is recorded; mib prints its rates at the end, so none is printed; the "
                     "read cannot open the file"),
    *[_train(fmt) for fmt in ("npy", "hdf5")],
    *[_train_checkpoint(shared) for shared in (False, True)],
    *[_mpiio(t, c) for t in (1, 2, 3, 4, 5) for c in (False, True)],
    *[_btio(m) for m in (0, 1, 2, 3)],
    IoPath(
        name="mdtest", np=2,
        full=["mdtest", "-n", 40, "-F", "-w", 65536, "-d", "{d}/md"],
        rw=["mdtest", "-n", 4, "-F", "-w", 100, "-e", 100, "-p", 1, "-d", "{d}/sub",
            "--run-cmd-before-phase", HOOK_CMD],
        file="{d}/sub/test-dir.0-0/mdtest_tree.0/file.mdtest.1.0", removal=HOOK,
        rates=r"^\s+File (creation|stat|read|removal)\s+\d", full_named="{d}/md/",
        first="file creation", full_kept=("tree-create",), kept=("tree-create", "file-create"),
        rated=0,
        removal_note="mdtest prints its table at the end, so none is printed"),
    _mix(),
    IoPath(
        name="find", np=2, full=[], rw=["find", "{d}/sub", "-name", "*1*", "-C"], file="",
        removal="", rates=r"^\[DONE\]", held=True,
        not_applicable={
            "disk full": "find writes nothing",
            "file removed": "find reads no data; an entry removed during its walk is the "
                            "directory column",
            "directory removed": "not injected: a walk lasts milliseconds, and an entry removed "
                                 "before or after it is no fault; find counts vanished entries "
                                 "and fails the run (docs/workloads/find.md)",
        }),
]


def expect(path, fault, open_mpi=True):
    """The outcome of one cell under Open MPI (open_mpi) or MPICH; None: not run there."""
    if fault in path.not_applicable or (not open_mpi and fault not in MPICH_FAULTS):
        return None
    if not open_mpi and (path.pnetcdf or path.hdf5):
        return None
    if fault == "disk full":
        return Outcome(1, "io-error", NO_SPACE, path.full_named, path.full_kept, path.rated,
                       note=f"the {path.first} fails")
    if fault in ("file removed", "directory removed"):
        named = path.file if fault == "file removed" else "{d}/sub"
        return Outcome(1, "io-error", MISSING, named, path.kept, path.rated,
                       note=f"removed {path.removal}; " + (path.removal_note or
                                                      "the read cannot open the file"))
    more = f"; {path.stop_note}" if path.stop_note else ""
    if fault == "rank killed":
        if open_mpi:
            return Outcome(137, "peer-failed", phases=None, end_exit=1,
                           note="mpirun exits with the killed rank's status and sends SIGTERM "
                                "to the others; rank 0's end record names rank 1" + more)
        return Outcome(None, None, phases=None,
                       note="Hydra ends the others with SIGKILL: no end record can be written"
                            + more)
    return Outcome(4, "signal", phases=None,
                   note="`signal: SIGTERM`; nothing written after it" + more)


def cell(path, fault):
    """The page's text for one cell: the outcome under Open MPI, and under MPICH where that
    leg runs it (or why not)."""
    if fault in path.not_applicable:
        return "n/a: " + path.not_applicable[fault]
    ompi, mpich = expect(path, fault, True), expect(path, fault, False)
    text = ompi.text()
    if fault not in MPICH_FAULTS:
        return text + " [Open MPI]"
    if mpich is None:
        missing = "parallel HDF5" if path.hdf5 else "PnetCDF"
        return text + f" [Open MPI; MPICH: no {missing} in build-mpich]"
    if mpich == ompi:
        return text + " [Open MPI, MPICH]"
    return f"{text} [Open MPI]; {mpich.text()} [MPICH]"


BEGIN = "<!-- fault matrix: generated by tests/integration/fault_matrix.py; do not edit -->"
END = "<!-- end of the fault matrix -->"


def markdown():
    lines = [BEGIN, ""]
    for fault, how in FAULTS.items():
        lines += [f"### {fault}", "", f"Injected: {how}.", "", "| I/O path | outcome |",
                  "| --- | --- |"]
        lines += [f"| {p.name} | {cell(p, fault)} |" for p in PATHS]
        lines.append("")
    lines.append(END)
    return "\n".join(lines) + "\n"


def section(text):
    """The generated part of a page (None when the page has none)."""
    m = re.search(re.escape(BEGIN) + r".*?" + re.escape(END) + r"\n", text, re.S)
    return m.group(0) if m else None


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--write":
        page = Path(sys.argv[2])
        text = page.read_text()
        old = section(text)
        if old is None:
            sys.exit(f"{page} has no fault matrix section ({BEGIN})")
        page.write_text(text.replace(old, markdown()))
    else:
        sys.stdout.write(markdown())
