"""The one SM4/SM5/SM5.1 opcode table (D3D10/10.1/11/11.1/12 tokenized program format).

Each :class:`OpInfo` row says how the decoder splits an instruction into operands and raw words,
how the encoder rebuilds it and how the printer spells it (fxc names). Values follow the public
``d3d11TokenizedProgramFormat.hpp`` enumeration.
"""

from __future__ import annotations

from enum import IntEnum

from shaderkit.named_tuple import NamedTuple


class Layout(IntEnum):
    """How the words after the opcode token(s) are split."""

    OPERANDS = 0  # operands up to the instruction end
    DCL_OPERAND = 1  # one operand, then raw words (declarations)
    RAW = 2  # raw words only (dcl_temps, dcl_thread_group, ...)
    CALL = 3  # one raw word (interface id), then operands (fcall)
    CUSTOM = 4  # customdata: class in the opcode token, length in the next word


class Imm(IntEnum):
    """How immediate operands of an opcode print."""

    FLOAT = 0
    INT = 1
    UNTYPED = 2  # mov/movc: per component guess (fxc ",", no spaces)
    DOUBLE = 3


class Block(IntEnum):
    """Effect on the nesting level of the listing."""

    NONE = 0
    OPEN = 1  # if, loop, switch
    CLOSE = 2  # endif, endloop, endswitch
    MIDDLE = 3  # else: closes then opens
    CASE = 4  # case/default: printed one level out (inside switch)
    PHASE = 5  # hs phases / label: reset nesting to 0


# Controls (bits 11..23 of the opcode token) as the printer shows them.
class Ctl(IntEnum):
    """Which opcode control bits an instruction has (saturate, test, resinfo, sync, declaration)."""
    NONE = 0
    SAT = 1  # bit 13 = _sat
    TEST = 2  # bit 18: _z / _nz
    RESINFO = 3  # bits 11-12: "", _rcpFloat, _uint
    SYNC = 4  # bits 11-14
    DCL = 5  # declaration-specific, handled by the printer


class OpInfo(NamedTuple):
    """One opcode row (a NamedTuple: immutable and cheap to build at import time)."""

    value: int
    name: str
    layout: Layout = Layout.OPERANDS
    imm: Imm = Imm.FLOAT
    ctl: Ctl = Ctl.SAT
    block: Block = Block.NONE
    #: per-operand immediate kinds overriding ``imm`` (index -> Imm)
    imm_at: tuple[tuple[int, Imm], ...] = ()
    #: declaration (printed with the dcl_ rules)
    dcl: bool = False
    #: operand count of an instruction (-1: declaration layouts decide)
    num_operands: int = -1
    #: leading operands that are written (print masks; the others swizzles or one component)
    dests: int = 0


F, I, U, D = Imm.FLOAT, Imm.INT, Imm.UNTYPED, Imm.DOUBLE  # noqa: E741


