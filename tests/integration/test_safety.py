# SPDX-License-Identifier: BSD-3-Clause
"""Safe file handling: sonde never follows a symbolic link planted where it creates a file, never
creates or removes anything outside its target, removes only the files its run created, appends
to results files, and creates files no one else can write whatever the umask."""

import os
import stat
import subprocess
import sys

import pytest
from conftest import SONDE, launch_command, mpi_env, run_sonde

PRECIOUS = b"the user's own data\n" * 100


def tree(root):
    """{relative path: (kind, size, mtime_ns, link target)} of everything under root."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            link = os.readlink(p) if stat.S_ISLNK(st.st_mode) else None
            # a directory's size and time change when entries come and go; its entries count
            facts = ((stat.S_IFMT(st.st_mode),) if stat.S_ISDIR(st.st_mode) else
                     (stat.S_IFMT(st.st_mode), st.st_size, st.st_mtime_ns, link))
            out[os.path.relpath(p, root)] = facts
    return out


@pytest.fixture
def precious(tmp_path):
    """A file of the user's, outside the benchmark's directory, that links will point at."""
    d = tmp_path / "user"
    d.mkdir()
    f = d / "precious"
    f.write_bytes(PRECIOUS)
    return f


# (name, command with {d} the target directory, the file sonde would create there)
PLANTED = [
    ("ior-shared", ["ior", "-w", "-k", "-t", "8k", "-b", "16k", "-o", "{d}/f"], "f"),
    ("ior-fpp", ["ior", "-w", "-k", "-F", "-t", "8k", "-b", "16k", "-o", "{d}/f"], "f.00000001"),
    ("ior-mpiio", ["ior", "-a", "MPIIO", "-w", "-k", "-t", "8k", "-b", "16k", "-o", "{d}/f"], "f"),
    ("ior-read", ["ior", "-r", "-k", "-t", "8k", "-b", "16k", "-o", "{d}/f"], "f"),
    ("mib-write", ["mib", "-F", "-t", "{d}", "-l", 2, "-s", "4k", "-W"], "mibData.00000001"),
    ("mib-profile", ["mib", "-F", "-t", "{d}", "-l", 2, "-s", "4k", "-W", "-p", "{d}/prof"],
     "prof.write"),
    ("mpiio-shared", ["mpiio", "-type", 2, "-nobj", 2, "-size", "4K", "-target", "{d}/f"], "f"),
    ("mpiio-nn", ["mpiio", "-type", 1, "-nobj", 2, "-size", "4K", "-target", "{d}/f.%r"], "f.1"),
    ("btio-mpiio", ["btio", "--mode", "w", "--method", 1, "--grid", "8x8x8", "--dumps", 1,
                    "--dir", "{d}"], "btio.mpi"),
    ("btio-pnetcdf", ["btio", "--mode", "w", "--method", 2, "--grid", "8x8x8", "--dumps", 1,
                      "--dir", "{d}"], "btio.nc"),
    ("ior-summary", ["ior", "-w", "-t", "8k", "-b", "16k", "-o", "{d}/f", "-O",
                     "summaryFile={d}/s", "-O", "summaryFormat=JSON"], "s"),
    ("ior-summary-text", ["ior", "-w", "-t", "8k", "-b", "16k", "-o", "{d}/f", "-O",
                          "summaryFile={d}/s"], "s"),
    ("mpiio-output", ["mpiio", "-type", 2, "-nobj", 2, "-size", "4K", "-target", "{d}/f",
                      "-output", "{d}/out"], "out"),
    ("json", ["coll", "-e", 8, "Barrier", "--json", "{d}/r.jsonl"], "r.jsonl"),
    ("csv", ["coll", "-e", 8, "Barrier", "--csv", "{d}/r.csv"], "r.csv"),
]


@pytest.mark.parametrize("name,args,planted", PLANTED,
                         ids=[p.values[0] if hasattr(p, "values") else p[0] for p in PLANTED])
def test_planted_symlink_is_never_followed(shm_scratch, precious, name, args, planted):
    np_ = 4 if name.startswith("btio") else 2
    d = shm_scratch
    os.symlink(precious, d / planted)
    before = precious.stat()
    out = run_sonde([str(a).format(d=d) for a in args], np=np_, check=False, timeout=120)
    if name == "btio-pnetcdf" and "PnetCDF" in out.stderr and "built without" in out.stderr:
        pytest.skip("this sonde has no PnetCDF")
    assert out.returncode != 0, out.stdout + out.stderr
    assert "symbolic link" in out.stderr or "Too many levels of symbolic links" in out.stderr, \
        out.stderr
    assert precious.read_bytes() == PRECIOUS
    after = precious.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert os.readlink(d / planted) == str(precious)


def test_host_name_cannot_lead_a_template_out_of_its_directory(tmp_path):
    """%h comes from outside the command line: a host name with '/' or '..' is refused, and
    nothing is created anywhere."""
    target = tmp_path / "t"
    target.mkdir()
    script = ("import os, socket, sys; socket.sethostname(sys.argv[1]); "
              "os.execv(sys.argv[2], sys.argv[2:])")
    for host in ("a/../../evil", ".."):
        cmd = ["unshare", "-u", sys.executable, "-c", script, host, SONDE, "mpiio", "-type", "1",
               "-nobj", "1", "-size", "4K", "-target", f"{target}/f.%h"]
        before = tree(tmp_path)
        proc = subprocess.run(cmd, env=mpi_env(), capture_output=True, text=True, timeout=60,
                              check=False)
        if proc.returncode != 0 and "sonde" not in proc.stderr:
            pytest.skip(f"cannot set a host name in a UTS namespace here: {proc.stderr.strip()}")
        assert proc.returncode == 2, proc.stderr
        assert f"%h: host name '{host}' cannot be part of a file name" in proc.stderr
        assert tree(tmp_path) == before


# (command, names the run may create in the target directory, names it leaves there)
CREATES = [
    (["ior", "-w", "-r", "-F", "-t", "8k", "-b", "16k", "-o", "{d}/f"], set()),
    (["ior", "-w", "-k", "-F", "-t", "8k", "-b", "16k", "-o", "{d}/f"],
     {"f.00000000", "f.00000001"}),
    (["ior", "-w", "-k", "-u", "-F", "-t", "8k", "-b", "16k", "-o", "{d}/f"],
     {"0", "1", "0/f.00000000", "1/f.00000001"}),
    (["ior", "-w", "-r", "-m", "-i", 2, "-t", "8k", "-b", "16k", "-o", "{d}/f"], set()),
    (["mib", "-F", "-t", "{d}", "-l", 2, "-s", "4k"], {"mibData.00000000", "mibData.00000001"}),
    (["mib", "-F", "-t", "{d}", "-l", 2, "-s", "4k", "-r"], set()),
    (["mpiio", "-type", 1, "-nobj", 2, "-size", "4K", "-target", "{d}/f.%r", "-deletefile"],
     set()),
    (["mpiio", "-type", 2, "-nobj", 2, "-size", "4K", "-target", "{d}/f"], {"f"}),
]


@pytest.mark.parametrize("args,leaves", CREATES, ids=lambda v: None)
def test_runs_touch_only_their_own_files(tmp_path, args, leaves):
    """The user's files next to and around the target (including names a run on more ranks
    would use) survive, nothing appears outside the target, and what a run removes is only
    what it created."""
    d = tmp_path / "target"
    d.mkdir()
    (tmp_path / "sibling").write_bytes(PRECIOUS)
    for name in ("f.00000002", "mibData.00000002", "f.2", "f.00000000.extra", "notes"):
        (d / name).write_bytes(PRECIOUS)
    before = tree(tmp_path)
    run_sonde([str(a).format(d=d) for a in args], np=2, timeout=120)
    after = tree(tmp_path)
    for path, info in before.items():
        assert after.get(path) == info, path
    created = {os.path.relpath(p, "target") for p in set(after) - set(before)}
    assert created == leaves


def test_read_run_does_not_remove_a_file_it_did_not_create(shm_scratch):
    """IOR removes its test file at the end unless -k; sonde removes only what its run wrote,
    so a read-only run leaves the file it read."""
    f = shm_scratch / "f"
    run_sonde(["ior", "-w", "-k", "-t", "8k", "-b", "16k", "-o", f], np=2)
    run_sonde(["ior", "-r", "-t", "8k", "-b", "16k", "-o", f], np=2)
    assert f.stat().st_size == 32768


@pytest.mark.parametrize("option", ["--json", "--csv"])
def test_results_files_are_appended_to(shm_scratch, option):
    f = shm_scratch / "results"
    run_sonde(["coll", "-e", 8, "Barrier", option, f], np=2)
    earlier = f.read_text()
    for _ in range(2):
        run_sonde(["coll", "-e", 8, "Barrier", option, f], np=2)
    text = f.read_text()
    assert text.startswith(earlier)
    if option == "--json":
        assert text.count('{"type":"header"') == 3 and text.count('{"type":"end"') == 3
    else:
        assert text.count("run_id,") == 1 and len(text.splitlines()) == 4


@pytest.mark.parametrize("option,other", [("--json", "--csv"), ("--csv", "--json")])
def test_results_file_of_the_other_format_is_refused(shm_scratch, option, other):
    """--json onto a CSV file (or --csv onto JSON Lines) would leave a file neither loader
    reads: refused before the run, the file keeps its bytes."""
    f = shm_scratch / "results"
    run_sonde(["coll", "-e", 8, "Barrier", other, f], np=2)
    before = f.read_bytes()
    out = run_sonde(["coll", "-e", 8, "Barrier", option, f], np=2, check=False)
    assert out.returncode == 2
    assert f"{option} {f} holds something else" in out.stderr
    assert f.read_bytes() == before


def _under_umask_0(args, np_, cwd):
    cmd = launch_command(np_, [str(a) for a in args])
    proc = subprocess.run(cmd, env=mpi_env(), capture_output=True, text=True, timeout=120,
                          check=False, cwd=cwd, preexec_fn=lambda: os.umask(0))
    if "needs PnetCDF, and this sonde was built without it" in proc.stderr:
        return None
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


UMASK_RUNS = [
    ["ior", "-w", "-k", "-t", "8k", "-b", "16k", "-o", "{d}/shared", "--json", "{d}/r.jsonl",
     "--csv", "{d}/r.csv"],
    ["ior", "-w", "-k", "-u", "-F", "-t", "8k", "-b", "16k", "-o", "{d}/u/f"],
    ["ior", "-a", "MPIIO", "-w", "-k", "-t", "8k", "-b", "16k", "-o", "{d}/mpiio"],
    ["mib", "-F", "-t", "{d}", "-l", 2, "-s", "4k", "-W", "-p", "{d}/prof"],
    ["mpiio", "-type", 1, "-nobj", 2, "-size", "4K", "-target", "{d}/nn.%r", "-op", "write"],
    ["btio", "--mode", "w", "--method", 1, "--grid", "8x8x8", "--dumps", 1, "--dir", "{d}"],
    ["btio", "--mode", "w", "--method", 2, "--grid", "8x8x8", "--dumps", 1, "--dir", "{d}"],
]


def test_files_are_not_writable_by_others_under_umask_0(shm_scratch):
    (shm_scratch / "u").mkdir()
    for args in UMASK_RUNS:
        np_ = 4 if args[0] == "btio" else 2
        _under_umask_0([str(a).format(d=shm_scratch) for a in args], np_, shm_scratch)
    modes = {p: os.lstat(shm_scratch / p).st_mode for p in tree(shm_scratch)}
    assert {"shared", "r.jsonl", "r.csv", "u/0/f.00000000", "mpiio", "mibData.00000000",
            "prof.write", "nn.1", "btio.mpi"} <= set(modes)
    loose = {p: oct(m & 0o7777) for p, m in modes.items() if p != "u" and m & 0o022}
    assert not loose
