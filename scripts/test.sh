#!/usr/bin/env bash
# `make test`: every phase, each timed. The phase times are printed at the end (also after a
# failure) and written to build/phases.json; a phase over its budget in tests/time_budget.json,
# or the test phases' wall time over `total`, fails the run, so growth shows when it happens.
#
# The integration tests, the Molecule scenarios and the drills of the three-node lab
# (`make integration-ha`, tests/ha) run side by side: all mostly wait for JVMs and containers,
# and none touches another's hosts: Molecule's containers are its own (network
# kafka-dr-molecule), the three-node lab's too (ha-*, networks kafka-dr-lab-ha*). Molecule's and
# the drills' output go to build/molecule.log and build/ha.log, printed after the integration tests.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p build
times=build/phases.tsv
: >"$times"

phase() {
  local name=$1 started status
  shift
  echo "==> $name: $*"
  started=$(date +%s.%N)
  "$@"
  status=$?
  printf '%s\t%s\t%s\t%s\n' "$name" "$(awk -v s="$started" -v e="$(date +%s.%N)" 'BEGIN {printf "%.1f", e - s}')" \
    "$status" "$started" >>"$times"
  return "$status"
}

report_lane_log() {
  local name=$1 log=$2
  if [ "$(awk -F'\t' -v n="$name" '$1 == n {print $3}' "$times")" = "0" ]; then
    echo "==> $name: passed (output: $log)"
  else
    tail -n 200 "$log"
    echo "==> $name: FAILED, see $log"
  fi
}

side_by_side() {
  local molecule_pid ha_pid integration_status molecule_status ha_status
  phase molecule make --no-print-directory molecule >build/molecule.log 2>&1 &
  molecule_pid=$!
  phase ha make --no-print-directory integration-ha >build/ha.log 2>&1 &
  ha_pid=$!
  echo "==> molecule and the three-node lab's drills: running beside the integration tests" \
    "(output: build/molecule.log, build/ha.log)"
  phase integration make --no-print-directory integration-tests
  integration_status=$?
  wait "$molecule_pid"
  molecule_status=$?
  wait "$ha_pid"
  ha_status=$?
  report_lane_log molecule build/molecule.log
  report_lane_log ha build/ha.log
  grep '^HA DRILL ' build/ha.log || true
  [ "$integration_status" -eq 0 ] && [ "$molecule_status" -eq 0 ] && [ "$ha_status" -eq 0 ]
}

run_phases() {
  phase setup make --no-print-directory setup &&
    phase check make --no-print-directory check &&
    phase lab make --no-print-directory lab-deploy &&
    side_by_side
}

run_phases
status=$?
.venv/bin/python scripts/phase_times.py "$times" tests/time_budget.json build/phases.json || status=1
exit "$status"
