#!/usr/bin/env bash
# Fetch the Prometheus JMX exporter agent that role jmx_exporter pins (version and SHA-256
# from its defaults) from Maven Central into the cache, so the lab installs it from the
# controller like an air-gapped site would. Prints nothing when the cache already holds it.
#
#   KAFKA_DR_CACHE        cache root (default: ~/.cache/kafka-dr)
#   KAFKA_DR_MAVEN_REPO   the one repository to use (default: Maven Central)
set -euo pipefail
cd "$(dirname "$0")/.."
cache=${KAFKA_DR_CACHE:-$HOME/.cache/kafka-dr}
maven_repo=${KAFKA_DR_MAVEN_REPO:-https://repo1.maven.org/maven2}
defaults=roles/jmx_exporter/defaults/main.yml

fail() { echo "fetch_jmx_exporter: $*" >&2; exit 1; }

version=$(sed -n 's/^jmx_exporter_version: "\(.*\)"$/\1/p' "$defaults")
[ -n "$version" ] || fail "no jmx_exporter_version in $defaults"
digest=$(sed -n "s/^  \"$version\": \"sha256:\([0-9a-f]\{64\}\)\"$/\1/p" "$defaults")
[ -n "$digest" ] || fail "no sha256 digest for agent $version in $defaults"

jar="jmx_prometheus_javaagent-$version.jar"
dest="$cache/jmx_exporter/$jar"
if [ -s "$dest" ] && echo "$digest  $dest" | sha256sum --check --status; then
  exit 0
fi

mkdir -p "$cache/jmx_exporter"
partial=$(mktemp "$cache/jmx_exporter/.$jar.XXXXXX")
trap 'rm -f "$partial"' EXIT
echo "fetch_jmx_exporter: downloading $jar"
curl --fail --silent --show-error --location --retry 3 -o "$partial" \
  "$maven_repo/io/prometheus/jmx/jmx_prometheus_javaagent/$version/$jar" || fail "download of $jar failed"
echo "$digest  $partial" | sha256sum --check --status || fail "$jar does not match the SHA-256 pinned in $defaults"
chmod 0644 "$partial"
mv "$partial" "$dest"
