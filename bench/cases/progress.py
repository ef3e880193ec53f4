# SPDX-License-Identifier: BSD-3-Clause
"""--progress costs the timed loop a decrement per transfer and a clock read every stride transfers
(about one a millisecond; src/core/progress.h), and, four times a second, a line drawn on the
terminal: sonde ior with --progress against the same command without it, both started under
script(1), so that the ranks have a terminal and the live line is really drawn.

ior hard on /dev/shm, where a transfer costs least and the check weighs most: 2 ranks, one shared
file, 4 KiB transfers, 64 MiB per rank written and read over and over for
SONDE_BENCH_PROGRESS_SECONDS (default 3) by minTimeDuration (`-w -r -t 4k -b 4k -s 16384 -O
minTimeDuration=S`), long enough for the line to be drawn about ten times per phase while the
files stay small. The figure is bytes over the record's wrrd_s (the transfers). The target is
0.95, the margin of every row where sonde does the same work as its reference: 0.98 was finer
than this machine resolves (equal runs' intervals are 4-21 % wide here, bench/README.md), and
the regression it was to catch, a clock read at every transfer (3 %), fails
tests/unit/test_progress.c, which checks the reads are strided. Knobs: SONDE_BENCH_SHM_DIR,
SONDE_BENCH_MPIRUN."""

import os
import shlex
import shutil

from benchlib import BenchError, ior_hard_option_rows

TARGET = 0.95


def on_terminal(argv):
    """argv run by script(1): stdin, stdout and stderr on a new pseudo-terminal."""
    if shutil.which("script") is None:
        raise BenchError("the progress case needs script(1) (util-linux)")
    return ["script", "-qfec", shlex.join(str(a) for a in argv), "/dev/null"]


class Progress:
    name = "progress"
    description = "sonde ior hard (4 KiB, shared file) with --progress on a terminal vs without"

    def run(self, ctx):
        seconds = int(os.environ.get("SONDE_BENCH_PROGRESS_SECONDS", "1" if ctx.smoke else "3"))
        return ior_hard_option_rows(ctx, self, seconds, ["--progress"], "without --progress",
                                    TARGET, wrap=on_terminal)


CASES = [Progress()]
