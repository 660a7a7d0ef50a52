"""Byte-level tools every format uses."""

from shaderkit.io.reader import MAX_TABLE_ENTRIES, Reader
from shaderkit.io.writer import Writer

__all__ = ["MAX_TABLE_ENTRIES", "Reader", "Writer"]
