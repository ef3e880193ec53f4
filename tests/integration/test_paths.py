# SPDX-License-Identifier: BSD-3-Clause
"""Paths: a symbolic link planted as a directory sonde creates (ior -u) or names (mpiio's
templates) is never followed, the user's own are, an empty path
is a usage error, a name the MPI library cannot take is refused before MPI_File_open (Open MPI
4.1 aborts the process on one), inputs that are not regular files are refused instead of read
forever, and a path that is not UTF-8 is written to JSON reversibly and loads."""

import json
import os

import pytest
from bounded import run_bounded
from conftest import OPEN_MPI, launch_command, mpi_env, read_jsonl, run_sonde
from faultlib import error_lines
from sonde.results import load

BOUND = 60


def test_planted_directory_link_is_never_followed_by_ior_u(tmp_path):
    """ior -F -u creates one directory per rank; a link planted as rank 1's directory would
    have IOR write into, then remove from, the link's target."""
    u, victim = tmp_path / "u", tmp_path / "victim"
    u.mkdir()
    victim.mkdir()
    (victim / "f.00000001").write_bytes(b"the user's")
    (u / "1").symlink_to(victim)
    for api in ["POSIX", "MPIIO"]:
        out = run_sonde(["ior", "-a", api, "-w", "-r", "-F", "-u", "-t", "8k", "-b", "16k",
                         "-o", u / "f"], np=2, check=False, timeout=BOUND)
        assert out.returncode == 2, out.stderr
        (e,) = error_lines(out.stderr)
        assert f"directory {u}/1 is a symbolic link" in e
        assert sorted(os.listdir(victim)) == ["f.00000001"]
        assert (victim / "f.00000001").read_bytes() == b"the user's"


def test_ior_u_reaches_its_files_through_the_directory_it_created(tmp_path):
    """Without a planted link, -u writes, reads back and removes (or keeps) its files."""
    u = tmp_path / "u"
    u.mkdir()
    for api in ["POSIX", "MPIIO"]:
        run_sonde(["ior", "-a", api, "-w", "-r", "-R", "-F", "-u", "-t", "8k", "-b", "16k",
                   "-o", u / "f"], np=2, timeout=BOUND)
        assert not (u / "0" / "f.00000000").exists() and not (u / "1" / "f.00000001").exists()
    run_sonde(["ior", "-w", "-k", "-F", "-u", "-t", "8k", "-b", "16k", "-o", u / "f"], np=2,
              timeout=BOUND)
    assert (u / "1" / "f.00000001").stat().st_size == 16384


@pytest.mark.parametrize("type_", [1, 2])
def test_planted_directory_link_in_a_template_is_never_followed_by_mpiio(tmp_path, type_):
    """-target /scratch/%h/f names directories sonde makes the names of: a link planted as
    one of them (here rank 1's, or the shared file's) would have the run write into, and
    -deletefile remove from, the link's target."""
    d, victim = tmp_path / "d", tmp_path / "victim"
    d.mkdir()
    victim.mkdir()
    (victim / "f").write_bytes(b"the user's")
    planted = d / ("1" if type_ == 1 else "0")
    (d / ("0" if type_ == 1 else "1")).mkdir()
    planted.symlink_to(victim)
    out = run_sonde(["mpiio", "-type", type_, "-nobj", 2, "-size", "4K", "-deletefile",
                     "-target", f"{d}/%r/f"], np=2, check=False, timeout=BOUND)
    assert out.returncode == 2, out.stderr
    (e,) = error_lines(out.stderr)
    assert f"directory {planted}: a symbolic link" in e, e
    assert sorted(os.listdir(victim)) == ["f"] and (victim / "f").read_bytes() == b"the user's"


