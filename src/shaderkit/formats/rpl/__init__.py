"""Wii U executables and libraries (RPX/RPL, Cafe OS ELF): sections, zlib-deflated data, CRCs."""
