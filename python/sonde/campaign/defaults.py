# SPDX-License-Identifier: BSD-3-Clause
"""The defaults of a workload's parameters as the sonde binary sets them, for the rule
fixed_parameters (every parameter outside the seed's tables must be at its default). Read from
the binary itself (`sonde --parse-only`, argcheck), never copied into Python.
"""

from functools import cache

from ..results.names import IOR
from . import argcheck

# sonde ior refuses a command line that neither writes nor reads, so no one command line shows
# every default: each probe sets a few parameters (named here), and a parameter's default is
# its value in a probe that does not set it. Parsed only: nothing runs.
_IOR_PROBES = (
    (["--dryRun", "-w"], {IOR.DRY_RUN, IOR.WRITE_FILE}),
    (["--dryRun", "-r"], {IOR.DRY_RUN, IOR.READ_FILE}),
    (["-w", "-b", "8", "-t", "8"], {IOR.WRITE_FILE, IOR.BLOCK_SIZE, IOR.TRANSFER_SIZE}),
)


@cache
def binary_defaults(sonde, workload):
    """The parameters of workload as the binary sets them when no option is given (a dict),
    as the binary parses the probes' command lines on one rank."""
    if workload != IOR.workload:
        raise ValueError(f"no probe for the defaults of {workload}")
    defaults = {}
    for args, sets in _IOR_PROBES:
        try:
            params = argcheck.parse(sonde, workload, args, 1, 1)
        except argcheck.Refused as e:
            raise ValueError(f"{sonde} {workload} {' '.join(args)}: {e}") from None
        for key, value in params.items():
            if key not in sets:
                defaults.setdefault(key, value)
    return defaults
