"""The JSON Schema of the results document (docs/results-schema.json) as a validator."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

SCHEMA_FILE = Path(__file__).resolve().parents[2] / "docs" / "results-schema.json"


@cache
def schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(loaded)
    return loaded


def schema_errors(document: Any) -> list[str]:
    """Where ``document`` breaks the schema: ``path: message`` per error (empty: it follows the schema)."""
    validator = jsonschema.Draft202012Validator(schema())
    return [
        "/".join(map(str, error.absolute_path)) + f": {error.message}"
        for error in sorted(validator.iter_errors(document), key=lambda error: list(map(str, error.path)))
    ]
