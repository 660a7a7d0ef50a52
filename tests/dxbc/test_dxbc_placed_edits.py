"""Edits of parsed chunks written through their stored layout read back as the edited model."""

from __future__ import annotations

import copy
import random

import pytest

from conftest import corpus_files
from shaderkit.formats.dxbc.container import DxbcContainer
from shaderkit.formats.dxbc.rdef import ResourceDefinition, ShaderType, ShaderTypeMember, ShaderVariable

FILES = [p for p in corpus_files("dxbc", "*.dxbc") if "5_1" in p.name or "interfaces" in p.name.lower()
         or "structured" in p.name or "AdvancedHLSL" in p.name][:12]


def _edit_rdef(rd: ResourceDefinition, rng: random.Random) -> None:
    variables = [v for cb in rd.constant_buffers for v in cb.variables]
    for _ in range(rng.randint(1, 4)):
        choice = rng.randrange(6)
        if choice == 0 and variables:
            rng.choice(variables).name = "edited_" + "x" * rng.randint(0, 9)
        elif choice == 1 and variables:
            v = rng.choice(variables)
            v.default_value = bytes(rng.randrange(256) for _ in range(v.size)) if rng.random() < 0.8 else None
        elif choice == 2 and variables:
            v = rng.choice(variables)
            v.type = copy.deepcopy(v.type)
            v.type.rows += 1  # one variable's type split off from what it shared
        elif choice == 3 and variables:
            v = rng.choice(variables)
            member = ShaderTypeMember("extra", ShaderType(0, 3), 0)
            v.type = ShaderType(5, 0, 1, 1, members=[member, *v.type.members], name="EditedStruct" if rd.is_sm5 else "")
        elif choice == 4 and rd.constant_buffers:
            rng.choice(rd.constant_buffers).variables.append(ShaderVariable("added", ShaderType(1, 3, 1, 4), 0, 16))
        elif rd.resource_bindings:
            rng.choice(rd.resource_bindings).name = "res_" + "y" * rng.randint(0, 12)
        variables = [v for cb in rd.constant_buffers for v in cb.variables]


@pytest.mark.skipif(not FILES, reason="corpus not found")
@pytest.mark.parametrize("seed", range(6))
def test_random_rdef_edits_read_back(seed: int) -> None:
    rng = random.Random(seed)
    for path in FILES:
        model = DxbcContainer.from_bytes(path.read_bytes())
        rd = model.rdef
        if rd is None:
            continue
        _edit_rdef(rd, rng)
        again = DxbcContainer.from_bytes(model.to_bytes())
        assert again.rdef == rd, path.name
        assert again.checksum_state() == "match"


@pytest.mark.skipif(not FILES, reason="corpus not found")
@pytest.mark.parametrize("seed", range(4))
def test_random_signature_renames_read_back(seed: int) -> None:
    rng = random.Random(seed)
    for path in FILES:
        model = DxbcContainer.from_bytes(path.read_bytes())
        for sig in (model.input_signature, model.output_signature):
            if sig is None or not sig.elements:
                continue
            for _ in range(rng.randint(1, 3)):
                element = rng.choice(sig.elements)
                element.semantic_name = rng.choice(["A", "TEXCOORD", "SV_Position", "LONG_NAME_" * rng.randint(1, 3)])
        again = DxbcContainer.from_bytes(model.to_bytes())
        assert again.input_signature == model.input_signature
        assert again.output_signature == model.output_signature


def _first_with(attribute: str) -> list[DxbcContainer]:
    found = []
    for path in corpus_files("dxbc", "*.dxbc"):
        model = DxbcContainer.from_bytes(path.read_bytes())
        if getattr(model, attribute) is not None:
            found.append(model)
        if len(found) == 3:
            break
    return found


def test_edits_of_other_placed_chunks_read_back() -> None:
    from shaderkit.formats.dxbc.aon9 import SamplerMapping
    from shaderkit.formats.dxbc.rts0 import RootConstants, RootParameter, StaticSampler

    models = _first_with("root_signature") + _first_with("interfaces") + _first_with("level9")
    libraries = [f for path in corpus_files("dxbc", "*Library*.dxbc")
                 for f in DxbcContainer.from_bytes(path.read_bytes()).functions]
    if not models or not libraries:
        pytest.skip("corpus not found")
    for model in models:
        if model.root_signature is not None:
            rs = model.root_signature
            rs.parameters.insert(0, RootParameter(1, 0, constants=RootConstants(7, 0, 4)))
            rs.static_samplers.append(StaticSampler(21, 1, 1, 1, 0.0, 1, 4, 0, 0.0, 8.0, 3, 0, 5))
        if model.interfaces is not None and model.interfaces.class_types:
            model.interfaces.class_types[0].name += "_renamed"
        if model.level9 is not None:
            model.level9.sampler_mappings.append(SamplerMapping(3, 3, 3))
        again = DxbcContainer.from_bytes(model.to_bytes())
        assert again.root_signature == model.root_signature
        assert again.interfaces == model.interfaces
        assert again.level9 == model.level9
    for function in libraries[:4]:
        signature = function.function_signature
        assert signature is not None
        signature.parameters[-1].name = "renamed_parameter"
        assert DxbcContainer.from_bytes(function.to_bytes()).function_signature == signature