@pytest.mark.parametrize("type_", [1, 2])
def test_mpiio_template_directories_are_entered_and_the_users_own_links_followed(tmp_path,
                                                                               type_):
    """A link the user wrote before the first %-escape is the user's path and is followed;
    the directories the template makes are written, read back and cleaned through their
    descriptors."""
    real, link = tmp_path / "real", tmp_path / "link"
    for r in ("0", "1"):
        (real / r).mkdir(parents=True)
    link.symlink_to(real)
    run_sonde(["mpiio", "-type", type_, "-nobj", 2, "-size", "4K", "-op", "write",
               "-target", f"{link}/%r/f"], np=2, timeout=BOUND)
    written = sorted(p.relative_to(real).as_posix() for p in real.glob("*/f"))
    assert written == (["0/f", "1/f"] if type_ == 1 else ["0/f"])
    assert all((real / w).stat().st_size == (8192 if type_ == 1 else 16384) for w in written)
    run_sonde(["mpiio", "-type", type_, "-nobj", 2, "-size", "4K", "-op", "read", "-chkdata",
               3, "-deletefile", "-target", f"{link}/%r/f"], np=2, timeout=BOUND)
    assert not list(real.glob("*/f"))


def test_directories_the_user_names_are_followed_as_given(tmp_path):
    """btio --dir and mib -t name a directory sonde enters but never creates: a link there is
    the user's own path (a scratch directory is often one), followed as given."""
    real, link = tmp_path / "real", tmp_path / "link"
    real.mkdir()
    link.symlink_to(real)
    run_sonde(["btio", "--mode", "w", "--method", 1, "--grid", "8x8x8", "--dumps", 1, "--dir",
               link], np=1, timeout=BOUND)
    assert (real / "btio.mpi").stat().st_size == 8 * 8 * 8 * 5 * 8
    run_sonde(["mib", "-F", "-t", link, "-s", "4k", "-l", 2, "-W"], np=1, timeout=BOUND)
    assert (real / "mibData.00000000").stat().st_size == 8192


EMPTY = [
    ["btio", "--dir", "", "--method", 1, "--grid", "8x8x8", "--dumps", 1],
    ["mib", "-F", "-t", "", "-l", 1],
    ["mib", "-F", "-t", ".", "-l", 1, "-p", ""],
    ["ior", "-o", ""],
    ["ior", "-O", "summaryFile="],
    ["mpiio", "-target", ""],
    ["coll", "--json", "", "Barrier"],
]


@pytest.mark.parametrize("args", EMPTY, ids=lambda a: f"{a[0]}-{a[-2] if a[-1] == '' else a[-1]}")
def test_empty_path_is_a_usage_error(tmp_path, args):
    out = run_sonde(args, np=1, cwd=tmp_path, check=False, timeout=BOUND)
    assert out.returncode == 2, out.stderr
    (e,) = error_lines(out.stderr)
    assert "empty" in e
    assert os.listdir(tmp_path) == []


def test_test_file_that_is_a_directory_is_one_line(tmp_path):
    out = run_sonde(["ior", "-w", "-r", "-t", "4k", "-b", "8k", "-o", tmp_path], np=2,
                    check=False, timeout=BOUND)
    assert out.returncode == 2
    assert error_lines(out.stderr) == [
        f"sonde ior: error: the test file {tmp_path} is a directory (-o names a file)"]
    assert "warning" not in out.stderr


def _names(tmp_path):
    """The longest name the MPI library takes and one a character longer: Open MPI 4.1 aborts
    past 244 characters (on fewer than 10 ranks); MPICH takes what the system takes, a part of
    up to NAME_MAX (255) characters."""
    if OPEN_MPI:
        return [tmp_path / ("x" * (n - len(str(tmp_path)) - 1)) for n in (244, 245)]
    return [tmp_path / ("x" * n) for n in (255, 256)]


