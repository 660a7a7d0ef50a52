"""Archives: Yaz0 decompress / compress / recompress-after-edit, Wii U BFSHA parse and rebuild.

Prints JSON. With ``oead`` installed (not a dependency) its Yaz0 speed is printed beside ours as
a ratio; without it only our figures.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Callable
from typing import Any

from _corpus import corpus_root
from _timing import best_of

from shaderkit.formats.archive import yaz0
from shaderkit.formats.bfsha.wiiu import WiiUBfsha


def best(func: Callable[[], Any], runs: int = 3) -> float:
    return best_of(runs, func)


def main() -> None:
    root = corpus_root()
    szs = (root / "wiiu" / "st_BodyB_Ysi.szs").read_bytes()
    bfsha = (root / "wiiu" / "st_BodyB_Ysi_embedded.wiiu.bfsha").read_bytes()
    checkpoints: list[tuple[int, int]] = []
    payload = yaz0.decompress(szs, checkpoints=checkpoints)
    mb = len(payload) / 1e6
    grown = bytearray(payload)
    struct.pack_into(">I", grown, 0xC, len(payload) + 0x400)
    edited = bytes(grown[:0x334000]) + bytes(0x400) + bytes(grown[0x334000:])
    figures: dict[str, Any] = {
        "yaz0_payload_mb": round(mb, 2),
        "yaz0_decompress_mb_s": round(mb / best(lambda: yaz0.decompress(szs)), 1),
        "yaz0_compress_mb_s": round(mb / best(lambda: yaz0.compress(payload), 1), 2),
        "yaz0_recompress_after_1k_insert_s": round(
            best(lambda: yaz0.recompress(szs, payload, edited, checkpoints)), 2),
        "bfsha_parse_ms": round(1000 * best(lambda: WiiUBfsha.from_bytes(bfsha)), 1),
        "bfsha_rebuild_ms": round(1000 * best(lambda: WiiUBfsha.from_bytes(bfsha).to_bytes()), 1),
    }
    try:
        import oead
    except ImportError:
        figures["oead"] = "not installed"
    else:
        ours = best(lambda: yaz0.decompress(szs))
        figures["oead_decompress_speedup"] = round(ours / best(lambda: oead.yaz0.decompress(szs)), 1)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
