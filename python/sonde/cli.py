"""What the command-line entry points share."""

import sys

EXIT_USAGE = 2


def not_implemented(prog, feature):
    """Refuses a feature that is specified but not built yet: one line, exit status 2."""
    print(f"{prog}: error: {feature}: not implemented yet: comes with issue 8", file=sys.stderr)
    return EXIT_USAGE