# dest + source operands per instruction (fxc reads exactly these; extra words are padding).
_OPERAND_COUNTS: dict[str, int] = {
    name: int(count) for name, count in (item.split(":") for item in """
add:3 and:3 break:0 breakc:1 call:1 callc:2 case:1 continue:0 continuec:1 cut:0 default:0
deriv_rtx:2 deriv_rty:2 discard:1 div:3 dp2:3 dp3:3 dp4:3 else:0 emit:0 emitThenCut:0 endif:0
endloop:0 endswitch:0 eq:3 exp:2 frc:2 ftoi:2 ftou:2 ge:3 iadd:3 if:1 ieq:3 ige:3 ilt:3 imad:4
imax:3 imin:3 imul:4 ine:3 ineg:2 ishl:3 ishr:3 itof:2 label:1 ld:3 ldms:4 log:2 loop:0 lt:3 mad:4
min:3 max:3 mov:2 movc:4 mul:3 ne:3 nop:0 not:2 or:3 resinfo:3 ret:0 retc:1 round_ne:2 round_ni:2
round_pi:2 round_z:2 rsq:2 sample:4 sample_c:5 sample_c_lz:5 sample_l:5 sample_d:6 sample_b:5 sqrt:2
switch:1 sincos:3 udiv:4 ult:3 uge:3 umul:4 umad:4 umax:3 umin:3 ushr:3 utof:2 xor:3 lod:4 gather4:4
samplepos:3 sampleinfo:2 hs_decls:0 hs_control_point_phase:0 hs_fork_phase:0 hs_join_phase:0
emit_stream:1 cut_stream:1 emitThenCut_stream:1 fcall:1 bufinfo:2 deriv_rtx_coarse:2
deriv_rtx_fine:2 deriv_rty_coarse:2 deriv_rty_fine:2 gather4_c:5 gather4_po:5 gather4_po_c:6 rcp:2
f32tof16:2 f16tof32:2 uaddc:4 usubb:4 countbits:2 firstbit_hi:2 firstbit_lo:2 firstbit_shi:2 ubfe:4
ibfe:4 bfi:5 bfrev:2 swapc:5 ld_uav_typed:3 store_uav_typed:3 ld_raw:3 store_raw:3 ld_structured:4
store_structured:4 atomic_and:3 atomic_or:3 atomic_xor:3 atomic_cmp_store:4 atomic_iadd:3
atomic_imax:3 atomic_imin:3 atomic_umax:3 atomic_umin:3 imm_atomic_alloc:2 imm_atomic_consume:2
imm_atomic_iadd:4 imm_atomic_and:4 imm_atomic_or:4 imm_atomic_xor:4 imm_atomic_exch:4
imm_atomic_cmp_exch:5 imm_atomic_imax:4 imm_atomic_imin:4 imm_atomic_umax:4 imm_atomic_umin:4 sync:0
dadd:3 dmax:3 dmin:3 dmul:3 deq:3 dge:3 dlt:3 dne:3 dmov:2 dmovc:4 dtof:2 ftod:2 eval_snapped:3
eval_sample_index:3 eval_centroid:2 abort:0 debug_break:0 ddiv:3 dfma:4 drcp:2 msad:4 dtoi:2 dtou:2
itod:2 utod:2 gather4_s:5 gather4_c_s:6 gather4_po_s:6 gather4_po_c_s:7 ld_s:4 ldms_s:5
ld_uav_typed_s:4 ld_raw_s:4 ld_structured_s:5 sample_l_s:6 sample_c_lz_s:6 sample_cl_s:6
sample_b_cl_s:7 sample_d_cl_s:8 sample_c_cl_s:7 check_access_fully_mapped:2
""".split())
}


#: instructions whose operands are all read (flow control, stream and call operands)
_NO_DEST = frozenset("""breakc call callc case continuec discard if label retc switch emit_stream cut_stream
emitThenCut_stream fcall""".split())
#: instructions writing two operands (the ``_s`` sampling forms also write their feedback)
_TWO_DESTS = frozenset("""sincos udiv imul umul uaddc usubb swapc imm_atomic_alloc imm_atomic_consume
imm_atomic_iadd imm_atomic_and imm_atomic_or imm_atomic_xor imm_atomic_exch imm_atomic_cmp_exch
imm_atomic_imax imm_atomic_imin imm_atomic_umax imm_atomic_umin""".split())


