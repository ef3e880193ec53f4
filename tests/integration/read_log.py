# SPDX-License-Identifier: BSD-3-Clause
"""The logs of the LD_PRELOAD shim preload/logged_read.c: each process writes its reads of the
dataset's files to <base>.<its own suffix>, one line a call: path, offset, length, seconds (the
call's time on the shim's clock), in the order the calls ended."""

import os


def logged_reads(base):
    """{suffix: [(path, offset, length, seconds), ...]}, one entry a process's log."""
    folder, stem = os.path.split(base)
    logs = {}
    for name in os.listdir(folder):
        if name.startswith(stem + "."):
            with open(os.path.join(folder, name)) as f:
                logs[name[len(stem) + 1:]] = [(p, int(o), int(n), float(t))
                                              for p, o, n, t in (ln.split() for ln in f)]
    return logs


def read_logs(base):
    """Each process's logged reads, the logs in the order of their names."""
    return [calls for _, calls in sorted(logged_reads(base).items())]
