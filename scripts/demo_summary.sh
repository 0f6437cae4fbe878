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
