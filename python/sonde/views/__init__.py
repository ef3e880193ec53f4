# SPDX-License-Identifier: BSD-3-Clause
"""The report's views of loaded runs and campaigns: tables and figures as numbers and words
(page, figures, plots, summary, compare, systems), drawn by render_html and render_png.
sonde.report puts them on its page. Imports sonde.results and sonde.campaign, never the
command-line modules above it (python/tests/test_layers.py)."""
