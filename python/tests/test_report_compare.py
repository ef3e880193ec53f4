# SPDX-License-Identifier: BSD-3-Clause
"""sonde-report --compare of two real runs of the shipped quick suite (golden.quick_pair): every
measurement finds its partner, mdtest included, although mdtest drew a different data seed in
each; a measurement with one sample on a side is never judged; latency is better when lower."""

import json

import pytest
from golden import SONDE

from sonde import report, results
from sonde.campaign import argcheck
from sonde.results.names import COLL, MDTEST, Measurement
from sonde.views import compare

PATHS = argcheck.path_params(SONDE)


@pytest.fixture(scope="module")
def pair(quick_pair):
    return [results.load(d) for d in quick_pair]


@pytest.fixture(scope="module")
def comparison(quick_pair, pair):
    return report.build_comparison([str(d) for d in quick_pair], pair, SONDE)


def measurements(runs, workload):
    return [m for r in runs if r.workload == workload for m in r.measurements]


def test_two_runs_of_the_quick_suite_match_every_measurement(pair):
    # The case: the two campaigns' mdtest runs really used different data seeds.
    seeds = [{m[Measurement.PARAMS][str(MDTEST.DATA_SEED)]
              for m in measurements(runs, MDTEST.workload)} for runs in pair]
    assert len(seeds[0]) == len(seeds[1]) == 1 and seeds[0] != seeds[1], seeds
    assert compare.unmatched(pair, PATHS) == [0, 0]
    matched = compare.match(pair, PATHS)
    # Oracle: every measurement of the records with a figure, counted apart from sonde's keys:
    # (workload, phase, coll operation and size) of the first campaign, iterations folded.
    expected = {(r.workload, m[Measurement.PHASE], r.launch["id"],
                 json.dumps(m[Measurement.PARAMS].get(COLL.SIZE)))
                for r in pair[0] for m in r.measurements if compare.figure_of(m)[0] is not None}
    assert len(matched) == len(expected)
    mdtest_phases = {m[Measurement.PHASE] for m in measurements(pair[0], MDTEST.workload)}
    assert len(mdtest_phases) >= 8
    assert {r.label.split(": ")[-1] for r in matched if r.workload == MDTEST.workload} \
        == mdtest_phases
    for r in matched:
        assert all(r.values), r.label  # a value on both sides


def test_one_sample_is_not_judged(comparison, pair):
    table = next(t for t in comparison.tables() if t.id == "compare")
    said = table.columns.index("B is")
    ratio = table.columns.index("B/A")
    workloads = [r.workload for r in compare.match(pair, PATHS)]
    assert len(workloads) == len(table.rows)
    coll = [row for w, row in zip(workloads, table.rows, strict=True) if w == COLL.workload]
    assert len(coll) == len(measurements(pair[0], COLL.workload))
    for row in coll:  # mpiBench gives one figure per size: no range to judge a difference by
        assert row[said].text == compare.ONE_SAMPLE
        assert row[ratio].cls == row[said].cls == "muted"
    judged = [row for w, row in zip(workloads, table.rows, strict=True) if w == "ior"]
    assert judged and all(row[said].text in ("better", "worse", "same", "within noise")
                          for row in judged)


def slowed(matched, factor):
    """A matched measurement whose second campaign took factor times the first's figures: the
    first's real values, with a deliberate change on the second side only."""
    return compare.Matched(matched.label, matched.unit,
                           [matched.values[0], [v * factor for v in matched.values[0]]])


def test_direction_lower_latency_is_better(pair):
    matched = compare.match(pair, PATHS)
    bcast = [r for r in matched if r.workload == COLL.workload
             and r.label.endswith(("Bcast 1 KiB", "Bcast 2 KiB"))]
    # A real latency of campaign A as two samples 2 % apart (µs): two real ones can differ by
    # more than the 3x asked below on a loaded machine, and a direction needs a change the
    # noise does not hide.
    real = bcast[0].values[0][0]
    latency = compare.Matched("Bcast", "µs", [[real, real * 1.02], []])
    slower = slowed(latency, 3.0)
    assert slower.ratio(1) == pytest.approx(3.0)
    assert slower.judgement(1) == "worse" and slower.better(1) is False
    assert slowed(latency, 1 / 3).judgement(1) == "better"
    # The same numbers as a rate: more is better.
    real_rate = next(r for r in matched if r.unit == "MiB/s").values[0][0]
    rate = compare.Matched("write", "MiB/s", [[real_rate, real_rate * 1.02], []])
    assert slowed(rate, 3.0).judgement(1) == "better"
    assert slowed(rate, 1 / 3).judgement(1) == "worse"
    assert report.JUDGEMENT_CLASS["worse"] == "bad" and report.JUDGEMENT_CLASS["better"] == "good"