def _ops() -> list[OpInfo]:
    counts = _OPERAND_COUNTS

    def o(value: int, name: str, **kw: object) -> OpInfo:
        count = counts.get(name, -1)
        dests = 0 if name in _NO_DEST or count <= 0 else 2 if name in _TWO_DESTS or name.endswith("_s") else 1
        return OpInfo(value, name, num_operands=count, dests=dests, **kw)  # type: ignore[arg-type]

    t = Ctl.TEST
    n = Ctl.NONE
    rows: list[OpInfo] = [
        o(0, "add"), o(1, "and", imm=I), o(2, "break", ctl=n), o(3, "breakc", imm=I, ctl=t),
        o(4, "call", ctl=n), o(5, "callc", imm=I, ctl=t), o(6, "case", imm=I, ctl=n, block=Block.CASE),
        o(7, "continue", ctl=n), o(8, "continuec", imm=I, ctl=t), o(9, "cut", ctl=n),
        o(10, "default", ctl=n, block=Block.CASE), o(11, "deriv_rtx"), o(12, "deriv_rty"),
        o(13, "discard", imm=I, ctl=t), o(14, "div"), o(15, "dp2"), o(16, "dp3"), o(17, "dp4"),
        o(18, "else", ctl=n, block=Block.MIDDLE), o(19, "emit", ctl=n), o(20, "emitThenCut", ctl=n),
        o(21, "endif", ctl=n, block=Block.CLOSE), o(22, "endloop", ctl=n, block=Block.CLOSE),
        o(23, "endswitch", ctl=n, block=Block.CLOSE), o(24, "eq"), o(25, "exp"), o(26, "frc"),
        o(27, "ftoi"), o(28, "ftou"), o(29, "ge"), o(30, "iadd", imm=I),
        o(31, "if", imm=I, ctl=t, block=Block.OPEN), o(32, "ieq", imm=I), o(33, "ige", imm=I),
        o(34, "ilt", imm=I), o(35, "imad", imm=I), o(36, "imax", imm=I), o(37, "imin", imm=I),
        o(38, "imul", imm=I), o(39, "ine", imm=I), o(40, "ineg", imm=I), o(41, "ishl", imm=I),
        o(42, "ishr", imm=I), o(43, "itof", imm=I), o(44, "label", ctl=n, block=Block.PHASE),
        o(45, "ld", imm=I), o(46, "ldms", imm=I), o(47, "log"), o(48, "loop", ctl=n, block=Block.OPEN),
        o(49, "lt"), o(50, "mad"), o(51, "min"), o(52, "max"),
        o(53, "customdata", layout=Layout.CUSTOM, ctl=n), o(54, "mov", imm=U), o(55, "movc", imm=U),
        o(56, "mul"), o(57, "ne"), o(58, "nop", ctl=n), o(59, "not", imm=I), o(60, "or", imm=I),
        o(61, "resinfo", imm=I, ctl=Ctl.RESINFO), o(62, "ret", ctl=n), o(63, "retc", imm=I, ctl=t),
        o(64, "round_ne"), o(65, "round_ni"), o(66, "round_pi"), o(67, "round_z"), o(68, "rsq"),
        o(69, "sample"), o(70, "sample_c"), o(71, "sample_c_lz"), o(72, "sample_l"), o(73, "sample_d"),
        o(74, "sample_b"), o(75, "sqrt"), o(76, "switch", imm=I, ctl=n, block=Block.OPEN),
        o(77, "sincos"), o(78, "udiv", imm=I), o(79, "ult", imm=I), o(80, "uge", imm=I),
        o(81, "umul", imm=I), o(82, "umad", imm=I), o(83, "umax", imm=I), o(84, "umin", imm=I),
        o(85, "ushr", imm=I), o(86, "utof", imm=I), o(87, "xor", imm=I),
        # D3D10 declarations
        o(88, "dcl_resource", layout=Layout.DCL_OPERAND, ctl=Ctl.DCL, dcl=True),
        o(89, "dcl_constantbuffer", layout=Layout.DCL_OPERAND, ctl=Ctl.DCL, dcl=True),
        o(90, "dcl_sampler", layout=Layout.DCL_OPERAND, ctl=Ctl.DCL, dcl=True),
        o(91, "dcl_indexrange", layout=Layout.DCL_OPERAND, ctl=Ctl.DCL, dcl=True),
        o(92, "dcl_outputtopology", layout=Layout.RAW, ctl=Ctl.DCL, dcl=True),
        o(93, "dcl_inputprimitive", layout=Layout.RAW, ctl=Ctl.DCL, dcl=True),
        o(94, "dcl_maxout", layout=Layout.RAW, ctl=Ctl.DCL, dcl=True),
        o(95, "dcl_input", layout=Layout.DCL_OPERAND, ctl=Ctl.DCL, dcl=True),
        o(96, "dcl_input_sgv", layout=Layout.DCL_OPERAND, ctl=Ctl.DCL, dcl=True),
        o(97, "dcl_input_siv", layout=Layout.DCL_OPERAND, ctl=Ctl.DCL, dcl=True),
        o(98, "dcl_input_ps", layout=Layout.DCL_OPERAND, ctl=Ctl.DCL, dcl=True),
        o(99, "dcl_input_ps_sgv", layout=Layout.DCL_OPERAND, ctl=Ctl.DCL, dcl=True),
        o(100, "dcl_input_ps_siv", layout=Layout.DCL_OPERAND, ctl=Ctl.DCL, dcl=True),
        o(101, "dcl_output", layout=Layout.DCL_OPERAND, ctl=Ctl.DCL, dcl=True),
        o(102, "dcl_output_sgv", layout=Layout.DCL_OPERAND, ctl=Ctl.DCL, dcl=True),
        o(103, "dcl_output_siv", layout=Layout.DCL_OPERAND, ctl=Ctl.DCL, dcl=True),
        o(104, "dcl_temps", layout=Layout.RAW, ctl=Ctl.DCL, dcl=True),
        o(105, "dcl_indexableTemp", layout=Layout.RAW, ctl=Ctl.DCL, dcl=True),
        o(106, "dcl_globalFlags", layout=Layout.RAW, ctl=Ctl.DCL, dcl=True),
        # D3D10.1
        o(107, "reserved_107", ctl=n), o(108, "lod"), o(109, "gather4"), o(110, "samplepos", imm=I),
        o(111, "sampleinfo", imm=I, ctl=Ctl.RESINFO), o(112, "reserved_112", ctl=n),
        # D3D11 hull shader phases
        o(113, "hs_decls", ctl=n, block=Block.PHASE), o(114, "hs_control_point_phase", ctl=n, block=Block.PHASE),
        o(115, "hs_fork_phase", ctl=n, block=Block.PHASE), o(116, "hs_join_phase", ctl=n, block=Block.PHASE),
        o(117, "emit_stream", ctl=n), o(118, "cut_stream", ctl=n), o(119, "emitThenCut_stream", ctl=n),
        o(120, "fcall", layout=Layout.CALL, ctl=n), o(121, "bufinfo", imm=I),
        o(122, "deriv_rtx_coarse"), o(123, "deriv_rtx_fine"), o(124, "deriv_rty_coarse"),
        o(125, "deriv_rty_fine"), o(126, "gather4_c"), o(127, "gather4_po", imm=I),
        o(128, "gather4_po_c", imm=I), o(129, "rcp"), o(130, "f32tof16"),
        o(131, "f16tof32", imm=I), o(132, "uaddc", imm=I), o(133, "usubb", imm=I),
        o(134, "countbits", imm=I), o(135, "firstbit_hi", imm=I), o(136, "firstbit_lo", imm=I),
        o(137, "firstbit_shi", imm=I), o(138, "ubfe", imm=I), o(139, "ibfe", imm=I),
        o(140, "bfi", imm=I), o(141, "bfrev", imm=I), o(142, "swapc", imm=U),
        # D3D11 declarations
        o(143, "dcl_stream", layout=Layout.DCL_OPERAND, ctl=Ctl.DCL, dcl=True),
        o(144, "dcl_function_body", layout=Layout.RAW, ctl=Ctl.DCL, dcl=True),
        o(145, "dcl_function_table", layout=Layout.RAW, ctl=Ctl.DCL, dcl=True),
        o(146, "dcl_interface", layout=Layout.RAW, ctl=Ctl.DCL, dcl=True),
        o(147, "dcl_input_control_point_count", layout=Layout.RAW, ctl=Ctl.DCL, dcl=True),
        o(148, "dcl_output_control_point_count", layout=Layout.RAW, ctl=Ctl.DCL, dcl=True),
        o(149, "dcl_tessellator_domain", layout=Layout.RAW, ctl=Ctl.DCL, dcl=True),
        o(150, "dcl_tessellator_partitioning", layout=Layout.RAW, ctl=Ctl.DCL, dcl=True),
        o(151, "dcl_tessellator_output_primitive", layout=Layout.RAW, ctl=Ctl.DCL, dcl=True),
        o(152, "dcl_hs_max_tessfactor", layout=Layout.RAW, ctl=Ctl.DCL, dcl=True),
        o(153, "dcl_hs_fork_phase_instance_count", layout=Layout.RAW, ctl=Ctl.DCL, dcl=True),
        o(154, "dcl_hs_join_phase_instance_count", layout=Layout.RAW, ctl=Ctl.DCL, dcl=True),
        o(155, "dcl_thread_group", layout=Layout.RAW, ctl=Ctl.DCL, dcl=True),
        o(156, "dcl_uav_typed", layout=Layout.DCL_OPERAND, ctl=Ctl.DCL, dcl=True),
        o(157, "dcl_uav_raw", layout=Layout.DCL_OPERAND, ctl=Ctl.DCL, dcl=True),
        o(158, "dcl_uav_structured", layout=Layout.DCL_OPERAND, ctl=Ctl.DCL, dcl=True),
        o(159, "dcl_tgsm_raw", layout=Layout.DCL_OPERAND, ctl=Ctl.DCL, dcl=True),
        o(160, "dcl_tgsm_structured", layout=Layout.DCL_OPERAND, ctl=Ctl.DCL, dcl=True),
        o(161, "dcl_resource_raw", layout=Layout.DCL_OPERAND, ctl=Ctl.DCL, dcl=True),
        o(162, "dcl_resource_structured", layout=Layout.DCL_OPERAND, ctl=Ctl.DCL, dcl=True),
        # D3D11 UAV / atomics / sync
        o(163, "ld_uav_typed", imm=I), o(164, "store_uav_typed", imm=I, imm_at=((1, U), (2, U))),
        o(165, "ld_raw", imm=I), o(166, "store_raw", imm=I, imm_at=((2, U),)), o(167, "ld_structured", imm=I),
        o(168, "store_structured", imm=I, imm_at=((3, U),)), o(169, "atomic_and", imm=I), o(170, "atomic_or", imm=I),
        o(171, "atomic_xor", imm=I), o(172, "atomic_cmp_store", imm=I), o(173, "atomic_iadd", imm=I),
        o(174, "atomic_imax", imm=I), o(175, "atomic_imin", imm=I), o(176, "atomic_umax", imm=I),
        o(177, "atomic_umin", imm=I), o(178, "imm_atomic_alloc", imm=I), o(179, "imm_atomic_consume", imm=I),
        o(180, "imm_atomic_iadd", imm=I), o(181, "imm_atomic_and", imm=I), o(182, "imm_atomic_or", imm=I),
        o(183, "imm_atomic_xor", imm=I), o(184, "imm_atomic_exch", imm=I),
        o(185, "imm_atomic_cmp_exch", imm=I), o(186, "imm_atomic_imax", imm=I),
        o(187, "imm_atomic_imin", imm=I), o(188, "imm_atomic_umax", imm=I),
        o(189, "imm_atomic_umin", imm=I), o(190, "sync", ctl=Ctl.SYNC),
        # doubles
        o(191, "dadd", imm=D), o(192, "dmax", imm=D), o(193, "dmin", imm=D), o(194, "dmul", imm=D),
        o(195, "deq", imm=D), o(196, "dge", imm=D), o(197, "dlt", imm=D), o(198, "dne", imm=D),
        o(199, "dmov", imm=D), o(200, "dmovc", imm=D, imm_at=((1, I),)), o(201, "dtof", imm=D),
        o(202, "ftod"), o(203, "eval_snapped", imm=I), o(204, "eval_sample_index", imm=I),
        o(205, "eval_centroid"),
        o(206, "dcl_gsinstances", layout=Layout.RAW, ctl=Ctl.DCL, dcl=True),
        o(207, "abort", ctl=n), o(208, "debug_break", ctl=n), o(209, "reserved_209", ctl=n),
        # D3D11.1
        o(210, "ddiv", imm=D), o(211, "dfma", imm=D), o(212, "drcp", imm=D), o(213, "msad", imm=I),
        o(214, "dtoi", imm=D), o(215, "dtou", imm=D), o(216, "itod", imm=I), o(217, "utod", imm=I),
        o(218, "reserved_218", ctl=n),
        # D3D11.2 tiled resources
        o(219, "gather4_s"), o(220, "gather4_c_s"), o(221, "gather4_po_s", imm=I),
        o(222, "gather4_po_c_s", imm=I), o(223, "ld_s", imm=I), o(224, "ldms_s", imm=I),
        o(225, "ld_uav_typed_s", imm=I), o(226, "ld_raw_s", imm=I), o(227, "ld_structured_s", imm=I),
        o(228, "sample_l_s"), o(229, "sample_c_lz_s"), o(230, "sample_cl_s"), o(231, "sample_b_cl_s"),
        o(232, "sample_d_cl_s"), o(233, "sample_c_cl_s"), o(234, "check_access_fully_mapped", imm=I),
    ]
    return rows


