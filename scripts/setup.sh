#!/usr/bin/env bash
# One-command setup for `make demo` and `make test`: everything a fresh machine
# lacks is installed, and a second run is quiet. Safe to rerun at any time.
set -euo pipefail
cd "$(dirname "$0")/.."
cache=${KAFKA_DR_CACHE:-$HOME/.cache/kafka-dr}
mkdir -p "$cache"

# Debian packages: the docker engine, debootstrap for the base image, Java and
# Maven for the Kafka and Spark artifacts.
scripts/apt_install.sh docker.io debootstrap openjdk-17-jre-headless maven

# promtool for the alert rule tests (extensions/monitoring) comes with Debian's Prometheus
# server, which would start and stay enabled: when this script installs it, the server is
# stopped and disabled (a Prometheus that was already there is left alone).
if ! command -v promtool >/dev/null 2>&1; then
  scripts/apt_install.sh prometheus
  if [ -d /run/systemd/system ]; then
    systemctl disable --now prometheus >/dev/null 2>&1 || true
  else
    service prometheus stop >/dev/null 2>&1 || true
    update-rc.d prometheus disable >/dev/null 2>&1 || true
  fi
fi

# Three lanes side by side, each quiet when its work is cached: on a fresh machine the base
# image's debootstrap, the Maven builds and pip's downloads mostly wait on the network and the
# disk, so together they take about as long as the longest. The Maven steps stay in one lane:
# a Maven local repository is not safe for two builds at once.

# The Python venv with the pinned controller packages and collections, then the task nodes'
# packages (pyspark's sdist, py4j, setuptools) as the roles' hash-locked requirements pin them, so a
# node installs the validation job and the failover tool without reaching a package index.
python_lane() {
  scripts/venv.sh
  .venv/bin/python scripts/fetch_python_packages.py --cache "$cache/wheels" \
    --build-requirements roles/replication_check/files/requirements/build.txt \
    roles/replication_check/files/requirements/pyspark-*.txt roles/failover/files/requirements/py4j-*.txt
}

# The docker engine, then the lab's and Molecule's base image.
docker_lane() {
  scripts/ensure_docker.sh
  scripts/build_base_image.sh
}

# Kafka's current release; the reference guides' oldest brokers (EMR's Kafka 2.12_2.4.1,
# ZooKeeper mode), broker-only, which the EMR guides' source in
# tests/integration/test_mirrormaker_seeds.py and `make compat` run; Spark's Kafka jars; the JMX
# exporter. (The previous release is built by `make integration-ha` alone: only its rolling
# upgrade drill needs it.)
maven_lane() {
  scripts/build_kafka_dist.sh
  KAFKA_VERSION=2.4.1 KAFKA_SCALA_VERSION=2.12 KAFKA_DIST_FLAVOUR=broker scripts/build_kafka_dist.sh
  scripts/fetch_spark_jars.sh
  scripts/fetch_jmx_exporter.sh
}

# Each lane's lines carry its name; the run fails when any lane does, after all have ended.
pids=()
for lane in python docker maven; do
  "${lane}_lane" 2>&1 | sed -u "s/^/[$lane] /" &
  pids+=("$!")
done
failed=0
for pid in "${pids[@]}"; do
  wait "$pid" || failed=1
done
if [ "$failed" -ne 0 ]; then
  echo "setup: failed, see the lines above" >&2
  exit 1
fi
