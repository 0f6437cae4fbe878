"""Fixtures for the replication validator's unit tests: the validator's files on
sys.path and one local Spark session for the whole run."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

VALIDATOR_FILES = Path(__file__).resolve().parents[3] / "roles" / "replication_check" / "files"
if str(VALIDATOR_FILES) not in sys.path:
    sys.path.insert(0, str(VALIDATOR_FILES))


@pytest.fixture(scope="session")
def spark():
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("mm2-validator-unit-tests")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.default.parallelism", "2")
        .config("spark.driver.memory", "512m")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.adaptive.enabled", "false")
        .config("spark.sql.codegen.wholeStage", "false")
        .config("spark.sql.codegen.factoryMode", "NO_CODEGEN")
        # Short-lived JVM: the C1 compiler alone and a serial GC cut CPU time by a third.
        .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture
def ansi(spark):
    """Run a test with ANSI SQL mode on (overflow raises instead of wrapping)."""
    previous = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", "true")
    yield spark
    spark.conf.set("spark.sql.ansi.enabled", previous)
