"""Nintendo Switch shader binaries: BNSH (``grsc`` container) and raw NVN program blobs.

Modules: :mod:`.model` (dataclasses), :mod:`.reader` (parsing into the model and an
:class:`~shaderkit.io.layout.Layout`), :mod:`.writer` (placement and emission through
:class:`~shaderkit.io.layout.PlacedWriter`), :mod:`.compiler` (the 2.3.x compiler reflection),
:mod:`.bnsh` (the :class:`~.bnsh.Bnsh` file model), :mod:`.nvn` (NVN header, SPH, control section,
raw NVN blobs).

Round trip by construction: the reader records every structure with its bytes; every byte no
structure covers (padding, unknown blocks, trailing bytes, structures only the _RLT points at)
is a raw span written back as stored. Derived values the file stores (grsc block size, pool
region, the _STR block, each trie, string pointers, the _RLT) are written back while what they
describe is unchanged, and recomputed otherwise.

Facts checked on the corpus that differ from the research notes:

* ``_DIC`` key pointers point at a pool entry's u16 *length*; only the file header's name offset
  points at the characters. The ``_STR`` count leaves out the leading empty string.
* ``pShaderCompilerReflection`` (program + 0x80, BNSH 2.3.x) points at
  ``nngfxToolShaderCompilerShaderReflection`` (0x98 bytes; see :mod:`.compiler`); its arrays follow
  the reflection stages' slot arrays, its names point at ``_STR`` characters.
* ``NvnShaderPool`` is 0x50 bytes (MemoryPoolInfoData 0x20, pMemoryPool, 8 reserved,
  pCurrentMemoryPool, 24 reserved); pMemoryPool points at 0x140 bytes of runtime space that the
  program object memory follows.
* The ``grsc`` block runs up to ``_STR`` (the shader memory pool is inside it); ``_STR`` is padded
  to 8 and ends the block chain (its next offset is 0); ``_RLT`` section 5 has the unpadded size.
* ``_RLT`` entries group pointers in position order: an entry starts with the longest run of
  adjacent pointers, its further chunks are the next runs of exactly that length at a constant
  stride. A skip of 33 words is merged, one of 211 is not; shaderkit merges up to 127.
"""
