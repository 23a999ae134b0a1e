"""Bridges from other optimization frameworks (each needs its extra)."""
