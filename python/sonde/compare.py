# SPDX-License-Identifier: BSD-3-Clause
"""Matching measurements across campaigns (sonde-report --compare A B [C ...]): two
measurements match when they are the same workload, phase, shape (ranks, nodes) and
parameters (paths aside: the same benchmark on another file system matches), so mib runs with
different call sizes or collectives of different sizes never match each other."""

import json
from dataclasses import dataclass

from . import plots, words
from .names import COLL, COLLExtra, Measurement


def figure_of(m):
    """(value, unit) a measurement is compared by: bandwidth or operation rate for I/O and
    metadata, mean latency for collectives."""
    if m["workload"] == COLL.workload:
        return m[Measurement.EXTRA].get(COLLExtra.AVG_US), "µs"
    return plots.figure_of(m)


def key_of(run, m):
    params = {k: v for k, v in sorted((m.get(Measurement.PARAMS) or {}).items())
              if not (isinstance(v, str) and "/" in v)}
    h = run.header or {}
    return (run.workload, m[Measurement.PHASE], h.get("ranks"), h.get("nodes"),
            json.dumps(params, sort_keys=True, default=str))


def label_of(run, m):
    p = m.get(Measurement.PARAMS) or {}
    what = m[Measurement.PHASE]
    if run.workload == COLL.workload and p.get(COLL.SIZE) is not None:
        what = f"{what} {words.size(p[COLL.SIZE])}"
    return f"{words.label(run)}: {what}"


@dataclass
class Matched:
    """One measurement matched across campaigns: values[k] holds campaign k's values (every
    iteration of every run), empty where campaign k has none."""

    label: str
    unit: str
    values: list

    @property
    def means(self):
        return [sum(v) / len(v) if v else None for v in self.values]

    def ratio(self, k):
        a, b = self.means[0], self.means[k]
        return b / a if a and b is not None else None

    def within_noise(self, k):
        """The two campaigns' ranges of values overlap (a difference inside the iterations'
        own spread); False with a single value on either side, which has no range."""
        a, b = self.values[0], self.values[k]
        if len(a) < 2 or len(b) < 2:
            return False
        return max(min(a), min(b)) <= min(max(a), max(b))

    def better(self, k):
        """Whether campaign k is better than the first (more bandwidth or rate, less
        latency), None when there is no ratio or the difference is within noise."""
        r = self.ratio(k)
        if r is None or self.within_noise(k) or r == 1:
            return None
        return r < 1 if self.unit == "µs" else r > 1


def match(campaigns):
    """[Matched] over campaigns (each a list of runs), in first-seen order; only measurements
    present in the first campaign and at least one other."""
    table, labels, units = {}, {}, {}
    for k, runs in enumerate(campaigns):
        for run in runs:
            for m in run.measurements:
                v, unit = figure_of(m)
                if v is None:
                    continue
                key = key_of(run, m)
                table.setdefault(key, [[] for _ in campaigns])[k].append(v)
                labels.setdefault(key, label_of(run, m))
                units[key] = unit
    out = []
    seen = {}
    for key, values in table.items():
        if not values[0] or not any(values[1:]):
            continue
        text = labels[key]
        seen[text] = seen.get(text, 0) + 1
        if seen[text] > 1:  # same words, other parameters: keep them apart on the axis
            text = f"{text} ({seen[text]})"
        out.append(Matched(text, units[key], values))
    return out


def unmatched(campaigns):
    """How many measurements of each campaign found no partner."""
    keys = [{key_of(r, m) for r in runs for m in r.measurements if figure_of(m)[0] is not None}
            for runs in campaigns]
    return [len(k - set().union(*(keys[:i] + keys[i + 1:]))) for i, k in enumerate(keys)]
