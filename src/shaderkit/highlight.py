"""Pygments lexers for the text shaderkit prints and reads, and terminal colouring.

* :class:`Sm4Lexer` - DXBC SM4/5 listings in fxc style (also the effect / FX listings).
* :class:`PicaLexer` - PICA200 assembly in picasso syntax.
* :class:`LatteLexer` - Wii U Latte (R7xx) listings in decaf style, with shaderkit's GX2 headers.
* :class:`MaxwellLexer` - Switch Maxwell listings as ``shaderkit disasm`` prints them (SASS style).

The lexers are registered as ``pygments.lexers`` entry points, so ``pygmentize -l sm4`` and
editors using Pygments find them once shaderkit is installed. Pygments is an optional dependency
(``pip install shaderkit[highlight]``): without it, :func:`colorize` returns the text unchanged.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pygments.lexer import RegexLexer, bygroups, include
from pygments.token import (
    Comment,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Whitespace,
)

__all__ = ["LatteLexer", "MaxwellLexer", "PicaLexer", "Sm4Lexer", "colorize", "lexer_for_format"]

_NUMBERS: list[Any] = [
    (r"0x[0-9a-fA-F]+\b", Number.Hex),
    (r"[-+]?(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?f?|[-+]?\d+[eE][-+]?\d+", Number.Float),
    (r"[-+]?(?:inf|nan|INF|NAN)\b", Number.Float),
    (r"\d+\b", Number.Integer),
]


#: every lexer's first rules: newlines, the ``disasm --offsets --raw`` column (``/*0040*/`` and
#: 8-digit words at the start of a line), and blanks that are not indentation (line-start rules see that)
_LINE_START: list[Any] = [
    (r"\n", Whitespace),
    (r"(?m)^(/\*[0-9a-fA-F]+\*/[ \t]+|[ \t]+)?((?:[0-9a-f]{8}(?:[ \t]+|(?=\n)|$))+)",
     bygroups(Comment.Special, Number.Hex)),
    (r"(?m)^/\*[0-9a-fA-F]+\*/", Comment.Special),
    (r"(?m)(?!^)[ \t\r\f\v]+", Whitespace),
]
#: every lexer's last rule: indentation no line-start rule took
_INDENT: Any = (r"(?m)^[ \t\r\f\v]+", Whitespace)


class Sm4Lexer(RegexLexer):
    """Direct3D shader model 4/5 assembly as fxc prints it (``shaderkit disasm`` of DXBC)."""

    name = "Direct3D SM4/5 assembly"
    aliases: ClassVar[list[str]] = ["sm4", "sm5", "dxbc", "fxc"]
    filenames: ClassVar[list[str]] = ["*.fxc.asm", "*.dxasm"]
    mimetypes: ClassVar[list[str]] = ["text/x-dxbc-asm"]

    tokens: ClassVar[dict[str, Any]] = {
        "root": [
            *_LINE_START,
            (r"//.*?$", Comment.Single),
            (r"/\*.*?\*/", Comment.Multiline),
            (r"(?:vs|ps|gs|hs|ds|cs|lib|fx)_\d_\d\w*\b", Keyword.Namespace),
            (r"(?:hs_decls|hs_control_point_phase|hs_fork_phase|hs_join_phase)\b", Keyword.Namespace),
            (r"(?m)^([ \t]*)([a-z][a-z0-9_]*)(?=[\s(]|$)", bygroups(Whitespace, Keyword)),
            (r"\b(?:l|d)(?=\()", Keyword.Type),
            (r"\b(?:r|v|o|x|cb|icb|t|s|u|g|m|fb|fp|this|vicp|vocp|vpc)\d+\b", Name.Variable),
            (r"\b(?:oDepth|oDepthGE|oDepthLE|oMask|oStencilRef|vCoverage|vPrim|vOutputControlPointID|vForkInstanceID|"
             r"vJoinInstanceID|vDomain|vGSInstanceID|vThreadID|vThreadGroupID|vThreadIDInGroup|"
             r"vThreadIDInGroupFlattened|vInnerCoverage|vCycleCounter|null|rasterizer)\b", Name.Builtin),
            (r'"(?:\\.|[^"\\\n])*"', String),
            *_NUMBERS,
            (r"[A-Za-z_$][\w$]*", Name),
            (r"[-+*/%=<>!&|^~?]", Operator),
            (r"[.,;:()\[\]{}#\\'\"]", Punctuation),  # fxc prints printf strings unescaped
            _INDENT,
        ],
    }


class PicaLexer(RegexLexer):
    """PICA200 (3DS) shader assembly in picasso syntax (``shaderkit disasm`` / ``asm`` of SHBIN)."""

    name = "PICA200 assembly (picasso)"
    aliases: ClassVar[list[str]] = ["pica", "pica200", "picasso"]
    filenames: ClassVar[list[str]] = ["*.pica", "*.v.pica", "*.g.pica"]
    mimetypes: ClassVar[list[str]] = ["text/x-pica200-asm"]

    tokens: ClassVar[dict[str, Any]] = {
        "root": [
            *_LINE_START,
            (r";.*?$", Comment.Single),
            (r"//.*?$", Comment.Single),
            (r"\.[A-Za-z_]\w*", Keyword.Pseudo),
            (r"(?m)^([ \t]*)([A-Za-z_]\w*)(\s*)(:)", bygroups(Whitespace, Name.Label, Whitespace, Punctuation)),
            (r"(?m)^([ \t]*)([a-z][a-z0-9]*)\b", bygroups(Whitespace, Keyword)),
            (r"\b(?:r|v|o|c|i|b|a)\d+\b", Name.Variable),
            (r"\b(?:a0|a1|aL|lcnt|cmp\.[xy])\b", Name.Builtin),
            *_NUMBERS,
            (r"[A-Za-z_]\w*", Name),
            (r"[-+!*/=<>&|]", Operator),
            (r"[.,:()\[\]{}]", Punctuation),
            _INDENT,
        ],
    }


class LatteLexer(RegexLexer):
    """Wii U Latte (AMD R7xx) listings in decaf style, as ``shaderkit disasm`` prints GX2 shaders."""

    name = "Latte (R7xx) assembly"
    aliases: ClassVar[list[str]] = ["latte", "r7xx", "gx2"]
    filenames: ClassVar[list[str]] = ["*.latte", "*.latte.txt"]
    mimetypes: ClassVar[list[str]] = ["text/x-latte-asm"]

    tokens: ClassVar[dict[str, Any]] = {
        "root": [
            *_LINE_START,
            (r";.*?$", Comment.Single),
            (r"//.*?$", Comment.Single),
            (r"/\*.*?\*/", Comment.Multiline),
            (r"(?m)^([ \t]*)(\d+)(\s+)([A-Z][A-Z0-9_]*)", bygroups(Whitespace, Name.Label, Whitespace, Keyword)),
            (r"(?m)^([ \t]*)(\d+)\b", bygroups(Whitespace, Name.Label)),
            (r"\b([xyzwt])(:)(\s*)([A-Z][A-Z0-9_]*)", bygroups(Name.Attribute, Punctuation, Whitespace, Keyword)),
            (r"\b(?:R|C|T|KC[01]|PV|PS|Cx|AL)\d*(?=[.\[\s,)]|$)", Name.Variable),
            (r"\b(?:R\d+|C\d+|T\d+|PV\d+|PS\d+|KC[01]\[\d+\])", Name.Variable),
            *_NUMBERS,
            (r"[A-Za-z_]\w*", Name),
            (r"[-+*/|=<>!&]", Operator),
            (r"[.,:()\[\]{}@#]", Punctuation),
            _INDENT,
        ],
    }


class MaxwellLexer(RegexLexer):
    """Switch Maxwell (SM5x) listings as ``shaderkit disasm`` prints BNSH / NVN code (SASS style)."""

    name = "Maxwell SASS"
    aliases: ClassVar[list[str]] = ["maxwell", "sass", "nvn"]
    filenames: ClassVar[list[str]] = ["*.sass", "*.maxwell.txt"]
    mimetypes: ClassVar[list[str]] = ["text/x-maxwell-sass"]

    tokens: ClassVar[dict[str, Any]] = {
        "root": [
            *_LINE_START,
            (r"/\*[0-9a-fA-F]+\*/", Comment.Special),  # instruction address
            (r"/\*.*?\*/", Comment.Multiline),
            (r"//.*?$", Comment.Single),
            (r";", Punctuation),
            (r"\[[-\w:]*\]", Comment.Preproc),  # scheduling: [B------:R-:W0:Y:S15]
            (r"\.(?:u64|u32|byte|word|align|section)\b", Keyword.Pseudo),
            (r"(@)(!?)(U?P[0-7T])\b", bygroups(Operator, Operator, Name.Variable)),
            (r"\b[A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*(?=\s|;|$)", Keyword),
            include("operands"),
        ],
        "operands": [
            (r"\b(?:R\d+|RZ|P[0-7T]|PT|UR\d+|URZ|SR_\w+|c\[0x[0-9a-fA-F]+\]|a|c|l|g|s)\b", Name.Variable),
            *_NUMBERS,
            (r"[A-Za-z_][\w.]*", Name),
            (r"[-+!|~*]", Operator),
            (r"[.,:()\[\]{}]", Punctuation),
            _INDENT,
        ],
    }


_FORMAT_LEXERS: dict[str, type[RegexLexer]] = {
    "dxbc": Sm4Lexer,
    "dvlb": PicaLexer, "dvob": PicaLexer, "cgfx": PicaLexer, "csdr": PicaLexer,
    "gsh": LatteLexer, "sharcfb": LatteLexer, "bfsha-wiiu": LatteLexer, "gx2-microcode": LatteLexer,
    "bnsh": MaxwellLexer, "nvn": MaxwellLexer, "dksh": MaxwellLexer, "bfsha-switch": MaxwellLexer,
}


def lexer_for_format(format_id: str) -> RegexLexer | None:
    """A lexer for the disassembly of files of ``format_id`` (the registry id), or None."""
    cls = _FORMAT_LEXERS.get(format_id)
    return cls() if cls is not None else None


def colorize(text: str, format_id: str) -> str:
    """``text`` with ANSI colours for a terminal (unchanged for formats without a lexer)."""
    from pygments import highlight
    from pygments.formatters import TerminalFormatter

    lexer = lexer_for_format(format_id)
    if lexer is None:
        return text
    lexer.stripnl = False
    lexer.ensurenl = False
    result: str = highlight(text, lexer, TerminalFormatter())
    return result


