# SPDX-License-Identifier: BSD-3-Clause
"""What the LANL MPI-IO Test's files must hold, computed independently of sonde.

An object written by rank w is the doubles w, w+1, ... (size/8 of them); -touch 2 stamps its
first element and -touch 3 the first element of each OS page of it with 1 + the byte offset in
the file of that element. Offsets follow docs/workloads/mpiio.md: type 1 object j at j*size;
types 2 and 5 (s x nobj + j) x size or, strided, (j x F + s) x size, s being the rank's index
among the F ranks of its file; types 3 and 4 the senders of each aggregator in rank order.
"""

import os
from array import array

PAGE = os.sysconf("SC_PAGESIZE")


def expected_object(writer, offset, size, touch):
    blk = size // 8
    v = array("d", (float(writer + i) for i in range(blk)))
    if touch >= 2:
        step = PAGE // 8
        stamps = 1 if touch == 2 else (blk + step - 1) // step
        for k in range(stamps):
            v[k * step] = float(1 + offset + k * PAGE)
    return v


def even_aggregators(n, m):
    q, rem = divmod(n, m)
    return [q * i + min(i, rem) for i in range(m)]


def senders_even(n, m, norsend=False):
    """Aggregator ranks and, for each, its senders in rank order (no -host)."""
    aggs = even_aggregators(n, m)
    groups = []
    for i, a in enumerate(aggs):
        end = aggs[i + 1] if i + 1 < m else n
        groups.append([r for r in range(a, end) if not (norsend and r == a)])
    return aggs, groups


def layout(type_, n, nobj, size, strided=0, m=None, groups=None):
    """{file index: [(offset, writer rank), ...]} for every object of the run."""
    files = {}
    if type_ == 1:
        for r in range(n):
            files[r] = [(j * size, r) for j in range(nobj)]
    elif type_ in (2, 5):
        m = 1 if type_ == 2 else m
        for c in range(m):
            ranks = [r for r in range(n) if r % m == c]
            f = len(ranks)
            objs = []
            for s, r in enumerate(ranks):
                for j in range(nobj):
                    idx = j * f + s if strided else s * nobj + j
                    objs.append((idx * size, r))
            files[c] = sorted(objs)
    elif type_ == 3:
        for i, senders in enumerate(groups):
            files[i] = [((k * nobj + j) * size, w) for k, w in enumerate(senders)
                        for j in range(nobj)]
    elif type_ == 4:
        first, objs = 0, []
        for senders in groups:
            for k, w in enumerate(senders):
                objs += [((first + k * nobj + j) * size, w) for j in range(nobj)]
            first += len(senders) * nobj
        files[0] = objs
    return files


def check_file(path, objects, size, touch):
    """Asserts the file holds exactly these objects, and nothing more."""
    data = array("d")
    with open(path, "rb") as f:
        raw = f.read()
    assert len(raw) == len(objects) * size, f"{path}: {len(raw)} bytes, expected " \
        f"{len(objects) * size}"
    data.frombytes(raw)
    blk = size // 8
    for offset, writer in objects:
        got = data[offset // 8: offset // 8 + blk]
        want = expected_object(writer, offset, size, touch)
        if got != want:
            bad = next(i for i in range(blk) if got[i] != want[i])
            raise AssertionError(f"{path}: object of rank {writer} at {offset}: element {bad} "
                                 f"is {got[bad]}, expected {want[bad]}")
