# SPDX-License-Identifier: BSD-3-Clause
"""sonde ior -z -z (IO500's ior-rnd4K-easy-read): each segment reads a random whole block of the
file as it is, its transfers in order, repeats allowed. The oracle is the system calls (strace's
pread64 offsets) and the data: -R verifies every transfer against what the write put at that
offset."""

import re
import shutil
import subprocess

import pytest
from conftest import SONDE, read_jsonl, run_sonde

BLOCKS = 64  # blocks of 4 KiB in the file


def write_file(path, xfer="4096"):
    """The file, written in transfers of xfer bytes (-R checks each read against the data of a
    transfer of its size: timestamp packets repeat per transfer)."""
    run_sonde(["ior", "-w", "-t", xfer, "-b", f"{BLOCKS * 4}k", "-G", "5", "-k", "-o", path],
              mpi=False)


@pytest.mark.skipif(not shutil.which("strace"), reason="needs strace")
def test_random_blocks_of_the_existing_file(shm_scratch):
    def offsets(seed, xfer="4096"):
        path = shm_scratch / f"f.{xfer}"
        if not path.exists():
            write_file(path, xfer)
        trace = shm_scratch / f"trace.{seed}.{xfer}"
        out = shm_scratch / f"r.{seed}.{xfer}.{len(list(shm_scratch.glob('r.*')))}.jsonl"
        subprocess.run(["strace", "-e", "trace=pread64", "-o", trace, SONDE, "ior",
                        "--json", out, "-r", "-R", "-G", "5", "-z", "-z", "-t", xfer, "-b",
                        "4096", "-s", "200", "--random-offset-seed", str(seed), "-o", path],
                       check=True, capture_output=True)
        (m,) = [r for r in read_jsonl(out) if r["type"] == "measurement"]
        assert m["verify"]["errors"] == 0 and m["verify"]["checked"]
        found = [(int(o), int(n)) for n, o in re.findall(r"pread64\(\d+, .*, (\d+), (\d+)\)",
                                                        trace.read_text())]
        found = [o for o, n in found if n == int(xfer)]
        assert m["bytes"] == len(found) * int(xfer) == 200 * 4096
        return found

    a, b, again = offsets(7), offsets(8), offsets(7)
    assert a == again and a != b
    assert all(o % 4096 == 0 and 0 <= o < BLOCKS * 4096 for o in a)
    # 200 draws with repeats from 64 blocks: nearly all of them, some more than once
    assert 50 < len(set(a)) < 200 and max(a) >= (BLOCKS - 8) * 4096
    # 1 KiB transfers: each segment reads its block's four transfers in order
    small = offsets(7, "1024")
    for k in range(0, len(small), 4):
        base = small[k]
        assert base % 4096 == 0 and small[k:k + 4] == [base + i * 1024 for i in range(4)]


def test_random_blocks_need_a_block_and_no_writes(shm_scratch):
    path = shm_scratch / "f"
    write_file(path)
    out = run_sonde(["ior", "-w", "-z", "-z", "-t", "4k", "-b", "4k", "-o", path], mpi=False,
                    check=False)
    assert out.returncode != 0
    assert "-z -z (random blocks of the existing file) is implemented for reading only" \
        in out.stderr
    out = run_sonde(["ior", "-r", "-z", "-z", "-t", "4k", "-b", "1m", "-o", path], mpi=False,
                    check=False)
    assert out.returncode != 0 and "less than one block (-b 1048576)" in out.stderr
