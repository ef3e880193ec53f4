# SPDX-License-Identifier: BSD-3-Clause
"""sonde ior on every backend but POSIX (the binary names them: `sonde --describe-options`; MPIIO,
HDF5, NCMPI, MMAP today) against IOR itself on the same command line, 2 ranks, on tmpfs, rows per
backend and file layout.

IOR is not part of sonde: SONDE_BENCH_IOR names an IOR binary (github.com/hpc/ior: ./bootstrap
&& ./configure --with-mmap --with-hdf5 --with-ncmpi && make; no Debian package). Without it the
case has no rows and says so on its line (make bench runs without an IOR); a backend this
sonde (its description names the library it lacks) or that IOR was built without gets no rows,
with a line naming which one lacks it.

Both tools run `-a API -w -r -e -t 1m -b SIZE -s 1` (SONDE_BENCH_IOR_BACKENDS bytes per rank,
default 256m) on a shared file and, where IOR has one for the backend, a file per process (-F;
IOR's NCMPI has none). The figure is each tool's own bandwidth, bw(MiB/s) of its Results row
(IOR's bandwidth: the bytes over the phase's open to close, -e's flush in, the same formula on
both sides), read from the text both print. Target 0.97: the same calls on both sides
(tests/integration/test_ior_mmap.py, test_ior_hdf5.py, test_ior_ncmpi.py), so only the loops
around them differ.

Knobs: SONDE_BENCH_IOR, SONDE_BENCH_IOR_BACKENDS, SONDE_BENCH_SHM_DIR, SONDE_BENCH_MPIRUN."""

import json
import os
import re
import subprocess
from functools import partial

from benchlib import (
    BenchError,
    Row,
    command,
    mpi_env,
    mpirun,
    scratch_places,
    size_from_env,
)

MIB = 1 << 20
RANKS = 2
TARGET = 0.97
# The backends IOR writes no file per process with.
IOR_SHARED_ONLY = {"NCMPI"}
ROW = re.compile(r"^(write|read)\s+(\d+\.\d+)\s", re.MULTILINE)
# What each tool says when it was built without a backend: sonde's one line on standard error,
# IOR's on standard output.
LACKS = re.compile(r"I/O backend \w+ is not in this build|Unrecognized I/O API")


class Lacking(Exception):
    """A backend one of the tools was built without: its rows are left out, with this line."""


def ior_path():
    """The IOR binary, None when SONDE_BENCH_IOR is not set; an error when it names none."""
    ior = os.environ.get("SONDE_BENCH_IOR")
    if ior and not os.access(ior, os.X_OK):
        raise BenchError(f"SONDE_BENCH_IOR={ior} is no executable IOR")
    return ior


def backends(sonde):
    """[(backend, what this sonde lacks for it or None)] of every backend but POSIX, as the
    binary describes them."""
    proc = subprocess.run([str(sonde), "--describe-options"], check=False, capture_output=True,
                          text=True, timeout=60)
    try:
        described = json.loads(proc.stdout)["backends"]
    except (json.JSONDecodeError, KeyError) as e:
        raise BenchError(f"{sonde} --describe-options named no backends ({e})") from None
    return [(b["name"], b["missing"]) for b in described if b["name"] != "POSIX"]


def bandwidths(launcher, argv, what, api):
    """{phase: (MiB/s of its Results row, command line)} of argv run on RANKS ranks."""
    cmd = command([launcher, "-n", RANKS, *argv])
    proc = subprocess.run([str(a) for a in [launcher, "-n", RANKS, *argv]],
                          check=False, capture_output=True, text=True, env=mpi_env())
    out = proc.stdout
    if proc.returncode != 0:
        said = LACKS.search(out + proc.stderr)
        if said:
            raise Lacking(f"{what} has no {api} backend ({said.group(0)})")
        raise BenchError(f"{what} failed ({proc.returncode}): {cmd}\n"
                         f"{(out + proc.stderr).strip()[-500:]}")
    if "ERROR" in out or "WARNING: Incorrect" in out:
        raise BenchError(f"{what} reported an error: {cmd}\n{out[-2000:]}")
    rates = {}
    for phase, bw in ROW.findall(out):
        rates.setdefault(phase, float(bw))  # the Results row comes before the summary's
    if set(rates) != {"write", "read"}:
        raise BenchError(f"{what}: no write and read rows in its output: {cmd}\n{out[-500:]}")
    return {phase: (bw, cmd) for phase, bw in rates.items()}


class IorBackends:
    name = "ior_backends"
    description = "sonde ior on every backend but POSIX vs IOR on the same command, 2 ranks, tmpfs"

    def run(self, ctx):
        ior = ior_path()
        if not ior:
            print(f"bench: {self.name}: no rows: set SONDE_BENCH_IOR to an IOR built with "
                  "--with-mmap --with-hdf5 --with-ncmpi", flush=True)
            return []
        size = size_from_env("SONDE_BENCH_IOR_BACKENDS", "256m", MIB)
        (place,) = scratch_places(3 * RANKS * size, disk=False)
        sonde = ctx.sonde()
        rows = []
        for api, missing in backends(sonde):
            if missing:
                print(f"bench: {self.name}: no {api} rows: this sonde was built without "
                      f"{missing}", flush=True)
                continue
            for layout in [[]] + ([] if api in IOR_SHARED_ONLY else [["-F"]]):
                args = ["-a", api, *layout]
                label = (f"{api} {'file per process' if layout else 'shared'} {{}} {place}, "
                         f"{RANKS} x {size // MIB} MiB, 1 MiB transfers")
                mine = {op: Row(self.name, label.format(op), "MiB/s", f"IOR -a {api}", TARGET)
                        for op in ("write", "read")}
                run = partial(self._run, sonde, args, size)
                try:
                    runs = ctx.fresh_pair(place, partial(run, [sonde, "ior"], "sonde ior"),
                                          partial(run, [ior], "IOR"))
                    ctx.compare(mine, False, runs)
                except Lacking as e:
                    print(f"bench: {self.name}: no {api} rows: {e}", flush=True)
                    break
                rows += mine.values()
        return rows

    @staticmethod
    def _run(sonde, args, size, tool, what, work):
        argv = [*tool, *args, "-w", "-r", "-e", "-t", "1m", "-b", size, "-s", 1, "-o",
                os.path.join(work, "f")]
        return bandwidths(mpirun(sonde), argv, f"{what} {' '.join(args)}", args[1])


CASES = [IorBackends()]
