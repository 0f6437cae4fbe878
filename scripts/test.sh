#!/usr/bin/env bash
# `make test`: every phase, each timed. The phase times are printed at the end (also after a
# failure) and written to build/phases.json; a phase over its budget in tests/time_budget.json,
# or the test phases' wall time over `total`, fails the run, so growth shows when it happens.
#
# The unit tests, lint and sanity (make check) run beside the lab's deployment; then the
# integration tests run beside one lane: the Molecule scenarios, then the Kerberos lab's
# tests. All of them mostly wait for JVMs and containers, and the lane's hosts and networks are its
# own (kafka-dr-molecule, kafka-dr-secure, kafka-dr-lab-krb), so neither side touches the other's.
# The lane runs its two parts one after the other: a third set of brokers and workers at once on
# the two cores starved the others (timeouts, failed DNS lookups inside the lab).
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

# A phase whose output goes to its log, printed on failure.
logged_phase() {
  local name=$1 log=$2
  shift 2
  phase "$name" "$@" >"$log" 2>&1
}

report_lane_log() {
  local name=$1 log=$2
  if grep -q "^$name	[0-9.]*	0	" "$times"; then
    echo "==> $name: passed (output: $log)"
  else
    tail -n 200 "$log"
    echo "==> $name: FAILED, see $log"
  fi
}

# Molecule, then the Kerberos lab (its own KDC, brokers and worker); the second runs whatever the
# first gave, so one run reports both.
lane() {
  local molecule_status kerberos_status
  logged_phase molecule build/molecule.log make --no-print-directory molecule
  molecule_status=$?
  logged_phase kerberos build/kerberos.log make --no-print-directory integration-krb
  kerberos_status=$?
  [ "$molecule_status" -eq 0 ] && [ "$kerberos_status" -eq 0 ]
}

side_by_side() {
  local lane_pid integration_status lane_status
  lane &
  lane_pid=$!
  echo "==> molecule, then kerberos: running beside the integration tests (output: build/molecule.log, build/kerberos.log)"
  phase integration make --no-print-directory integration-tests
  integration_status=$?
  wait "$lane_pid"
  lane_status=$?
  report_lane_log molecule build/molecule.log
  report_lane_log kerberos build/kerberos.log
  [ "$integration_status" -eq 0 ] && [ "$lane_status" -eq 0 ]
}

# The quick checks beside the lab's deployment: neither needs the other, the deployment mostly
# waits for containers and JVMs, and the tests after them need both to pass.
check_beside_lab() {
  local check_pid check_status lab_status
  logged_phase check build/check.log make --no-print-directory check &
  check_pid=$!
  echo "==> check: running beside the lab's deployment (output: build/check.log)"
  phase lab make --no-print-directory lab-deploy
  lab_status=$?
  wait "$check_pid"
  check_status=$?
  cat build/check.log
  echo "==> check: $([ "$check_status" -eq 0 ] && echo passed || echo FAILED)"
  [ "$check_status" -eq 0 ] && [ "$lab_status" -eq 0 ]
}

run_phases() {
  phase setup make --no-print-directory setup &&
    check_beside_lab &&
    side_by_side
}

run_phases
status=$?
.venv/bin/python scripts/phase_times.py "$times" tests/time_budget.json build/phases.json || status=1
exit "$status"