@pytest.mark.parametrize("workload", ["ior", "mpiio", "btio"])
def test_name_too_long_for_the_mpi_library_is_refused_before_it_opens(tmp_path, workload):
    """Open MPI 4.1 writes "<name>.locktest.<rank>" into a 256-byte buffer at every
    MPI_File_open and aborts past it. The limit is refused with one line, exit 2, before the
    library sees the name; a name one shorter works."""
    for name, ok in zip(_names(tmp_path), [True, False], strict=True):
        args = {"ior": ["ior", "-a", "MPIIO", "-w", "-k", "-t", "4k", "-b", "8k", "-o", name],
                "mpiio": ["mpiio", "-type", 2, "-nobj", 2, "-size", "4K", "-target", name],
                "btio": ["btio", "--method", 0, "--grid", "8x8x8", "--dumps", 1, "--dir",
                         tmp_path, "--file", name.name]}[workload]
        out = run_sonde(args, np=1, check=False, timeout=BOUND)
        if ok:
            assert out.returncode == 0, out.stderr
            name.unlink()
        else:
            assert out.returncode == 2, out.stderr
            (e,) = error_lines(out.stderr)
            assert f"the name is {len(str(name))} characters long" in e
            assert name.name not in os.listdir(tmp_path)


def test_path_max_is_refused(tmp_path):
    """The file of a --dir of 4090 characters would have more than PATH_MAX - 1."""
    deep = str(tmp_path / "d") + "/d" * ((4090 - len(str(tmp_path))) // 2)
    out = run_sonde(["btio", "--method", 1, "--grid", "8x8x8", "--dumps", 1, "--dir", deep],
                    np=1, check=False, timeout=BOUND)
    assert out.returncode == 2
    (e,) = error_lines(out.stderr)
    assert "file names have at most 4095" in e


NOT_FILES = [
    (["ior", "-f", "{x}"], "cannot open script file {x}"),
    (["ior", "-U", "{x}", "-w", "-o", "{d}/f"], "cannot open hints file {x}"),
    (["mpiio", "-type", 5, "-targets", "{x}"], "-targets {x}"),
    (["mpiio", "-setup", "{x}"], "-setup {x}"),
    (["btio", "{x}"], "cannot open input file {x}"),
]


@pytest.mark.parametrize("kind", ["device", "fifo", "directory"])
@pytest.mark.parametrize("args,named", NOT_FILES, ids=lambda x: " ".join(map(str, x[:2]))
                         if isinstance(x, list) else None)
def test_input_that_is_no_regular_file_is_refused(tmp_path, args, named, kind):
    """/dev/zero would be read forever and a FIFO would block: refused with one line."""
    x = {"device": "/dev/zero", "fifo": tmp_path / "fifo", "directory": tmp_path}[kind]
    if kind == "fifo":
        os.mkfifo(x)
    argv = [str(a).format(x=x, d=tmp_path) for a in args]
    out = run_sonde(argv, np=2, check=False, timeout=BOUND)
    assert out.returncode == 2, out.stderr
    (e,) = error_lines(out.stderr)
    assert named.format(x=x) in e and "not a regular file" in e, e


def test_name_that_is_not_utf8_is_written_reversibly(tmp_path):
    """A file name in Latin-1 (bytes that are not UTF-8): the results file is valid UTF-8,
    the name is written with \\udcXX escapes, the loader reads the file, and os.fsencode of the
    loaded name gives the original bytes back."""
    raw = os.fsencode(tmp_path) + b"/caf\xe9-\xff"
    results = tmp_path / "r.jsonl"
    # bytes all the way: the output names the file in Latin-1 too
    cmd = [os.fsencode(a) for a in launch_command(1, ["ior", "-w", "-t", "4k", "-b", "8k",
                                                      "-o", os.fsdecode(raw), "--json",
                                                      results])]
    out = run_bounded(cmd, env=mpi_env(), capture_output=True, timeout=BOUND, check=False)
    assert out.returncode == 0, out.stderr
    data = results.read_bytes()
    data.decode("utf-8")  # strict: raises when a byte is not UTF-8
    assert b"caf\\udce9-\\udcff" in data
    (run,) = load(results, validate=True)
    assert os.fsencode(run.header["params"]["testFile"]) == raw
    assert os.fsencode(run.header["filesystem"]["path"]) == raw
    assert os.fsencode(run.header["command_line"][-3]) == raw
    for line in data.splitlines():
        json.loads(line)
    assert read_jsonl(results)[-1]["reason"] == "ok"
