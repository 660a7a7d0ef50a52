"""AGL (Nintendo's Wii U graphics library) shader archives: SHARCFB binaries, SHARC sources."""
