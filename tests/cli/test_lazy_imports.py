"""Start-up: a verb loads the code of the format it reads, not every format's (no timing here:
which modules a fresh process has imported after the command)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import shaderkit
from shaderkit.samples import SAMPLES


def checkout_env() -> dict[str, str]:
    """The environment with this checkout's shaderkit first on the path (from any working folder)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(Path(shaderkit.__file__).resolve().parents[1]), env.get("PYTHONPATH", "")])
    return env


_PROBE = """
import json, sys
from shaderkit.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)))
"""

SWITCH_AND_WIIU = ("shaderkit.formats.bnsh", "shaderkit.formats.gx2", "shaderkit.formats.gfd", "shaderkit.formats.agl",
                   "shaderkit.isa.maxwell", "shaderkit.isa.latte")


def loaded_after(*args: str, cwd: Path | None = None) -> list[str]:
    env = checkout_env()
    result = subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, timeout=120, cwd=cwd,
                            env=env)
    assert result.returncode == 0, result.stderr
    modules: list[str] = json.loads(result.stdout.strip().splitlines()[-1])
    return modules


def test_import_shaderkit_loads_no_format_code() -> None:
    result = subprocess.run([sys.executable, "-c", "import json, sys; import shaderkit; print(json.dumps(sorted(sys.modules)))"],
                            capture_output=True, text=True, timeout=60)
    modules = json.loads(result.stdout)
    assert not [m for m in modules if m.startswith(("shaderkit.formats", "shaderkit.isa", "shaderkit.cli"))]
    assert "typing" not in modules  # (shaderkit.Source builds the alias on first use)


@pytest.mark.parametrize("sample", ["sample_vs.dxbc", "sample.shbin"])
def test_disasm_loads_only_its_format(tmp_path: Path, sample: str) -> None:
    if sample not in SAMPLES:
        pytest.skip(f"no {sample} sample")
    path = tmp_path / sample
    path.write_bytes(SAMPLES[sample]())
    modules = loaded_after("disasm", "-o", str(tmp_path / "listing.txt"), str(path))
    assert not [m for m in modules if m.startswith(SWITCH_AND_WIIU)]
    assert not [m for m in modules if m.startswith(("rich", "shaderkit.formats.archive", "concurrent"))]
    own = "shaderkit.formats.dxbc" if sample.endswith(".dxbc") else "shaderkit.formats.dvlb"
    assert any(m.startswith(own) for m in modules)  # the probe did run the command
    assert (tmp_path / "listing.txt").read_text().strip()


def test_verify_with_jobs_imports_no_executor(tmp_path: Path) -> None:
    for name, build in SAMPLES.items():
        (tmp_path / name).write_bytes(build())
    modules = loaded_after("verify", "--jobs", "2", str(tmp_path))
    assert not [m for m in modules if m.startswith(("concurrent", "multiprocessing", "rich"))]


@pytest.mark.parametrize("verb", ["disasm", "info"])
@pytest.mark.parametrize("sample", ["sample_vs.dxbc", "sample.shbin"])
def test_plain_forms_load_neither_click_nor_rich(tmp_path: Path, verb: str, sample: str) -> None:
    """``disasm FILE`` and ``info FILE`` (output not a terminal) take the fast path of cli/fast.py."""
    (tmp_path / sample).write_bytes(SAMPLES[sample]())
    modules = loaded_after(verb, sample, cwd=tmp_path)  # (a short name: the heading fits 80 columns)
    assert not [m for m in modules if m.split(".")[0] in ("click", "rich")], verb
    assert not [m for m in modules if m.startswith(SWITCH_AND_WIIU)]
    own = "shaderkit.formats.dxbc" if sample.endswith(".dxbc") else "shaderkit.formats.dvlb"
    assert any(m.startswith(own) for m in modules)


def test_other_forms_still_reach_click(tmp_path: Path) -> None:
    path = tmp_path / "sample.shbin"
    path.write_bytes(SAMPLES["sample.shbin"]())
    assert "click" in loaded_after("disasm", "--offsets", str(path))


