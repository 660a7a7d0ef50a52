"""``disasm --offsets --raw`` and ``cfg`` for Latte (GSH/SHARCFB/BFSHA) and Maxwell (BNSH/NVN).

Oracles: CF/ALU words worked out by hand from the R700 field layout for a decaf listing's lines,
envydis's listings (address and the two 32-bit halves of every word, branch targets), and decaf's
listings (CF ADDR fields), never shaderkit's own output.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import corpus_files, run_cli
from shaderkit.cli.cfg import EXIT

ROW = re.compile(r"^/\*([0-9a-f]{4,})\*/ ((?:[0-9a-f]{8} )*)\s*(.*)$")


def _rows(text: str) -> list[tuple[int, list[int], str]]:
    """(offset, words, text) of every line with an offset column."""
    out = []
    for line in text.splitlines():
        m = ROW.match(line)
        if m:
            out.append((int(m.group(1), 16), [int(w, 16) for w in m.group(2).split()], m.group(3)))
    return out


def test_latte_offsets_and_raw_words_by_hand(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = corpus / "wiiu" / "gfd_data_shader.gsh"
    code, out, err = run_cli(capsys, "disasm", "--offsets", "--raw", str(path))
    assert code == 0, err
    rows = _rows(out.split("shaders[1]")[0])  # the vertex shader (decaf: gfd_data_shader.gsh.0.vertex)
    # CF_WORD1 of CALL_FS: CF_INST 0x13 in bits 23..29, BARRIER (bit 31) clear -> 0x09800000
    assert rows[0] == (0x0, [0x00000000, 0x09800000], "00 CALL_FS NO_BARRIER")
    # CF_ALU: ADDR 32 in word 0; word 1: COUNT-1=3 at bit 18, CF_INST ALU=8 at bit 26, BARRIER bit 31
    assert rows[1] == (0x8, [32, 3 << 18 | 8 << 26 | 1 << 31], "01 ALU: ADDR(32) CNT(4)")
    # the clause lies at ADDR * 8 = 0x100; one 8-byte slot per instruction, the literal slot
    # (1.0f = 0x3f800000, unused half 0) beside the group's last instruction
    alu = [(offset, words) for offset, words, text in rows if ": MOV" in text]
    assert [offset for offset, _ in alu] == [0x100, 0x108, 0x110]
    assert [len(words) for _, words in alu] == [2, 2, 4] and alu[2][1][2:] == [0x3F800000, 0]
    assert [(offset, text.split(":")[0]) for offset, _, text in rows if "EXP_DONE" in text] == [
        (0x10, "02 EXP_DONE"), (0x18, "03 EXP_DONE")]


def test_latte_listing_text_unchanged_by_columns(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = corpus / "wiiu" / "sc_obj_coin.sharcfb"
    _, plain, _ = run_cli(capsys, "disasm", str(path))
    code, shown, err = run_cli(capsys, "disasm", "--offsets", str(path))
    assert code == 0, err
    width = len(shown.splitlines()[0]) - len(plain.splitlines()[0])
    assert width == 9  # "/*xxxx*/ " on every line, blank on lines without an instruction
    assert [line[width:] for line in shown.splitlines()] == plain.splitlines()


ENVYDIS = re.compile(r"^([0-9a-f]{8}): ([0-9a-f]{8}) ([0-9a-f]{8})\s+(C?)\s*(.*)$")


def _envydis(path: Path) -> list[tuple[int, int, int, bool, str]]:
    out = []
    for line in path.read_text().splitlines():
        m = ENVYDIS.match(line)
        if m:
            out.append((int(m.group(1), 16), int(m.group(2), 16), int(m.group(3), 16), m.group(4) == "C",
                        m.group(5).strip()))
    return out


MAXWELL_LISTINGS = corpus_files("nx/maxwell", "*.maxwell.txt")


def _maxwell_case(listing: Path) -> tuple[str, str]:
    """(corpus file name, section title of ``disasm``) of an envydis listing's name."""
    base, where, stage = listing.name.removesuffix(".maxwell.txt").rsplit(".", 2)
    if where.startswith("part"):
        return base, f"part {where[4:]}"
    return base, f"variation {where[1:]} binary {stage}"


def _section(text: str, title: str) -> str:
    return text.split(f"// ==== {title}\n")[1].split("// ==== ")[0]


