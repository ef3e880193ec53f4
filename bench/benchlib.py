"""What bench cases share: the run context, result rows, medians, tool runners."""

import functools
import json
import os
import shutil
import statistics
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from sonde.placement import mpirun_for

REPO = Path(__file__).resolve().parents[1]


class BenchError(RuntimeError):
    """A case that could not run (a tool missing, a run that failed)."""


_SUFFIX = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def size_from_env(name, default, unit):
    """A size from environment variable name (k/m/g/t suffixes), a positive multiple of unit."""
    text = os.environ.get(name, default).strip().lower()
    mult = _SUFFIX.get(text[-1:], 1)
    digits = text[:-1] if text[-1:] in _SUFFIX else text
    if not digits.isdigit() or int(digits) * mult < unit or int(digits) * mult % unit:
        raise BenchError(f"{name}={text}: need a multiple of {unit} bytes")
    return int(digits) * mult


def mpi_env():
    """Open MPI as root, oversubscribed, over shared memory and TCP; a rank waiting in a
    barrier or collective yields its core instead of spinning, so on a small machine it does not
    slow the rank still working (fio's jobs never spin)."""
    env = dict(os.environ)
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_btl="self,vader,tcp",
               OMPI_MCA_mpi_yield_when_idle="1")
    return env


@functools.cache
def mpirun(sonde):
    """The launcher for the sonde binary and the programs built with it (bench/):
    $SONDE_BENCH_MPIRUN, else the one of the MPI it is built with (sonde.placement.mpirun_for)."""
    return os.environ.get("SONDE_BENCH_MPIRUN") or mpirun_for(str(sonde))


@dataclass
class Context:
    build: Path  # the CMake build directory holding sonde and bench/ programs
    repeats: int  # measured rounds per case
    warmup: int  # rounds run first and discarded

    def program(self, name):
        p = self.build / "bench" / name
        if not p.exists():
            raise BenchError(f"{p} is missing: build first (make build)")
        return p

    def sonde(self):
        p = self.build / "sonde"
        if not p.exists():
            raise BenchError(f"{p} is missing: build first (make build)")
        return p

    def rounds(self):
        """(round index, measured?) for every round, warm-up rounds first."""
        return [(i, i >= self.warmup) for i in range(self.warmup + self.repeats)]


@dataclass
class Row:
    """One comparison: samples of sonde and of a reference tool for one variant of a case."""

    case: str
    variant: str
    unit: str
    reference: str  # the tool sonde is compared with ("fio")
    target: float  # the lowest acceptable ratio median(sonde) / median(reference)
    sonde: list = field(default_factory=list)
    ref: list = field(default_factory=list)

    @property
    def sonde_median(self):
        return statistics.median(self.sonde)

    @property
    def ref_median(self):
        return statistics.median(self.ref)

    @property
    def ratio(self):
        return self.sonde_median / self.ref_median

    @property
    def passed(self):
        return self.ratio >= self.target

    def as_dict(self):
        return {
            "case": self.case, "variant": self.variant, "unit": self.unit,
            "reference": self.reference, "target": self.target,
            "sonde_median": self.sonde_median, "ref_median": self.ref_median,
            "ratio": self.ratio, "passed": self.passed,
            "sonde_samples": self.sonde, "ref_samples": self.ref,
        }


def run_mpi(launcher, ranks, argv, what):
    """Runs argv on ranks processes under launcher (mpi_env); returns its standard output."""
    cmd = [str(launcher), "-n", str(ranks)] + [str(a) for a in argv]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=mpi_env())
    if proc.returncode != 0:
        raise BenchError(f"{what} failed ({proc.returncode}): {' '.join(cmd)}\n"
                         f"{proc.stderr.strip()[-500:]}")
    return proc.stdout


def run_json(argv, what):
    """Runs a program that prints one JSON document; returns it parsed."""
    proc = subprocess.run([str(a) for a in argv], capture_output=True, text=True)
    if proc.returncode != 0:
        raise BenchError(f"{what} failed ({proc.returncode}): {' '.join(map(str, argv))}\n"
                         f"{proc.stderr.strip()}")
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError as e:
        raise BenchError(f"{what} printed no JSON: {proc.stdout[:200]!r}") from e


def fio_path():
    fio = shutil.which("fio")
    if not fio:
        raise BenchError("fio is not installed (make setup installs it)")
    return fio


def fs_type(path):
    """The file-system type of path from /proc/self/mounts (longest matching mount point)."""
    path = os.path.realpath(path)
    best, kind = "", "unknown"
    with open("/proc/self/mounts") as f:
        for line in f:
            _, mount, fstype = line.split()[:3]
            mount = mount.replace("\\040", " ")
            inside = path == mount or path.startswith(mount.rstrip("/") + "/")
            if inside and len(mount) >= len(best):
                best, kind = mount, fstype
    return kind


def remove(*paths):
    for p in paths:
        try:
            os.unlink(p)
        except FileNotFoundError:
            pass


def scratch_places(free_bytes, disk=True):
    """Where cases write: tmpfs (SONDE_BENCH_SHM_DIR, /dev/shm) and, when disk, a disk
    directory (SONDE_BENCH_DISK_DIR, /var/tmp); each must exist with free_bytes free."""
    places = [os.environ.get("SONDE_BENCH_SHM_DIR", "/dev/shm")]
    if disk:
        places.append(os.environ.get("SONDE_BENCH_DISK_DIR", "/var/tmp"))
    for place in places:
        if not os.path.isdir(place):
            raise BenchError(f"{place} is not a directory")
        if shutil.disk_usage(place).free < free_bytes:
            raise BenchError(f"{place}: less than {free_bytes >> 20} MiB free")
    return places
