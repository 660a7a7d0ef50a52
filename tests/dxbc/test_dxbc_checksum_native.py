"""The C-speed checksum (libcrypto's MD5 compression) and the pure-Python one agree, and match fxc."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shaderkit.formats.dxbc import checksum
from shaderkit.formats.dxbc.checksum import dxbc_checksum


def _native_available() -> bool:
    if checksum._libcrypto is False:  # not looked for yet (small inputs are hashed in Python first)
        checksum._libcrypto = checksum._load_libcrypto()
    return not isinstance(checksum._libcrypto, bool) and checksum._libcrypto is not None


@given(st.binary(min_size=20, max_size=300))
@settings(max_examples=200, deadline=None)
def test_native_equals_python_for_every_tail_length(data: bytes) -> None:
    # lengths around 56 and 64 take the one- and two-block endings
    if not _native_available():
        pytest.skip("libcrypto not loadable here: the pure-Python checksum is the only one")
    assert dxbc_checksum(data) == dxbc_checksum(data, native=False)


def test_small_inputs_are_hashed_in_python_until_libcrypto_pays_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(checksum, "_libcrypto", False)
    monkeypatch.setattr(checksum, "_hashed_in_python", 0)
    loads: list[int] = []
    monkeypatch.setattr(checksum, "_load_libcrypto", lambda: loads.append(1))  # returns None: Python only
    small = bytes(range(200))
    expected = dxbc_checksum(small, native=False)
    for _ in range(checksum.NATIVE_AFTER // (len(small) - 20)):
        assert dxbc_checksum(small) == expected
    assert loads == []
    assert dxbc_checksum(small) == expected  # the budget is spent: libcrypto is looked for once
    assert dxbc_checksum(small) == expected
    assert loads == [1]


def test_both_reproduce_the_stored_checksum_of_the_corpus(corpus: Path) -> None:
    files = sorted((corpus / "dxbc").glob("*.dxbc"))
    native = [dxbc_checksum(p.read_bytes()) == p.read_bytes()[4:20] for p in files]
    python = [dxbc_checksum(p.read_bytes(), native=False) == p.read_bytes()[4:20] for p in files[::13]]
    # two corpus files carry a deliberately non-standard checksum (a debug layer's)
    assert sum(native) == len(files) - 2
    assert all(native[::13][i] == ok for i, ok in enumerate(python))


def test_libcrypto_found_by_name_leaves_hashlib_unloaded() -> None:
    """Loading libcrypto by name does not initialise hashlib's module (a few ms of every verify);
    names that resolve nowhere end in the pure-Python checksum, without an exception."""
    import subprocess
    import sys

    code = ("import sys; from shaderkit.formats.dxbc import checksum as c; native = c._load_libcrypto(); "
            "print(native is not None, '_hashlib' in sys.modules); "
            "c._LIBCRYPTO_NAMES = ('libshaderkit-no-such-crypto.so',); print(c._load_libcrypto())")
    found, hashlib_loaded, missing = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                                    check=True).stdout.split()
    if found == "False":
        pytest.skip("libcrypto not loadable by name here")
    assert hashlib_loaded == "False"
    assert missing == "None"
