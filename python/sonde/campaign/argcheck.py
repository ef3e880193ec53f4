# SPDX-License-Identifier: BSD-3-Clause
"""How the sonde binary reads a command line, asked of the binary itself.

`sonde --parse-only RANKS TASKS_PER_NODE WORKLOAD ARGS...` parses and checks ARGS with the
workload's own code, as a launch of RANKS ranks with TASKS_PER_NODE per node would, without MPI
and without I/O, and prints the params the run's header record would hold. This module is the
only way Python learns what a command line means to the binary: there is no second parser
here, and a check the binary does not make is not made here either. Which workloads the
binary has, and the parameters of each, it says too (`sonde --describe-options`, workloads).
"""

import json
import subprocess
from functools import cache

from ..results import names

# A parse is one process without MPI: seconds would mean something is wrong.
TIMEOUT = 60
EXIT_USAGE = 2


class Refused(Exception):
    """The binary refused the command line; the message is its own error line."""


def parse(sonde_binary, workload, args, ranks, tasks_per_node):
    """The params of the header record a launch of workload with args on ranks ranks,
    tasks_per_node per node, would write, as the binary parses them. Raises Refused with the
    binary's error line when it refuses the command line (and when the binary cannot be run)."""
    cmd = [str(sonde_binary), "--parse-only", str(ranks), str(tasks_per_node), workload,
           *(str(a) for a in args)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise Refused(f"cannot run {sonde_binary} --parse-only: {e}") from None
    errors = [ln for ln in proc.stderr.splitlines() if ": error: " in ln]
    if proc.returncode != 0:
        lines = errors or proc.stderr.strip().splitlines() or [f"exit code {proc.returncode}"]
        if proc.returncode != EXIT_USAGE:
            lines = [f"{sonde_binary} --parse-only exited {proc.returncode}: {lines[-1]}"]
        raise Refused(lines[0])
    try:
        answer = json.loads(proc.stdout)
        return answer["params"]
    except (json.JSONDecodeError, KeyError, TypeError):
        raise Refused(f"{sonde_binary} --parse-only printed no params (is it a sonde without "
                      "--parse-only?)") from None


@cache
def _description(sonde_binary):
    """The binary's answer to `sonde --describe-options`, checked; Refused naming the binary
    when it cannot be asked."""
    cmd = [str(sonde_binary), "--describe-options"]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise Refused(f"cannot run {sonde_binary} --describe-options: {e}") from None
    try:
        if proc.returncode != 0:
            raise ValueError(f"exit code {proc.returncode}")
        answer = json.loads(proc.stdout)
        names.workloads(answer)  # every workload's description is one sonde can read
        return {"workloads": {w["workload"]: w["params"] for w in answer["workloads"]},
                "backends": [b["name"] for b in answer["backends"] if b["missing"] is None]}
    except (ValueError, KeyError, TypeError) as e:  # JSONDecodeError is a ValueError
        raise Refused(f"{sonde_binary} --describe-options described no workloads ({e}; is it "
                      "a sonde without --describe-options?)") from None


@cache
def described(sonde_binary):
    """{workload: [parameter]} as the binary describes its option tables: each parameter
    {"name", "type", "options" (its command-line spellings), "path" (its value names a file or
    directory)}. Raises Refused naming the binary when it cannot be asked."""
    return _description(sonde_binary)["workloads"]


def backends(sonde_binary):
    """The storage backends (-a) the binary can use (those its build has the library for)."""
    return _description(sonde_binary)["backends"]


@cache
def workloads(sonde_binary):
    """{workload: sonde.results.names Params class} of the workloads the binary has, as it
    describes them: a workload without a class of its own in sonde.results.names gets one made
    from its option table. Raises Refused as described does."""
    return names.workloads({"workloads": [{"workload": w, "params": p}
                                          for w, p in described(sonde_binary).items()]})


def path_params(sonde_binary):
    """{workload: frozenset of the parameters whose value names a file or directory}."""
    return {w: frozenset(p["name"] for p in params if p.get("path"))
            for w, params in described(sonde_binary).items()}


def api_params(sonde_binary, workload, api):
    """{parameter: its spellings} of the workload's options that belong to backend api: those
    spelled --<api>.<name> (IO500's rule for an API's own options: the prefix, without case)."""
    prefix = f"--{api.lower()}."
    out = {}
    for p in described(sonde_binary).get(workload, []):
        own = [o for o in p.get("options", []) if o.lower().startswith(prefix)]
        if own:
            out[p["name"]] = own
    return out
