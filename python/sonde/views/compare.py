# SPDX-License-Identifier: BSD-3-Clause
"""Matching measurements across campaigns (sonde-report --compare A B [C ...]): two
measurements match when they are the same workload, phase, shape (ranks, nodes, and the ranks
on each node: 3 + 1 is another measurement than 2 + 2) and
parameters that define the experiment, so mib runs with different call sizes or collectives of
different sizes never match each other. Left out of the match: paths, the parameters whose
value names a file or directory as the binary's option tables say (`sonde --describe-options`;
the same benchmark on another file system, or given a relative name, matches; what a file gave
stays in where the records hold it: ior's MPI-IO hints, from -U's file or the environment, in
any order), and the seeds
of SEEDS (they pick one sample of the same random experiment; mdtest draws its data seed from
the clock when -G is not given, so two runs of one suite never had the same). A group of a
sonde mix that ran concurrently with others matches only a group that ran beside the same
others (their workloads, shapes and parameters): beside other load it is another experiment
than alone or in another mix. Only runs that ended with exit code 0 are compared: the figures
of a run that failed (bad data found, stopped early) are no figures."""

import json
from dataclasses import dataclass

from ..results.names import (
    COLL,
    IOR,
    MDTEST,
    MIB,
    COLLExtra,
    End,
    Header,
    IORHintsExtra,
    Measurement,
    Mix,
)
from . import plots, words

# Parameters that are seeds of a random choice, not part of the experiment: mdtest's data seed
# (data_seed, the seed the run used; random_buffer_offset, its -G as given) and the seed of its
# random order (-R), mib's seed of random reads, IOR's seeds of random offsets and of the random
# reordering of tasks.
SEEDS = frozenset(str(n) for n in (MDTEST.DATA_SEED, MDTEST.RANDOM_BUFFER_OFFSET,
                                   MDTEST.RANDOM_SEED, MIB.SEED, IOR.RANDOM_OFFSET_SEED,
                                   IOR.REORDER_TASKS_RANDOM_SEED))


def figure_of(m):
    """(value, unit) a measurement is compared by: bandwidth or operation rate for I/O and
    metadata, mean latency for collectives."""
    if m["workload"] == COLL.workload:
        return m[Measurement.EXTRA].get(COLLExtra.AVG_US), "µs"
    return plots.figure_of(m)

# Units of time (latency, duration): less is better. Anything else is a rate: more is better.
LOWER_IS_BETTER = frozenset(("µs", "us", "ms", "s"))
ONE_SAMPLE = "one sample, no range"


def _experiment(params, paths=frozenset()):
    """params without the paths (the names in paths) and seeds, as text."""
    return json.dumps({k: v for k, v in sorted((params or {}).items())
                       if k not in paths and k not in SEEDS},
                      sort_keys=True, default=str)


def _concurrent_mix(run):
    """(the mix's run id, the group) of a run that was a group of a sonde mix running beside
    the others, or None (a run alone, or a mix's --solo run)."""
    h = run.header or {}
    group = h.get(Mix.GROUP)
    suffix = f"-g{group}"
    if h.get(Mix.STAGE) != "concurrent" or not (run.run_id or "").endswith(suffix):
        return None
    return run.run_id[:-len(suffix)], group


def succeeded(runs):
    """The runs that ended with exit code 0 (an end record that says so)."""
    return [r for r in runs if r.end is not None and r.end.get(End.EXIT_CODE) == 0]


def mix_contexts(runs, paths):
    """{run id: what ran beside it} for the concurrent groups of sonde mix launches among runs:
    the other groups' workloads, shapes and parameters, as text. paths: {workload: the names
    of its path parameters} (sonde.campaign.argcheck.path_params)."""
    shapes = {}
    for run in runs:
        mix = _concurrent_mix(run)
        if mix:
            h = run.header or {}
            shapes.setdefault(mix[0], {})[mix[1]] = [
                run.workload, h.get(Header.RANKS), h.get(Header.NODES), placement(h),
                _experiment(h.get(Header.PARAMS), paths.get(run.workload, frozenset()))]
    out = {}
    for run in runs:
        mix = _concurrent_mix(run)
        if mix:
            others = [v for g, v in sorted(shapes[mix[0]].items()) if g != mix[1]]
            out[run.run_id] = json.dumps(others)
    return out


def key_of(run, m, paths, contexts=None):
    """What a measurement is the same experiment as: workload, phase, shape, parameters but
    its paths (paths as mix_contexts takes them), the MPI-IO hints it passed (ior: a hints
    file's contents, where its name is a path), and for a concurrent mix group what ran
    beside it (contexts, mix_contexts of its campaign)."""
    h = run.header or {}
    hints = (m.get(Measurement.EXTRA) or {}).get(IORHintsExtra.MPI_HINTS)
    return (run.workload, m[Measurement.PHASE], h.get(Header.RANKS), h.get(Header.NODES),
            placement(h),
            _experiment(m.get(Measurement.PARAMS), paths.get(run.workload, frozenset())),
            None if hints is None else tuple(sorted(hints)),
            (contexts or {}).get(run.run_id))


