"""What the command-line entry points share."""

EXIT_USAGE = 2
