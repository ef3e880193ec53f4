# SPDX-License-Identifier: BSD-3-Clause
"""The suite's training table (sonde.campaign.train_table) from real sonde train runs: one row
per run from its summary record, and the figure it states: the most ranks per node of a run in
which every rank's AU reached the threshold, checked against the epochs' own AU."""

from types import SimpleNamespace

from golden import records_of

from sonde import results
from sonde.campaign import train_table

DATA = ["-d", "{dir}", "--num-files", "4", "--record-size", "4k"]


def launch(name, ranks):
    return SimpleNamespace(id=name, step="train", ranks=ranks, nodes=1, workload="train",
                           touch=False)


def test_the_most_ranks_that_passed_is_the_answer(golden):
    golden.run("train", *DATA, "--generate")
    # 10 ms of compute a batch against reads of microseconds passes a threshold of 0.5; no
    # compute at all passes none
    files = {"fed": golden.run("train", *DATA, "--train", "--compute-time", "0.01",
                               "--au-threshold", "0.5", ranks=1),
             "starved": golden.run("train", *DATA, "--train", "--au-threshold", "0.5",
                                   ranks=2)}
    table = train_table.rows([launch("fed", 1), launch("starved", 2)],
                             lambda _, name: results.load(files[name])[-1], None, {})
    for row in table:
        epochs = [r for r in records_of(files[row["launch"]])
                  if r["type"] == "measurement" and r["phase"] == "train"]
        passed = all(e["extra"]["au_min"] >= 0.5 for e in epochs)
        assert row["au_pass"] == ("yes" if passed else "no"), row
    assert [r["au_pass"] for r in table] == ["yes", "no"]
    assert train_table.most_fed(table)["launch"] == "fed"
    assert train_table.answer(table).startswith(
        "Most emulated accelerators per node with every rank's AU at or above 0.5: 1 (fed,")
    assert "feeds none" in train_table.answer(table[1:])
