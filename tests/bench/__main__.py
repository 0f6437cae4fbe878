"""Benchmarks on the lab: `make bench` (python -m tests.bench)."""

from tests.bench.validator_throughput import main

main()
