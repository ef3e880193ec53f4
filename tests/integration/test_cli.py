# SPDX-License-Identifier: BSD-3-Clause
"""The sonde command itself: version, help, dispatch, and bad command lines on 1 and 4 ranks."""

import re
import subprocess

import pytest
from conftest import OPEN_MPI, REPO, SONDE, mpi_env, read_jsonl, run_sonde


def workloads():
    out = subprocess.run([SONDE, "--help"], capture_output=True, text=True, timeout=30)
    names = re.findall(r"^  (\w+) ", out.stdout.split("Options every workload")[0], re.MULTILINE)
    return names


def test_version_without_launcher():
    out = subprocess.run([SONDE, "--version"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0
    first, second = out.stdout.splitlines()[:2]
    assert re.fullmatch(r"sonde \d+\.\d+\.\d+ \(\S+\)", first)
    assert re.match(r"MPI \d\.\d: \S", second)


def version_script(source, out):
    """What the build runs before compiling: cmake/version.cmake on the checkout at source."""
    subprocess.run(["cmake", f"-DSOURCE_DIR={source}", f"-DTEMPLATE={REPO}/src/version.c.in",
                    f"-DOUT={out}", "-DPROJECT_VERSION=9.8.7", "-P",
                    f"{REPO}/cmake/version.cmake"], check=True, capture_output=True, timeout=60)
    return out.read_text()


@pytest.mark.once  # cmake's version script on a scratch checkout: no build under test runs
def test_version_follows_the_checkout_at_each_build(tmp_path):
    """The git describe in --version is the one of the build, not of the first configure: a
    commit, a tag or an edit after configuring changes it, and an unchanged checkout leaves the
    source untouched (nothing relinks)."""
    repo, out = tmp_path / "repo", tmp_path / "version.c"
    repo.mkdir()
    git = ["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    (repo / "f").write_text("1\n")
    subprocess.run([*git, "add", "f"], check=True)
    subprocess.run([*git, "commit", "-qm", "one"], check=True)
    subprocess.run([*git, "tag", "v9.8.7"], check=True)
    assert 'sonde_version[] = "9.8.7"' in version_script(repo, out)
    assert 'sonde_git_describe[] = "v9.8.7"' in out.read_text()
    before = out.stat().st_mtime_ns
    version_script(repo, out)
    assert out.stat().st_mtime_ns == before
    (repo / "f").write_text("2\n")
    assert 'sonde_git_describe[] = "v9.8.7-dirty"' in version_script(repo, out)
    subprocess.run([*git, "commit", "-qam", "two"], check=True)
    head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()
    assert f'sonde_git_describe[] = "v9.8.7-1-g{head}"' in version_script(repo, out)
    # not a checkout (a release tarball)
    plain = tmp_path / "plain"
    plain.mkdir()
    assert 'sonde_git_describe[] = "unknown"' in version_script(plain, out)


def test_help_lists_workloads_and_common_options():
    out = subprocess.run([SONDE, "--help"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0
    assert "usage: sonde <workload> [options]" in out.stdout
    assert "--json FILE" in out.stdout


def test_no_arguments_is_a_usage_error():
    out = subprocess.run([SONDE], capture_output=True, text=True, timeout=30)
    assert out.returncode == 2
    assert "usage: sonde" in out.stderr


@pytest.mark.parametrize("np", [1, 4])
def test_unknown_workload_one_line(np):
    out = run_sonde(["no-such-workload"], np=np, check=False, timeout=60)
    assert out.returncode != 0
    lines = [ln for ln in out.stderr.splitlines() if "unknown workload" in ln]
    # Ranks leave before MPI starts; the launcher's rank variable keeps it to one line.
    assert len(lines) == 1, out.stderr


@pytest.mark.parametrize("workload", workloads())
def test_workload_help_without_launcher(workload):
    out = subprocess.run([SONDE, workload, "--help"], capture_output=True, text=True,
                         timeout=30, env=mpi_env())
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(f"usage: sonde {workload}")
    assert "--json FILE" in out.stdout
    md = subprocess.run([SONDE, workload, "--help-markdown"], capture_output=True, text=True,
                        timeout=30)
    assert md.returncode == 0
    assert md.stdout.startswith(f"# `sonde {workload}` options")
    # the option reference in docs/ is what the table generates (regenerate it with
    # `sonde WORKLOAD --help-markdown > docs/options/WORKLOAD.md`)
    assert (REPO / "docs" / "options" / f"{workload}.md").read_text() == md.stdout


@pytest.mark.parametrize("np", [1, 4])
@pytest.mark.parametrize("workload", workloads())
def test_bad_option_one_line_nonzero_no_hang(workload, np):
    out = run_sonde([workload, "--no-such-option-anywhere"], np=np, check=False, timeout=120)
    assert out.returncode == 2
    errors = [ln for ln in out.stderr.splitlines() if "error" in ln]
    assert len(errors) == 1, out.stderr
    assert "--no-such-option-anywhere" in errors[0]
    assert errors[0].startswith(f"sonde {workload}: error: ")


@pytest.mark.parametrize("workload", workloads())
def test_json_results_file_that_cannot_be_opened(workload, tmp_path):
    bad = tmp_path / "missing-dir" / "r.jsonl"
    out = run_sonde([workload, "--json", bad], np=2, check=False, timeout=120)
    assert out.returncode != 0
    errors = [ln for ln in out.stderr.splitlines() if "error" in ln]
    assert len(errors) == 1, out.stderr
    assert "cannot open results file" in errors[0]


@pytest.mark.parametrize("workload", workloads())
def test_help_under_launcher_printed_once(workload):
    """`mpirun -n 4 sonde coll -h` printed the help four times: the help comes from rank 0."""
    out = run_sonde([workload, "--help"], np=4, timeout=120)
    assert out.stdout.count(f"usage: sonde {workload}") == 1, out.stdout


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["coll", "-h"], ["mpiio", "-help"],
                                  ["ior", "--help-markdown"]])
def test_texts_instead_of_a_run_printed_once(args):
    out = run_sonde(args, np=3, timeout=120)
    first = out.stdout.splitlines()[0]
    assert out.stdout.count(first + "\n") == 1, out.stdout


@pytest.mark.parametrize("args", [["help"], ["find", "-h"], ["mpiio", "-h"], ["help", "ior"],
                                  ["help", "mdtest"]])
def test_help_words_users_type_first(args):
    """`sonde help`, `sonde help W` and -h of the LANL-style and find-style workloads print
    the help (the same as --help), exit 0."""
    out = subprocess.run([SONDE] + args, capture_output=True, text=True, timeout=30,
                         env=mpi_env())
    assert out.returncode == 0, out.stderr
    workload = [a for a in args if a not in ("help", "-h")]
    want = subprocess.run([SONDE] + (workload + ["--help"] if workload else ["--help"]),
                          capture_output=True, text=True, timeout=30, env=mpi_env()).stdout
    assert out.stdout == want


def test_help_shows_the_defaults_a_run_uses(tmp_path):
    """ior's and mdtest's --help say each option's default, as IOR's -h does; the oracle is
    the params of a run given no such option (the record the binary writes)."""
    run_sonde(["ior", "-w", "-o", tmp_path / "f", "--json", tmp_path / "ior.jsonl"])
    params = read_header(tmp_path / "ior.jsonl")
    text = subprocess.run([SONDE, "ior", "--help"], capture_output=True, text=True,
                          timeout=30).stdout
    assert params["blockSize"] == 1 << 20 and params["transferSize"] == 256 << 10
    assert re.search(r"--blockSize N .*\(default 1m\)$", text, re.M)
    assert re.search(r"--transferSize N .*\(default 256k\)$", text, re.M)
    # -a's values are the backends' names, from the registry
    # (the list may push the help text to the next line)
    assert re.search(rf"--api [A-Z0-9|]*\bMPIIO\b[A-Z0-9|]*\s+.*\(default {params['api']}\)$",
                     text, re.M)
    md = subprocess.run([SONDE, "mdtest", "--help"], capture_output=True, text=True,
                        timeout=30).stdout
    assert re.search(r"^  -b N .*\(default 1\)$", md, re.M)
    # mdtest's -a: the backends IOR's mdtest runs on (of sonde's, POSIX)
    assert re.search(r"^  -a POSIX .*\(default POSIX\)$", md, re.M)


def read_header(path):
    return next(r for r in read_jsonl(path) if r["type"] == "header")["params"]


@pytest.mark.parametrize("args,near", [
    (["ior", "--transfer", "4k"], "--transferSize"),
    (["ior", "--tranferSize=4k"], "--transferSize"),
    (["ior", "-O", "stoneWalingWearOut=1"], "stoneWallingWearOut"),
    (["mpiio", "-nojb", "2"], "-nobj"),
    (["find", ".", "-nmae", "x"], "-name"),
])
def test_a_near_miss_option_names_the_one_meant(args, near):
    out = run_sonde(args, check=False)
    assert out.returncode == 2
    lines = [ln for ln in out.stderr.splitlines() if "error" in ln]
    assert len(lines) == 1 and f"(did you mean {near}?)" in lines[0], out.stderr


def test_no_guess_for_a_word_far_from_every_option():
    out = run_sonde(["ior", "--xyzzy"], check=False)
    assert out.returncode == 2 and "did you mean" not in out.stderr


def completions(words):
    """What bash completion offers for the last of words, from `sonde --help-completion bash`."""
    script = subprocess.run([SONDE, "--help-completion", "bash"], capture_output=True,
                            text=True, timeout=30, check=True).stdout
    shell = (f"{script}\nCOMP_WORDS=({' '.join(repr(w) for w in words)}); "
             f"COMP_CWORD={len(words) - 1}; _sonde; printf '%s\\n' \"${{COMPREPLY[@]}}\"")
    return subprocess.run(["bash", "-c", shell], capture_output=True, text=True, timeout=30,
                          check=True).stdout.split()


def parses(workload, args):
    return subprocess.run([SONDE, "--parse-only", "2", "2", workload, *args],
                          capture_output=True, text=True, timeout=30).returncode == 0


def test_completion_offers_the_values_the_binary_takes():
    """After ior -a, the backends; after coll, the operation names: each one offered is one the
    binary's own parse takes, and it takes no operation that is not offered."""
    apis = completions(["sonde", "ior", "-a", ""])
    assert sorted(apis) == ["HDF5", "MMAP", "MPIIO", "NCMPI", "POSIX"]
    # every backend is offered; the MPICH build has no parallel HDF5 or PnetCDF and refuses
    # them by name
    assert all(parses("ior", ["-a", a]) for a in apis if a not in ("HDF5", "NCMPI") or OPEN_MPI)
    assert not parses("ior", ["-a", "HDFS"])
    ops = completions(["sonde", "coll", "-e", "8", ""])
    assert {"Bcast", "Allreduce", "Ireduce", "all"} <= set(ops) and len(ops) == 25
    assert all(parses("coll", [op]) for op in ops) and not parses("coll", ["Bcastt"])
    assert completions(["sonde", "coll", "Ib"]) == ["Ibarrier", "Ibcast"]


@pytest.mark.once
def test_completion_of_sonde_mix_offers_what_its_parse_takes(tmp_path):
    """sonde mix: its own options before the first --group, each one the mix's parse takes;
    after --group SPEC: the workloads, each one a group may run; then that workload's own
    completion (ior's backends), with --group again among the options. --csv is not offered:
    the mix refuses it with one line."""
    mix_options = completions(["sonde", "mix", "--"])
    assert sorted(mix_options) == ["--group", "--help", "--interval", "--json", "--solo",
                                   "--strict"]
    value = {"--json": str(tmp_path / "r.jsonl"), "--interval": "0.5"}
    group = ["--group", "2:", "ior", "-w", "-o", str(tmp_path / "f")]
    for option in set(mix_options) - {"--group", "--help"}:
        assert parses("mix", [option, *([value[option]] if option in value else []), *group])
    assert "mix" in completions(["sonde", "mi"])
    assert completions(["sonde", "mix", "--group", "2:", ""]) == \
        completions(["sonde", ""])[:-3]  # the workloads, without mix, --help, --version
    for w in completions(["sonde", "mix", "--group", "2:", ""]):
        # each workload offered is one a group runs (its own errors aside: no options given)
        out = subprocess.run([SONDE, "--parse-only", "2", "2", "mix", "--group", "2:", w],
                             capture_output=True, text=True, timeout=30)
        assert "unknown workload" not in out.stderr, out.stderr
    assert completions(["sonde", "mix", "--group", "1:", "coll", "--group", "1:", "ior", "-a",
                        ""]) == completions(["sonde", "ior", "-a", ""])
    assert "--group" in completions(["sonde", "mix", "--group", "2:", "ior", "-w", "--"])
    out = subprocess.run([SONDE, "--parse-only", "2", "2", "mix", "--csv", str(tmp_path / "c"),
                          *group], capture_output=True, text=True, timeout=30)
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
    assert out.stderr.startswith("sonde mix: error: option --csv is not supported"), out.stderr
