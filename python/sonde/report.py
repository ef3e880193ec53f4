"""sonde-report: an HTML report of sonde results (issue 8).

This is the command-line skeleton: it reads the results it is given (so that a missing or
unreadable file is reported as such) and then refuses with "not implemented yet" and exit
status 2 until the report lands."""

import argparse
import sys

from .cli import EXIT_USAGE, not_implemented
from .results import ResultsError, load

PROG = "sonde-report"


def parser():
    p = argparse.ArgumentParser(prog=PROG, description="Make an HTML report of sonde results.")
    p.add_argument("inputs", nargs="*", metavar="RUN_DIR|FILE",
                   help="run directories or JSON Lines results files")
    p.add_argument("-o", "--output", metavar="report.html", default="report.html",
                   help="the HTML file to write (PNGs go beside it)")
    p.add_argument("--compare", nargs=2, metavar=("A", "B"),
                   help="two runs side by side, with ratios")
    return p


def main(argv=None):
    p = parser()
    args = p.parse_args(argv)
    if args.compare and args.inputs:
        p.error("--compare takes its two runs as its arguments; give no other inputs")
    if not args.compare and not args.inputs:
        p.error("give a run directory or results files (or --compare A B)")
    try:
        runs = load(*(args.compare or args.inputs))
    except ResultsError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    if not runs:
        print(f"{PROG}: error: no results in {' '.join(args.compare or args.inputs)}",
              file=sys.stderr)
        return EXIT_USAGE
    return not_implemented(PROG, "the HTML report" if not args.compare else "--compare")


if __name__ == "__main__":
    sys.exit(main())