@pytest.mark.parametrize("listing", MAXWELL_LISTINGS, ids=lambda p: p.name.removesuffix(".maxwell.txt"))
def test_maxwell_raw_words_match_envydis(corpus: Path, listing: Path, capsys: pytest.CaptureFixture[str]) -> None:
    name, title = _maxwell_case(listing)
    code, out, err = run_cli(capsys, "disasm", "--offsets", "--raw", str(corpus / "nx" / name))
    assert code == 0, err
    rows = _rows(_section(out, title))
    theirs = {address: (lo, hi) for address, lo, hi, _, text in _envydis(listing)}
    assert len(rows) > 10
    for offset, words, text in rows:
        assert (offset, tuple(words)) == (offset, theirs[offset]), text
        assert text.startswith((f"/*{offset:04x}*/", ".sched"))  # the column repeats the listing's address


def _edges(programs: list, index: int) -> set[tuple[int, int, str]]:
    """(address of a block's last step, address of the target block's first step or -1, label)."""
    _, steps, graph = programs[index]
    out = set()
    for block in graph:
        last = steps[block.stop - 1].address
        for target, label in block.edges:
            if label:
                out.add((last, -1 if target == EXIT else steps[target].address, label))
    return out


def test_latte_cfg_edges_from_the_decaf_listing(corpus: Path) -> None:
    import shaderkit
    from shaderkit.cli.cfg import programs_of

    # decaf's listing of this vertex program (sc_mat_P_out.gsh.0.vertex.latte.txt), read by hand:
    # 02 JUMP ADDR(4), 04 ELSE ADDR(43), 06 JUMP ADDR(10), 10 ELSE ADDR(42), 12 JUMP ADDR(16),
    # 16 ELSE ADDR(41), 18 JUMP ADDR(24), 24 ELSE ADDR(41), 26 JUMP ADDR(32), 32 ELSE ADDR(40),
    # 34 LOOP_START_DX10 FAIL_JUMP_ADDR(40), 35 ALU_BREAK (to its LOOP_END, 39),
    # 39 LOOP_END PASS_JUMP_ADDR(35), 51 EXP_DONE then END_OF_PROGRAM. CF i lies at byte 8 * i.
    listing = (corpus / "wiiu" / "latte" / "sc_mat_P_out.gsh.0.vertex.latte.txt").read_text()
    assert "34 LOOP_START_DX10 FAIL_JUMP_ADDR(40)" in listing and "39 LOOP_END CF_CONST(0) PASS_JUMP_ADDR(35)" in listing
    programs = programs_of(shaderkit.open(corpus / "wiiu" / "sc_mat_P_out.gsh"))
    expected = {(2, 4, "jump"), (4, 43, "else"), (6, 10, "jump"), (10, 42, "else"), (12, 16, "jump"),
                (16, 41, "else"), (18, 24, "jump"), (24, 41, "else"), (26, 32, "jump"), (32, 40, "else"),
                (34, 40, "skip"), (35, 39, "break"), (39, 35, "loop")}
    edges = _edges(programs, 0)
    assert {(a // 8, b // 8, label) for a, b, label in edges if b >= 0} == expected
    assert {(a // 8, label) for a, b, label in edges if b < 0} == {(51, "end")}
    assert len(programs) == 2 and programs[1][0] == "shaders[1]: pixel shader"


def _first_instruction(address: int) -> int:
    """A branch to a bundle's scheduling word (every 0x20 bytes) runs its first instruction."""
    return address + 8 if address % 0x20 == 0 else address


def _envydis_flow(path: Path) -> tuple[set[tuple[int, int, str]], set[int]]:
    """Branch and exit edges of an envydis listing up to the terminal branch, and the C marks."""
    edges = set()
    marks = set()
    seen_exit = False
    for address, _, _, marked, text in _envydis(path):
        if marked:
            marks.add(_first_instruction(address))
        m = re.fullmatch(r"(not )?(\$p\d )?bra (0x[0-9a-f]+)", text)
        if m:
            target = int(m.group(3), 16)
            guard = "" if not m.group(2) else ("@!" if m.group(1) else "@") + m.group(2).strip().replace("$p", "P")
            edges.add((address, _first_instruction(target), guard or "jump"))
            if seen_exit and not guard and target in (address, address - address % 0x20):
                break  # the terminal branch: what follows is data (README of the listings)
        elif text.endswith("exit"):
            edges.add((address, -1, "exit"))
            seen_exit = True
    return edges, marks


@pytest.mark.parametrize("listing", MAXWELL_LISTINGS, ids=lambda p: p.name.removesuffix(".maxwell.txt"))
def test_maxwell_cfg_edges_from_envydis(corpus: Path, listing: Path) -> None:
    import shaderkit
    from shaderkit.cli.cfg import programs_of

    name, title = _maxwell_case(listing)
    expected, marks = _envydis_flow(listing)
    programs = programs_of(shaderkit.open(corpus / "nx" / name))
    part = next(i for i, (t, _, _) in enumerate(programs) if t == title)
    edges = {e for e in _edges(programs, part) if e[2] not in ("sync", "break", "continue")}
    assert edges == expected
    # every branch target envydis marks with C starts a block
    _, steps, graph = programs[part]
    starts = {steps[b.start].address for b in graph}
    assert marks and marks <= starts


def test_maxwell_cfg_sync_goes_to_the_ssy_target(corpus: Path) -> None:
    import shaderkit
    from shaderkit.cli.cfg import programs_of

    listing = _envydis(corpus / "nx" / "maxwell" / "smo_nvn_font_shader.bin.part2.vertex.maxwell.txt")
    ssy = [int(text.split()[-1], 16) for _, _, _, _, text in listing if text.startswith("ssy ")]
    syncs = [address for address, _, _, _, text in listing if text.endswith("sync")]
    assert len(ssy) == 1 and syncs
    programs = programs_of(shaderkit.open(corpus / "nx" / "smo_nvn_font_shader.bin"))
    index = next(i for i, (title, _, _) in enumerate(programs) if title == "part 2")
    sync_edges = {(a, b) for a, b, label in _edges(programs, index) if label == "sync"}
    assert sync_edges == {(address, ssy[0]) for address in syncs}


def test_cfg_cli_clusters_per_program(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "cfg", str(corpus / "nx" / "wiixl_TextureShader.bnsh"))
    assert code == 0, err
    assert out.startswith('digraph "wiixl_TextureShader.bnsh" {') and out.rstrip().endswith("}")
    assert out.count('subgraph "cluster_') == 2
    assert 'label="variation 0 binary vertex";' in out and 'label="variation 0 binary pixel";' in out
    assert out.count('-> p1_exit [label="exit"];') == 1


LATTE_LISTINGS = corpus_files("wiiu/latte", "*.latte.txt")
_DECAF_FLOW = re.compile(r"^\s*(\d+) (JUMP|ELSE|LOOP_START\w*|LOOP_END|LOOP_BREAK|LOOP_CONTINUE|CALL)\b.*?"
                         r"\b(?:FAIL_JUMP_ADDR|PASS_JUMP_ADDR|ADDR)\((\d+)\)", re.MULTILINE)
_LABELS = {"JUMP": "jump", "ELSE": "else", "LOOP_END": "loop", "LOOP_BREAK": "break", "LOOP_CONTINUE": "continue",
           "CALL": "call"}


@pytest.mark.parametrize("listing", LATTE_LISTINGS, ids=lambda p: p.name.removesuffix(".latte.txt"))
def test_latte_cfg_jumps_match_every_decaf_listing(corpus: Path, listing: Path) -> None:
    """Every CF jump decaf prints (JUMP/ELSE/LOOP_*/CALL with their ADDR) is an edge, and no other
    CF instruction jumps; END_OF_PROGRAM's instruction goes to the exit."""
    import shaderkit
    from shaderkit.cli.cfg import programs_of

    name, index, _stage = listing.name.removesuffix(".latte.txt").rsplit(".", 2)
    text = listing.read_text()
    expected = {(int(cf), int(addr), _LABELS.get(op, "skip")) for cf, op, addr in _DECAF_FLOW.findall(text)}
    programs = programs_of(shaderkit.open(corpus / "wiiu" / name))
    part = next(i for i, (t, _, _) in enumerate(programs) if t.startswith((f"shaders[{index}]", f"binaries[{index}]")))
    _, steps, graph = programs[part]
    flow = {"jump", "else", "skip", "loop", "break", "continue", "call"}
    ours = set()
    for block in graph:
        last = steps[block.stop - 1]
        for target, label in block.edges:
            if label in flow and "ALU_" not in last.text:  # ALU_BREAK/ALU_CONTINUE: no ADDR in decaf's text
                ours.add((last.address // 8, target, label))
    assert ours == expected
    ends = [steps[b.stop - 1].text.split()[0] for b in graph if (-1, "end") in b.edges]
    lines = text.splitlines()
    last_cf = [line.split()[0] for line in lines[: lines.index("END_OF_PROGRAM")] if re.match(r"^\s*\d+ [A-Z]", line)][-1]
    assert ends == [last_cf]
