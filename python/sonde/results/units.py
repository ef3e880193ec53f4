# SPDX-License-Identifier: BSD-3-Clause
"""Sizes and durations as people write them in suite files, settings and sweeps ("16m",
"128GiB", "1h30m"), read in one place for every layer: the rules' settings and fixed
parameters, the suite's timeouts, an IO500 .ini's sizes and the report's sweep axes."""

import re

DURATION = re.compile(r"^\s*(?:(\d+(?:\.\d+)?)\s*h)?\s*(?:(\d+(?:\.\d+)?)\s*m)?\s*"
                      r"(?:(\d+(?:\.\d+)?)\s*s?)?\s*$")
SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgtp]?)(i?b?)\s*$", re.IGNORECASE)


def parse_duration(value):
    """Seconds of a duration: a number of seconds, or text like "90s", "30m", "4h", "1h30m"."""
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a duration")
    if isinstance(value, (int, float)):
        if value < 0:
            raise ValueError(f"{value!r} is negative")
        return float(value)
    m = DURATION.match(str(value)) if str(value).strip() else None
    if not m or not any(m.groups()):
        raise ValueError(f"{value!r} is not a duration (seconds, or a number with h, m or s: "
                         "90, \"90s\", \"30m\", \"4h\", \"1h30m\")")
    h, mi, s = (float(g) if g else 0.0 for g in m.groups())
    return h * 3600 + mi * 60 + s


def parse_size(value):
    """Bytes of a size: a number of bytes, or text with a binary unit: "128GiB", "16m", "4k"."""
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a size")
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"{value!r} is negative")
        return value
    m = SIZE.match(str(value))
    if not m:
        raise ValueError(f"{value!r} is not a size (bytes, or a number with k, m, g, t or p: "
                         "4096, \"16m\", \"128GiB\")")
    scale = 1 << (10 * "kmgtp".find(m.group(2).lower()) + 10) if m.group(2) else 1
    n = float(m.group(1)) * scale
    if n != int(n):
        raise ValueError(f"{value!r} is not a whole number of bytes")
    return int(n)
