"""Loading sonde results: JSON Lines files (--json) into runs, and CSV files (--csv) into rows.

A results file holds one or more runs (sonde appends), each a "header" record, "measurement"
records, optional "summary" and "profile" records and a closing "end" record, all carrying the
run's run_id (docs/results-schema.md). sonde writes and flushes one whole line per record, so a
run killed while writing leaves at most one partial last line: the loader drops it and sets
Run.truncated. A run without its "end" record (killed, or still running) has Run.complete False.
"""

import csv
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from . import schema as _schema

# The CSV columns, in the order sonde writes them; measurement_rows() uses the same names.
CSV_COLUMNS = [
    "run_id", "workload", "phase", "iteration", "bytes", "seconds", "bandwidth_mib_s", "ops",
    "ops_per_s", "rank_min_s", "rank_min_rank", "rank_max_s", "rank_max_rank", "rank_mean_s",
    "rank_stddev_s", "lat_p50_s", "lat_p90_s", "lat_p99_s", "lat_max_s", "verify_checked",
    "verify_errors", "params",
]
_INT_COLUMNS = {"iteration", "bytes", "ops", "rank_min_rank", "rank_max_rank", "verify_errors"}
_FLOAT_COLUMNS = {
    "seconds", "bandwidth_mib_s", "ops_per_s", "rank_min_s", "rank_max_s", "rank_mean_s",
    "rank_stddev_s", "lat_p50_s", "lat_p90_s", "lat_p99_s", "lat_max_s",
}
_RUN_ID = re.compile(r'"run_id"\s*:\s*"([^"\\]*)"')


class ResultsError(ValueError):
    """A results file that cannot be read (not a truncation at its end)."""


@dataclass
class Run:
    run_id: str | None
    path: Path | None = None
    header: dict | None = None
    measurements: list = field(default_factory=list)
    summaries: list = field(default_factory=list)
    profiles: list = field(default_factory=list)
    end: dict | None = None
    records: list = field(default_factory=list)  # every record in file order, any type
    truncated: bool = False  # the file ended in a partial record of this run

    @property
    def complete(self):
        """The run wrote its closing "end" record."""
        return self.end is not None

    @property
    def workload(self):
        for r in self.records:
            if "workload" in r:
                return r["workload"]
        return None

    @property
    def exit_code(self):
        return self.end["exit_code"] if self.end else None

    def add(self, record):
        self.records.append(record)
        kind = record["type"]
        if kind == "header":
            self.header = record
        elif kind == "measurement":
            self.measurements.append(record)
        elif kind == "summary":
            self.summaries.append(record)
        elif kind == "profile":
            self.profiles.append(record)
        elif kind == "end":
            self.end = record


def load(*paths, validate=False):
    """Runs from JSON Lines files and directories (searched recursively for *.jsonl), in the
    order given (files of a directory sorted by path). validate=True checks every record
    against the schema and raises sonde.schema.SchemaError on the first invalid one."""
    runs = []
    for p in paths:
        p = Path(p)
        files = sorted(p.rglob("*.jsonl")) if p.is_dir() else [p]
        for f in files:
            runs.extend(load_file(f, validate=validate))
    return runs


def load_file(path, validate=False):
    """The runs of one JSON Lines file, in the order their first records appear."""
    path = Path(path)
    try:
        data = path.read_text()
    except OSError as e:
        raise ResultsError(f"{path}: {e.strerror}") from e
    runs = {}
    last = None
    lines = data.split("\n")
    # A file that ends with "\n" splits into a last empty string; anything else after the last
    # newline is a record that was being written when the run stopped.
    partial = lines.pop()
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            raise ResultsError(f"{where}: not a JSON record ({e.msg})") from e
        if not isinstance(record, dict) or not isinstance(record.get("type"), str):
            raise ResultsError(f"{where}: not a sonde record (no \"type\" member)")
        if not isinstance(record.get("run_id"), str):
            raise ResultsError(f"{where}: {record['type']} record without a run_id")
        if validate:
            _schema.validate(record, where)
        last = runs.setdefault(record["run_id"], Run(record["run_id"], path))
        last.add(record)
    if partial.strip():
        try:
            record = json.loads(partial)
        except json.JSONDecodeError:
            record = None
        if record is not None:
            raise ResultsError(f"{path}:{len(lines) + 1}: last record has no newline")
        m = _RUN_ID.search(partial)
        if m:
            last = runs.setdefault(m.group(1), Run(m.group(1), path))
        elif last is None:
            last = runs.setdefault(None, Run(None, path))
        last.truncated = True
    return list(runs.values())


