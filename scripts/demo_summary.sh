#!/usr/bin/env bash
# Prints what the lab runs: each Kafka cluster's id and topics, record counts per
# replicated topic, and each Connect worker's answer to GET / (HTTPS, basic auth).
set -euo pipefail
# The three-node lab (LAB_SHAPE=ha) names its hosts ha-* and keeps its state in .lab-ha; the
# Kerberos lab (LAB_SHAPE=krb) krb-* and .lab-krb.
prefix=${LAB_HOST_PREFIX:-}
source=${prefix}src-kafka-1
target=${prefix}dst-kafka-1
# tool HOST CLASS [SUBCOMMAND] ARGS...: a Kafka tool on HOST, connected to HOST's own SSL
# listener (a subcommand, as ClusterTool's, must come before the connection options).
tool() {
  local host=$1 class=$2 subcommand=()
  shift 2
  if [[ $# -gt 0 && $1 != -* ]]; then subcommand=("$1"); shift; fi
  docker exec -i "$host" /opt/kafka/kafka-run "$class" "${subcommand[@]}" --bootstrap-server "$host:9095" \
    --command-config /etc/kafka/broker/admin-client.properties "$@"
}
for broker in "$source" "$target"; do
  cluster_id=$(tool "$broker" org.apache.kafka.tools.ClusterTool cluster-id | sed 's/^Cluster ID: //')
  topics=$(tool "$broker" org.apache.kafka.tools.TopicCommand --list --exclude-internal | paste -sd, -)
  printf '%-12s cluster id %s\n' "$broker" "$cluster_id"
  printf '%-12s topics     %s\n' "" "${topics:-(none)}"
done
count() {
  tool "$1" org.apache.kafka.tools.GetOffsetShell --topic "$2" 2>/dev/null | awk -F: '{sum += $3} END {print sum + 0}'
}
printf '\n%-28s %12s   %-32s %12s\n' "source topic" "records" "target topic" "records"
for topic in $(tool "$source" org.apache.kafka.tools.TopicCommand --list --exclude-internal | grep -E '^foo\.' || true); do
  printf '%-28s %12s   %-32s %12s\n' "$topic" "$(count "$source" "$topic")" "src.$topic" "$(count "$target" "src.$topic")"
done
echo
# The REST password goes to the worker on stdin, never on a command line.
rest_password_file="$(dirname "$0")/../${LAB_STATE_DIR:-.lab}/secrets/rest"
for worker in "${prefix}task-1-1" "${prefix}task-1-2" "${prefix}task-1-3"; do
  if docker inspect "$worker" >/dev/null 2>&1; then
    info=$(docker exec -i "$worker" python3 -c '
import sys, requests
password = sys.stdin.read().strip()
answer = requests.get("https://%s:8083/" % sys.argv[1], auth=("operator", password),
                      verify="/etc/kafka/tls/ca.pem", timeout=10)
print(answer.status_code, answer.text)' "$worker" < "$rest_password_file" 2>/dev/null || echo "(not answering)")
    printf '%-12s GET /      %s\n' "$worker" "$info"
  fi
done

# Live figures from the lab's Prometheus (playbooks/monitoring.yml), published on loopback. The
# three-node and Kerberos labs have none: the one on loopback, if any, is the default lab's.
if [ -n "$prefix" ]; then
  echo
  echo "Prometheus: this lab runs none (the default lab's, make lab, has the live figures)"
  exit 0
fi
prometheus=http://127.0.0.1:19090
figure() {
  curl --silent --fail --get --data-urlencode "query=$2" "$prometheus/api/v1/query" | python3 -c '
import json, math, sys
label, unit = sys.argv[1], sys.argv[2]
values = [float(r["value"][1]) for r in json.load(sys.stdin)["data"]["result"]]
values = [v for v in values if not math.isnan(v)]
print("%-44s %s" % (label, ("%.1f %s" % (max(values), unit)) if values else "no data yet"))' "$1" "$3" \
    || echo "$1: Prometheus at $prometheus did not answer"
}
echo
echo "Prometheus: $prometheus (alerts: $prometheus/alerts)"
figure "records/s replicated (last minute)" 'sum(rate(kafka_connect_mirror_source_records_total[1m]))' "records/s"
figure "heartbeat replication latency, p99 of 5 min" \
  'max(quantile_over_time(0.99, kafka_connect_mirror_source_replication_latency_ms_max{topic=~"(.+[.])?heartbeats"}[5m]))' ms
figure "records not yet read from the source (lag)" 'sum(kafka_connect_mirror_source_consumer_records_lag)' records
figure "alerts firing" 'count(ALERTS{alertstate="firing"}) or vector(0)' ""
