# SPDX-License-Identifier: BSD-3-Clause
"""sonde ior: IOR options that change where and how data goes: -u, -m, -E, -z, -d, -A."""

import os
import time

from conftest import run_sonde

SMALL = ["-t", "16k", "-b", "64k"]


def ior(args, **kw):
    return run_sonde(["ior", *args], **kw)


def test_unique_dir_and_multi_file(shm_scratch):
    ior(["-w", "-k", "-F", "-u", *SMALL, "-o", shm_scratch / "f"], np=2)
    assert sorted(str(p.relative_to(shm_scratch)) for p in shm_scratch.rglob("f.*")) == [
        "0/f.00000000", "1/f.00000001"]
    ior(["-w", "-k", "-m", "-i", "2", *SMALL, "-o", shm_scratch / "m"], np=2)
    assert sorted(p.name for p in shm_scratch.glob("m.*")) == ["m.0", "m.1"]
    assert os.stat(shm_scratch / "m.1").st_size == 2 * 65536


def test_use_existing_keeps_the_file(shm_scratch):
    target = shm_scratch / "e"
    target.write_bytes(b"x" * 1048576)
    ior(["-w", "-k", "-E", *SMALL, "-o", target], np=2)
    assert os.stat(target).st_size == 1048576  # not truncated
    data = target.read_bytes()
    assert data[131072:] == b"x" * (1048576 - 131072) and data[:131072] != b"x" * 131072
    ior(["-w", "-k", *SMALL, "-o", target], np=2)
    assert os.stat(target).st_size == 131072  # truncated, as if IOR had deleted it


def test_random_offsets_verified(shm_scratch):
    for extra in ([], ["-F"]):
        target = shm_scratch / ("z" + "".join(extra))
        proc = ior(["-w", "-W", "-r", "-R", "-k", "-z", "--random-offset-seed", "7", "-l",
                    "offset", "-t", "4k", "-b", "64k", "-s", "3", "-o", target, "-v", *extra],
                   np=2)
        assert "ordering in a file  : random" in proc.stdout
        assert "no errors" in proc.stdout
        size = sum(os.stat(p).st_size for p in shm_scratch.glob(target.name + "*"))
        assert size == 2 * 3 * 65536


def test_delay_and_refnum(shm_scratch):
    start = time.monotonic()
    proc = ior(["-w", "-r", "-d", "1", "-A", "77", *SMALL, "-o", shm_scratch / "d"], np=2)
    assert time.monotonic() - start >= 2.0  # one second before each of the two phases
    rows = [ln.split() for ln in proc.stdout.splitlines() if ln.startswith(("write ", "read "))]
    assert rows[-1][-1] == "77"  # RefNum column


def test_attached_values_and_grouped_flags(shm_scratch):
    """IOR's command-line forms: -wrk grouped, -t16k attached, -vv repeated."""
    target = shm_scratch / "a"
    proc = ior(["-wrk", "-t16k", "-b64k", "-s2", "-vv", f"-o{target}"], np=1)
    assert "verbose             : 2" in proc.stdout
    assert "xfersize            : 16384 bytes" in proc.stdout
    assert os.stat(target).st_size == 131072


def test_min_time_duration(shm_scratch):
    """-O minTimeDuration=1: the phase goes over the file again until a second has passed."""
    proc = ior(["-w", "-k", "-O", "minTimeDuration=1", *SMALL, "-o", shm_scratch / "t"], np=2)
    row = [ln.split() for ln in proc.stdout.splitlines() if ln.startswith("write ")][0]
    assert float(row[7]) >= 1.0  # wr/rd(s)
    assert "Using actual aggregate bytes moved" in proc.stderr
    moved = int(proc.stderr.split("Using actual aggregate bytes moved = ")[1].split()[0])
    assert moved > 131072 and moved % 65536 == 0  # whole passes over each rank's block
    assert os.stat(shm_scratch / "t").st_size == 131072
