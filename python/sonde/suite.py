"""sonde-suite: runs a suite of sonde launches described in a TOML file (issue 8).

This is the command-line skeleton: every subcommand parses its arguments as specified and then
refuses with "not implemented yet" and exit status 2 until the suite runner lands."""

import argparse
import sys

from .cli import not_implemented

PROG = "sonde-suite"


def parser():
    p = argparse.ArgumentParser(prog=PROG, description="Run a suite of sonde benchmarks.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run = sub.add_parser("run", help="run the steps of a suite file")
    run.add_argument("suite", metavar="SUITE.toml", help="suite file")
    run.add_argument("--launcher", choices=["mpirun", "srun"], default="mpirun",
                     help="how to launch each step (default: mpirun)")
    run.add_argument("--out", metavar="DIR", help="run directory (default: results/<time>)")
    run.add_argument("--dry-run", action="store_true",
                     help="print the command line of every step without running it")
    run.add_argument("--scale", type=float, metavar="F",
                     help="scale the data sizes by F (the run is then marked reduced-scale)")
    resume = sub.add_parser("resume", help="continue an interrupted run directory")
    resume.add_argument("run_dir", metavar="DIR", help="run directory of the interrupted suite")
    return p


def main(argv=None):
    args = parser().parse_args(argv)
    return not_implemented(PROG, f"sonde-suite {args.command}")


if __name__ == "__main__":
    sys.exit(main())