OPCODES: dict[int, OpInfo] = {row.value: row for row in _ops()}
#: by mnemonic (for the assembler and tests)
BY_NAME: dict[str, OpInfo] = {row.name: row for row in OPCODES.values()}

# Opcode value the decoder and encoder special-case (others are looked up through BY_NAME).
OP_CUSTOMDATA = 53


class OperandType(IntEnum):
    """D3D10_SB_OPERAND_TYPE: the register file of an operand (bits 12..19 of its token)."""
    TEMP = 0
    INPUT = 1
    OUTPUT = 2
    INDEXABLE_TEMP = 3
    IMMEDIATE32 = 4
    IMMEDIATE64 = 5
    SAMPLER = 6
    RESOURCE = 7
    CONSTANT_BUFFER = 8
    IMMEDIATE_CONSTANT_BUFFER = 9
    LABEL = 10
    INPUT_PRIMITIVEID = 11
    OUTPUT_DEPTH = 12
    NULL = 13
    RASTERIZER = 14
    OUTPUT_COVERAGE_MASK = 15
    STREAM = 16
    FUNCTION_BODY = 17
    FUNCTION_TABLE = 18
    INTERFACE = 19
    FUNCTION_INPUT = 20
    FUNCTION_OUTPUT = 21
    OUTPUT_CONTROL_POINT_ID = 22
    INPUT_FORK_INSTANCE_ID = 23
    INPUT_JOIN_INSTANCE_ID = 24
    INPUT_CONTROL_POINT = 25
    OUTPUT_CONTROL_POINT = 26
    INPUT_PATCH_CONSTANT = 27
    INPUT_DOMAIN_POINT = 28
    THIS_POINTER = 29
    UNORDERED_ACCESS_VIEW = 30
    THREAD_GROUP_SHARED_MEMORY = 31
    INPUT_THREAD_ID = 32
    INPUT_THREAD_GROUP_ID = 33
    INPUT_THREAD_ID_IN_GROUP = 34
    INPUT_COVERAGE_MASK = 35
    INPUT_THREAD_ID_IN_GROUP_FLATTENED = 36
    INPUT_GS_INSTANCE_ID = 37
    OUTPUT_DEPTH_GREATER_EQUAL = 38
    OUTPUT_DEPTH_LESS_EQUAL = 39
    CYCLE_COUNTER = 40
    OUTPUT_STENCIL_REF = 41
    INNER_COVERAGE = 42


