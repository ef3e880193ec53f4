# SPDX-License-Identifier: BSD-3-Clause
"""What the report calls things: sizes, rank counts, durations and each run in the words a
storage administrator uses ("ior easy, 2 ranks on 1 node, POSIX, 16 MiB transfers"), never
a run id (ids go in tooltips and the environment table)."""

from ..results.names import BTIO, COLL, IOR, MIB, MPIIO

UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")
BTIO_METHODS = {0: "MPI-IO collective", 1: "MPI-IO independent", 2: "PnetCDF blocking",
                3: "PnetCDF non-blocking"}
COLL_TIMING = {"barrier": "mpiBench timing", "no-barrier": "mpiBench timing without barrier",
               "per-call": "per-call timing"}


def size(n):
    """Bytes in binary units: exact where the size is a whole number of a unit ("16 MiB",
    "47008 B"), else to three figures ("45.9 KiB" only above 10 KiB)."""
    if n is None:
        return "-"
    n = int(n)
    for k in range(len(UNITS) - 1, 0, -1):
        if n and n % (1 << (10 * k)) == 0:
            return f"{n >> (10 * k)} {UNITS[k]}"
    if n < 10 * 1024:
        return f"{n} B"
    k = min(len(UNITS) - 1, (n.bit_length() - 1) // 10)
    return f"{n / (1 << (10 * k)):.3g} {UNITS[k]}"


def plural(n, word):
    return f"{n} {word}" + ("" if n == 1 else "s")


def shape(ranks, nodes):
    """"2 ranks on 1 node"."""
    if ranks is None:
        return "ranks unknown"
    return plural(ranks, "rank") + (f" on {plural(nodes, 'node')}" if nodes else "")


def seconds(s):
    if s is None:
        return "-"
    if s < 1e-3:
        return f"{s * 1e6:.3g} µs"
    if s < 1:
        return f"{s * 1e3:.3g} ms"
    if s < 120:
        return f"{s:.3g} s"
    return f"{s / 60:.3g} min"


def _params(run):
    return (run.header or {}).get("params") or {}


def _when(text):
    """A describer that says text when the parameter is set (true, non-zero)."""
    return lambda v: text if v else None


# Per workload, the parameters that tell its runs apart and how each is said (None: nothing).
DETAILS = {
    IOR.workload: [(IOR.API, str),
                   (IOR.TRANSFER_SIZE, lambda v: f"{size(v)} transfers" if v else None),
                   (IOR.BLOCK_SIZE, lambda v: f"{size(v)} blocks" if v else None),
                   (IOR.FILE_PER_PROC, lambda v: "file per process" if v else "shared file")],
    MIB.workload: [(MIB.CALL_SIZE, lambda v: f"{size(v)} calls" if v else None),
                   (MIB.CALL_LIMIT, lambda v: f"up to {v} calls per task" if v else None),
                   (MIB.RANDOM_READS, _when("random reads"))],
    MPIIO.workload: [(MPIIO.TYPE, lambda v: f"type {v}"),
                     (MPIIO.SIZE, lambda v: f"{size(v)} objects" if v else None),
                     (MPIIO.COLLECTIVE, _when("collective"))],
    BTIO.workload: [(BTIO.METHOD, lambda v: BTIO_METHODS.get(v, f"method {v}")),
                    (BTIO.GRID, lambda v: "grid " + "x".join(str(g) for g in v) if v else None)],
    COLL.workload: [(COLL.TIMING, lambda v: COLL_TIMING.get(v, v))],
}


def name(run):
    """What ran: the workload, with the suite's variant or step when it names more."""
    workload = run.workload or "?"
    launch = run.launch or {}
    if launch.get("variant"):
        return f"{workload} {launch['variant']}"
    step = launch.get("step")
    if step and step != workload:
        return step if step.startswith(workload) else f"{workload} {step}"
    return workload


def details(run):
    """The run's parameters that tell it apart, in words (no shape)."""
    p = _params(run)
    said = (say(p[key]) for key, say in DETAILS.get(run.workload, []) if p.get(key) is not None)
    return [d for d in said if d]


def label(run, with_shape=True):
    """"ior easy, 2 ranks on 1 node, POSIX, 16 MiB transfers"."""
    h = run.header or {}
    parts = [name(run)]
    if with_shape:
        parts.append(shape(h.get("ranks"), h.get("nodes")))
    return ", ".join(parts + details(run))


class Labels:
    """A label per run, unique within one report: runs that read the same get "(repetition
    N)" from their suite launch, or "(run N)"."""

    def __init__(self, runs):
        self.of = {}
        seen = {}
        for run in runs:
            text = label(run)
            seen.setdefault(text, []).append(run)
        for text, same in seen.items():
            for k, run in enumerate(same):
                if len(same) == 1:
                    self.of[id(run)] = text
                elif run.launch and run.launch.get("repetition") is not None and len(
                        {r.launch.get("repetition") if r.launch else None for r in same}
                ) == len(same):
                    self.of[id(run)] = f"{text} (repetition {run.launch['repetition'] + 1})"
                else:
                    self.of[id(run)] = f"{text} (run {k + 1})"

    def __call__(self, run):
        return self.of.get(id(run)) or label(run)

    def short(self, run):
        """A name that fits one line of a wide table: the suite launch id (the Rules table's
        name of it), else the workload with the variant or step; the whole label goes in the
        cell's tooltip."""
        return (run.launch or {}).get("id") or name(run)
