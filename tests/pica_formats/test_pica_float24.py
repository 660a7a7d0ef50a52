"""float24 against values worked out by hand from the reference (sign 23, exp 16-22 bias 63, mant 0-15)."""

from __future__ import annotations

import math
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shaderkit.isa.pica.float24 import f24_to_f32, f32_to_f24


@pytest.mark.parametrize(
    ("value", "raw"),
    [
        (0.0, 0x000000),
        (1.0, 0x3F0000),  # 2**0: exponent 63
        (0.5, 0x3E0000),
        (2.0, 0x400000),
        (-2.5, 0xC04000),  # sign | exp 64 | 0.25 * 65536
        (1.5, 0x3F8000),
        (-1.0, 0xBF0000),
        (2.0**63 * (1 + 65535 / 65536), 0x7EFFFF),  # largest finite
        (2.0**-62, 0x010000),
    ],
)
def test_exact_pairs(value: float, raw: int) -> None:
    assert f32_to_f24(value) == raw
    assert f24_to_f32(raw) == value


def test_negative_zero() -> None:
    assert f32_to_f24(-0.0) == 0x800000
    z = f24_to_f32(0x800000)
    assert z == 0.0 and math.copysign(1.0, z) < 0


def test_mantissa_truncates() -> None:
    # float32(1/3) = 0x3EAAAAAB: exp 125 -> 61 (0x3D), mantissa 0x2AAAAB >> 7 = 0x5555
    assert f32_to_f24(1 / 3) == 0x3D5555
    # 1 + 2**-17 is below one f24 ulp: truncated to 1.0
    assert f32_to_f24(1 + 2**-17) == 0x3F0000


def test_no_denormals() -> None:
    # exponent 0 with a mantissa decodes as a normal number 2**-63 * 1.m
    assert f24_to_f32(0x000001) == 2.0**-63 * (1 + 1 / 65536)
    assert f24_to_f32(0x008000) == 2.0**-63 * 1.5


def test_underflow_flushes_to_signed_zero() -> None:
    assert f32_to_f24(1e-30) == 0x000000
    assert f32_to_f24(-1e-30) == 0x800000
    assert f32_to_f24(2.0**-64) == 0x000000
    assert f32_to_f24(1e-45) == 0x000000  # float32 denormal


def test_overflow_saturates_to_inf() -> None:
    assert f32_to_f24(1e30) == 0x7F0000
    assert f32_to_f24(-1e30) == 0xFF0000
    assert f32_to_f24(math.inf) == 0x7F0000
    assert f32_to_f24(-math.inf) == 0xFF0000
    assert f32_to_f24(1e300) == 0x7F0000  # beyond float32 too
    assert f32_to_f24(math.nan) == 0x7F0000


def test_exponent_127_keeps_mantissa_like_picasso() -> None:
    # picasso/libctru only saturate when the rebiased exponent is > 0x7F, so 2**64 <= |x| < 2**65
    # keeps its mantissa under exponent 0x7F (which the GPU reads as inf/NaN).
    assert f32_to_f24(2.0**64) == 0x7F0000
    assert f32_to_f24(1.5 * 2.0**64) == 0x7F8000
    assert f32_to_f24(2.0**65) == 0x7F0000


def test_inf_and_nan_decode() -> None:
    assert f24_to_f32(0x7F0000) == math.inf
    assert f24_to_f32(0xFF0000) == -math.inf
    assert math.isnan(f24_to_f32(0x7F0001))


def test_upper_bits_ignored() -> None:
    assert f24_to_f32(0xAB3F0000) == 1.0


@given(st.integers(0, 0xFFFFFF))
def test_decode_encode_round_trip(raw: int) -> None:
    exponent = (raw >> 16) & 0x7F
    if exponent == 0x7F:
        return  # NaN payloads are not kept; inf is covered above
    assert f32_to_f24(f24_to_f32(raw)) == raw


@given(st.integers(1, 0xFFFF))
def test_exponent_zero_values_encode_back(mantissa: int) -> None:
    assert f32_to_f24(f24_to_f32(mantissa)) == mantissa


@given(st.floats(allow_nan=False, width=32))
def test_encode_is_truncation(value: float) -> None:
    raw = f32_to_f24(value)
    back = f24_to_f32(raw)
    if math.isinf(back) or math.isnan(back) or back == 0.0:
        return
    # truncation toward zero: |back| <= |value| and within one f24 ulp
    assert abs(back) <= abs(value)
    ulp = 2.0 ** (((raw >> 16) & 0x7F) - 63 - 16)
    assert abs(value) - abs(back) < ulp
    assert struct.pack("<f", back)  # representable as float32


@pytest.mark.parametrize("exponent", range(0x7F))
def test_every_finite_exponent_decodes_by_the_formula(exponent: int) -> None:
    # (-1)**s * (1 + m / 65536) * 2**(e - 63) for every exponent below 0x7F (e 0: no denormals)
    for mantissa in (0, 1, 0x8000, 0xFFFF):
        if exponent == 0 and mantissa == 0:
            continue  # signed zero: test_negative_zero
        expected = (1 + mantissa / 65536) * 2.0 ** (exponent - 63)
        raw = exponent << 16 | mantissa
        assert f24_to_f32(raw) == expected
        assert f24_to_f32(0x800000 | raw) == -expected



def test_takes_numpy_numbers_as_python_numbers() -> None:
    """What a model may hold (NumPy integers and floats) converts as Python numbers do; a compiled
    build's typed parameters would refuse them."""
    np = pytest.importorskip("numpy")
    assert f24_to_f32(np.uint32(0x3F8000)) == 1.5 and f24_to_f32(np.int64(0xC04000)) == -2.5
    assert f32_to_f24(np.float32(-2.5)) == 0xC04000 and f32_to_f24(np.float64(0.5)) == 0x3E0000
    assert f32_to_f24(np.float32("nan")) == 0x7F0000 and f32_to_f24(3) == 0x408000  # 1.5 * 2**1


@pytest.mark.parametrize("value", ["1.0", b"1", None, [1.0]])
def test_refuses_what_is_not_a_number(value: object) -> None:
    with pytest.raises(TypeError):
        f32_to_f24(value)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        f24_to_f32(value)  # type: ignore[arg-type]


def test_refuses_a_float_as_a_word() -> None:
    with pytest.raises(TypeError):
        f24_to_f32(1.0)  # type: ignore[arg-type]
