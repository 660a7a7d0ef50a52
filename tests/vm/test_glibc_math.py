"""glibc's exp2f/log2f in NumPy (the PICA200 VM's EX2/LG2): values worked out by hand, and the
host's own glibc on random inputs where the tests run on glibc."""

from __future__ import annotations

import ctypes
import ctypes.util
import platform

import pytest

np = pytest.importorskip("numpy")

from shaderkit.vm.glibc_math import exp2f, log2f  # noqa: E402


def _bits(values: list[float]) -> list[int]:
    return [int(b) for b in np.array(values, np.float32).view(np.uint32)]


def test_exact_values_and_edges() -> None:
    x = np.array([0.0, -0.0, 1.0, 10.0, -1.0, -126.0, -149.0, -150.0, 127.0, 128.0, -np.inf, np.inf], np.float32)
    assert _bits(exp2f(x)) == _bits([1, 1, 2, 1024, 0.5, 2.0**-126, 2.0**-149, 0, 2.0**127, np.inf, 0, np.inf])
    y = np.array([1.0, 2.0, 8.0, 0.5, 2.0**-149, 2.0**-126, 0.0, -0.0, np.inf], np.float32)
    assert _bits(log2f(y)) == _bits([0, 1, 3, -1, -149, -126, -np.inf, -np.inf, np.inf])
    assert np.isnan(log2f(np.array([-1.0, -np.inf, np.nan], np.float32))).all()
    assert np.isnan(exp2f(np.array([np.nan], np.float32))).all()


def test_last_bit_where_numpy_differs() -> None:
    # glibc 2.36's exp2f(5.2f), log2f(1.7f) and log2f(2.5f); NumPy 2.4's float32 exp2/log2 give
    # 0x4213088a, 0x3f43fa17 and 0x3fa934f0
    assert exp2f(np.array([0x40A66666], np.uint32).view(np.float32)).view(np.uint32).tolist() == [0x4213088B]
    assert log2f(np.array([0x3FD9999A, 0x40200000], np.uint32).view(np.float32)).view(np.uint32).tolist() == [
        0x3F43FA16, 0x3FA934F1]


@pytest.mark.skipif(platform.system() != "Linux" or "glibc" not in " ".join(platform.libc_ver()),
                    reason="the host's libm is not glibc")
def test_same_bits_as_the_host_glibc() -> None:
    libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
    rng = np.random.default_rng(7)
    edges = np.array([0x7F800001, 0xFF800001, 0x7FC00123, 0xFFC00000, 0xBF800000, 0xFF800000, 0x80000000,
                      0x80000001, 0x00000001, 0x007FFFFF, 0x3F800000, 0xC3160000, 0xC3150000, 0x43000000], np.uint32)
    x = np.concatenate([rng.integers(0, 1 << 32, 20000, dtype=np.uint64).astype(np.uint32).view(np.float32),
                        (rng.standard_normal(20000) * 40).astype(np.float32), edges.view(np.float32)])
    for name, ours in (("exp2f", exp2f), ("log2f", log2f)):
        fn = getattr(libm, name)
        fn.restype, fn.argtypes = ctypes.c_float, [ctypes.c_float]
        host = np.array([fn(float(v)) for v in x], np.float32)
        got = ours(x)
        same = got.view(np.uint32) == host.view(np.uint32)  # NaNs too: sign, payload, quieting
        assert same.all(), (name, x[~same].view(np.uint32)[:5])


def test_building_the_table_leaves_the_decimal_context_alone() -> None:
    import decimal
    import importlib

    import shaderkit.vm.glibc_math as module

    before = decimal.getcontext().prec
    importlib.reload(module)
    assert decimal.getcontext().prec == before
