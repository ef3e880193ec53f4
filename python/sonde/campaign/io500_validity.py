# SPDX-License-Identifier: BSD-3-Clause
"""What makes an IO500 campaign's phase invalid besides its figures: the parameters it really ran
with (as the binary parsed them) against what IO500 allows (io500_phases), the keys the
phases of one .ini section share, the processes every phase runs on, and the stonewall.

Everything is judged on the header record's `params`: the binary writes them from its option
table after parsing the whole command line (the last of repeated options wins, grouped flags
such as -uLF and attached values such as -I10 included), so no spelling of an option escapes.
"""

import json
import os
from collections import Counter

from ..results.names import IOR, MDTEST, Header
from . import argcheck
from .io500_phases import (
    BY_NAME,
    FREE,
    SET,
    SHARED,
    STONEWALL,
    STONEWALL_TIME,
    TUNABLE,
    FilePerProc,
)


def phase_params(run):
    """The parameters a phase ran with: its header record's params, or None when it wrote no
    records. (A phase that never ran can be judged by what the binary would parse from its
    command line, `sonde --parse-only`, argcheck.parse, once that exists.)"""
    if run is None or not run.header:
        return None
    return run.header.get(Header.PARAMS)


def _shown(value):
    return json.dumps(value)


def api_options(sonde_binary, workload, params):
    """The parameters IO500's API key lets a phase set: after the API's name, the options of
    that API ("HDF5 --hdf5.collectiveMetadata", "MMAP --mmap.madv_pattern"), those the
    binary's option tables spell --<api>.<name> for the backend the phase ran on (-a). IO500
    passes another API's option with a warning that it may not be supported; its rules do not
    allow it, so such an option stays at its default. Raises argcheck.Refused when the binary
    cannot be asked."""
    api = params.get(IOR.API if workload == IOR.workload else MDTEST.API)
    if workload not in (IOR.workload, MDTEST.workload) or not isinstance(api, str):
        return frozenset()
    return frozenset(argcheck.api_params(sonde_binary, workload, api))


def parameter_problems(phase, params, sonde_binary, stonewall=STONEWALL):
    """Every parameter of params that IO500 would not have run the phase with, as reasons.
    sonde_binary: the sonde whose option tables say which options are the API's own."""
    expected = phase.expected()
    try:
        own_api, unknown = api_options(sonde_binary, phase.workload, params), None
    except argcheck.Refused as e:
        own_api, unknown = frozenset(), str(e)
    problems = []
    for name, value in params.items():
        if name in own_api:
            continue  # the API key's own options (api_options)
        if name not in expected:
            problems.append(f"parameter {name} is {_shown(value)}, a parameter IO500's rules "
                            "in sonde do not know")
            continue
        want = expected[name]
        if isinstance(want, FilePerProc):
            want = want.resolve(params)
        if want is TUNABLE or want is FREE:
            continue
        if want is SET:
            if value is None:
                problems.append(f"parameter {name} is not set, IO500 always sets it")
        elif want is STONEWALL_TIME:
            if value != stonewall:
                problems.append(f"parameter {name} is {_shown(value)}, the stonewall of the "
                                f"campaign is {stonewall}")
        elif value != want or type(value) is not type(want):
            how = "fixes" if name in phase.rules else "leaves it at the default"
            problems.append(f"parameter {name} is {_shown(value)}, IO500 {how} {_shown(want)}")
    if problems and unknown:
        problems.append(f"which options are the API's own is not known ({unknown}): they were "
                        "judged as options IO500 leaves at their defaults")
    return problems


def campaign_stonewall(params_by_phase, phases):
    """The stonewall the write phases ran with (IO500 has one): the most common value, the
    earlier phase's on a tie; IO500's when no write phase has records."""
    values = []
    for phase in phases:
        params = params_by_phase.get(phase.name)
        if not params:
            continue
        for name, want in phase.expected().items():
            if want is STONEWALL_TIME and name in params:
                values.append(params[name])
    return _most_common(values) if values else STONEWALL


