"""Byte-level tools every format uses."""

from shaderkit.io.limits import MAX_NESTING_DEPTH, MAX_TABLE_ENTRIES
from shaderkit.io.reader import Reader
from shaderkit.io.writer import Writer

__all__ = ["MAX_NESTING_DEPTH", "MAX_TABLE_ENTRIES", "Reader", "Writer"]
