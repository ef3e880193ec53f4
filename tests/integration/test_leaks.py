# SPDX-License-Identifier: BSD-3-Clause
"""Each workload once under LeakSanitizer: the sanitized integration suite runs without leak
checking (complete stacks through Open MPI make every launch ~5x slower), so leaks of sonde's
own are caught here, one small launch per quick-suite step. Runs only with an ASan build
(make test's integration-test-asan sets SONDE_LEAK_CHECK)."""

import os
import sys
from pathlib import Path

import pytest
from bounded import run_bounded
from conftest import REPO, launch_command, mpi_env

sys.path.insert(0, str(REPO / "python"))
from sonde.campaign import suitefile

QUICK = suitefile.load(REPO / "suites" / "quick.toml")
pytestmark = pytest.mark.skipif(os.environ.get("SONDE_LEAK_CHECK") != "1",
                                reason="leak checks run with make test's ASan build")


def run_leak_checked(ranks, args, tmp_path):
    logs = tmp_path / "lsan"
    env = mpi_env({
        "ASAN_OPTIONS": f"detect_leaks=1:fast_unwind_on_malloc=0:log_path={logs}",
        "LSAN_OPTIONS": f"suppressions={REPO / 'tests' / 'lsan.supp'}:print_suppressions=0",
    })
    proc = run_bounded(launch_command(ranks, args), env=env, capture_output=True, text=True,
                       timeout=300)
    reports = [p.read_text() for p in tmp_path.glob("lsan*")]
    assert not reports, "\n".join(reports)[:4000]
    assert proc.returncode == 0, proc.stderr[-3000:]


@pytest.mark.parametrize("launch", QUICK.launches, ids=[ln.id for ln in QUICK.launches])
def test_no_leaks(launch, tmp_path):
    args = [a.replace(QUICK.scratch, str(tmp_path)) for a in launch.args]
    for d in launch.mkdir:
        Path(d.replace(QUICK.scratch, str(tmp_path))).mkdir(parents=True, exist_ok=True)
    run_leak_checked(launch.ranks, [launch.workload] + args, tmp_path)


def test_no_leaks_ior_directives(tmp_path):
    """What the quick suite does not give: ior's -O list (two, so that it grew), and the live
    line of --progress-interval."""
    run_leak_checked(1, ["ior", "-w", "-t", "4k", "-b", "8k", "-O", "minTimeDuration=0",
                         "-O", "stoneWallingWearOut=0", "--progress-interval", "0", "-o",
                         tmp_path / "f"], tmp_path)


def test_no_leaks_mix_of_train_and_ior_hints(tmp_path):
    """What the quick suite has not: sonde mix with --solo (its plan, the groups' command lines
    and placement, the spans and intervals rank 0 collects from each group's leader), train
    (generating, a reader thread, --verify) as one group, and ior's MPI-IO hints shown as the
    other."""
    (tmp_path / "ds").mkdir()
    run_leak_checked(3, ["mix", "--json", tmp_path / "r.jsonl", "--solo", "--interval", "0.05",
                         "--group", "2:", "train", "-d", tmp_path / "ds", "--generate",
                         "--train", "--epochs", 1, "--read-threads", 1, "--num-files", 4,
                         "--samples-per-file", 2, "--record-size", 2000, "--batch-size", 1,
                         "--verify",
                         "--group", "1:", "ior", "-a", "MPIIO", "--mpiio.showHints", "-w", "-r",
                         "-t", "4k", "-b", "16k", "-o", tmp_path / "f"], tmp_path)