def test_a_mix_group_beside_others_is_not_the_run_alone(golden, mix_file):
    """The mix's groups (golden.MIX_RUN: two one-rank ior writes, each first alone, --solo,
    then side by side) against the same ior run on its own: the run alone matches the groups'
    solo runs only; beside another writer a group is another experiment, never averaged with
    the run alone."""
    alone = results.load(golden.run("ior", "-w", "-t", "4k", "-b", "32k", "-o",
                                    "{dir}/alone", ranks=1))
    mixed = [r for r in results.load(mix_file) if r.workload == "ior"]
    stages = {r.run_id: r.header["mix_stage"] for r in mixed}
    assert sorted(stages.values()) == ["concurrent", "concurrent", "solo", "solo"]
    writes = [m for m in alone[0].measurements if m[Measurement.PHASE] == "write"]
    # the case: the measurements' own parameters (paths aside) do not tell the stages apart
    def no_paths(m):
        return {k: v for k, v in m[Measurement.PARAMS].items()
                if not (isinstance(v, str) and "/" in v)}

    assert all(no_paths(m) == no_paths(writes[0]) for r in mixed for m in r.measurements)
    matched = [x for x in compare.match([alone, mixed], PATHS) if x.values[1]]
    solo = sorted(compare.figure_of(m)[0] for r in mixed if stages[r.run_id] == "solo"
                  for m in r.measurements if compare.figure_of(m)[0] is not None)
    assert [sorted(x.values[1]) for x in matched] == [solo]
    # the concurrent groups match each other: the same ior beside the same ior
    together = compare.match([mixed, mixed], PATHS)
    concurrent = sorted(compare.figure_of(m)[0] for r in mixed
                        if stages[r.run_id] == "concurrent" for m in r.measurements
                        if compare.figure_of(m)[0] is not None)
    assert sorted(sorted(x.values[0]) for x in together) == sorted([solo, concurrent])


def test_a_run_that_failed_is_not_compared(golden):
    """The same sonde train run on a good dataset and on one with a byte changed: --verify
    finds it, the run writes its epochs' figures and exits 3. Its figures are no figures: they
    are neither matched with the good run's nor counted as measurements without a partner."""
    runs = {}
    for name, spoil in (("good", False), ("spoilt", True)):
        data = golden.dir / f"compare-{name}"
        data.mkdir(exist_ok=True)
        args = ["-d", data, "--num-files", "4", "--record-size", "4k"]
        golden.run("train", *args, "--generate")
        if spoil:
            victim = sorted((data / "train").glob("*.npy"))[0]
            spoilt = bytearray(victim.read_bytes())
            spoilt[-1] ^= 0xFF
            victim.write_bytes(spoilt)
        runs[name] = results.load(golden.run("train", *args, "--train", "--verify",
                                             expect=3 if spoil else 0))
    failed = runs["spoilt"][0]
    assert failed.end["exit_code"] == 3
    epochs = [m for m in failed.measurements if compare.figure_of(m)[0] is not None]
    assert epochs, "the failed run wrote figures"
    assert compare.match([runs["good"], runs["spoilt"]], PATHS) == []
    assert compare.unmatched([runs["good"], runs["spoilt"]], PATHS) == [len(epochs), 0]


def test_a_path_given_relative_or_absolute_is_the_same_measurement(golden):
    """The same ior writes with the test file named relative to the working directory and
    by its absolute name match (a relative name has no "/": a rule of "paths hold a slash"
    kept them apart); a larger block is other work and matches nothing. Which parameters are
    paths the binary's option tables say."""
    base = ["-w", "-t", "4k", "-i", "2"]
    relative = results.load(golden.run("ior", *base, "-b", "16k", "-o", "cmp-relative"))
    absolute = results.load(golden.run("ior", *base, "-b", "16k", "-o", "{dir}/cmp-absolute"))
    larger = results.load(golden.run("ior", *base, "-b", "32k", "-o", "{dir}/cmp-larger"))
    # the case: the two runs' parameters differ in the test file's name only, written
    # without a slash in one of them
    a, b = relative[0].header["params"], absolute[0].header["params"]
    assert {k for k in a if a[k] != b[k]} == {"testFile"} and "/" not in a["testFile"]
    [matched] = compare.match([relative, absolute], PATHS)
    written = [[m["bytes"] / m["seconds"] / 2**20 for m in runs[0].measurements]
               for runs in (relative, absolute)]
    assert [len(v) for v in written] == [2, 2]
    assert [pytest.approx(v) for v in written] == matched.values
    assert compare.unmatched([relative, absolute], PATHS) == [0, 0]
    assert compare.match([absolute, larger], PATHS) == []
    assert compare.unmatched([absolute, larger], PATHS) == [1, 1]  # one write each


def test_hints_files_match_by_what_they_hold(golden):
    """ior through MPI-IO with a hints file: the file's name is a path and stays out of the
    match, its hints do not. The same two hints in another file, in the other order, match;
    one hint more is another experiment. The oracle for what the records hold: the files."""
    lines = ["IOR_HINT__MPI__striping_unit=1048576", "IOR_HINT__MPI__romio_cb_write=enable"]
    files = {"first": lines, "same": lines[::-1], "more": lines + ["IOR_HINT__MPI__cb_nodes=1"]}
    runs = {}
    for name, held in files.items():
        hints = golden.dir / f"hints-{name}"
        hints.write_text("\n".join(held) + "\n")
        runs[name] = results.load(golden.run("ior", "-a", "MPIIO", "-w", "-t", "4k", "-b", "16k",
                                             "-U", hints, "-o", f"{{dir}}/cmp-hints-{name}"))
        for m in runs[name][0].measurements:
            assert m["extra"]["mpi_hints"] == [ln.split("__MPI__")[1] for ln in held]
    [matched] = compare.match([runs["first"], runs["same"]], PATHS)
    assert [len(v) for v in matched.values] == [1, 1]
    assert compare.match([runs["first"], runs["more"]], PATHS) == []
    assert compare.unmatched([runs["first"], runs["more"]], PATHS) == [1, 1]
