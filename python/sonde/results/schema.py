# SPDX-License-Identifier: BSD-3-Clause
"""Validation of result records against the results JSON Schema (docs/results-schema.md).

The schema file ships inside this package (sonde/results/results.schema.json);
docs/results.schema.json is a link to it, so there is one copy."""

import functools
import json
from importlib import resources

import jsonschema

SCHEMA_VERSION = 2
# Version 1 wrote 48 log2 buckets and no finish times (docs/results-schema.md says what changed);
# its files are read as they are.
READABLE_VERSIONS = (1, 2)


class SchemaError(ValueError):
    """A record that does not follow the results schema."""


@functools.cache
def schema():
    """The results JSON Schema as a dict."""
    text = resources.files(__package__).joinpath("results.schema.json").read_text()
    return json.loads(text)


@functools.cache
def _validator():
    cls = jsonschema.validators.validator_for(schema())
    cls.check_schema(schema())
    return cls(schema())


def errors(record):
    """Human-readable descriptions of every way the record breaks the schema ([] if valid)."""
    out = []
    for e in sorted(_validator().iter_errors(record), key=lambda e: list(e.absolute_path)):
        where = "/".join(str(p) for p in e.absolute_path) or "(record)"
        out.append(f"{where}: {e.message}")
    return out


def validate(record, where=""):
    """Raises SchemaError naming every problem when the record is not valid."""
    problems = errors(record)
    if problems:
        prefix = f"{where}: " if where else ""
        kind = record.get("type", "?") if isinstance(record, dict) else "?"
        raise SchemaError(f"{prefix}invalid {kind} record: " + "; ".join(problems))
