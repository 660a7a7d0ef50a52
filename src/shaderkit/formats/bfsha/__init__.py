"""Nintendo shader archives (BFSHA): Wii U (FSHA v3, GX2 programs) and Switch (programs -> BNSH)."""
