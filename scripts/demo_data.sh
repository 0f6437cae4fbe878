#!/usr/bin/env bash
# Sample data for `make demo`: 10,000 keyed records with headers on the source topic
# foo.orders (once), then the time from the demo's start to the first record that
# MirrorMaker 2 replicated to src.foo.orders on the target. The tools run on the broker
# hosts with the broker's own admin client settings (TLS with the broker certificate).
set -euo pipefail
started=${DEMO_STARTED:-$(date +%s.%N)}
# The three-node lab (LAB_SHAPE=ha) names its hosts ha-*.
source=${LAB_HOST_PREFIX:-}src-kafka-1
target=${LAB_HOST_PREFIX:-}dst-kafka-1
# run HOST CLASS ARGS...: a Kafka tool on HOST, connected to HOST's own SSL listener.
run() {
  docker exec -i "$1" /opt/kafka/kafka-run "$2" --bootstrap-server "$1:9095" \
    --command-config /etc/kafka/broker/admin-client.properties "${@:3}"
}
offsets() {
  run "$1" org.apache.kafka.tools.GetOffsetShell --topic "$2" 2>/dev/null \
    | awk -F: '{sum += $3} END {print sum + 0}'
}

if [ "$(offsets "$source" foo.orders)" -eq 0 ]; then
  run "$source" org.apache.kafka.tools.TopicCommand \
    --create --if-not-exists --topic foo.orders --partitions 3 >/dev/null
  seq 1 10000 | awk '{printf "source:demo,seq:%d\torder-%05d\t{\"order\":%d,\"amount\":%d}\n", $1, $1 % 997, $1, $1 * 7 % 1000}' \
    | run "$source" org.apache.kafka.tools.ConsoleProducer --topic foo.orders \
        --reader-property parse.key=true --reader-property parse.headers=true --command-property acks=all
fi
for _ in $(seq 1 300); do
  if [ "$(offsets "$target" src.foo.orders)" -gt 0 ]; then
    awk -v now="$(date +%s.%N)" -v start="$started" -v target="$target" 'BEGIN {
      printf "first replicated record on %s (src.foo.orders) %.1f s after the demo started\n", target, now - start }'
    exit 0
  fi
  sleep 1
done
echo "no record reached src.foo.orders within 300 s" >&2
exit 1
