# SPDX-License-Identifier: BSD-3-Clause
"""Loading sonde results: JSON Lines files (--json) into runs, CSV files (--csv) into rows, and
either into a pandas DataFrame (to_dataframe) with one row per measurement.

A results file holds one or more runs (sonde appends), each a "header" record, "measurement"
records, optional "summary", "profile" and "interval" records and a closing "end" record, all
carrying the
run's run_id (docs/results-schema.md). sonde writes and flushes one whole line per record, so a
run killed while writing leaves at most one partial last line: the loader drops it and sets
Run.truncated. A run without its "end" record (killed, or still running) has Run.complete False,
and Run.ending says why there is none.
"""

import csv
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from . import schema as _schema
from .manifest import Manifest
from .names import Interval

# The CSV columns, in the order sonde writes them (src/core/results.c); measurement_rows() uses
# the same names, with params and extra flattened into "param.<key>" and "extra.<key>".
CSV_COLUMNS = [
    "run_id", "workload", "ranks", "nodes", "tasks_per_node", "phase", "iteration", "bytes",
    "seconds", "bandwidth_mib_s", "ops", "ops_per_s", "rank_min_s", "rank_min_rank",
    "rank_max_s", "rank_max_rank", "rank_mean_s", "rank_stddev_s", "lat_count", "lat_p50_s",
    "lat_p90_s", "lat_p99_s", "lat_p999_s", "lat_max_s", "lat_mean_s", "lat_percentiles",
    "lat_error_rel", "verify_checked", "verify_errors", "params", "extra",
]
# The columns of schema_version 1 (no p99.9, no error bound): its files are read too, with
# those two columns empty.
CSV_COLUMNS_V1 = [c for c in CSV_COLUMNS if c not in ("lat_p999_s", "lat_error_rel")]
_JSON_COLUMNS = {"params": "param", "extra": "extra"}
_INT_COLUMNS = {"ranks", "nodes", "tasks_per_node", "iteration", "bytes", "ops",
                "rank_min_rank", "rank_max_rank", "lat_count", "verify_errors"}
_FLOAT_COLUMNS = {
    "seconds", "bandwidth_mib_s", "ops_per_s", "rank_min_s", "rank_max_s", "rank_mean_s",
    "rank_stddev_s", "lat_p50_s", "lat_p90_s", "lat_p99_s", "lat_p999_s", "lat_max_s",
    "lat_mean_s", "lat_error_rel",
}
# The columns a suite run directory adds (from its manifest): which launch of the campaign a
# row belongs to, and the value of each swept parameter as "sweep.<key>".
LAUNCH_COLUMNS = ["launch", "step", "variant", "repetition"]
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
    intervals: list = field(default_factory=list)  # --interval's records, in file order
    end: dict | None = None
    records: list = field(default_factory=list)  # every record in file order, any type
    truncated: bool = False  # the file ended in a partial record of this run
    # The sonde-suite launch that wrote the run (its manifest entry: id, step, variant, params,
    # repetition, ...), when the file is RUN_DIR/<launch id>/results.jsonl of a suite run.
    launch: dict | None = None

    # A run with a header and no end record: sonde writes its end record on every error and on
    # SIGTERM or SIGINT, so what ends it without one is SIGKILL, which launchers send (srun
    # turns its own SIGTERM into SIGKILL for the tasks; Hydra kills the other ranks when one
    # dies), unless the run is still going.
    KILLED = "killed by the launcher (no end record)"

    @property
    def ending(self):
        """How the run ended, in words: its end record's reason, KILLED for a run with a header
        and no end record, None when the file holds neither."""
        if self.end is not None:
            return self.end.get("reason")
        return self.KILLED if self.header is not None else None

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
        elif kind == Interval.TYPE:
            self.intervals.append(record)
        elif kind == "end":
            self.end = record


