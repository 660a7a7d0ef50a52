"""Resource limits that apply to every format (issue: hardening).

A file may make a parser do work or allocate memory only in proportion to its own size:

* :data:`MAX_TABLE_ENTRIES` caps any single count read from a file;
* :data:`MAX_NESTING_DEPTH` caps containers inside containers (DXBC LIBF, CGFX, base64 wrappers);
* the per-file *allocation budget* caps the sum of all table sizes implied by counts, so that many
  tables pointing at the same bytes cannot multiply the work: every :meth:`Reader.check_count` spends
  ``count * item_size`` bytes of a budget of ``ALLOCATION_FACTOR * len(data) + ALLOCATION_SLACK``
  shared by all readers of one input.
"""

from __future__ import annotations

#: Hard cap on the number of elements any single table may declare.
MAX_TABLE_ENTRIES = 1 << 20
#: Hard cap on containers nested in containers.
MAX_NESTING_DEPTH = 8
#: Counted table bytes one input may imply, as a multiple of its size (plus a fixed slack).
ALLOCATION_FACTOR = 64
ALLOCATION_SLACK = 1 << 20
#: Largest output any decompressor (Yaz0, zstd) may produce for one member; bigger claims are refused
#: before anything is allocated.
MAX_DECOMPRESSED_SIZE = 1 << 29
