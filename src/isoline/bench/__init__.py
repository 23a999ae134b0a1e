"""Benchmark runner: methods x problems x seeds, stored in SQLite, with a report."""