#: fxc register prefixes per operand type
REGISTER_NAMES: dict[int, str] = {
    0: "r", 1: "v", 2: "o", 3: "x", 4: "l", 5: "d", 6: "s", 7: "t", 8: "cb", 9: "icb", 10: "l",
    11: "vPrim", 12: "oDepth", 13: "null", 14: "rasterizer", 15: "oMask", 16: "m", 17: "fb",
    18: "ft", 19: "fp", 20: "fi", 21: "fo", 22: "vOutputControlPointID", 23: "vForkInstanceID",
    24: "vJoinInstanceID", 25: "vicp", 26: "vocp", 27: "vpc", 28: "vDomain", 29: "this", 30: "u",
    31: "g", 32: "vThreadID", 33: "vThreadGroupID", 34: "vThreadIDInGroup", 35: "vCoverage",
    36: "vThreadIDInGroupFlattened", 37: "vGSInstanceID", 38: "oDepthGE", 39: "oDepthLE",
    40: "vCycleCounter", 41: "oStencilRef", 42: "vInnerCoverage",
}
#: operand types with a single register, named without a number (vThreadID, oDepth ...)
SINGLE_REGISTER_NAMES: dict[int, str] = {kind: name for kind, name in REGISTER_NAMES.items() if name != name.lower()}

