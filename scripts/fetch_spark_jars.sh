#!/usr/bin/env bash
# Fetch the Spark Kafka source jars (spark-sql-kafka, its token provider, and the
# kafka-clients / commons-pool2 versions that this Spark release declares) from Maven
# into a local cache, so the validator passes them as `spark.jars` and a run never
# resolves packages at run time. Every jar must have the SHA-256 that role replication_check pins
# for its file name (replication_check_jar_checksums): a jar without a pin or with another digest
# fails the fetch and none is copied. Prints nothing when the cache is already complete.
#
#   KAFKA_DR_CACHE           cache root (default: ~/.cache/kafka-dr)
#   KAFKA_DR_SPARK_VERSION   Spark release (default: 4.1.3; must match pyspark)
#   KAFKA_DR_SCALA_VERSION   Scala binary version (default: 2.13)
#   KAFKA_DR_MAVEN_REPO      the one repository to use (default: Maven Central)
#   KAFKA_DR_SPARK_JARS_STRICT=1   fail instead of using an earlier patch release
#                                  of the token provider when the exact one is absent
#   KAFKA_DR_SPARK_JAR_CHECKSUMS   the YAML file with the pins (default: the role's defaults)
set -euo pipefail

spark_version=${KAFKA_DR_SPARK_VERSION:-4.1.3}
scala_version=${KAFKA_DR_SCALA_VERSION:-2.13}
maven_repo=${KAFKA_DR_MAVEN_REPO:-}
strict=${KAFKA_DR_SPARK_JARS_STRICT:-0}
cache=${KAFKA_DR_CACHE:-$HOME/.cache/kafka-dr}
dest="$cache/spark-jars/$spark_version"
marker="$dest/.complete"
dependency_plugin=org.apache.maven.plugins:maven-dependency-plugin:3.8.1
pins=${KAFKA_DR_SPARK_JAR_CHECKSUMS:-$(cd "$(dirname "$0")/.." && pwd)/roles/replication_check/defaults/main.yml}

fail() { echo "fetch_spark_jars: $*" >&2; exit 1; }

# The SHA-256 pinned for a jar's file name (a line '  "<name>.jar": "sha256:<hex>"'), or nothing.
pinned_digest() {
  sed -n "s/^  \"$(printf '%s' "$1" | sed 's/[.[\*^$]/\\&/g')\": \"sha256:\([0-9a-f]\{64\}\)\"\$/\1/p" "$pins"
}

# Says why a jar may not be used, and fails, when it has no pin or another SHA-256.
verify_jar() {
  local name digest actual
  name=$(basename "$1")
  digest=$(pinned_digest "$name")
  actual=$(sha256sum "$1" | cut -d' ' -f1)
  if [ -z "$digest" ]; then
    echo "fetch_spark_jars: $name (SHA-256 $actual) has no pin in replication_check_jar_checksums of $pins" >&2
    return 1
  fi
  if [ "$actual" != "$digest" ]; then
    echo "fetch_spark_jars: $name has SHA-256 $actual, not the $digest pinned in $pins" >&2
    return 1
  fi
}

[ -r "$pins" ] || fail "cannot read the jar pins in $pins"

# The marker lists the jars of a finished fetch; present, intact and as pinned means done.
if [ -f "$marker" ]; then
  intact=1
  while IFS= read -r jar; do
    if [ -n "$jar" ] && { [ ! -s "$dest/$jar" ] || ! verify_jar "$dest/$jar" 2>/dev/null; }; then intact=0; fi
  done <"$marker"
  [ "$intact" = 1 ] && exit 0
fi

command -v mvn >/dev/null 2>&1 || fail "Maven (mvn) is not installed; install it (apt-get install maven)"
[[ "$spark_version" =~ ^([0-9]+)\.([0-9]+)\.([0-9]+)$ ]] || fail "KAFKA_DR_SPARK_VERSION must look like 4.1.3, got '$spark_version'"
spark_line="${BASH_REMATCH[1]}.${BASH_REMATCH[2]}"
spark_patch="${BASH_REMATCH[3]}"