def test_pica_disasm_decides_its_pragmas_without_the_assembler(tmp_path: Path) -> None:
    (tmp_path / "sample.shbin").write_bytes(SAMPLES["sample.shbin"]())
    modules = loaded_after("disasm", "sample.shbin", cwd=tmp_path)
    assert "shaderkit.formats.dvlb.source" in modules
    assert "shaderkit.isa.pica.assembler" not in modules


#: standard-library modules the simple forms do without (their import is a large share of a start-up)
_HEAVY_STDLIB = ("typing", "ctypes", "_hashlib")


@pytest.mark.parametrize("verb", ["disasm", "info"])
def test_plain_forms_of_a_small_shbin_skip_heavy_stdlib(tmp_path: Path, verb: str) -> None:
    (tmp_path / "sample.shbin").write_bytes(SAMPLES["sample.shbin"]())
    modules = loaded_after(verb, "sample.shbin", cwd=tmp_path)
    assert "shaderkit.formats.dvlb.dvlb" in modules
    assert not [m for m in modules if m in _HEAVY_STDLIB]


def test_plain_info_of_a_small_dxbc_skips_heavy_stdlib_and_absent_chunk_models(tmp_path: Path) -> None:
    (tmp_path / "sample_vs.dxbc").write_bytes(SAMPLES["sample_vs.dxbc"]())
    modules = loaded_after("info", "sample_vs.dxbc", cwd=tmp_path)
    assert "shaderkit.formats.dxbc.container" in modules
    assert not [m for m in modules if m in _HEAVY_STDLIB]
    assert not [m for m in modules if m.rpartition(".")[2] in ("aon9", "lfs0", "sfi0")]


def test_plain_disasm_of_a_small_dxbc_loads_no_absent_chunk_model(tmp_path: Path) -> None:
    (tmp_path / "sample_vs.dxbc").write_bytes(SAMPLES["sample_vs.dxbc"]())
    modules = loaded_after("disasm", "sample_vs.dxbc", cwd=tmp_path)
    assert "shaderkit.isa.sm4.printer" in modules
    assert not [m for m in modules if m in _HEAVY_STDLIB]
    assert not [m for m in modules if m.rpartition(".")[2] in ("aon9", "lfs0", "sfi0", "fxlvm")]


@pytest.mark.parametrize("args", [("disasm", "sample_vs.dxbc"), ("info", "sample.shbin"), ("info", "--json", "sample_vs.dxbc"),
                                  ("disasm", "missing.dxbc")])
