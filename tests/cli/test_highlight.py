"""Pygments lexers: every corpus text (oracle listings and shaderkit's own) lexes without Error."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pygments")

from pygments.token import Error, Keyword, Name  # noqa: E402

import shaderkit  # noqa: E402
from shaderkit.cli.disasm import listing_of  # noqa: E402
from shaderkit.highlight import LatteLexer, MaxwellLexer, PicaLexer, Sm4Lexer, colorize  # noqa: E402


def _errors(lexer: object, text: str) -> list[str]:
    return [value for token, value in lexer.get_tokens(text) if token is Error]  # type: ignore[attr-defined]


def _ours(paths: list[Path]) -> list[tuple[str, str]]:
    texts = []
    for path in paths:
        if path.name == "wiixl_quad_carray.bnsh":  # BNSH compiler reflection: being fixed elsewhere
            continue
        texts.append((path.name, listing_of(shaderkit.open(path))))
    return texts


CASES = [
    (Sm4Lexer, "dxbc", ["*.fxc.asm"], ["*.dxbc"]),
    (PicaLexer, "pica", ["*.pica"], ["*.shbin"]),
    (LatteLexer, "wiiu", ["latte/*.txt"], ["*.gsh", "*.sharcfb"]),
    (MaxwellLexer, "nx", [], ["*.bnsh", "*.bin", "*.bnsh_vert"]),
]


@pytest.mark.parametrize(("lexer_class", "folder", "oracle_globs", "binary_globs"), CASES, ids=[c[0].__name__ for c in CASES])
def test_corpus_text_lexes_without_error(corpus: Path, lexer_class: type, folder: str, oracle_globs: list[str],
                                         binary_globs: list[str]) -> None:
    lexer = lexer_class()
    texts = [(p.name, p.read_text(encoding="utf-8", errors="replace")) for g in oracle_globs
             for p in sorted((corpus / folder).glob(g))]
    texts += _ours([p for g in binary_globs for p in sorted((corpus / folder).glob(g))])
    assert len(texts) >= 8
    bad = {name: errors[:5] for name, text in texts if (errors := _errors(lexer, text))}
    assert not bad


def test_lexers_classify_and_can_fail() -> None:
    tokens = list(Sm4Lexer().get_tokens("mul r0.xyzw, v1.xyzw, cb0[2].xxxx\n"))
    assert (Keyword, "mul") in tokens and (Name.Variable, "r0") in tokens
    tokens = list(PicaLexer().get_tokens(".proc main\n\tdp4 o0.x, c0, r0\n.end\n"))
    assert (Keyword, "dp4") in tokens and (Name.Variable, "o0") in tokens
    tokens = list(LatteLexer().get_tokens("  0   x: MUL             R127.x, C10.x, C6.w\n"))
    assert (Keyword, "MUL") in tokens
    tokens = list(MaxwellLexer().get_tokens("/*0008*/ [B------:R-:W0:Y:S15] ALD.64 R0, a[0x80];\n"))
    assert (Keyword, "ALD.64") in tokens and (Name.Variable, "R0") in tokens
    for lexer in (Sm4Lexer(), PicaLexer(), LatteLexer(), MaxwellLexer()):
        assert _errors(lexer, "mov r0, r1 \u00a7 `\n"), type(lexer).__name__


def test_entry_points_are_declared() -> None:
    text = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    for name in ("Sm4Lexer", "PicaLexer", "LatteLexer", "MaxwellLexer"):
        assert f'"shaderkit.highlight:{name}"' in text


def test_colorize_adds_ansi_and_keeps_text() -> None:
    import re

    text = "ps_4_0\nmov o0.xyzw, l(1.000000,0,0,1.000000)\nret \n"
    coloured = colorize(text, "dxbc")
    assert "\x1b[" in coloured
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == text
    assert colorize(text, "sharc") == text


ANNOTATED = [
    (Sm4Lexer, "dxbc/angle__clear11vs__g_VS_Clear.dxbc"),
    (PicaLexer, "pica/Re-Craft-3DS__gui__3c078380.shbin"),
    (LatteLexer, "wiiu/sc_mat_P_out.gsh"),
    (MaxwellLexer, "nx/wiixl_TextureShader.bnsh"),
]


@pytest.mark.parametrize(("lexer_class", "name"), ANNOTATED, ids=[c[1].split("/")[0] for c in ANNOTATED])
def test_offsets_raw_and_hex_text_lexes_without_error(corpus: Path, lexer_class: type, name: str) -> None:
    from pygments.token import Comment, Number

    model = shaderkit.open(corpus / name)
    hex_literals = lexer_class is not PicaLexer  # picasso syntax has no hex form
    text = listing_of(model, True, True, False, hex_literals)
    tokens = list(lexer_class().get_tokens(text))
    assert not [value for token, value in tokens if token is Error]
    # the column: the offset as a comment, the words as hex numbers
    assert any(token is Comment.Special and value.startswith("/*00") for token, value in tokens)
    assert any(token is Number.Hex and len(value.split()[0]) == 8 for token, value in tokens)
