"""Benchmarks of dpaudit (`python -m bench`, `make bench`); the oracle bound is in
:mod:`bench.oracle`. Kept import-free: pool workers import bench modules that hold mechanisms."""
