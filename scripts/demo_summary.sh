#!/usr/bin/env bash
# Prints what the lab runs: each Kafka cluster's id and topics.
set -euo pipefail
for broker in src-kafka-1 dst-kafka-1; do
  cluster_id=$(docker exec "$broker" /opt/kafka/kafka-run org.apache.kafka.tools.ClusterTool \
    cluster-id --bootstrap-server "$broker:9092" | sed 's/^Cluster ID: //')
  topics=$(docker exec "$broker" /opt/kafka/kafka-run org.apache.kafka.tools.TopicCommand \
    --bootstrap-server "$broker:9092" --list --exclude-internal | paste -sd, -)
  printf '%-12s cluster id %s\n' "$broker" "$cluster_id"
  printf '%-12s topics     %s\n' "" "${topics:-(none)}"
done
count() {
  docker exec "$1" /opt/kafka/kafka-run org.apache.kafka.tools.GetOffsetShell --bootstrap-server "$1:9092" \
    --topic "$2" 2>/dev/null | awk -F: '{sum += $3} END {print sum + 0}'
}
printf '\n%-28s %12s   %-32s %12s\n' "source topic" "records" "target topic" "records"
for topic in $(docker exec src-kafka-1 /opt/kafka/kafka-run org.apache.kafka.tools.TopicCommand \
                 --bootstrap-server src-kafka-1:9092 --list --exclude-internal | grep -E '^foo\.' || true); do
  printf '%-28s %12s   %-32s %12s\n' "$topic" "$(count src-kafka-1 "$topic")" "src.$topic" "$(count dst-kafka-1 "src.$topic")"
done
echo
for worker in task-1-1 task-1-2; do
  if docker inspect "$worker" >/dev/null 2>&1; then
    info=$(docker exec "$worker" python3 -c \
      'import urllib.request; print(urllib.request.urlopen("http://127.0.0.1:8083/", timeout=10).read().decode())' \
      2>/dev/null || echo "(not answering)")
    printf '%-12s GET /      %s\n' "$worker" "$info"
  fi
done
