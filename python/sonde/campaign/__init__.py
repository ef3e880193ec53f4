# SPDX-License-Identifier: BSD-3-Clause
"""Campaigns: suite files, placing and running their launches (and asking the binary how it
reads a command line), judging each launch by the procurement rules, the scores, IO500's
phases and result files, and the suite's tables. Reads records through sonde.results; never
imports sonde.views or the command-line modules above it (python/tests/test_layers.py)."""
