# SPDX-License-Identifier: BSD-3-Clause
"""sonde's Python side: results loading and validation, suites (sonde-suite) and reports
(sonde-report) for the `sonde` parallel I/O and MPI benchmark program."""

__version__ = "0.1.0"
