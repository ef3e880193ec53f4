# SPDX-License-Identifier: BSD-3-Clause
"""Before a suite launches anything (sonde-suite run, --dry-run and resume): every launch's
command line as the sonde binary reads it (argcheck: the binary's own parse, on the
launch's ranks and tasks per node), and the rules that the reading alone decides.

A command line the binary would refuse (an unknown option, a bad size, IOR's -t larger than -b)
stops the suite with the binary's own line. So does a launch that breaks one of its rules that
judge only the parameters and the placement, which the parse gives before the run: a value of
[step.fixed] the arguments change (fixed_parameters), -Q that is not the tasks per node
(ior_q_equals_tpn). They are judged by the rules' own code (rules) on a header made of
the parse, so that the verdict before the run is the one after it. Under --scale they are judged
on the suite as written: the scaled sizes are the user's announced choice, and the binary still
checks every scaled command line.
"""

from ..results import Run
from ..results.names import Header
from . import argcheck, rules, runner, suitefile
from .defaults import binary_defaults

# The rules a header made of the parse decides: they read only params, ranks and tasks per
# node. The others need what the run did (its end record, its measurements).
BEFORE_THE_RUN = ("fixed_parameters", "ior_q_equals_tpn")


class Refusal(Exception):
    """A launch the suite must not make; the message is the one line to print."""


def tasks_per_node(launch):
    """The tasks per node the launch will run with: a launch placed on no nodes runs its ranks
    on one (as the placeholder {tasks_per_node} says)."""
    return launch.tasks_per_node or launch.ranks


def check(suite, sonde, run_dir):
    """Raises Refusal for the first launch of suite the binary sonde refuses or whose rules
    the command line already breaks; run_dir fills {run_dir} as the runner will."""
    written = (suitefile.load(suite.path, workloads=suite.workloads) if suite.scale is not None
               else suite)
    for launch, as_written in zip(suite.launches, written.launches, strict=True):
        if launch.touch:
            continue
        params = _parse(suite, runner.with_run_dir(launch, run_dir), sonde)
        if as_written is not launch:
            params = _parse(suite, runner.with_run_dir(as_written, run_dir), sonde)
        broken = judge(as_written, params, suite.settings, _defaults_for(as_written, sonde))
        if broken:
            raise Refusal(_where(suite, launch) + broken)


def _defaults_for(launch, sonde):
    """{workload: the binary's defaults} for fixed_parameters, as rules.evaluate takes them;
    empty for a workload without a probe (its rule then judges [step.fixed] alone)."""
    if "fixed_parameters" not in launch.rules:
        return {}
    try:
        return {launch.workload: binary_defaults(sonde, launch.workload)}
    except ValueError:
        return {}


def judge(launch, params, settings, defaults=None):
    """The first rule of BEFORE_THE_RUN the launch lists and its params break, as "rule:
    reason", or None. defaults: as rules.evaluate takes them."""
    tpn = tasks_per_node(launch)
    full, rest = divmod(launch.ranks, tpn)
    run = Run(run_id=None, header={Header.PARAMS: params, Header.RANKS: launch.ranks,
                                   Header.TASKS_PER_NODE: tpn,
                                   Header.TASKS_ON_NODE: [tpn] * full + ([rest] if rest else [])})
    judged = rules.with_defaults(settings, defaults)
    for name in BEFORE_THE_RUN:
        if name not in launch.rules:
            continue
        try:
            ok, reason, *_ = rules.RULES[name].check(launch, run, judged)
        except rules.Missing:
            continue  # an 'unless' rule that needs the run: judged after it
        if not ok:
            return f"{name}: {reason}"
    return None


def _parse(suite, launch, sonde):
    try:
        return argcheck.parse(sonde, launch.workload, launch.args, launch.ranks,
                              tasks_per_node(launch))
    except argcheck.Refused as e:
        raise Refusal(_where(suite, launch) + str(e)) from None


def _where(suite, launch):
    return f"{suite.path}: step {launch.step} (launch {launch.id}): "
