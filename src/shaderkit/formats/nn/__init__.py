"""Nintendo "nn::util binary file" conventions shared by BNSH, BFSHA, BNTX...

* :mod:`.binary` - the file header and the block chain,
* :mod:`.strpool` - the ``_STR`` string pool,
* :mod:`.dic` - the ``_DIC`` Patricia trie (``nn::util::ResDic``),
* :mod:`.rlt` - the ``_RLT`` relocation table.
"""
