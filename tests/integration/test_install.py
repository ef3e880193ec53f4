# SPDX-License-Identifier: BSD-3-Clause
"""make install into a temporary prefix, used from there with a clean PATH and no source tree:
the program, its manual pages and completion, the Python tools (a venv under PREFIX/lib/sonde)
running the installed sonde, the Lmod module; then make uninstall removing exactly what the
install created. The binary installed is the one under test (SONDE_BIN's build directory)."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from bounded import run_bounded
from conftest import MPIRUN, REPO, SONDE, launch_env, read_jsonl
from faultlib import sanitized

BUILD = Path(SONDE).parent
LMOD_INIT = Path("/usr/share/lmod/lmod/init/bash")
BASH_COMPLETION = Path("/usr/share/bash-completion/bash_completion")



pytestmark = pytest.mark.skipif(sanitized(), reason="an installation of the sanitizer build "
                                "is no user's; the normal and MPICH builds are installed")


def clean_env(extra=None):
    """A user's environment: the system's PATH, nothing of the checkout or its venv."""
    env = {"HOME": os.environ.get("HOME", "/root"), "PATH": "/usr/bin:/bin",
           "LC_ALL": "C.UTF-8", "MANWIDTH": "100", **launch_env()}
    env.update(extra or {})
    return env


def run(argv, cwd="/", env=None, check=True):
    proc = run_bounded([str(a) for a in argv], cwd=cwd, env=env or clean_env(),
                       capture_output=True, text=True, timeout=600)
    if check:
        assert proc.returncode == 0, f"{argv}\n{proc.stdout}\n{proc.stderr}"
    return proc


def manifest(prefix):
    return [ln.split(" ", 1) for ln in
            (prefix / "share/sonde/install-manifest").read_text().splitlines()]


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    """A prefix whose parent exists but not the prefix itself (make install creates it)."""
    p = tmp_path_factory.mktemp("install") / "opt" / "sonde"
    run([REPO / "scripts" / "install.sh", p, BUILD], env=dict(os.environ))
    return p


def test_installed_sonde_runs_from_the_prefix(prefix, tmp_path):
    out = run([prefix / "bin/sonde", "--version"]).stdout
    assert out.startswith("sonde ")
    assert "\nLicense: BSD-3-Clause (the LICENSE file); there is no warranty\n" in out
    assert (prefix / "share/doc/sonde/LICENSE").read_text() == (REPO / "LICENSE").read_text()
    # one real launch of the installed binary through the launcher it names
    assert f"\nLauncher: {MPIRUN}\n" in out
    results = tmp_path / "r.jsonl"
    run([MPIRUN, "-n", "2", prefix / "bin/sonde", "coll", "-e", "8", "-i", "5", "Bcast",
         "--json", results], cwd=tmp_path)
    assert read_jsonl(results)[0]["ranks"] == 2


def test_manual_pages_from_the_prefix(prefix):
    pages = sorted(p.name for p in (prefix / "share/man/man1").iterdir())
    built = sorted(p.name for p in (BUILD / "man").iterdir())
    assert pages == sorted(built + ["sonde-report.1", "sonde-suite.1"])
    for page in pages:
        proc = run(["man", "--warnings=all", "-l", prefix / "share/man/man1" / page])
        assert proc.stderr == "", (page, proc.stderr)
    assert "DIFFERENCES" in run(["man", "-l", prefix / "share/man/man1/sonde-ior.1"]).stdout
    # through MANPATH, as the module sets it
    env = clean_env({"MANPATH": f"{prefix}/share/man:"})
    assert run(["man", "-w", "sonde-suite"], env=env).stdout.strip() == \
        str(prefix / "share/man/man1/sonde-suite.1")


def test_python_tools_run_without_the_source_tree(prefix, tmp_path):
    for tool in ("sonde-suite", "sonde-report"):
        out = run([prefix / "bin" / tool, "--help"]).stdout
        assert out.startswith(f"usage: {tool} ")
    # the package is a copy in the venv, not the checkout's
    where = run([prefix / "lib/sonde/bin/python", "-c", "import sonde; print(sonde.__file__)"])
    assert where.stdout.startswith(str(prefix / "lib/sonde/"))
    # a suite from the installed suites' directory runs the installed sonde
    suite = tmp_path / "one.toml"
    suite.write_text('[suite]\nname = "one"\nranks = 2\noversubscribe = true\n'
                     '[[step]]\nname = "c"\nworkload = "coll"\n'
                     'args = ["-e", "8", "-i", "5", "Bcast"]\n')
    out = tmp_path / "run"
    run([prefix / "bin/sonde-suite", "run", suite, "--out", out], cwd=tmp_path)
    (launch,) = [d for d in out.iterdir() if d.is_dir()]
    assert (launch / "command.txt").read_text().split()[:1] == \
        [run([prefix / "bin/sonde", "--version"]).stdout.split("Launcher: ")[1].split()[0]]
    assert str(prefix / "bin/sonde") in (launch / "command.txt").read_text()
    run([prefix / "bin/sonde-report", out], cwd=tmp_path)
    assert (out / "report.html").stat().st_size > 0
    dry = run([prefix / "bin/sonde-suite", "run", prefix / "share/sonde/suites/quick.toml",
               "--dry-run"], cwd=tmp_path)
    assert all(str(prefix / "bin/sonde") in ln for ln in dry.stdout.splitlines())


@pytest.mark.skipif(not LMOD_INIT.exists(), reason="Lmod is not installed (make setup)")
def test_module_puts_the_prefix_on_the_paths(prefix):
    script = (f"source {LMOD_INIT}; module use {prefix}/share/modulefiles; module load sonde; "
              "command -v sonde sonde-suite; man -w sonde-mib; man -w ls; "
              "module unload sonde; command -v sonde || echo gone")
    out = run(["bash", "-c", script]).stdout.split()
    assert out[:3] == [f"{prefix}/bin/sonde", f"{prefix}/bin/sonde-suite",
                       f"{prefix}/share/man/man1/sonde-mib.1"]
    assert out[3].startswith("/usr/share/man/")  # the system's pages are still found
    assert out[4] == "gone"


@pytest.mark.skipif(not LMOD_INIT.exists(), reason="Lmod is not installed (make setup)")
@pytest.mark.parametrize("before", [None, "", "/opt/x/share:/usr/share"])
def test_module_keeps_the_systems_data_dirs(prefix, before):
    """XDG_DATA_DIRS unset or empty means /usr/local/share:/usr/share (the XDG spec): loading
    the module must not leave the prefix alone, and unloading it leaves the system's dirs."""
    env = clean_env()
    if before is not None:
        env["XDG_DATA_DIRS"] = before
    script = (f"source {LMOD_INIT}; module use {prefix}/share/modulefiles; module load sonde; "
              'echo "$XDG_DATA_DIRS"; module unload sonde; echo "$XDG_DATA_DIRS"')
    loaded, unloaded = run(["bash", "-c", script], env=env).stdout.splitlines()
    system = (before or "/usr/local/share:/usr/share").split(":")
    assert loaded.split(":") == [f"{prefix}/share"] + system
    assert f"{prefix}/share" not in unloaded.split(":")
    assert set(system) <= set(unloaded.split(":"))


