# SPDX-License-Identifier: BSD-3-Clause
"""The manifest of a sonde-suite run directory, RUN_DIR/manifest.json: the suite, the launcher
and every launch with its status (sonde.campaign.runner writes it as the campaign goes).

It is read here only, with one policy for every reader: a directory without a manifest.json is
not a suite run directory (find() gives None); a manifest.json that cannot be read or is not a
sonde-suite manifest is an error naming the file (ManifestError), whoever reads it."""

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
        """The manifest of run_dir, None when the directory holds no manifest.json (it is not
        a suite run directory); raises ManifestError when the one there cannot be read."""
        if not (Path(run_dir) / MANIFEST).exists():
            return None
        return cls.load(run_dir)

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
    """Whether run_dir holds a manifest, a suite run (started, resumed or done) already."""
    return (Path(run_dir) / MANIFEST).exists()
