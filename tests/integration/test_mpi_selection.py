# SPDX-License-Identifier: BSD-3-Clause
"""The builds and launches do not depend on the system's MPI alternatives.

Debian's mpicc, mpirun and mpiexec are alternatives that point to Open MPI or MPICH, as the
machine's owner chose. These tests switch them to MPICH, as `update-alternatives --set` would,
in a private mount namespace (a copy of /etc/alternatives mounted over it, for this test's
processes only: the machine and other processes keep theirs), then check that the Makefile's
build still configures Open MPI by path and that a launch through the launcher the binary names
runs as one MPI job."""

import json
import os
import shlex
import shutil
import subprocess
import sys

import pytest
from conftest import MPIRUN, REPO, SONDE, mpi_env, read_jsonl

ALTERNATIVES = ("mpi", "mpirun", "mpi-x86_64-linux-gnu")

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("update-alternatives")
    or not shutil.which("mpicc.mpich") or not shutil.which("mpicc.openmpi"),
    reason="needs root, unshare, and Debian's Open MPI and MPICH alternatives")


def mpich_links():
    """{link name in /etc/alternatives: target} of the MPICH choice of each group, as
    `update-alternatives --set` would leave them (None: a link that choice has not)."""
    links = {}
    for group in ALTERNATIVES:
        text = subprocess.run(["update-alternatives", "--query", group], capture_output=True,
                              text=True, check=True).stdout
        head, *choices = text.split("\n\n")
        slaves = [ln.split()[0] for ln in head.split("Slaves:\n")[-1].splitlines()
                  if ln.startswith(" ")] if "Slaves:" in head else []
        mpich = [c for c in choices if c.startswith("Alternative:") and "mpich" in c.split()[1]]
        assert mpich, f"no MPICH choice for {group}"
        block = mpich[0].splitlines()
        links[group] = block[0].split(": ", 1)[1]
        own = dict(ln.split() for ln in block if ln.startswith(" "))
        links.update({s: own.get(s) for s in slaves})
    return links


@pytest.fixture(scope="module")
def switched(tmp_path_factory):
    """A command prefix that runs a shell command with the alternatives switched to MPICH."""
    tmp = tmp_path_factory.mktemp("alternatives")
    shutil.copytree("/etc/alternatives", tmp / "alternatives", symlinks=True)
    for name, target in mpich_links().items():
        link = tmp / "alternatives" / name
        link.unlink(missing_ok=True)
        if target:
            link.symlink_to(target)
    setup = f"mount --bind {tmp / 'alternatives'} /etc/alternatives && cd {REPO} && "
    return lambda command: ["unshare", "--mount", "sh", "-ec", setup + command]


def run(argv, **kw):
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=300, **kw)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_the_switch_is_real_and_private(switched):
    before = {g: os.readlink(f"/etc/alternatives/{g}") for g in ALTERNATIVES}
    inside = run(switched("readlink -f /usr/bin/mpicc /usr/bin/mpirun")).split()
    assert inside == ["/usr/bin/mpicc.mpich", os.path.realpath("/usr/bin/mpirun.mpich")]
    assert {g: os.readlink(f"/etc/alternatives/{g}") for g in ALTERNATIVES} == before


def configured(switched, build, flags):
    run(switched(f"cmake -S . -B {build} {flags} -DBUILD_TESTING=OFF >/dev/null"))
    cache = dict(ln.split("=", 1) for ln in (build / "CMakeCache.txt").read_text().splitlines()
                 if "=" in ln and not ln.startswith(("#", "//")))
    return cache["MPI_C_HEADER_DIR:PATH"], cache["MPIEXEC_EXECUTABLE:FILEPATH"]


def test_make_builds_open_mpi_whatever_mpicc_is(switched, tmp_path):
    flags = run(switched('make -s --eval="print-mpi-flags: ; @echo '
                         '\\$(call mpi_flags,\\$(MPICC),\\$(MPIEXEC))" print-mpi-flags')).strip()
    assert flags == ("-DMPI_C_COMPILER=/usr/bin/mpicc.openmpi "
                     "-DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.openmpi")
    headers, launcher = configured(switched, tmp_path / "named", flags)
    assert "openmpi" in headers and launcher == "/usr/bin/mpiexec.openmpi"
    # what the build would have been without the paths: MPICH, the alternatives' choice
    headers, launcher = configured(switched, tmp_path / "unnamed", "")
    assert "mpich" in headers and launcher == "/usr/bin/mpiexec"


def test_launches_use_the_binarys_launcher(switched, tmp_path):
    """The launcher conftest, sonde-suite and bench use is the one `sonde --version` names, and
    with it the ranks form one job (the alternatives' mpirun is the other MPI's here)."""
    env = mpi_env({"PYTHONPATH": str(REPO / "python"), "SONDE_MPIRUN": ""})
    code = f"from sonde.campaign.placement import mpirun_for; print(mpirun_for({SONDE!r}))"
    named = run(switched(shlex.join([sys.executable, "-c", code])), env=env).strip()
    assert named == MPIRUN and named != "mpirun"
    results = tmp_path / "r.jsonl"
    run(switched(shlex.join([named, "-n", "2", SONDE, "coll", "-b", "8", "-e", "8", "-i", "3",
                             "Bcast", "--json", str(results)])), env=env)
    header = read_jsonl(results)[0]
    assert header["ranks"] == 2, json.dumps(header)
