# SPDX-License-Identifier: BSD-3-Clause
"""ior's showHints (--mpiio.showHints, IOR 3.3's -H, --hdf5.showHints, --ncmpi.showHints) against
IOR's own output for the same command lines, recorded in fixtures/ior-hints-*.txt: IOR
4.1.0+dev (commit 5fcf0ba, configured --with-hdf5 --with-ncmpi, Debian's Open MPI 4.1.4,
parallel HDF5 1.10 and PnetCDF 1.12.3) run on 2 ranks with IOR_HINT__MPI__romio_cb_write=enable
in the environment, its stdout kept whole, e.g.

    IOR_HINT__MPI__romio_cb_write=enable mpirun -n 2 ior -a MPIIO --mpiio.showHints -w -r \\
        -t 4k -b 8k -o /dev/shm/hh/m > fixtures/ior-hints-mpiio.txt

(the NCMPI one also with --ncmpi.hintsFileName naming a file of the two lines in HINTS_FILE).
The blocks are the hints passed to each open and those the MPI library (PnetCDF, for NCMPI)
reports in effect on the opened file, keys and values as the libraries give them; they come in
IOR's places among the output lines, which are IOR's line for line (numbers masked)."""

import re
from pathlib import Path

from conftest import OPEN_MPI, read_jsonl, run_sonde
from test_ior_hdf5 import require_hdf5
from test_ior_ncmpi import require_ncmpi

FIXTURES = Path(__file__).parent / "fixtures"
ENV_HINT = {"IOR_HINT__MPI__romio_cb_write": "enable"}
HINTS_FILE = "IOR_HINT__MPI__cb_buffer_size=1048576\nIOR_HINT__MPI__romio_ds_write=disable\n"


def masked(text, path):
    """The output lines with numbers, dates and the test file's path masked; IOR's NCMPI
    "File write only not implemented" warnings (its backend's, for -w) are not sonde's."""
    out = []
    for line in text.splitlines():
        if "File write only not implemented in NCMPI" in line:
            continue
        line = re.sub(r"^(Began|StartTime|Finished|Command line|Machine|FS|Path|test filename|"
                      r"apiVersion)( *):.*", r"\1\2: X", line)
        line = re.sub(r"^IOR-4\.1\.0[^:]*:", "IOR:", line)
        line = line.replace(str(path), "F")
        # the hint blocks keep their numbers: they are the libraries' values
        if not line.startswith("\t"):
            line = re.sub(r"\d+(\.\d+)?", "N", line)
        out.append(re.sub(r" +", " ", line).rstrip())
    return out


def blocks(text):
    """The hint blocks and the result rows, in order: (title, [lines]) and ("row", access)."""
    out, current = [], None
    for line in text.splitlines():
        if line.endswith(" {") and line.startswith("hints "):
            current = (line[:-2], [])
        elif current and line == "}":
            out.append(current)
            current = None
        elif current:
            current[1].append(line)
        elif re.match(r"^(write|read) +\d", line):
            out.append(("row", line.split()[0]))
    return out


def recorded(name):
    text = (FIXTURES / name).read_text()
    args, path = re.search(r"^Command line *: \S+ (.*) -o (\S+)$", text, re.MULTILINE).groups()
    return text, args.split(), path


def test_mpiio_hints_as_ior(shm_scratch):
    """-H (IOR 3.3's letter) shows what IOR 4's --mpiio.showHints does: before each open the
    hints passed (the environment's IOR_HINT__MPI__), after it the ones in effect on the file;
    the record says showHints. Open MPI's OMPIO reports the hints it was given; MPICH's ROMIO
    reports its own as well, among them the one given."""
    text, args, ior_path = recorded("ior-hints-mpiio.txt")
    target, results = shm_scratch / "m", shm_scratch / "r.jsonl"
    args = ["-H" if a == "--mpiio.showHints" else a for a in args]
    proc = run_sonde(["ior", *args, "-o", target, "--json", results], np=2, env=ENV_HINT)
    if OPEN_MPI:
        assert masked(proc.stdout, target) == masked(text, ior_path)
    got, ior = blocks(proc.stdout), blocks(text)
    assert [b for b in got if b[0] != "hints returned from opened file"] == \
        [b for b in ior if b[0] != "hints returned from opened file"]
    returned = [b[1] for b in got if b[0] == "hints returned from opened file"]
    assert len(returned) == 2 and all("\tromio_cb_write = enable" in r for r in returned)
    for m in (r for r in read_jsonl(results) if r["type"] == "measurement"):
        assert m["params"]["showHints"] is True


def test_hdf5_hints_as_ior_file_per_process(shm_scratch):
    """-a HDF5 -F: the hints passed to the file access property list and those on the MPI-IO
    file under HDF5, shown once per open by rank 0 only (each rank opens a file of its own)."""
    require_hdf5()
    text, args, ior_path = recorded("ior-hints-hdf5-fpp.txt")
    target, results = shm_scratch / "h", shm_scratch / "r.jsonl"
    proc = run_sonde(["ior", *args, "-o", target, "--json", results], np=2, env=ENV_HINT)
    assert masked(proc.stdout, target) == masked(text, ior_path)
    assert blocks(proc.stdout) == blocks(text)
    for m in (r for r in read_jsonl(results) if r["type"] == "measurement"):
        assert m["params"]["hdf5.showHints"] is True


def test_ncmpi_hints_as_ior_with_a_hints_file(shm_scratch):
    """-a NCMPI with the environment's hint and a hints file's two: passed in that order, and
    in effect PnetCDF's own hints after MPI-IO's."""
    require_ncmpi()
    text, args, ior_path = recorded("ior-hints-ncmpi.txt")
    hints = shm_scratch / "hints"
    hints.write_text(HINTS_FILE)
    args = [re.sub(r"^--ncmpi\.hintsFileName=.*", f"--ncmpi.hintsFileName={hints}", a)
            for a in args]
    target = shm_scratch / "n"
    proc = run_sonde(["ior", *args, "-o", target], np=2, env=ENV_HINT)
    assert masked(proc.stdout, target) == masked(text, ior_path)
    assert blocks(proc.stdout) == blocks(text)


def test_show_hints_without_hints_warns(shm_scratch):
    """-a POSIX has no MPI-IO hints: -H is accepted with one warning line, as hints given to it
    are, and nothing is shown."""
    proc = run_sonde(["ior", "-a", "POSIX", "-H", "-w", "-t", "4k", "-b", "8k", "-o",
                      shm_scratch / "p"], np=1)
    assert [ln for ln in proc.stderr.splitlines() if "showHints" in ln] == [
        "sonde ior: warning: -H/--showHints has no effect here: -a POSIX has no MPI-IO hints "
        "to show"]
    assert "hints passed" not in proc.stdout