def placement(header):
    """The ranks on each node, most first: runs of 4 ranks on 2 nodes placed 3 + 1 and 2 + 2
    share ranks and nodes but not the load each node carries."""
    return tuple(sorted(header.get(Header.TASKS_ON_NODE) or (), reverse=True))


def _what(run, m):
    p = m.get(Measurement.PARAMS) or {}
    what = m[Measurement.PHASE]
    if run.workload == COLL.workload and p.get(COLL.SIZE) is not None:
        what = f"{what} {words.size(p[COLL.SIZE])}"
    if _concurrent_mix(run):
        what = f"{what}, beside the mix's other groups"
    return what


def label_of(run, m):
    return f"{words.label(run)}: {_what(run, m)}"


def short_label_of(run, m):
    """The measurement in a few words: the suite launch id, else the workload and ranks."""
    launch = (run.launch or {}).get("id") or \
        f"{words.name(run)} {words.shape((run.header or {}).get('ranks'), None)}"
    return f"{launch}: {_what(run, m)}"


@dataclass
class Matched:
    """One measurement matched across campaigns: values[k] holds campaign k's values (every
    iteration of every run), empty where campaign k has none."""

    label: str
    unit: str
    values: list
    workload: str = ""
    short: str = ""  # the label in a line of an axis: launch id (or workload) and what

    @property
    def means(self):
        return [sum(v) / len(v) if v else None for v in self.values]

    def ratio(self, k):
        a, b = self.means[0], self.means[k]
        return b / a if a and b is not None else None

    def sampled(self, k):
        """Both campaigns have a range (two values or more): a difference can be judged
        against the spread of the iterations."""
        return len(self.values[0]) > 1 and len(self.values[k]) > 1

    def within_noise(self, k):
        """The two campaigns' ranges of values overlap (a difference inside the iterations'
        own spread); False with a single value on either side, which has no range."""
        a, b = self.values[0], self.values[k]
        if not self.sampled(k):
            return False
        return max(min(a), min(b)) <= min(max(a), max(b))

    def better(self, k):
        """Whether campaign k is better than the first (more bandwidth or rate, less
        latency), None when there is no ratio, no range to judge it by (one sample on either
        side) or the difference is within noise."""
        r = self.ratio(k)
        if r is None or not self.sampled(k) or self.within_noise(k) or r == 1:
            return None
        return r < 1 if self.unit in LOWER_IS_BETTER else r > 1

    def judgement(self, k):
        """What can be said of campaign k against the first, in words."""
        if self.ratio(k) is None:
            return "no ratio"
        if not self.sampled(k):
            return ONE_SAMPLE
        if self.within_noise(k):
            return "within noise"
        return {True: "better", False: "worse", None: "same"}[self.better(k)]


def match(campaigns, paths):
    """[Matched] over campaigns (each a list of runs), in first-seen order; only measurements
    present in the first campaign and at least one other, of runs that succeeded. paths as
    mix_contexts takes them."""
    table, labels, units, shorts, workloads = {}, {}, {}, {}, {}
    for k, runs in enumerate(campaigns):
        runs = succeeded(runs)
        contexts = mix_contexts(runs, paths)
        for run in runs:
            for m in run.measurements:
                v, unit = figure_of(m)
                if v is None:
                    continue
                key = key_of(run, m, paths, contexts)
                table.setdefault(key, [[] for _ in campaigns])[k].append(v)
                labels.setdefault(key, label_of(run, m))
                shorts.setdefault(key, short_label_of(run, m))
                workloads.setdefault(key, run.workload)
                units[key] = unit
    out = []
    seen = {}
    for key, values in table.items():
        if not values[0] or not any(values[1:]):
            continue
        said = []
        for text in (labels[key], shorts[key]):
            seen[text] = seen.get(text, 0) + 1
            # same words, other parameters: keep them apart on the axis
            said.append(text if seen[text] == 1 else f"{text} ({seen[text]})")
        out.append(Matched(said[0], units[key], values, workloads[key], said[1]))
    return out


def unmatched(campaigns, paths):
    """How many measurements of each campaign's runs that succeeded found no partner."""
    keys = [{key_of(r, m, paths, contexts) for r in runs for m in r.measurements
             if figure_of(m)[0] is not None}
            for runs, contexts in ((ok, mix_contexts(ok, paths))
                                   for ok in map(succeeded, campaigns))]
    return [len(k - set().union(*(keys[:i] + keys[i + 1:]))) for i, k in enumerate(keys)]
