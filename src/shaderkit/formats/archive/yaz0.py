"""Yaz0 (``.szs``): Nintendo's LZ77 variant (sead), always big-endian.

Header (0x10): ``Yaz0``, u32 decompressed size, u32 alignment hint (0 or a power of two), u32 0.
Then groups: one flag byte, MSB first; a set bit copies one literal byte, a clear bit is a
back-reference ``NR RR`` (length ``N + 2``, distance ``RRR + 1``) or, when ``N`` is 0,
``0R RR NN`` (length ``NN + 0x12``).
"""

from __future__ import annotations

import struct

from shaderkit.dataclass import dataclass
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
    """The 16-byte Yaz0 header: decompressed size, alignment and the reserved word."""
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
        if flags == 0xFF and src + 8 <= end and len(out) + 8 <= size:
            out += data[src : src + 8]  # eight literals: one slice
            src += 8
            continue
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


#: a token: (position, distance, length); distance 0 is a literal
Token = tuple[int, int, int]


def _tokens(data: bytes, start: int, end: int) -> list[Token]:
    """Greedy tokens for ``data[start:end]``; references may reach back before ``start``."""
    heads: dict[bytes, list[int]] = {}
    for at in range(max(0, start - MAX_DISTANCE), start):
        heads.setdefault(data[at : at + 3], []).append(at)
    tokens: list[Token] = []
    pos = start
    while pos < end:
        best_len, best_dist = 0, 0
        if pos + 3 <= end:
            chain = heads.get(data[pos : pos + 3])
            if chain:
                window = pos - MAX_DISTANCE
                limit = min(MAX_LENGTH, end - pos)
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
                    if low > best_len:
                        best_len, best_dist = low, pos - cand
                        if low == limit:
                            break
        if best_len >= 3:
            tokens.append((pos, best_dist, best_len))
            stop = pos + best_len
        else:
            tokens.append((pos, 0, 1))
            stop = pos + 1
        # index the positions the token covers (inside long matches only the first and last
        # few: runs are still found from there, and indexing every byte is the slow part)
        covered = range(pos, stop) if stop - pos <= 16 else [*range(pos, pos + 8), *range(stop - 8, stop)]
        for at in covered:
            if at + 3 <= end:
                chain = heads.setdefault(data[at : at + 3], [])
                chain.append(at)
                if len(chain) > 64:
                    del chain[:32]
        pos = stop
    return tokens


def _fill_groups(tokens: list[Token]) -> list[Token] | None:
    """The same bytes in a multiple of 8 tokens (whole groups), by splitting references from the
    end: (d, m) -> literal + (d, m - 1), or a 3-byte reference -> 3 literals. None if impossible."""
    deficit = -len(tokens) % 8
    out = list(tokens)
    i = len(out) - 1
    while deficit and i >= 0:
        pos, dist, length = out[i]
        if dist and length >= 4:
            out[i : i + 1] = [(pos, 0, 1), (pos + 1, dist, length - 1)]
            deficit -= 1
            i += 1  # look at the shortened reference again
        elif dist and length == 3 and deficit >= 2:
            out[i : i + 1] = [(pos, 0, 1), (pos + 1, 0, 1), (pos + 2, 0, 1)]
            deficit -= 2
        i -= 1
    return out if not deficit else None


def _encode(data: bytes, tokens: list[Token]) -> bytes:
    out = bytearray()
    for g in range(0, len(tokens), 8):
        group = tokens[g : g + 8]
        flags = 0
        body = bytearray()
        for bit, (pos, dist, length) in enumerate(group):
            if not dist:
                flags |= 0x80 >> bit
                body.append(data[pos])
            elif length >= 0x12:
                body += bytes(((dist - 1) >> 8, (dist - 1) & 0xFF, length - 0x12))
            else:
                body += bytes(((length - 2) << 4 | (dist - 1) >> 8, (dist - 1) & 0xFF))
        out.append(flags)
        out += body
    return bytes(out)


def compress(data: bytes, alignment: int = 0, level: int = 1) -> bytes:
    """A Yaz0 stream of ``data``: greedy matching (``level`` 1) or literals only (``level`` 0)."""
    size = len(data)
    if size > 0xFFFFFFFF:
        raise ValueError("Yaz0 holds at most 4 GiB")
    head = HEADER.pack(MAGIC, size, alignment, 0)
    if level <= 0:
        return head + _encode(data, [(pos, 0, 1) for pos in range(size)])
    return head + _encode(data, _tokens(data, 0, size))


def recompress(stream: bytes, old: bytes, new: bytes, checkpoints: list[tuple[int, int]],
               alignment: int | None = None) -> bytes:
    """A stream for ``new`` that reuses the parts of ``stream`` (which decodes to ``old``) that
    still hold: the original bytes between two checkpoints are kept wherever ``new`` has the
    same bytes (with 4 KiB of history) at the same place or shifted by the size change; only the
    rest is encoded again. The result is checked by decoding it (a full compression otherwise).
    """
    if alignment is None:
        alignment = HEADER.unpack_from(stream)[2]
    head = HEADER.pack(MAGIC, len(new), alignment, 0)
    bounds = [*checkpoints, (len(stream), len(old))]
    if not checkpoints or checkpoints[0] != (HEADER.size, 0):
        return compress(new, alignment)
    shifts = sorted({0, len(new) - len(old)}, key=abs)
    body = bytearray()
    covered = 0  # bytes of ``new`` the body decodes to so far
    run_start: int | None = None  # where a stretch to encode again began
    for (src0, out0), (src1, out1) in zip(bounds, bounds[1:]):
        history = min(MAX_DISTANCE, out0)
        last = src1 == len(stream)
        for shift in shifts:
            start = out0 + shift
            if start < 0 or (run_start is None and start != covered) or (run_start is not None and start < run_start):
                continue
            if last and out1 + shift != len(new):
                continue
            if new[start - history : out1 + shift] != old[out0 - history : out1]:
                continue
            if run_start is not None:
                tokens = _fill_groups(_tokens(new, run_start, start))
                if tokens is None:
                    continue
                body += _encode(new, tokens)
                run_start = None
            body += stream[src0:src1]
            covered = out1 + shift
            break
        else:
            if run_start is None:
                run_start = covered
    if run_start is not None:
        body += _encode(new, _tokens(new, run_start, len(new)))
    result = head + bytes(body)
    try:
        if decompress(result, limit=max(len(new), 1)) == new:
            return result
    except ShaderFormatError:
        pass
    return compress(new, alignment)  # pragma: no cover - a safety net; tests prove the path above