work=$(mktemp -d "${TMPDIR:-/tmp}/kafka-dr-spark-jars.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/jars"

# Spark's parent pom lists extra repositories (a cloud mirror of Central) that may
# be unreachable: resolve from Maven's built-in central only (other repositories are
# blocked), or from the one repository given in KAFKA_DR_MAVEN_REPO.
if [ -n "$maven_repo" ]; then
  mirror="<mirrorOf>*</mirrorOf><url>${maven_repo}</url>"
else
  mirror="<mirrorOf>*,!central</mirrorOf><url>http://0.0.0.0/</url><blocked>true</blocked>"
fi
cat >"$work/settings.xml" <<SETTINGS
<settings xmlns="http://maven.apache.org/SETTINGS/1.0.0">
  <mirrors>
    <mirror><id>kafka-dr-single-repo</id>${mirror}</mirror>
  </mirrors>
</settings>
SETTINGS

# Depending on spark-sql-kafka lets Maven pick the kafka-clients and commons-pool2
# versions that Spark declares; the artifact filter drops the rest of the tree
# (compression codecs, slf4j, ...) that pyspark already ships. The token provider is
# fetched on its own below, because some repositories lack a given patch release.
token_provider="spark-token-provider-kafka-0-10_${scala_version}"
cat >"$work/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>kafka-dr.local</groupId>
  <artifactId>spark-kafka-jars</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.spark</groupId>
      <artifactId>spark-sql-kafka-0-10_${scala_version}</artifactId>
      <version>${spark_version}</version>
      <exclusions>
        <exclusion>
          <groupId>org.apache.spark</groupId>
          <artifactId>${token_provider}</artifactId>
        </exclusion>
      </exclusions>
    </dependency>
  </dependencies>
</project>
POM

# -U re-checks artifacts an earlier run found missing (Maven caches such misses); -C fails on a
# download that does not match the repository's own checksum.
mvn_quiet() { mvn -q -B -U -C -Dstyle.color=never -s "$work/settings.xml" -f "$work/pom.xml" "$@" >>"$work/mvn.log" 2>&1; }

if ! mvn_quiet "$dependency_plugin:copy-dependencies" -DincludeScope=runtime \
    -DincludeArtifactIds="spark-sql-kafka-0-10_${scala_version},kafka-clients,commons-pool2" \
    -DoutputDirectory="$work/jars"; then
  echo "fetch_spark_jars: Maven could not fetch the Spark ${spark_version} Kafka jars; last lines:" >&2
  sed "s/\x1b\[[0-9;]*m//g" "$work/mvn.log" | tail -n 25 >&2
  exit 1
fi
for name in "spark-sql-kafka-0-10_${scala_version}" kafka-clients commons-pool2; do
  compgen -G "$work/jars/${name}-*.jar" >/dev/null || fail "${name} is missing from the Maven result for Spark ${spark_version}"
done

# The token provider only carries Kafka delegation-token helpers and is unchanged
# within a release line, so an earlier patch release of the same line is an
# acceptable stand-in when the exact one is not in the repository.
token_version=""
for ((patch = spark_patch; patch >= 0; patch--)); do
  candidate="${spark_line}.${patch}"
  if mvn_quiet "$dependency_plugin:copy" \
      -Dartifact="org.apache.spark:${token_provider}:${candidate}" -DoutputDirectory="$work/jars"; then
    token_version=$candidate
    break
  fi
  [ "$strict" = 1 ] && break
done
if [ -z "$token_version" ]; then
  echo "fetch_spark_jars: Maven could not fetch org.apache.spark:${token_provider}:${spark_version}; last lines:" >&2
  sed "s/\x1b\[[0-9;]*m//g" "$work/mvn.log" | tail -n 25 >&2
  exit 1
fi
if [ "$token_version" != "$spark_version" ]; then
  echo "fetch_spark_jars: ${token_provider}:${spark_version} is not in ${maven_repo:-Maven Central}; using ${token_version} (same ${spark_line} line)" >&2
fi

# Every jar as pinned before any is copied; the cache then holds exactly this set.
verified=1
for jar in "$work"/jars/*.jar; do
  verify_jar "$jar" || verified=0
done
[ "$verified" = 1 ] || fail "nothing was copied to $dest: check the jars above against Maven Central before pinning them"

mkdir -p "$dest"
rm -f "$marker"
for jar in "$dest"/*.jar; do
  [ -e "$jar" ] && [ ! -e "$work/jars/$(basename "$jar")" ] && rm -f "$jar"
done
: >"$work/complete"
for jar in "$work"/jars/*.jar; do
  cp -f "$jar" "$dest/"
  basename "$jar" >>"$work/complete"
done
mv -f "$work/complete" "$marker"
echo "fetch_spark_jars: $(wc -l <"$marker") jars in $dest"
