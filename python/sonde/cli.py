# SPDX-License-Identifier: BSD-3-Clause
"""What the command-line entry points share."""

EXIT_USAGE = 2
