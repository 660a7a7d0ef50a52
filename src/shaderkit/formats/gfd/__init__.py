"""GFD (Gfx2) containers: .gsh shader files."""
