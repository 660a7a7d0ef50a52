#!/usr/bin/env python3
"""Coverage-guided fuzzing of every format with atheris (libFuzzer for Python).

    pip install atheris
    mkdir -p fuzz-work && python tools/atheris_fuzz.py fuzz-work ../shared/corpus/dxbc ../shared/corpus/pica \
        ../shared/corpus/nx ../shared/corpus/wiiu -max_total_time=60 -rss_limit_mb=512 -timeout=2

The first folder is where libFuzzer keeps the inputs it finds (the corpus folders are read-only seeds).
Any exception other than ShaderFormatError is a crash; libFuzzer saves the input as crash-*.
"""

from __future__ import annotations

import sys

import atheris

with atheris.instrument_imports():
    import shaderkit
    from shaderkit.errors import ShaderFormatError, UnsupportedOperation
    from shaderkit.formats.registry import FORMATS

    # shaderkit imports formats lazily; load them all here so that they are instrumented
    for _spec in FORMATS:
        if _spec.target is not None:
            _model = _spec.load()
            _sample = _model.__module__
    import shaderkit.formats.dvlb.source  # noqa: F401
    import shaderkit.formats.dxbc.disasm  # noqa: F401
    import shaderkit.formats.dxbc.listing  # noqa: F401


def test_one_input(data: bytes) -> None:
    try:
        model = shaderkit.open(data)
        out = model.to_bytes()
        if out != data:  # every format: an accepted input rebuilds byte for byte
            raise AssertionError(f"{model.format_name}: an accepted input does not rebuild byte for byte")
        model.summary()
        model.problems()
        model.disassemble()
    except (ShaderFormatError, UnsupportedOperation):
        pass


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