def load(*paths, validate=False):
    """Runs from JSON Lines files and directories (searched recursively for *.jsonl), in the
    order given (files of a directory sorted by path). validate=True checks every record
    against the schema and raises sonde.results.schema.SchemaError on the first invalid one.
    A run of a suite run directory gets its launch's manifest entry (sonde.results.manifest)."""
    runs = []
    manifests = {}
    for p in paths:
        p = Path(p)
        files = sorted(p.rglob("*.jsonl")) if p.is_dir() else [p]
        for f in files:
            launch = _suite_launch(f, manifests)
            for run in load_file(f, validate=validate):
                run.launch = launch
                runs.append(run)
    return runs


def _suite_launch(path, manifests):
    """The manifest entry of the sonde-suite launch whose results file path is, or None."""
    run_dir = Path(path).resolve().parent.parent
    if run_dir not in manifests:
        manifest = Manifest.find(run_dir)
        manifests[run_dir] = manifest.entries() if manifest else {}
    return manifests[run_dir].get(Path(path).resolve().parent.name)


def sweep_values(launch):
    """{key: value} of the parameters a suite swept for this launch (every param of the
    launch when the manifest predates the "swept" list)."""
    if not launch:
        return {}
    params = launch.get("params") or {}
    swept = launch.get("swept")
    return {k: v for k, v in params.items() if swept is None or k in swept}


def _text(data):
    """Bytes sonde wrote, as text. sonde writes every byte of a string that is not UTF-8 (a file
    name in another encoding) as the escape \\udcXX (docs/results-schema.md), which json turns
    into the same lone surrogate as this decoding gives a raw byte (files of sonde before the
    escaping): either way os.fsencode() of a string gives back its original bytes."""
    return data.decode("utf-8", "surrogateescape")


def load_file(path, validate=False):
    """The runs of one JSON Lines file, in the order their first records appear."""
    path = Path(path)
    try:
        f = open(path, "rb")  # closed by the with below; read line by line, never whole
    except OSError as e:
        raise ResultsError(f"{path}: {e.strerror}") from e
    runs = {}
    last = None
    partial = b""
    lineno = 0
    with f:
        for lineno, line in enumerate(f, 1):
            # A line without its newline can only be the last: a record that was being
            # written when the run stopped.
            if not line.endswith(b"\n"):
                partial = line
                break
            if not line.strip():
                continue
            record = _record(line[:-1], f"{path}:{lineno}", validate)
            last = runs.setdefault(record["run_id"], Run(record["run_id"], path))
            last.add(record)
    if partial.strip():
        try:
            record = json.loads(partial)
        except ValueError:
            record = None
        if record is not None:
            raise ResultsError(f"{path}:{lineno}: last record has no newline")
        m = _RUN_ID.search(partial.decode(errors="replace"))
        if m:
            last = runs.setdefault(m.group(1), Run(m.group(1), path))
        elif last is None:
            last = runs.setdefault(None, Run(None, path))
        last.truncated = True
    return list(runs.values())


def _record(line, where, validate):
    record = _profile_calls(line) if line.startswith(_PROFILE) else None
    if record is None:
        try:
            record = json.loads(_text(line))
        except ValueError as e:  # not JSON
            raise ResultsError(f"{where}: not a JSON record "
                               f"({getattr(e, 'msg', None) or e.reason})") from e
    if not isinstance(record, dict) or not isinstance(record.get("type"), str):
        raise ResultsError(f"{where}: not a sonde record (no \"type\" member)")
    if not isinstance(record.get("run_id"), str):
        raise ResultsError(f"{where}: {record['type']} record without a run_id")
    version = record.get("schema_version")
    if record["type"] == "header" and version not in _schema.READABLE_VERSIONS:
        readable = " and ".join(str(v) for v in _schema.READABLE_VERSIONS)
        raise ResultsError(f"{where}: records of schema_version {version!r}; this sonde reads "
                           f"schema_version {readable} (docs/results-schema.md)")
    if validate:
        _schema.validate(record, where)
    return record


# Profile "calls" records (src/core/profile.c) are most of a profiled run's bytes: 10^7 calls
# make hundreds of MB of numbers. They are read straight into numpy arrays (rows x tasks,
# NaN where the record has null) instead of lists of Python floats, which is 5-10 times
# faster; any line that is not laid out exactly as sonde writes them goes through json.
_PROFILE = b'{"type":"profile",'
_START, _END = b',"start":[[', b']],"end":[['