class RegisterTypeInfo(NamedTuple):
    """What fxc's text leaves implicit about an operand type."""

    #: components of an operand printed without any (4 only with an empty mask, 0 none)
    components: int = 0
    #: a one-component type keeps its component in declarations too (else it has none there)
    dcl_components: bool = False
    #: instructions may write it
    writable: bool = False
    #: fixed index count (0: varies, as v[1][0] or SM5.1 ranges)
    indices: int = 0


def _register_types() -> dict[int, RegisterTypeInfo]:
    info = {t: RegisterTypeInfo() for t in REGISTER_NAMES}
    for t in (0, 1, 2, 3, 8, 9, 25, 26, 27, 28, 32, 33, 34):
        info[t] = info[t]._replace(components=4)
    for t in (11, 15, 22, 23, 24, 36, 37):  # inputs: no component in declarations
        info[t] = info[t]._replace(components=1)
    for t in (12, 35, 38, 39, 41, 42):
        info[t] = info[t]._replace(components=1, dcl_components=True)
    for t in (0, 2, 3, 12, 13, 15, 21, 26, 30, 31, 38, 39, 41):
        info[t] = info[t]._replace(writable=True)
    for t, count in ((0, 1), (3, 2), (9, 1)):  # r0, x0[1], icb[2]
        info[t] = info[t]._replace(indices=count)
    return info


#: per operand type (see :class:`RegisterTypeInfo`)
REGISTER_TYPE_INFO: dict[int, RegisterTypeInfo] = _register_types()

#: SM5.1 spells these upper case with ranges
UPPER_51 = {6: "S", 7: "T", 8: "CB", 30: "U"}


class IndexRep(IntEnum):
    """D3D10_SB_OPERAND_INDEX_REPRESENTATION: how an index is stored (immediate, relative or both)."""
    IMMEDIATE32 = 0
    IMMEDIATE64 = 1
    RELATIVE = 2
    IMMEDIATE32_PLUS_RELATIVE = 3
    IMMEDIATE64_PLUS_RELATIVE = 4


RESOURCE_DIMENSIONS = (
    "unknown", "buffer", "texture1d", "texture2d", "texture2dms", "texture3d", "texturecube",
    "texture1darray", "texture2darray", "texture2dmsarray", "texturecubearray", "raw_buffer",
    "structured_buffer",
)

RETURN_TYPES = ("", "unorm", "snorm", "sint", "uint", "float", "mixed", "double", "<continued>", "<unused>")

SYSTEM_VALUES = {
    0: "undefined", 1: "position", 2: "clip_distance", 3: "cull_distance",
    4: "rendertarget_array_index", 5: "viewport_array_index", 6: "vertex_id", 7: "primitive_id",
    8: "instance_id", 9: "is_front_face", 10: "sampleIndex",
    11: "finalQuadUeq0EdgeTessFactor", 12: "finalQuadVeq0EdgeTessFactor",
    13: "finalQuadUeq1EdgeTessFactor", 14: "finalQuadVeq1EdgeTessFactor",
    15: "finalQuadUInsideTessFactor", 16: "finalQuadVInsideTessFactor",
    17: "finalTriUeq0EdgeTessFactor", 18: "finalTriVeq0EdgeTessFactor",
    19: "finalTriWeq0EdgeTessFactor", 20: "finalTriInsideTessFactor",
    21: "finalLineDetailTessFactor", 22: "finalLineDensityTessFactor",
}

