# SPDX-License-Identifier: BSD-3-Clause
"""The manifest of a sonde-suite run directory, RUN_DIR/manifest.json: the suite, the launcher
and every launch with its status (sonde.campaign.runner writes it as the campaign goes).

It is read here only, with one policy for every reader: a directory is a suite run directory
when it holds a manifest.json that reads as a sonde-suite manifest (a list of launches with
their ids). A reader that looks whether a directory is one (the loader, for the runs of a
results file two levels down; sonde-report, for its sources) takes anything else as no suite
run (find() gives None): a stray manifest.json of another program breaks nothing. A reader that
is given a run directory (resume, IO500's scoring after the run) gets the reason it is not one
(load() raises ManifestError naming the file)."""

import json
import os
from pathlib import Path

MANIFEST = "manifest.json"


class ManifestError(ValueError):
    """A manifest.json that cannot be read, or is not a sonde-suite manifest."""


class Manifest:
    def __init__(self, run_dir, data):
        self.run_dir = Path(run_dir)
        self.data = data

    @classmethod
    def load(cls, run_dir):
        """The manifest of run_dir; raises ManifestError when there is none to read."""
        path = Path(run_dir) / MANIFEST
        try:
            data = json.loads(path.read_text())
        except OSError as e:
            raise ManifestError(f"{path}: cannot read: {e.strerror}") from None
        except ValueError as e:
            raise ManifestError(f"{path}: not a sonde-suite manifest: {e}") from None
        launches = data.get("launches") if isinstance(data, dict) else None
        if not isinstance(launches, list) or not all(
                isinstance(e, dict) and isinstance(e.get("id"), str) for e in launches):
            raise ManifestError(f"{path}: not a sonde-suite manifest: no list of launches "
                                "with their ids")
        return cls(run_dir, data)

    @classmethod
    def find(cls, run_dir):
        """The manifest of run_dir, None when it is not a suite run directory (no manifest, or
        one that load() refuses)."""
        try:
            return cls.load(run_dir)
        except ManifestError:
            return None

    def save(self):
        tmp = self.run_dir / (MANIFEST + ".tmp")
        tmp.write_text(json.dumps(self.data, indent=1) + "\n")
        os.replace(tmp, self.run_dir / MANIFEST)

    @property
    def path(self):
        return self.run_dir / MANIFEST

    def entry(self, launch_id):
        for e in self.data["launches"]:
            if e["id"] == launch_id:
                return e
        raise KeyError(launch_id)

    def entries(self):
        """{launch id: its entry} of every launch."""
        return {e["id"]: e for e in self.data["launches"]}


def holds_run(run_dir):
    """Whether run_dir holds a manifest.json, readable or not: a run was started there, and a
    new one must not write over it."""
    return (Path(run_dir) / MANIFEST).exists()