def _flatten(prefix, obj, out):
    if isinstance(obj, dict):
        for k, v in obj.items():
            _flatten(f"{prefix}.{k}", v, out)
    else:
        out[prefix] = obj


def measurement_row(m):
    """One measurement record as a flat dict: the CSV columns (without "params"), then the
    parameters as "param.<key>" and workload figures as "extra.<key>" (nested keys joined by
    dots)."""
    per_rank = m.get("per_rank") or {}
    latency = m.get("latency") or {}
    verify = m.get("verify") or {}
    row = {
        "run_id": m.get("run_id"),
        "workload": m.get("workload"),
        "phase": m.get("phase"),
        "iteration": m.get("iteration"),
        "bytes": m.get("bytes"),
        "seconds": m.get("seconds"),
        "bandwidth_mib_s": m.get("bandwidth_mib_s"),
        "ops": m.get("ops"),
        "ops_per_s": m.get("ops_per_s"),
        "rank_min_s": per_rank.get("min"),
        "rank_min_rank": per_rank.get("min_rank"),
        "rank_max_s": per_rank.get("max"),
        "rank_max_rank": per_rank.get("max_rank"),
        "rank_mean_s": per_rank.get("mean"),
        "rank_stddev_s": per_rank.get("stddev"),
        "lat_p50_s": latency.get("p50"),
        "lat_p90_s": latency.get("p90"),
        "lat_p99_s": latency.get("p99"),
        "lat_max_s": latency.get("max"),
        "verify_checked": verify.get("checked"),
        "verify_errors": verify.get("errors"),
    }
    _flatten("param", m.get("params") or {}, row)
    _flatten("extra", m.get("extra") or {}, row)
    return row


def measurement_rows(runs):
    """Every measurement of the runs as flat rows (see measurement_row)."""
    return [measurement_row(m) for run in runs for m in run.measurements]


def _csv_value(column, text, where):
    if text == "":
        return None
    try:
        if column in _INT_COLUMNS:
            return int(text)
        if column in _FLOAT_COLUMNS:
            return float(text)
    except ValueError as e:
        raise ResultsError(f"{where}: column {column}: not a number: {text!r}") from e
    if column == "verify_checked":
        if text.lower() in ("1", "true"):
            return True
        if text.lower() in ("0", "false"):
            return False
        raise ResultsError(f"{where}: column verify_checked: not a boolean: {text!r}")
    return text


def load_csv(path):
    """Rows of a --csv file, with the same keys as measurement_rows() (no "extra.*": the CSV
    does not carry them). A partial last line (killed run) is dropped."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as e:
        raise ResultsError(f"{path}: {e.strerror}") from e
    if text and not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader, None)
    if header is None:
        return []
    if header != CSV_COLUMNS:
        raise ResultsError(f"{path}:1: not a sonde CSV header: {','.join(header)}")
    rows = []
    for lineno, values in enumerate(reader, 2):
        where = f"{path}:{lineno}"
        if values == CSV_COLUMNS:
            continue
        if len(values) != len(CSV_COLUMNS):
            raise ResultsError(f"{where}: {len(values)} columns, expected {len(CSV_COLUMNS)}")
        row = {}
        for column, text in zip(CSV_COLUMNS, values, strict=True):
            if column == "params":
                try:
                    params = json.loads(text) if text else {}
                except json.JSONDecodeError as e:
                    raise ResultsError(f"{where}: column params: not JSON ({e.msg})") from e
                _flatten("param", params, row)
            else:
                row[column] = _csv_value(column, text, where)
        rows.append(row)
    return rows
