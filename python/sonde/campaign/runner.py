# SPDX-License-Identifier: BSD-3-Clause
"""Running a suite: one launch per step combination, each kept under the run directory with
its command line, stdout, stderr and JSON results, and a manifest that says what ran, what
failed and why, so that an interrupted campaign can be resumed.

    RUN_DIR/manifest.json          suite, launcher, every launch with its status
                                   (sonde.results.manifest)
    RUN_DIR/<launch id>/command.txt, stdout.txt, stderr.txt, results.jsonl
    RUN_DIR/summary.csv            one row per launch and phase, with the rules' verdict
    RUN_DIR/ior-table.csv          the IOR README's result table, when the suite runs IOR
"""

import dataclasses
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from ..results.manifest import Manifest
from . import suitefile


def now_iso():
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def file_digest(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def slurm_allocation():
    """Nodes and tasks of the Slurm allocation this runs in, or None outside one."""
    if "SLURM_JOB_ID" not in os.environ:
        return None
    return {"job_id": os.environ["SLURM_JOB_ID"],
            "nodes": int(os.environ.get("SLURM_JOB_NUM_NODES", os.environ.get("SLURM_NNODES",
                                                                               "1"))),
            "nodelist": os.environ.get("SLURM_JOB_NODELIST", "")}


def new_manifest(run_dir, suite, launcher, sonde_bin):
    """launcher: a placement.Launcher."""
    data = {
        "suite": str(Path(suite.path).resolve()),
        "suite_name": suite.name,
        "suite_sha256": file_digest(suite.path),
        "scale": suite.scale,
        "reduced_scale": suite.reduced_scale,
        "score": suite.score,
        "launcher": launcher.name,
        "placement": launcher.as_dict(),
        "settings": suite.settings,
        "sonde": sonde_bin,
        "slurm": slurm_allocation(),
        "created": now_iso(),
        "status": "running",
        "launches": [
            {"id": ln.id, "step": ln.step, "workload": ln.workload, "variant": ln.variant,
             "params": ln.params, "swept": list(ln.swept), "repetition": ln.repetition,
             "ranks": ln.ranks,
             "nodes": ln.nodes, "tasks_per_node": ln.tasks_per_node, "status": "pending",
             "command": None, "exit_code": None, "started": None, "finished": None,
             "seconds": None, "reason": None}
            for ln in suite.launches
        ],
    }
    return Manifest(run_dir, data)


def _fmt_duration(s):
    s = int(round(s))
    return f"{s // 3600:d}:{s // 60 % 60:02d}:{s % 60:02d}"


class Interrupted(Exception):
    pass


def run_launches(suite, manifest, launcher, sonde_bin, out=sys.stderr, echo=None):
    """Runs every launch not yet done with launcher (a placement.Launcher);
    returns the number that failed. echo: a stream that gets each launch's own output (the
    workload's human tables) after it ends."""
    todo = [ln for ln in suite.launches if manifest.entry(ln.id)["status"] != "ok"]
    total = len(suite.launches)
    done_before = total - len(todo)
    durations = [e["seconds"] for e in manifest.data["launches"] if e["status"] == "ok"
                 and e["seconds"] is not None]
    started = time.monotonic()
    failed = 0
    for k, ln in enumerate(todo):
        entry = manifest.entry(ln.id)
        ldir = manifest.run_dir / ln.id
        if ldir.exists():
            shutil.rmtree(ldir)  # a retried launch starts from nothing, never mixes results
        ldir.mkdir(parents=True)
        ln = with_run_dir(ln, manifest.run_dir)
        for d in ln.mkdir:
            Path(d).mkdir(parents=True, exist_ok=True)
        if ln.touch:
            if not _touch_step(ln, entry, manifest, out, done_before + k + 1, total):
                failed += 1
            continue
        results = ldir / "results.jsonl"
        cmd = launcher.command(ln, sonde_bin, results)
        (ldir / "command.txt").write_text(" ".join(cmd) + "\n")
        remaining = len(todo) - k
        eta = ""
        if durations:
            eta = f", about {_fmt_duration(sum(durations) / len(durations) * remaining)} left"
        print(f"[{done_before + k + 1}/{total}] {ln.id} (elapsed "
              f"{_fmt_duration(time.monotonic() - started)}{eta})", file=out, flush=True)
        entry.update(status="running", command=cmd, started=now_iso(), finished=None,
                     exit_code=None, reason=None)
        manifest.save()
        t0 = time.monotonic()
        with open(ldir / "stdout.txt", "w") as so, open(ldir / "stderr.txt", "w") as se:
            proc = subprocess.Popen(cmd, stdout=so, stderr=se, start_new_session=True)
            try:
                code = proc.wait(timeout=ln.timeout)
                reason = None if code == 0 else _last_error(ldir / "stderr.txt", code)
            except subprocess.TimeoutExpired:
                _stop(proc)
                code, reason = proc.returncode, f"timed out after {ln.timeout:.0f} s"
            except KeyboardInterrupt:
                _stop(proc)
                entry.update(status="interrupted", exit_code=proc.returncode,
                             finished=now_iso(), seconds=time.monotonic() - t0,
                             reason="interrupted by the user")
                manifest.data["status"] = "interrupted"
                manifest.save()
                raise Interrupted() from None
        seconds = time.monotonic() - t0
        if echo is not None:
            echo.write(f"\n=== {ln.id}: {' '.join(cmd)}\n")
            echo.write((ldir / "stdout.txt").read_text(errors="replace"))
            echo.flush()
        ok = code == 0
        entry.update(status="ok" if ok else "failed", exit_code=code, finished=now_iso(),
                     seconds=seconds, reason=reason)
        manifest.save()
        if ok:
            durations.append(seconds)
        else:
            failed += 1
            print(f"    failed: {reason}", file=out, flush=True)
    manifest.data["status"] = "complete" if failed == 0 else "failed"
    manifest.save()
    return failed


def with_run_dir(launch, run_dir):
    """The launch with the {run_dir} placeholder of its arguments, directories and files
    replaced by the run directory."""
    def resolve(texts):
        return [str(t).replace(suitefile.RUN_DIR, str(run_dir)) for t in texts]

    return dataclasses.replace(launch, args=resolve(launch.args), mkdir=resolve(launch.mkdir),
                               touch=resolve(launch.touch))


def _touch_step(ln, entry, manifest, out, number, total):
    """A step that makes (or refreshes the times of) files, IO500's timestamp: the manifest
    records when. Returns whether it succeeded."""
    print(f"[{number}/{total}] {ln.id} (touch)", file=out, flush=True)
    entry.update(status="running", command=["touch"] + ln.touch, started=now_iso(),
                 finished=None, exit_code=None, reason=None)
    try:
        for p in ln.touch:
            Path(p).touch()
            os.utime(p)
    except OSError as e:
        entry.update(status="failed", exit_code=1, finished=now_iso(),
                     reason=f"touch {e.filename}: {e.strerror}")
        print(f"    failed: {entry['reason']}", file=out, flush=True)
    else:
        entry.update(status="ok", exit_code=0, finished=now_iso(), seconds=0.0)
    manifest.save()
    return entry["status"] == "ok"


def _stop(proc):
    """SIGTERM to the launcher's process group (sonde saves its results), then SIGKILL."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=15)
    except ProcessLookupError:
        pass
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def _last_error(stderr_path, code):
    lines = [ln.strip() for ln in Path(stderr_path).read_text(errors="replace").splitlines()
             if ln.strip()]
    errors = [ln for ln in lines if "error" in ln.lower()]
    pick = errors[0] if errors else (lines[-1] if lines else "")
    return f"exit code {code}" + (f": {pick}" if pick else "")
