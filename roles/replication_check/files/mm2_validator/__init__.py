"""Replication validator for Kafka MirrorMaker 2.

Reads a source topic and its MM2 replica with Spark, compares them as per-partition
multisets of record fingerprints, checks consumer-group checkpoint translation, and
writes JSON, text and HTML reports. Entry point: ``python -m mm2_validator``.
"""

__version__ = "1.0.0"

# Bumped whenever a field of the JSON report changes meaning or is removed.
REPORT_SCHEMA_VERSION = 1
