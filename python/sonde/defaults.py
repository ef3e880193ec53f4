# SPDX-License-Identifier: BSD-3-Clause
"""The defaults of a workload's parameters as the sonde binary sets them, for the rule
fixed_parameters (every parameter outside the seed's tables must be at its default). Read from
the binary itself, never copied into Python.

`sonde --parse-only` (a top-level mode that prints the params a command line gives, without a
run) will make this one call: switch binary_defaults to sonde.argcheck.parse(sonde, workload,
[], 1, 1) when it is merged.
"""

import json
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path

from .names import IOR, Header

# sonde ior refuses a run that neither writes nor reads, so no one run shows every default:
# each probe sets a few parameters (named here), and a parameter's default is its value in a
# probe that does not set it. The dry runs move no data; the third writes 8 bytes.
_IOR_PROBES = (
    (["--dryRun", "-w"], {IOR.DRY_RUN, IOR.WRITE_FILE}),
    (["--dryRun", "-r"], {IOR.DRY_RUN, IOR.READ_FILE}),
    (["-w", "-b", "8", "-t", "8"], {IOR.WRITE_FILE, IOR.BLOCK_SIZE, IOR.TRANSFER_SIZE}),
)


@cache
def binary_defaults(sonde, workload):
    """The parameters of workload as the binary sets them when no option is given (a dict),
    read from the header params of small runs of the binary itself, one process each.
    Switch to sonde.argcheck.parse(sonde, workload, [], 1, 1) when `sonde --parse-only`
    is merged: one call, no run."""
    if workload != IOR.workload:
        raise ValueError(f"no probe for the defaults of {workload}")
    exe = shutil.which(sonde)
    if exe is None:
        raise ValueError(f"{sonde}: no such program")
    exe = str(Path(exe).resolve())  # the probes run in a directory of their own
    defaults = {}
    with tempfile.TemporaryDirectory(prefix="sonde-defaults-") as tmp:
        for i, (args, sets) in enumerate(_IOR_PROBES):
            out = Path(tmp) / f"probe{i}.jsonl"
            proc = subprocess.run([exe, workload, *args, "--json", str(out)], cwd=tmp,
                                  capture_output=True, text=True, timeout=120)
            if proc.returncode != 0:
                why = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
                raise ValueError(f"{sonde} {workload} {' '.join(args)}: {why}")
            header = json.loads(out.read_text().splitlines()[0])
            for key, value in header[Header.PARAMS].items():
                if key not in sets:
                    defaults.setdefault(key, value)
    return defaults
