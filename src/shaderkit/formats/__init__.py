"""One package per container family."""
