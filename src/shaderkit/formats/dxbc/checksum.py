"""The DXBC header checksum: MD5's compression function with DXBC's own final padding.

The hash covers every byte from offset 20 (the version field) to the end of the container.
Full 64-byte blocks go through the standard MD5 compression; only the last block differs
(reference section 2): with ``L`` bytes hashed, ``r = L % 64`` trailing bytes, ``A = 8*L mod 2**32``
and ``B = 2*L | 1``:

* ``r < 56``: one block ``u32(A) | rest | 0x80 | zeros | u32(B)`` (B in bytes 60..63);
* ``r >= 56``: ``rest | 0x80 | zeros`` then ``u32(A) | 56 zero bytes | u32(B)``.

hashlib cannot be used because it always applies the standard padding. Where OpenSSL's libcrypto
can be loaded (it is what Python's own hashlib links against), its MD5 compression runs at C speed
through ctypes; otherwise the pure-Python compression below is used. Both give the same digest.
Loading libcrypto (ctypes, hashlib's library) costs about as much as hashing :data:`NATIVE_AFTER`
bytes in Python, so the first bytes of a run are hashed in Python: a short run on one small file
never pays for it, a long one loads it once.
"""

from __future__ import annotations

import math
import struct
import sys

TYPE_CHECKING = False  # (typing loads only for type checkers: start-up)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["dxbc_checksum", "HASHED_FROM"]

#: First byte covered by the checksum (the version field).
HASHED_FROM = 20

_BLOCK = struct.Struct("<16I")
_DIGEST = struct.Struct("<4I")
_WORD = struct.Struct("<I")
_MASK = 0xFFFFFFFF
_INIT = (0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476)

# Per-round sine constants, rotation amounts and message-word indices.
_K = tuple(int(abs(math.sin(i + 1)) * 2**32) & _MASK for i in range(64))
_S = (7, 12, 17, 22) * 4 + (5, 9, 14, 20) * 4 + (4, 11, 16, 23) * 4 + (6, 10, 15, 21) * 4
_G = (
    tuple(range(16))
    + tuple((5 * i + 1) % 16 for i in range(16, 32))
    + tuple((3 * i + 5) % 16 for i in range(32, 48))
    + tuple((7 * i) % 16 for i in range(48, 64))
)
# (constant, shift, word index) for each of the four 16-step rounds
_R1, _R2, _R3, _R4 = (tuple(zip(_K[i : i + 16], _S[i : i + 16], _G[i : i + 16])) for i in (0, 16, 32, 48))


def _compress(state: tuple[int, int, int, int], block: tuple[int, ...]) -> tuple[int, int, int, int]:
    """One MD5 compression of 16 little-endian words into ``state``."""
    a, b, c, d = state
    m = _MASK
    for k, s, g in _R1:
        x = (a + ((b & c) | (~b & d)) + k + block[g]) & m
        a, d, c = d, c, b
        b = (b + ((x << s) | (x >> (32 - s)))) & m
    for k, s, g in _R2:
        x = (a + ((d & b) | (~d & c)) + k + block[g]) & m
        a, d, c = d, c, b
        b = (b + ((x << s) | (x >> (32 - s)))) & m
    for k, s, g in _R3:
        x = (a + (b ^ c ^ d) + k + block[g]) & m
        a, d, c = d, c, b
        b = (b + ((x << s) | (x >> (32 - s)))) & m
    for k, s, g in _R4:
        x = (a + (c ^ (b | (~d & m))) + k + block[g]) & m
        a, d, c = d, c, b
        b = (b + ((x << s) | (x >> (32 - s)))) & m
    return (
        (state[0] + a) & m,
        (state[1] + b) & m,
        (state[2] + c) & m,
        (state[3] + d) & m,
    )


def _final_blocks(view: memoryview, length: int, full: int) -> list[bytes]:
    """DXBC's own last one or two 64-byte blocks."""
    rest = bytes(view[full:])
    bits = _WORD.pack((length * 8) & _MASK)
    tail = _WORD.pack((length * 2 | 1) & _MASK)
    if len(rest) < 56:
        last = bits + rest + b"\x80"
        return [last + bytes(60 - len(last)) + tail]
    first = rest + b"\x80"
    return [first + bytes(64 - len(first)), bits + bytes(56) + tail]