@pytest.mark.skipif(not LMOD_INIT.exists() or not BASH_COMPLETION.exists(),
                    reason="Lmod or bash-completion is not installed (make setup)")
def test_bash_completion_loads_with_the_module(prefix):
    script = (f"source {LMOD_INIT}; module use {prefix}/share/modulefiles; module load sonde; "
              f"source {BASH_COMPLETION}; __load_completion sonde; "
              "COMP_WORDS=(sonde m); COMP_CWORD=1; _sonde; echo ${COMPREPLY[@]}")
    usage, names = run([prefix / "bin/sonde", "--help"]).stdout.split(
        "Options every workload")[0].split("Workloads:")
    # the workloads, then the commands the usage names (sonde mix), as sonde --help lists them
    expected = [ln.split()[0] for ln in names.splitlines() if ln.startswith("  m")]
    expected += [c for c in re.findall(r"^ *(?:usage: )?sonde ([a-z]+) ", usage, re.M)
                 if c.startswith("m")]
    assert run(["bash", "-c", script]).stdout.split() == expected and expected


def test_manifest_lists_exactly_what_is_installed(prefix):
    entries = manifest(prefix)
    files = {p for kind, p in entries if kind == "file"}
    trees = [p for kind, p in entries if kind == "tree"]
    assert trees == ["lib/sonde"]
    on_disk = set()
    for root, dirs, names in os.walk(prefix):
        rel = Path(root).relative_to(prefix)
        if str(rel) in trees:
            dirs.clear()
            continue
        on_disk |= {str(rel / n) for n in names}
    assert on_disk == files
    dirs = [p for kind, p in entries if kind == "dir"]
    assert "." in dirs and ".." in dirs  # the prefix and opt/ were created by the install


README_MPICH = re.compile(r"MPICH: `(MPICC=\S+ MPIEXEC=\S+)` on Debian")
HAS_MPICH = shutil.which("mpicc.mpich") is not None and Path("/usr/bin/mpiexec.mpich").exists()