def test_the_console_script_prints_what_main_prints_in_process(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                               args: tuple[str, ...]) -> None:
    """The process entry (``main()`` reading sys.argv: collector tuned, objects frozen at the end)
    writes the same bytes and exit status as ``main(argv)``."""
    from conftest import run_cli

    for name in ("sample_vs.dxbc", "sample.shbin"):
        (tmp_path / name).write_bytes(SAMPLES[name]())
    env = checkout_env()
    process = subprocess.run([sys.executable, "-c", "import sys; from shaderkit.cli import main; sys.exit(main())", *args],
                             capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        code, out, err = run_cli(capsys, *args)
    finally:
        os.chdir(cwd)
    assert (process.returncode, process.stdout, process.stderr) == (code, out, err)
    assert out or code == 2


_CONSOLE_PROBE = """
import json, sys
from shaderkit.cli import main
try:
    main()  # the console script's form: sys.argv, its own process
except SystemExit:
    pass
print(type(sys.modules.get("inspect")).__name__)
print(json.dumps(sorted(sys.modules)))
"""

#: the modules the real ``inspect`` imports (what ``dataclasses`` imports it for is never used here)
_INSPECT_IMPORTS = ("ast", "dis", "tokenize")


@pytest.mark.parametrize("args", [("disasm", "sample_vs.dxbc"), ("info", "sample.shbin"), ("info", "--json", "sample_vs.dxbc")])
def test_the_console_script_defers_inspect(tmp_path: Path, args: tuple[str, ...]) -> None:
    for name in ("sample_vs.dxbc", "sample.shbin"):
        (tmp_path / name).write_bytes(SAMPLES[name]())
    env = checkout_env()
    result = subprocess.run([sys.executable, "-c", _CONSOLE_PROBE, *args], capture_output=True, text=True, timeout=120,
                            cwd=tmp_path, env=env)
    assert result.returncode == 0, result.stderr
    *_, inspect_type, listed = result.stdout.strip().splitlines()
    modules = json.loads(listed)
    assert "dataclasses" in modules  # (the models did load)
    assert inspect_type == "_DeferredModule"  # still the stand-in: never used
    assert not [m for m in modules if m in _INSPECT_IMPORTS]


_STAND_IN_PROBE = """
import sys
from shaderkit.cli.fast import _defer_imports
assert "inspect" not in sys.modules
_defer_imports()
import dataclasses

@dataclasses.dataclass
class Point:
    x: int
    y: int = 2

assert Point.__doc__ == "Point(x: int, y: int = 2)", Point.__doc__  # dataclasses' own text, through the stand-in
import inspect
from inspect import getsource
real = sys.modules["inspect"]
assert type(real).__name__ == "module" and real.__file__.endswith("inspect.py")
assert inspect.signature is real.signature and getsource is real.getsource and dataclasses.inspect.isclass is real.isclass
print("ok")
"""


def test_a_deferred_module_is_the_real_one_on_first_use() -> None:
    env = checkout_env()
    result = subprocess.run([sys.executable, "-c", _STAND_IN_PROBE], capture_output=True, text=True, timeout=60, env=env)
    assert (result.returncode, result.stdout.strip()) == (0, "ok"), result.stderr


def _pixel_sample() -> bytes:
    """ps_4_0 writing l(1.0, 1.0, 1.0, 1.0) to SV_Target (tokens packed by hand)."""
    from array import array

    from shaderkit.formats.dxbc.container import DxbcContainer
    from shaderkit.formats.dxbc.shader import ShaderProgram
    from shaderkit.formats.dxbc.signature import Signature, SignatureElement

    tokens = array("I", [
        0x00000040, 14,                                     # ps_4_0, program length in dwords
        0x03000065, 0x001020F2, 0,                          # dcl_output o0.xyzw
        0x08000036, 0x001020F2, 0, 0x00004002, *[0x3F800000] * 4,  # mov o0.xyzw, l(1.0, 1.0, 1.0, 1.0)
        0x0100003E,                                         # ret
    ])
    outputs = Signature("OSGN", [SignatureElement("SV_Target", mask=0xF)])
    return DxbcContainer(chunks=[Signature("ISGN", []), outputs, ShaderProgram("SHDR", tokens)]).to_bytes()


@pytest.mark.parametrize("stage", ["vertex", "pixel"])
def test_run_of_a_vertex_or_pixel_shader_loads_no_tessellation(tmp_path: Path, stage: str) -> None:
    """The tessellation modules load for hull and domain shaders only."""
    data = SAMPLES["sample_vs.dxbc"]() if stage == "vertex" else _pixel_sample()
    (tmp_path / "shader.dxbc").write_bytes(data)
    modules = loaded_after("run", "shader.dxbc", "--count", "2", "-o", "out.json", cwd=tmp_path)
    assert "shaderkit.vm.sm4.machine" in modules  # the probe did run the shader
    results = json.loads((tmp_path / "out.json").read_text())
    key, value = ("SV_TARGET0", 1.0) if stage == "pixel" else ("SV_POSITION0", 0.0)  # (no POSITION given: zeros)
    assert results[key] == [[value] * 4] * 2
    assert not [m for m in modules if m.startswith("shaderkit.vm.sm4.tessellat")]