def shared_problems(params_by_phase, phases):
    """{phase name: reasons}: the keys of an .ini section that a phase ran with otherwise than
    the section's first phase (IO500 gives all of them the same value)."""
    first = {}
    problems = {}
    for phase in phases:
        params = params_by_phase.get(phase.name)
        if not params or phase.family not in SHARED:
            continue
        if phase.family not in first:
            first[phase.family] = (phase.name, params)
            continue
        lead, lead_params = first[phase.family]
        mine, theirs = phase.expected(), BY_NAME[lead].expected()
        for name in SHARED[phase.family]:
            if mine.get(name) not in (TUNABLE, SET) or theirs.get(name) not in (TUNABLE, SET):
                continue  # IO500 fixes it in one of them (ior-rnd4K-easy-read's 4 KiB)
            if name in params and name in lead_params and params[name] != lead_params[name]:
                problems.setdefault(phase.name, []).append(
                    f"parameter {name} is {_shown(params[name])}, {lead} ran with "
                    f"{_shown(lead_params[name])} (IO500 sets it once, in [{phase.family}])")
    return problems


def _most_common(values):
    """The most common of values, the earliest on a tie."""
    counts = Counter(values)
    return max(values, key=lambda v: (counts[v], -values.index(v)))


def placement_problems(headers):
    """{phase name: reasons}: phases that ran on other processes than the campaign's (IO500 runs
    every phase in one MPI job): other rank, node or task counts, or other hosts. headers:
    {phase name: header record}; the campaign's placement is the most common one."""
    shapes = {name: (h.get(Header.RANKS), h.get(Header.NODES), h.get(Header.TASKS_PER_NODE))
              for name, h in headers.items() if h}
    hosts = {name: tuple(h.get(Header.HOSTNAMES) or ()) for name, h in headers.items() if h}
    if not shapes:
        return {}
    ranks, nodes, tpn = _most_common(list(shapes.values()))
    usual = _most_common(list(hosts.values()))
    out = {}
    for name, shape in shapes.items():
        if shape != (ranks, nodes, tpn):
            out[name] = [f"ran on {shape[0]} ranks ({shape[1]} nodes x {shape[2]} tasks), the "
                         f"other phases on {ranks} ({nodes} x {tpn}): IO500 runs every phase on "
                         "the same processes"]
        elif hosts[name] != usual:
            out[name] = [f"ran on the hosts {', '.join(hosts[name])}, the other phases on "
                         f"{', '.join(usual)}: IO500 runs every phase on the same processes"]
    return out


def datadir_problems(params_by_phase, phases):
    """{phase name: reasons}: data outside IO500's layout (datadir/ior-easy/ior_file_easy,
    .../ior-hard/file, .../mdtest-easy, .../mdtest-hard, the find on the datadir) or in another
    datadir than the other phases' (the most common one): a find over a directory of a few
    files, or a read of other files than the write's, is not IO500's."""
    found, out = {}, {}
    for phase in phases:
        params = params_by_phase.get(phase.name)
        if not params or not phase.data or not isinstance(params.get(phase.data[0]), str):
            continue
        name, rel = phase.data
        path = os.path.normpath(params[name])
        if not rel:
            datadir = path
        elif path == rel:
            datadir = "."
        elif path.endswith("/" + rel):
            datadir = path[:-len(rel) - 1] or "/"
        else:
            out[phase.name] = [f"parameter {name} is {_shown(params[name])}, IO500 puts it at "
                               f"<datadir>/{rel}"]
            continue
        found[phase.name] = (name, params[name], datadir)
    if found:
        datadir = _most_common([d for _, _, d in found.values()])
        for phase_name, (name, value, d) in found.items():
            if d != datadir:
                out.setdefault(phase_name, []).append(
                    f"parameter {name} is {_shown(value)}, outside the datadir of the other "
                    f"phases, {_shown(datadir)} (IO500 keeps all its data in one)")
    return out
