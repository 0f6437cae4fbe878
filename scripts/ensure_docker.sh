#!/usr/bin/env bash
# Make sure a Docker engine answers; install and start one when none does.
# CI machines start with no service running, so this is part of `make setup`.
set -euo pipefail
log=${DOCKERD_LOG:-/var/log/kafka-dr-dockerd.log}

if docker info >/dev/null 2>&1; then
  exit 0
fi
if ! command -v dockerd >/dev/null 2>&1; then
  echo "setup: installing docker.io"
  scripts/apt_install.sh docker.io
fi
echo "setup: starting dockerd (log: $log)"
# setsid detaches the engine from the calling make so it outlives the run.
setsid nohup dockerd >"$log" 2>&1 </dev/null &
for _ in $(seq 1 60); do
  if docker info >/dev/null 2>&1; then
    exit 0
  fi
  sleep 1
done
echo "setup: dockerd did not answer within 60 s; last log lines:" >&2
tail -n 30 "$log" >&2
exit 1