def _profile_calls(line):
    """A profile "calls" record with its start and end as float arrays, or None when the line
    is not one (or not in the writer's layout)."""
    i = line.find(_START)
    j = line.find(_END, i + 1)
    if i < 0 or j < 0 or not line.endswith(b"]]}"):
        return None
    try:
        record = json.loads(line[:i] + b"}")
    except ValueError:
        return None
    if record.get("part") != "calls":
        return None
    start = _matrix(line[i + len(_START) - 2:j + 2])
    end = _matrix(line[j + len(_END) - 2:-1])
    if start is None or end is None or start.shape != end.shape:
        return None
    record["start"], record["end"] = start, end
    return record


def _matrix(text):
    """[[a,b],[c,d],...] (numbers and null) as a rows x columns float array, or None. pandas'
    C parser reads the numbers (each a "line" ended by a comma): 2-3 times as fast as numpy's
    text reader."""
    rows = text.count(b"],[") + 1
    flat = text.translate(None, b"[]")
    count = flat.count(b",") + 1
    try:
        values = pd.read_csv(io.BytesIO(flat), header=None, names=["v"], dtype=np.float64,
                             na_values=["null"], keep_default_na=False, engine="c",
                             lineterminator=",")["v"].to_numpy()
    except (ValueError, pd.errors.ParserError):
        return None
    if values.size != count or count % rows or not _rectangular(text, rows, count // rows):
        return None
    return values.reshape(rows, count // rows)


def _rectangular(text, rows, per_row):
    """Every row of [[...],[...]] holds per_row values: the commas before each row's closing
    bracket are those of the rows before it (and the separators between them)."""
    b = np.frombuffer(text, dtype=np.uint8)
    closes = np.flatnonzero(b == ord("]"))[:-1]  # the last one closes the whole array
    if closes.size != rows:
        return False
    commas = np.cumsum(b == ord(","), dtype=np.int32)[closes]  # a line is a few MiB
    return bool(np.array_equal(commas, np.arange(1, rows + 1) * per_row - 1))


def _flatten(prefix, obj, out):
    if isinstance(obj, dict):
        for k, v in obj.items():
            _flatten(f"{prefix}.{k}", v, out)
    else:
        out[prefix] = obj


def measurement_row(m, run=None):
    """One measurement record as a flat dict: the CSV columns (the run's shape from the header
    of run, when given), then the parameters as "param.<key>" and workload figures as
    "extra.<key>" (nested keys joined by dots); with a run of a suite, the launch columns and
    "sweep.<key>" for each swept parameter."""
    per_rank = m.get("per_rank") or {}
    latency = m.get("latency") or {}
    verify = m.get("verify") or {}
    header = (run.header if run else None) or {}
    row = {
        "run_id": m.get("run_id"),
        "workload": m.get("workload"),
        "ranks": header.get("ranks"),
        "nodes": header.get("nodes"),
        "tasks_per_node": header.get("tasks_per_node"),
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
        "lat_count": latency.get("count"),
        "lat_p50_s": latency.get("p50"),
        "lat_p90_s": latency.get("p90"),
        "lat_p99_s": latency.get("p99"),
        "lat_p999_s": latency.get("p999"),
        "lat_max_s": latency.get("max"),
        "lat_mean_s": latency.get("mean"),
        "lat_percentiles": latency.get("percentiles"),
        "lat_error_rel": latency.get("error_rel"),
        "verify_checked": verify.get("checked"),
        "verify_errors": verify.get("errors"),
    }
    _flatten("param", m.get("params") or {}, row)
    _flatten("extra", m.get("extra") or {}, row)
    launch = run.launch if run else None
    if launch:
        for column in LAUNCH_COLUMNS:
            row[column] = launch.get("id" if column == "launch" else column)
        for k, v in sweep_values(launch).items():
            row[f"sweep.{k}"] = v
    return row


def measurement_rows(runs):
    """Every measurement of the runs as flat rows (see measurement_row)."""
    return [measurement_row(m, run) for run in runs for m in run.measurements]


def to_dataframe(paths):
    """A pandas DataFrame of every measurement in paths (a results file or run directory, a
    list of them, or runs load() returned): one row per measurement, the columns of
    measurement_rows() with units in their names (_s seconds, _mib_s MiB/s, bytes), typed:
    integers and booleans as pandas' nullable Int64 and boolean, figures as float64 (NaN where
    the record has null), text as string; a list-valued parameter as its JSON text.

        df = to_dataframe("results/2026-11-22T06-00-00")
        df.to_csv("campaign.csv", index=False)
        df.to_parquet("campaign.parquet")   # needs pyarrow: pip install 'sonde[parquet]'
    """
    if isinstance(paths, (str, Path)):
        paths = [paths]
    items = list(paths)
    runs = [x for x in items if isinstance(x, Run)]
    runs += load(*[x for x in items if not isinstance(x, Run)])
    rows = measurement_rows(runs)
    for row in rows:
        for k, v in row.items():
            if isinstance(v, (list, dict)):
                row[k] = json.dumps(v)
        if not row["bytes"]:  # moved no bytes (mdtest's directory phases, find): no bandwidth,
            row["bandwidth_mib_s"] = None  # missing, not the record's 0.0 MiB/s
    df = pd.DataFrame.from_records(rows)
    if df.empty:
        return pd.DataFrame(columns=[c for c in CSV_COLUMNS if c not in _JSON_COLUMNS])
    # astype makes one block per column; copy() joins them into one frame again
    return df.astype({c: _dtype(c, df[c]) for c in df.columns}).copy()


def _dtype(column, values):
    """The pandas type of a column from its values: nullable Int64/boolean, float64 for any
    figure (a column of known figures stays float64 even when every value is whole), string;
    object when the values mix types or are all null."""
    kinds = {bool if isinstance(v, bool) else int if isinstance(v, int) else
             float if isinstance(v, float) else str if isinstance(v, str) else object
             for v in values if v is not None and not (isinstance(v, float) and v != v)}
    if column in _FLOAT_COLUMNS or kinds == {float} or kinds == {int, float}:
        return "float64"
    return {frozenset({bool}): "boolean", frozenset({int}): "Int64",
            frozenset({str}): "string"}.get(frozenset(kinds), object)


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
    """Rows of a --csv file, with the same keys as measurement_rows() of the same run. A partial
    last line (killed run) is dropped."""
    path = Path(path)
    try:
        text = _text(path.read_bytes())
    except OSError as e:
        raise ResultsError(f"{path}: {e.strerror}") from e
    if text and not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader, None)
    if header is None:
        return []
    if header not in (CSV_COLUMNS, CSV_COLUMNS_V1):
        raise ResultsError(f"{path}:1: not a sonde CSV header: {','.join(header)}")
    # sonde appends to an existing file without a second header: a file begun by a sonde of
    # schema_version 1 may go on with rows of version 2, so each row is read by its length.
    by_length = {len(CSV_COLUMNS): CSV_COLUMNS, len(CSV_COLUMNS_V1): CSV_COLUMNS_V1}
    rows = []
    for lineno, values in enumerate(reader, 2):
        where = f"{path}:{lineno}"
        if values in (CSV_COLUMNS, CSV_COLUMNS_V1):
            continue
        columns = by_length.get(len(values))
        if columns is None:
            raise ResultsError(f"{where}: {len(values)} columns, expected {len(CSV_COLUMNS)} "
                               f"(or {len(CSV_COLUMNS_V1)} of schema_version 1)")
        row, nested = dict.fromkeys(CSV_COLUMNS), {}
        for column in _JSON_COLUMNS:
            del row[column]
        for column, text in zip(columns, values, strict=True):
            if column in _JSON_COLUMNS:
                try:
                    nested[column] = json.loads(text) if text else {}
                except json.JSONDecodeError as e:
                    raise ResultsError(f"{where}: column {column}: not JSON ({e.msg})") from e
            else:
                row[column] = _csv_value(column, text, where)
        for column, prefix in _JSON_COLUMNS.items():
            _flatten(prefix, nested[column], row)
        rows.append(row)
    return rows
