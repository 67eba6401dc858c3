"""The scenario catalogue: data only. Seed tables as TOML files, captured traces as JSON Lines."""

from pathlib import Path

__all__ = ["CATALOGUE_ROOT"]

CATALOGUE_ROOT = Path(__file__).resolve().parent
"""Directory holding every bundled scenario file."""