INTERPOLATION_MODES = (
    "", "constant", "linear", "linear centroid", "linear noperspective",
    "linear noperspective centroid", "linear sample", "linear noperspective sample",
)

PRIMITIVE_TOPOLOGIES = {
    0: "undefined", 1: "pointlist", 2: "linelist", 3: "linestrip", 4: "trianglelist",
    5: "trianglestrip", 10: "linelist_adj", 11: "linestrip_adj", 12: "trianglelist_adj",
    13: "trianglestrip_adj",
}

PRIMITIVES = {0: "undefined", 1: "point", 2: "line", 3: "triangle", 6: "lineadj", 7: "triangleadj"}
PRIMITIVES.update({8 + n: f"{n + 1}_control_point_patch" for n in range(32)})

TESS_DOMAINS = ("domain_undefined", "domain_isoline", "domain_tri", "domain_quad")
TESS_PARTITIONINGS = (
    "partitioning_undefined", "partitioning_integer", "partitioning_pow2",
    "partitioning_fractional_odd", "partitioning_fractional_even",
)
TESS_OUTPUTS = (
    "output_undefined", "output_point", "output_line", "output_triangle_cw", "output_triangle_ccw",
)

GLOBAL_FLAGS = (
    (1 << 11, "refactoringAllowed"),
    (1 << 12, "enableDoublePrecisionFloatOps"),
    (1 << 13, "forceEarlyDepthStencil"),
    (1 << 14, "enableRawAndStructuredBuffers"),
    (1 << 15, "skipOptimization"),
    (1 << 16, "enableMinimumPrecision"),
    (1 << 17, "enable11_1DoubleExtensions"),
    (1 << 18, "enable11_1ShaderExtensions"),
    (1 << 19, "allResourcesBound"),
)

SAMPLER_MODES = ("mode_default", "mode_comparison", "mode_mono")

MIN_PRECISION = {0: "", 1: "min16f", 2: "min2_8f", 4: "min16i", 5: "min16u", 6: "min16u"}

CUSTOMDATA_CLASSES = {0: "comment", 1: "debuginfo", 2: "opaque", 3: "icb", 4: "shader_message",
                      5: "clip_plane_constant_mappings"}
#: the customdata classes of an immediate constant buffer and of a shader message (printf/errorf)
ICB_CLASS, MESSAGE_CLASS = ({name: value for value, name in CUSTOMDATA_CLASSES.items()}[name]
                            for name in ("icb", "shader_message"))

PROGRAM_TYPES = ("ps", "vs", "gs", "hs", "ds", "cs")

#: the enumerations declaration templates name (``{c:SHIFT:WIDTH:NAME}``, ``{r:INDEX:NAME}``)
DCL_ENUMS: dict[str, dict[int, str]] = {
    "DIM": dict(enumerate(RESOURCE_DIMENSIONS)),
    "CB_ACCESS": {0: "immediateIndexed", 1: "dynamicIndexed"},
    "SAMPLER_MODE": dict(enumerate(SAMPLER_MODES)),
    "TOPOLOGY": PRIMITIVE_TOPOLOGIES,
    "PRIMITIVE": PRIMITIVES,
    "SYSVAL": SYSTEM_VALUES,
    "TESS_DOMAIN": dict(enumerate(TESS_DOMAINS)),
    "TESS_PARTITIONING": dict(enumerate(TESS_PARTITIONINGS)),
    "TESS_OUTPUT": dict(enumerate(TESS_OUTPUTS)),
    "IFACE": {0: "", 1: "_dynamicindexed"},
}

