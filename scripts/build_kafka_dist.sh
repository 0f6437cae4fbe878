#!/usr/bin/env bash
# Assemble a Kafka distribution tarball (kafka_<scala>-<version>/libs/*.jar, the
# layout of the Apache tgz) from Maven Central artifacts, cached across runs, with
# a .sha512 beside it. The roles start Java directly, so this works like the real tgz.
# KAFKA_DIST_FLAVOUR=broker assembles brokers and tools only (kafka_<scala>-<version>-broker.tgz):
# the brokers of other releases that `make compat` runs, some of whose Connect artifacts Maven
# Central does not serve (connect-mirror 2.4.1, 4.4.0).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kafka_version=${KAFKA_VERSION:-4.3.1}
scala_version=${KAFKA_SCALA_VERSION:-2.13}
log4j_version=${KAFKA_LOG4J_VERSION:-2.25.3}
cache=${KAFKA_DR_CACHE:-$HOME/.cache/kafka-dr}
flavour=${KAFKA_DIST_FLAVOUR:-full}
name="kafka_${scala_version}-${kafka_version}"
case "$flavour" in
  full) pom_template="$here/kafka-dist/pom.xml.in"; archive="$name" ;;
  broker) pom_template="$here/kafka-dist/broker-pom.xml.in"; archive="$name-broker" ;;
  *) echo "KAFKA_DIST_FLAVOUR is full or broker, not '$flavour'" >&2; exit 2 ;;
esac
tarball="$cache/dist/$archive.tgz"

if [ -s "$tarball" ] && [ -s "$tarball.sha512" ] && \
   (cd "$cache/dist" && sha512sum --quiet -c "$archive.tgz.sha512" >/dev/null 2>&1); then
  exit 0
fi
command -v mvn >/dev/null || "$here/apt_install.sh" maven
mkdir -p "$cache/dist"
work=$(mktemp -d "${TMPDIR:-/tmp}/kafka-dist.XXXXXX")
trap 'rm -rf "$work"' EXIT
sed -e "s/@KAFKA_VERSION@/$kafka_version/g" -e "s/@SCALA_VERSION@/$scala_version/g" \
    -e "s/@LOG4J_VERSION@/$log4j_version/g" "$pom_template" >"$work/pom.xml"
echo "setup: assembling $name from Maven Central (once)"
mkdir -p "$work/$name/libs" "$work/$name/config"
mvn -q -B -f "$work/pom.xml" dependency:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="$work/$name/libs" >"$work/mvn.log" 2>&1 || {
  tail -n 40 "$work/mvn.log" >&2; exit 1; }
printf 'Kafka %s (Scala %s) assembled from Maven Central artifacts.\n' \
  "$kafka_version" "$scala_version" >"$work/$name/README.assembled"
# Reproducible archive: fixed order, owner and mtime, so the checksum only moves with content.
tar -C "$work" --sort=name --owner=0 --group=0 --numeric-owner --mtime='2020-01-01' \
    -czf "$tarball.tmp" "$name"
mv "$tarball.tmp" "$tarball"
(cd "$cache/dist" && sha512sum "$archive.tgz" >"$archive.tgz.sha512")
echo "setup: $tarball ($(du -h "$tarball" | cut -f1))"
