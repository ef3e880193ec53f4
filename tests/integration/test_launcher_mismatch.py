# SPDX-License-Identifier: BSD-3-Clause
"""A launcher of the other MPI is refused, not run as N independent singletons. Not a "once"
module: the Open MPI leg tests MPICH's launcher on the Open MPI build, the MPICH leg the
reverse."""

import os

import pytest
from bounded import run_bounded
from conftest import MPIRUN, OPEN_MPI, SONDE, mpi_env

# The other MPI's launcher: in the Open MPI leg MPICH's, in the MPICH leg Open MPI's, so the
# mismatch is tested both ways across the two legs of make test.
OTHER_LAUNCHER = "/usr/bin/mpiexec.mpich" if OPEN_MPI else "/usr/bin/mpiexec.openmpi"


@pytest.mark.skipif(not os.path.exists(OTHER_LAUNCHER), reason=f"no {OTHER_LAUNCHER}")
def test_the_other_mpis_launcher_is_refused(tmp_path):
    """Started by a launcher of the other MPI, every process of this binary is an MPI singleton:
    two 1-rank jobs writing the same file, each exiting 0. The launcher's own variables say it
    started 2 processes; sonde refuses before any I/O, once, naming the launcher that fits."""
    target = tmp_path / "f"
    cmd = [OTHER_LAUNCHER, "-n", "2", SONDE, "ior", "-w", "-b", "64k", "-t", "64k", "-o",
           str(target), "--json", str(tmp_path / "r.jsonl")]
    proc = run_bounded(cmd, env=mpi_env(), capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("sonde: error:")]
    assert len(lines) == 1, proc.stderr
    assert "started 2 processes, but each runs alone" in lines[0]
    library = "(Open MPI v" if OPEN_MPI else "(MPICH Version"
    assert library in lines[0] and lines[0].split("launch it with ")[1].startswith(MPIRUN)
    assert not target.exists() and not (tmp_path / "r.jsonl").exists()


def test_a_singleton_outside_any_launcher_runs(tmp_path):
    """No launcher variables (a batch script's SLURM_NTASKS is not one): a plain 1-rank run."""
    env = {k: v for k, v in mpi_env().items()
           if not k.startswith(("OMPI_COMM_WORLD", "PMI_", "PMIX_", "SLURM_"))}
    env["SLURM_NTASKS"] = "4"
    proc = run_bounded([SONDE, "ior", "-w", "-b", "64k", "-t", "64k", "-o",
                           str(tmp_path / "f")], env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