# Declaration text, declared once for the printer and the assembler (see :mod:`.dcl`).
# Fields: {op} the declared operand; {c:SHIFT:WIDTH[:ENUM]} opcode-token control bits (above bit
# 11); {r:I[:ENUM]} raw word I after the operand; {rt:I} four 4-bit return types of raw word I;
# {f:I} raw word I as a float; {hi:I} the upper 16 bits of raw word I; {space} SM5.1 register
# space (the last raw word, SM5.1 only); {cbsize} SM5.1 constant buffer size "[n]" (raw word 0);
# {samples} "(n)" sample count (bits 5..11) of multisampled dimensions; {uav} _glc/_rov/_opc;
# {interp} interpolation mode and a blank (bits 0..3), {interp:legacy} the same, omitted by
# fxc 9.x; {flags} global flags; {bodies} "fb.., fb.." with their count in raw word 1;
# {tables} "ft.., ft.." with their count in the low 16 bits of raw word 2. {{ and }} are braces.
_SYSV = "{op}, {r:0:SYSVAL}"
DCL_TEMPLATES: dict[int, str] = {
    88: "dcl_resource_{c:0:5:DIM}{samples} ({rt:0}) {op}{space}",
    89: "dcl_constantbuffer {op}{cbsize}, {c:0:1:CB_ACCESS}{space}",
    90: "dcl_sampler {op}, {c:0:4:SAMPLER_MODE}{space}",
    91: "dcl_indexrange {op} {r:0}",
    92: "dcl_outputtopology {c:0:7:TOPOLOGY} ",
    93: "dcl_inputprimitive {c:0:6:PRIMITIVE} ",
    94: "dcl_maxout {r:0}",
    95: "dcl_input {op}",
    96: "dcl_input_sgv " + _SYSV,
    97: "dcl_input_siv " + _SYSV,
    98: "dcl_input_ps {interp}{op}",
    99: "dcl_input_ps_sgv {interp:legacy}" + _SYSV,
    100: "dcl_input_ps_siv {interp}" + _SYSV,
    101: "dcl_output {op}",
    102: "dcl_output_sgv " + _SYSV,
    103: "dcl_output_siv " + _SYSV,
    104: "dcl_temps {r:0}",
    105: "dcl_indexableTemp x{r:0}[{r:1}], {r:2}",
    106: "dcl_globalFlags {flags}",
    143: "dcl_stream {op}",
    144: "dcl_function_body fb{r:0}",
    145: "dcl_function_table ft{r:0} = {{{bodies}}}",
    146: "dcl_interface{c:0:1:IFACE} fp{r:0}[{hi:2}][{r:1}] = {{{tables}}}",
    147: "dcl_input_control_point_count {c:0:6}",
    148: "dcl_output_control_point_count {c:0:6}",
    149: "dcl_tessellator_domain {c:0:2:TESS_DOMAIN}",
    150: "dcl_tessellator_partitioning {c:0:3:TESS_PARTITIONING}",
    151: "dcl_tessellator_output_primitive {c:0:3:TESS_OUTPUT}",
    152: "dcl_hs_max_tessfactor l({f:0})",
    153: "dcl_hs_fork_phase_instance_count {r:0}",
    154: "dcl_hs_join_phase_instance_count {r:0}",
    155: "dcl_thread_group {r:0}, {r:1}, {r:2}",
    156: "dcl_uav_typed_{c:0:5:DIM}{uav} ({rt:0}) {op}{space}",
    157: "dcl_uav_raw{uav} {op}{space}",
    158: "dcl_uav_structured{uav} {op}, {r:0}{space}",
    159: "dcl_tgsm_raw {op}, {r:0}",
    160: "dcl_tgsm_structured {op}, {r:0}, {r:1}",
    161: "dcl_resource_raw {op}{space}",
    162: "dcl_resource_structured {op}, {r:0}{space}",
    206: "dcl_gsinstances {r:0}",
}


# Operand positions that take resources, samplers, UAVs or shared memory (and the register types
# each accepts); these types appear nowhere else in an instruction.
_T, _S, _U, _G, _RAST = 7, 6, 30, 31, 14
RESOURCE_TYPES = frozenset({_T, _S, _U, _G})


def _resource_operands(info: OpInfo) -> dict[int, frozenset[int]]:
    name = info.name
    after = info.dests + 1  # the operand after the destinations and the address
    if name.startswith(("sample_", "gather4", "lod")) or name == "sample":
        res = after + (1 if "_po" in name else 0)
        return {res: frozenset({_T}), res + 1: frozenset({_S})}
    if name.startswith("ld_uav_typed"):
        return {after: frozenset({_U})}
    if name.startswith("ld_structured"):
        return {after + 1: frozenset({_T, _U, _G})}
    if name.startswith("ld_raw"):
        return {after: frozenset({_T, _U, _G})}
    if name.startswith(("ld", "ldms")):
        return {after: frozenset({_T})}
    if name.startswith(("store_", "atomic_")):
        return {0: frozenset({_U, _G})}
    if name.startswith("imm_atomic_"):
        return {1: frozenset({_U, _G})}
    if name == "resinfo":
        return {2: frozenset({_T, _U})}
    if name == "bufinfo":
        return {1: frozenset({_T, _U})}
    if name in ("sampleinfo", "samplepos"):
        return {1: frozenset({_T, _RAST})}
    return {}


#: opcode -> {operand index: register types it accepts} for resource-reading instructions
RESOURCE_OPERANDS: dict[int, dict[int, frozenset[int]]] = {
    value: places for value, info in OPCODES.items() if not info.dcl and (places := _resource_operands(info))}
