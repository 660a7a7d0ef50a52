"""Yaz0 (``.szs``): Nintendo's LZ77 variant (sead), always big-endian.

Header (0x10): ``Yaz0``, u32 decompressed size, u32 alignment hint (0 or a power of two), u32 0.
Then groups: one flag byte, MSB first; a set bit copies one literal byte, a clear bit is a
back-reference ``NR RR`` (length ``N + 2``, distance ``RRR + 1``) or, when ``N`` is 0,
``0R RR NN`` (length ``NN + 0x12``).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from shaderkit.errors import ShaderFormatError
from shaderkit.io.limits import MAX_DECOMPRESSED_SIZE

MAGIC = b"Yaz0"
HEADER = struct.Struct(">4sIII")
MAX_DISTANCE = 0x1000
MAX_LENGTH = 0x111
#: the most output one input byte can give: 8 three-byte references of 0x111 bytes per 25 bytes
MAX_RATIO = (8 * MAX_LENGTH) // 25 + 1


@dataclass
class Yaz0Header:
    size: int
    alignment: int
    reserved: int = 0


def read_header(data: bytes, limit: int = MAX_DECOMPRESSED_SIZE) -> Yaz0Header:
    """The checked header of a Yaz0 stream: magic, and a size the input can actually produce."""
    if len(data) < HEADER.size:
        raise ShaderFormatError(f"Yaz0 header needs {HEADER.size} bytes, {len(data)} given", 0, "Yaz0")
    magic, size, alignment, reserved = HEADER.unpack_from(data)
    if magic != MAGIC:
        raise ShaderFormatError(f"bad magic {magic!r}, expected {MAGIC!r}", 0, "Yaz0")
    if size > limit:
        raise ShaderFormatError(
            f"decompressed size {size} exceeds the limit of {limit} bytes", 4, "Yaz0")
    if size > (len(data) - HEADER.size) * MAX_RATIO:
        raise ShaderFormatError(
            f"decompressed size {size} cannot come from {len(data) - HEADER.size} compressed bytes", 4, "Yaz0")
    return Yaz0Header(size, alignment, reserved)


#: a resume point is recorded every this many groups (see :func:`recompress`)
CHECKPOINT_GROUPS = 64


def decompress(data: bytes, limit: int = MAX_DECOMPRESSED_SIZE,
               checkpoints: list[tuple[int, int]] | None = None) -> bytes:
    """The decompressed payload; bad or truncated streams raise ShaderFormatError.

    ``checkpoints``, when given, receives (stream offset, output offset) of group starts, the
    points from which :func:`recompress` can re-encode a changed payload.
    """
    header = read_header(data, limit)
    size = header.size
    out = bytearray()
    src = HEADER.size
    end = len(data)
    group = 0
    while len(out) < size:
        if src >= end:
            raise ShaderFormatError(
                f"stream ends after {len(out)} of {size} bytes", src, "Yaz0")
        if checkpoints is not None and group % CHECKPOINT_GROUPS == 0:
            checkpoints.append((src, len(out)))
        group += 1
        flags = data[src]
        src += 1
        for bit in range(7, -1, -1):
            if len(out) >= size:
                break
            if flags >> bit & 1:
                if src >= end:
                    raise ShaderFormatError(f"stream ends after {len(out)} of {size} bytes", src, "Yaz0")
                out.append(data[src])
                src += 1
                continue
            if src + 2 > end:
                raise ShaderFormatError("back-reference runs past the end of the stream", src, "Yaz0")
            b1, b2 = data[src], data[src + 1]
            distance = ((b1 & 0x0F) << 8 | b2) + 1
            count = b1 >> 4
            if count:
                length = count + 2
                src += 2
            else:
                if src + 3 > end:
                    raise ShaderFormatError("back-reference runs past the end of the stream", src, "Yaz0")
                length = data[src + 2] + 0x12
                src += 3
            here = len(out)
            if distance > here:
                raise ShaderFormatError(
                    f"back-reference reaches {distance} bytes back with only {here} written", src, "Yaz0")
            length = min(length, size - here)
            start = here - distance
            if distance >= length:
                out += out[start : start + length]
            else:  # overlapping copy: repeat the period
                chunk = out[start:here]
                reps = -(-length // distance)
                out += (chunk * reps)[:length]
    return bytes(out)


def _common_prefix(a: bytes, b: bytes) -> int:
    """Length of the common prefix of ``a`` and ``b`` (by halving; slice compares run in C)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) >> 1
        if a[low:mid] == b[low:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def recompress(stream: bytes, old: bytes, new: bytes, checkpoints: list[tuple[int, int]],
               alignment: int | None = None) -> bytes:
    """A stream for ``new`` that keeps ``stream`` (which decodes to ``old``) up to the last
    checkpoint before the first changed byte and re-encodes only from there."""
    first_change = _common_prefix(old, new)
    src, start = HEADER.size, 0
    for cp_src, cp_out in checkpoints:
        if cp_out > first_change:
            break
        src, start = cp_src, cp_out
    if alignment is None:
        alignment = HEADER.unpack_from(stream)[2]
    head = HEADER.pack(MAGIC, len(new), alignment, 0)
    return head + stream[HEADER.size : src] + compress(new, alignment, start=start)[HEADER.size :]


def compress(data: bytes, alignment: int = 0, level: int = 1, start: int = 0) -> bytes:
    """A Yaz0 stream of ``data``: greedy matching (``level`` 1) or literals only (``level`` 0).

    ``start`` > 0 encodes only ``data[start:]`` (back-references may reach into what lies before):
    the tail of a stream whose head is kept.
    """
    size = len(data)
    if size > 0xFFFFFFFF:
        raise ValueError("Yaz0 holds at most 4 GiB")
    out = bytearray(HEADER.pack(MAGIC, size, alignment, 0))
    if level <= 0:
        for pos in range(start, size, 8):
            out.append(0xFF << (8 - min(8, size - pos)) & 0xFF)
            out += data[pos : pos + 8]
        return bytes(out)
    heads: dict[bytes, list[int]] = {}
    for at in range(max(0, start - MAX_DISTANCE), start):
        if at + 3 <= size:
            heads.setdefault(data[at : at + 3], []).append(at)
    pos = start
    while pos < size:
        flag_at = len(out)
        out.append(0)
        flags = 0
        for bit in range(7, -1, -1):
            if pos >= size:
                break
            best_len, best_dist = 0, 0
            if pos + 3 <= size:
                key = data[pos : pos + 3]
                window = max(0, pos - MAX_DISTANCE)
                chain = heads.get(key)
                if chain:
                    limit = min(MAX_LENGTH, size - pos)
                    for cand in reversed(chain[-16:]):
                        if cand < window:
                            break
                        if data[cand + best_len : cand + best_len + 1] != data[pos + best_len : pos + best_len + 1]:
                            continue  # cannot beat the best match so far
                        # longest common prefix by halving (slice compares run in C)
                        low, high = 3, limit
                        while low < high:
                            mid = (low + high + 1) >> 1
                            if data[cand + low : cand + mid] == data[pos + low : pos + mid]:
                                low = mid
                            else:
                                high = mid - 1
                        length = low
                        if length > best_len:
                            best_len, best_dist = length, pos - cand
                            if length == limit:
                                break
            if best_len >= 3:
                dist = best_dist - 1
                if best_len >= 0x12:
                    out += bytes((dist >> 8, dist & 0xFF, best_len - 0x12))
                else:
                    out += bytes(((best_len - 2) << 4 | dist >> 8, dist & 0xFF))
                stop = pos + best_len
            else:
                flags |= 1 << bit
                out.append(data[pos])
                stop = pos + 1
            # index the positions the token covers (inside long matches only the first and last
            # few: runs are still found from there, and indexing every byte is the slow part)
            covered = range(pos, stop) if stop - pos <= 16 else [*range(pos, pos + 8), *range(stop - 8, stop)]
            for at in covered:
                if at + 3 <= size:
                    chain = heads.setdefault(data[at : at + 3], [])
                    chain.append(at)
                    if len(chain) > 64:
                        del chain[:32]
            pos = stop
        out[flag_at] = flags
    return bytes(out)
