"""sonde-suite: suite files, sweep expansion, rules, scores, the runner's manifest and resume."""

import json
import os
import stat
import textwrap

import pytest
from conftest import end, header, jsonl, measurement

from sonde import rules, suite, suitefile, tables

BASIC = """
[suite]
name = "t"
ranks = 2
scratch = "/tmp/s"

[[step]]
name = "ior-easy"
workload = "ior"
variant = "easy"
args = ["-a", "{api}", "-b", "{block_mib}m", "-o", "{scratch}/f"]
rules = ["verified"]
repetitions = 2
[step.sweep]
api = ["POSIX", "MPIIO"]
[step.params]
block_mib = 64
[step.scale]
block_mib = 16

[[step]]
name = "coll"
workload = "coll"
ranks = 4
args = ["-e", "1K"]
"""


def write(tmp_path, text, name="s.toml"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return p


def test_sweep_repetitions_and_placeholders(tmp_path):
    s = suitefile.load(write(tmp_path, BASIC))
    assert s.name == "t"
    assert [ln.id for ln in s.launches] == [
        "000-ior-easy_api-POSIX_r0", "001-ior-easy_api-POSIX_r1",
        "002-ior-easy_api-MPIIO_r0", "003-ior-easy_api-MPIIO_r1", "004-coll_r0"]
    first = s.launches[0]
    assert first.args == ["-a", "POSIX", "-b", "64m", "-o", "/tmp/s/f"]
    assert first.ranks == 2 and first.variant == "easy" and first.rules == ["verified"]
    assert first.params == {"api": "POSIX", "block_mib": 64}
    assert s.launches[4].ranks == 4
    assert not s.reduced_scale


def test_scale_keeps_multiples_and_marks_reduced(tmp_path):
    s = suitefile.load(write(tmp_path, BASIC), scale=0.3)
    assert s.launches[0].args[3] == "16m"  # 64 * 0.3 = 19.2 -> multiple of 16
    assert s.reduced_scale
    s = suitefile.load(write(tmp_path, BASIC), scale=0.01)
    assert s.launches[0].args[3] == "16m"  # never below one multiple


@pytest.mark.parametrize("text,message", [
    ("[suite]\nname = \"x\"\n", "no [[step]] tables"),
    ("[[step]]\nname = \"a\"\nworkload = \"ior\"\nargs = []\nbogus = 1\n",
     ":5: unknown key 'bogus' in [[step]]"),
    ("[[step]]\nname = \"a\"\nworkload = \"dd\"\nargs = []\n", ":3: unknown workload 'dd'"),
    ("[[step]]\nname = \"a\"\nworkload = \"ior\"\n", "has no 'args'"),
    ("[[step]]\nname = \"a\"\nworkload = \"ior\"\nargs = [\"{nope}\"]\n",
     ":4: placeholder {nope} has no value"),
    ("[[step]]\nname = \"a\"\nworkload = \"ior\"\nargs = []\nranks = 0\n",
     "ranks must be a whole number >= 1"),
    ("[suite]\nranks = 2\ncolour = 1\n[[step]]\nname = \"a\"\nworkload = \"ior\"\nargs = []\n",
     ":3: unknown key 'colour' in [suite]"),
    ("[[step]]\nname = \"a\"\nworkload = \"ior\"\nargs = []\n[[step]]\nname = \"a\"\n"
     "workload = \"ior\"\nargs = []\n", ":6: step name 'a' is used twice"),
    ("[[step]\nname = 1\n", "not valid TOML"),
    ("[[step]]\nname = \"a\"\nworkload = \"ior\"\nargs = []\n[step.sweep]\nx = []\n",
     ":6: sweep 'x' must be a non-empty list"),
])
def test_malformed_suites_name_the_line(tmp_path, text, message):
    p = write(tmp_path, text)
    with pytest.raises(suitefile.SuiteError) as e:
        suitefile.load(p)
    assert message in str(e.value)
    assert str(e.value).startswith(str(p))


def test_cli_reports_suite_errors_in_one_line(tmp_path, capsys):
    p = write(tmp_path, "[[step]]\nname = \"a\"\nworkload = \"dd\"\nargs = []\n")
    assert suite.main(["run", str(p), "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown workload 'dd'" in err


def test_dry_run_prints_exact_commands(tmp_path, capsys):
    p = write(tmp_path, BASIC)
    assert suite.main(["run", str(p), "--dry-run", "--launcher", "srun", "--sonde",
                       "/x/sonde", "--out", "/r"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 5
    assert lines[0] == ("srun --mpi=pmix -n 2 /x/sonde ior -a POSIX -b 64m -o /tmp/s/f "
                        "--json /r/000-ior-easy_api-POSIX_r0/results.jsonl")
    over = " --overcommit" if os.cpu_count() < 4 else ""
    assert lines[4] == (f"srun --mpi=pmix -n 4{over} /x/sonde coll -e 1K --json "
                        "/r/004-coll_r0/results.jsonl")


def test_read_shift_arithmetic():
    # The README's rule -Q = tasks per node on 16 nodes of 64 tasks: shift 0.
    assert rules.read_shift(1024, 64, 64) == 0
    assert rules.read_shift(1024, 64, 1) == 64
    assert rules.read_shift(4, 2, 1) == 2
    assert rules.read_shift(4, 2, 2) == 0


def _run(tmp_path, records):
    from sonde import results
    f = tmp_path / "r.jsonl"
    f.write_text(jsonl(records))
    return results.load(f)[0]


def test_rules_on_known_results(tmp_path):
    launch = suitefile.load(write(tmp_path, BASIC)).launches[0]
    h = header()
    h["params"].update(block_size=2 << 30, segment_count=1, tasks_per_node_offset=2)
    h["ranks"], h["tasks_per_node"] = 4, 2
    e = end()
    e["elapsed_seconds"] = 75.0
    run = _run(tmp_path, [h, measurement(), measurement(phase="read"), e])
    ctx = {"node_memory_bytes": 1 << 30}
    assert rules.min_runtime_60s(launch, run, ctx)[0] is True
    ok, why = rules.dataset_per_node_128gib(launch, run, ctx)
    assert ok is False and "4.00 GiB per node" in why
    assert rules.ior_q_equals_tpn(launch, run, ctx)[0] is True
    ok, why = rules.ior_read_shift_nonzero(launch, run, ctx)
    assert ok is False and "reads shifted by 0 ranks" in why
    assert rules.verified(launch, run, ctx)[0] is True
    e["elapsed_seconds"] = 59.9
    run = _run(tmp_path, [h, measurement(), e])
    assert rules.min_runtime_60s(launch, run, ctx)[0] is False
    bad = measurement(phase="read")
    bad["verify"]["errors"] = 3
    run = _run(tmp_path, [h, bad, end()])
    ok, why = rules.verified(launch, run, ctx)
    assert ok is False and "3 errors" in why
    verdicts, status = rules.evaluate(launch, run, ctx)
    assert status == "not-compliant"
    verdicts, status = rules.evaluate(launch, _run(tmp_path, [h, measurement(), end()]), ctx)
    assert status == "compliant"
    assert rules.evaluate(launch, _run(tmp_path, [h, measurement(), end()]), ctx, True)[1] == \
        "reduced-scale"


def test_fixed_parameters(tmp_path):
    launch = suitefile.load(write(tmp_path, BASIC)).launches[0]
    launch.fixed = {"-a": "POSIX", "-F": True}
    ok, why = rules.fixed_parameters(launch, None, {})
    assert ok is False and why.endswith("-F")
    launch.args = launch.args + ["-F"]
    assert rules.fixed_parameters(launch, None, {})[0] is True
    launch.fixed["-a"] = "MPIIO"
    assert rules.fixed_parameters(launch, None, {})[0] is False


def test_ior_row_and_score(tmp_path):
    recs = [header()]
    for i, (w, r) in enumerate([(1.0, 0.5), (0.5, 0.25), (0.25, 0.5)]):
        recs += [measurement(phase="write", iteration=i, seconds=w),
                 measurement(phase="read", iteration=i, seconds=r)]
    row = rules.ior_row(_run(tmp_path, recs + [end()]))
    # 8 MiB per phase: write 8, 16, 32 MiB/s; read 16, 32, 16 MiB/s.
    assert row["api"] == "POSIX"
    assert row["WRbwmax"] == 32 and row["WRbwmin"] == 8
    assert row["WRbwmean"] == pytest.approx(56 / 3)
    assert row["RDbwmean"] == pytest.approx(64 / 3)
    assert row["WRbmeans[s]"] == pytest.approx(1.75 / 3)
    rows = [dict(row, variant="easy", launch="a"),
            dict(row, variant="easy", launch="b", RDbwmean=100.0),
            dict(row, variant="hard", launch="c", RDbwmean=1e6)]
    best, which = rules.score(rows)
    assert which["launch"] == "b" and best == pytest.approx(100 + 56 / 3)


FAKE_SONDE = """#!/bin/sh
# Stands in for sonde in runner tests: writes a results file, fails when told to.
out=""
while [ $# -gt 0 ]; do [ "$1" = --json ] && out=$2; shift; done
if [ -e "{flag}" ]; then echo "sonde ior: error: injected failure" >&2; exit 3; fi
cat > "$out" <<'JSON'
{records}
JSON
"""


def make_fake_sonde(tmp_path, flag):
    recs = jsonl([header(), measurement(), measurement(phase="read"), end()]).strip()
    path = tmp_path / "fake-sonde"
    path.write_text(FAKE_SONDE.replace("{flag}", str(flag)).replace("{records}", recs))
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def test_run_failure_then_resume(tmp_path, capsys, monkeypatch):
    flag = tmp_path / "fail"
    fake = make_fake_sonde(tmp_path, flag)
    p = write(tmp_path, BASIC.replace("ranks = 4", "ranks = 1"))
    out = tmp_path / "run"
    flag.touch()
    assert suite.main(["run", str(p), "--out", str(out), "--sonde", str(fake)]) == 1
    m = json.loads((out / "manifest.json").read_text())
    assert [e["status"] for e in m["launches"]] == ["failed"] * 5
    assert "injected failure" in m["launches"][0]["reason"]
    assert m["status"] == "failed"
    capsys.readouterr()
    # A second run into the same directory is refused; resume completes it.
    assert suite.main(["run", str(p), "--out", str(out), "--sonde", str(fake)]) == 2
    flag.unlink()
    assert suite.main(["resume", str(out)]) == 0
    m = json.loads((out / "manifest.json").read_text())
    assert [e["status"] for e in m["launches"]] == ["ok"] * 5
    assert m["status"] == "complete"
    printed = capsys.readouterr().out
    assert "IOR results (MiB/s, seconds):" in printed
    assert "Score RDbwmean+WRbwmean of the best easy run: 32.0 MiB/s" in printed
    assert (out / "summary.csv").read_text().startswith("launch,step,variant,")
    assert (out / "ior-table.csv").read_text().startswith("api,RDbwmax,RDbwmean,RDbwmin,")
    cmd = (out / "000-ior-easy_api-POSIX_r0" / "command.txt").read_text()
    assert "--json" in cmd and str(fake) in cmd
    assert suite.main(["run", str(p), "--out", str(tmp_path / "run2"), "--sonde", str(fake),
                       "--show-output"]) == 0
    assert "=== 000-ior-easy_api-POSIX_r0: " in capsys.readouterr().out
    # The suite file changing under a run makes resume refuse.
    p.write_text(p.read_text() + "\n# edited\n")
    assert suite.main(["resume", str(out)]) == 2


def test_resume_of_missing_dir(tmp_path, capsys):
    assert suite.main(["resume", str(tmp_path / "nope")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_table_format():
    text = tables.format_table([{"a": 1.23456, "b": None, "c": "x"}], ["a", "b", "c"])
    assert text.splitlines() == ["    a | b | c", "------|---|--", "1.235 | - | x"]


def test_sbatch_script(tmp_path):
    s = suitefile.load(write(tmp_path, BASIC))
    text = suite.sbatch_script(s, tmp_path / "run", 30, "/x/sonde", None)
    assert "#SBATCH --time=30" in text and "#SBATCH --ntasks=4" in text
    assert "--launcher srun" in text and text.startswith("#!/bin/bash\n")


def test_node_sweep_shapes_launches(tmp_path):
    p = write(tmp_path, """
        [suite]
        tasks_per_node = 3
        [[step]]
        name = "easy"
        workload = "ior"
        args = ["-Q", "{tasks_per_node}", "-N", "{ranks}"]
        [step.sweep]
        nodes = [1, 4]
        """)
    s = suitefile.load(p)
    assert [(ln.nodes, ln.tasks_per_node, ln.ranks) for ln in s.launches] == [(1, 3, 3),
                                                                              (4, 3, 12)]
    assert s.launches[1].args == ["-Q", "3", "-N", "12"]
    assert s.launches[1].id == "001-easy_nodes-4_r0"


def test_empty_sweep_value_drops_the_argument(tmp_path):
    p = write(tmp_path, """
        [[step]]
        name = "c"
        workload = "coll"
        args = ["-e", "1K", "{timing}"]
        [step.sweep]
        timing = ["", "--per-call"]
        """)
    assert [ln.args for ln in suitefile.load(p).launches] == [["-e", "1K"],
                                                              ["-e", "1K", "--per-call"]]