_LIBCRYPTO_NAMES = {
    "win32": ("libcrypto-3-x64.dll", "libcrypto-3.dll", "libcrypto-1_1-x64.dll"),
    "darwin": ("libcrypto.3.dylib", "libcrypto.dylib"),
}.get(sys.platform, ("libcrypto.so.3", "libcrypto.so.1.1", "libcrypto.so"))


class _Native:
    """libcrypto's MD5 entry points through ctypes (imported on the first checksum, not at start-up)."""

    def __init__(self, lib: Any, ctx_type: Any, byref: Any) -> None:
        self.lib, self.ctx_type, self.byref = lib, ctx_type, byref

    def checksum(self, view: memoryview, length: int, full: int) -> bytes | None:
        """The digest through MD5_Init/Update/Transform, or None when libcrypto refuses."""
        lib, byref = self.lib, self.byref
        ctx = self.ctx_type()
        if lib.MD5_Init(byref(ctx)) != 1:
            return None
        if full and lib.MD5_Update(byref(ctx), bytes(view[:full]), full) != 1:
            return None
        for block in _final_blocks(view, length, full):
            lib.MD5_Transform(byref(ctx), block)
        return _DIGEST.pack(*ctx.state)


def _load_libcrypto() -> _Native | None:
    import ctypes

    class Md5Ctx(ctypes.Structure):
        # OpenSSL's MD5_CTX: the state words A..D first, then counters and the block buffer
        _fields_ = [("state", ctypes.c_uint32 * 4), ("rest", ctypes.c_uint32 * 19)]

    def open_by_name() -> _Native | None:
        for name in _LIBCRYPTO_NAMES:
            try:
                lib = ctypes.CDLL(name)
                init, update, transform = lib.MD5_Init, lib.MD5_Update, lib.MD5_Transform
            except (OSError, AttributeError):
                continue
            init.argtypes = [ctypes.POINTER(Md5Ctx)]
            update.argtypes = [ctypes.POINTER(Md5Ctx), ctypes.c_char_p, ctypes.c_size_t]
            transform.argtypes = [ctypes.POINTER(Md5Ctx), ctypes.c_char_p]
            return _Native(lib, Md5Ctx, ctypes.byref)
        return None

    native = open_by_name()
    if native is not None:
        return native
    try:  # not on the library path: hashlib's own copy (bundled builds), once loaded, resolves by name
        import _hashlib  # noqa: F401  (initialising it costs about as much as ctypes: only when needed)
    except ImportError:
        return None
    return open_by_name()


_libcrypto: _Native | None | bool = False  # False: not looked for yet
#: bytes hashed in Python before libcrypto is looked for (about its loading cost)
NATIVE_AFTER = 8192
_hashed_in_python = 0  # bytes hashed in Python while libcrypto was not looked for


def dxbc_checksum(data: bytes | bytearray | memoryview, start: int = HASHED_FROM, native: bool = True) -> bytes:
    """The 16-byte checksum of ``data[start:]`` as stored in a DXBC header.

    ``native=False`` forces the pure-Python compression (the tests compare the two).
    """
    global _libcrypto, _hashed_in_python
    view = memoryview(data)[start:]
    length = len(view)
    full = length - length % 64
    if native:
        if _libcrypto is False:
            if _hashed_in_python + length < NATIVE_AFTER:
                _hashed_in_python += length
                return _python_checksum(view, length, full)
            _libcrypto = _load_libcrypto()
        if isinstance(_libcrypto, _Native):
            digest = _libcrypto.checksum(view, length, full)
            if digest is not None:
                return digest
    return _python_checksum(view, length, full)


def _python_checksum(view: memoryview, length: int, full: int) -> bytes:
    length = len(view)
    full = length - length % 64
    state = _INIT
    for words in _BLOCK.iter_unpack(view[:full]):
        state = _compress(state, words)
    for block in _final_blocks(view, length, full):
        state = _compress(state, _BLOCK.unpack(block))
    return _DIGEST.pack(*state)
