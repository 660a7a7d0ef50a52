"""Nintendo Switch shader binaries: BNSH (``grsc`` container) and raw NVN program blobs."""