def readme_mpich_install(prefix, tmp_path):
    """The README's MPICH install, as a user types it, in a copy of the source tree (its own
    build directory): `make install PREFIX=P` with the README's MPICC and MPIEXEC. The build
    keeps -Werror, as every build does; the installed sonde links MPICH alone and runs through
    MPICH's launcher."""
    (words,) = README_MPICH.findall((REPO / "README.md").read_text())
    src = tmp_path / "src"
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], cwd=REPO, capture_output=True, check=True)
    for rel in filter(None, os.fsdecode(listed.stdout).split("\0")):
        if (REPO / rel).is_file():
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / rel, src / rel)
    env = dict(os.environ)
    for name in ("MPICC", "MPIEXEC", "PREFIX"):
        env.pop(name, None)
    run(["make", "install", f"PREFIX={prefix}", *words.split()], cwd=src, env=env)
    sonde = prefix / "bin/sonde"
    # The product has no test hooks (coll's, compiled only with SONDE_TEST_HOOKS): not even
    # their names are in the binary.
    assert b"SONDE_TEST_" not in sonde.read_bytes()
    libs = run(["ldd", sonde]).stdout
    assert "libmpich" in libs and "libmpi.so" not in libs, libs
    assert "\nLauncher: /usr/bin/mpiexec.mpich\n" in run([sonde, "--version"]).stdout
    results = tmp_path / "r.jsonl"
    run(["/usr/bin/mpiexec.mpich", "-n", "2", sonde, "mpiio", "-type", "3", "-nobj", "2",
         "-size", "4K", "-target", tmp_path / "f.%r", "--json", results], cwd=tmp_path)
    assert [r["type"] for r in read_jsonl(results)][-1] == "end"


def test_reinstall_then_uninstall(prefix, tmp_path):
    """A second install over the first (which it uninstalls first) lists the same files. With
    MPICH on the machine the second is the README's MPICH install (readme_mpich_install): one
    install fewer in CI, and the installed program is replaced by another build."""
    before = manifest(prefix)
    if HAS_MPICH:
        readme_mpich_install(prefix, tmp_path)
    else:
        run([REPO / "scripts" / "install.sh", prefix, BUILD], env=dict(os.environ))
    assert manifest(prefix) == before
    # a file of someone else's in an installed directory stays, with its directory
    (prefix / "share/man/man1/other.1").write_text(".TH OTHER 1\n")
    out = run([REPO / "scripts" / "uninstall.sh", prefix]).stdout
    assert "kept" in out and "share/man/man1" in out
    left = sorted(str(p.relative_to(prefix.parent.parent)) for p in prefix.parent.parent.rglob("*"))
    assert left == ["opt", "opt/sonde", "opt/sonde/share", "opt/sonde/share/man",
                    "opt/sonde/share/man/man1", "opt/sonde/share/man/man1/other.1"]
    (prefix / "share/man/man1/other.1").unlink()
    assert run([REPO / "scripts" / "uninstall.sh", prefix], check=False).returncode == 1


def test_uninstall_refuses_a_manifest_that_leaves_the_prefix(tmp_path):
    p = tmp_path / "p"
    (p / "share/sonde").mkdir(parents=True)
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    (p / "share/sonde/install-manifest").write_text("file ../victim\n")
    proc = run([REPO / "scripts" / "uninstall.sh", p], check=False)
    assert proc.returncode == 1 and "bad entry: file ../victim" in proc.stderr
    assert victim.read_text() == "keep me"


def test_failed_install_removes_what_it_installed(tmp_path):
    """pip cannot reach an index: the install stops and leaves nothing behind."""
    p = tmp_path / "p"
    env = dict(os.environ, PIP_INDEX_URL="http://127.0.0.1:9/", PIP_NO_CACHE_DIR="1",
               PIP_RETRIES="0", PIP_TIMEOUT="2")
    proc = run([REPO / "scripts" / "install.sh", p, BUILD], env=env, check=False)
    assert proc.returncode != 0
    assert "install: failed; removing what it installed" in proc.stderr
    assert not p.exists()


def test_install_needs_a_build(tmp_path):
    proc = run([REPO / "scripts" / "install.sh", tmp_path / "p", tmp_path / "nobuild"],
               env=dict(os.environ), check=False)
    assert proc.returncode == 1
    assert proc.stderr == f"install: {tmp_path}/nobuild/sonde is missing: build first " \
                          "(make build)\n"
    assert not (tmp_path / "p").exists()
