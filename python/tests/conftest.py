# SPDX-License-Identifier: BSD-3-Clause
"""Records as the C writer produces them (docs/results-schema.md), for the loader and schema
tests."""

import json

import pytest
from golden import campaign, golden, io500_campaign  # noqa: F401  (records the binary wrote)

RUN_ID = "20261122T060000Z-1234"


def header(run_id=RUN_ID, workload="ior"):
    return {
        "type": "header", "schema_version": 1, "run_id": run_id, "workload": workload,
        "sonde_version": "0.1.0", "git_describe": "v0.1.0-3-gabcdef0",
        "command_line": ["sonde", workload, "-w", "-r"], "mpi_library": "Open MPI v4.1.4",
        "mpi_version": "3.1", "ranks": 2, "nodes": 1, "tasks_per_node": 2,
        "hostnames": ["node1"], "slurm": None, "start_time": "2026-11-22T06:00:00Z",
        "params": {"transfer_size": 1048576, "api": "POSIX"},
        "filesystem": {"path": "/tmp/f", "type": "ext4", "mount": "/", "total_bytes": 1 << 34,
                       "free_bytes": 1 << 33, "parallel": False},
    }


def measurement(run_id=RUN_ID, workload="ior", phase="write", iteration=0, seconds=0.5):
    return {
        "type": "measurement", "run_id": run_id, "workload": workload, "phase": phase,
        "iteration": iteration, "bytes": 8 << 20, "seconds": seconds,
        "bandwidth_mib_s": 8 / seconds, "ops": 8, "ops_per_s": 8 / seconds,
        "per_rank": {"n": 2, "min": 0.4, "min_rank": 1, "max": seconds, "max_rank": 0,
                     "mean": 0.45, "stddev": 0.05},
        "latency": {"count": 8, "p50": 0.05, "p90": 0.06, "p99": 0.07, "max": 0.07,
                    "mean": 0.055, "histogram_log2_ns": [0] * 25 + [8] + [0] * 22},
        "verify": {"checked": True, "errors": 0, "bytes_checked": 8 << 20},
        "params": {"transfer_size": 1048576, "segments": {"count": 4}},
        "extra": {"stonewall_seconds": None},
    }


def end(run_id=RUN_ID, workload="ior", measurements=2):
    return {"type": "end", "run_id": run_id, "workload": workload, "exit_code": 0,
            "reason": "ok", "elapsed_seconds": 1.25, "measurements": measurements}


def summary(run_id=RUN_ID, workload="ior"):
    return {"type": "summary", "run_id": run_id, "workload": workload,
            "phase": "write", "bw_max_mib_s": 20.0}


def profile(run_id=RUN_ID, workload="mib"):
    return {"type": "profile", "run_id": run_id, "workload": workload, "rank": 0,
            "start": [0.0, 0.1], "seconds": [0.1, 0.1]}


def jsonl(records):
    return "".join(json.dumps(r) + "\n" for r in records)


@pytest.fixture
def one_run():
    return [header(), measurement(), measurement(phase="read", seconds=0.25), summary(), end()]
