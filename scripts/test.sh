#!/usr/bin/env bash
# `make test`: every phase, each timed. The phase times are printed at the end (also after a
# failure) and written to build/phases.json; a phase over its budget in tests/time_budget.json,
# or the test phases' wall time over `total`, fails the run, so growth shows when it happens.
#
# The in-process unit tests, lint and sanity (make check) run beside the lab's deployment, and
# the unit tests that start Spark or ansible-playbook (make unit-slow) right after them: on a cold
# lab they end before the deployment does, on a lab `make demo` left they run on into the next
# step. Then the integration tests run beside one lane: it waits for unit-slow, then runs the
# Molecule scenarios, then the Kerberos lab's tests. All of them mostly wait for JVMs and
# containers, and the lane's hosts and networks are its own (kafka-dr-molecule, kafka-dr-secure,
# kafka-dr-lab-krb), so neither side touches the other's. The lane runs its parts one after the
# other: a third set of brokers and workers at once on the two cores starved the others
# (timeouts, failed DNS lookups inside the lab).
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

report_logged_phase() {
  local name=$1 log=$2
  if grep -q "^$name	[0-9.]*	0	" "$times"; then
    echo "==> $name: passed (output: $log)"
  else
    tail -n 200 "$log"
    echo "==> $name: FAILED, see $log"
  fi
}

# Waits until phase NAME has ended (phase() writes its line then); true when it passed. For a
# phase started by another background job, which this shell cannot `wait` for.
await_phase() {
  local name=$1 line
  until line=$(grep -m 1 "^$name	" "$times"); do sleep 2; done
  [ "$(cut -f 3 <<<"$line")" -eq 0 ]
}

# Molecule, then the Kerberos lab (its own KDC, brokers and worker), once the slow unit tests
# are done; each runs whatever the one before gave, so one run reports all three.
lane() {
  local unit_status molecule_status kerberos_status
  await_phase unit-slow
  unit_status=$?
  logged_phase molecule build/molecule.log make --no-print-directory molecule
  molecule_status=$?
  logged_phase kerberos build/kerberos.log make --no-print-directory integration-krb
  kerberos_status=$?
  [ "$unit_status" -eq 0 ] && [ "$molecule_status" -eq 0 ] && [ "$kerberos_status" -eq 0 ]
}

# Two functions side by side, the first in the background; true when both succeed.
beside() {
  local background_pid foreground_status background_status
  "$1" &
  background_pid=$!
  "$2"
  foreground_status=$?
  wait "$background_pid"
  background_status=$?
  [ "$foreground_status" -eq 0 ] && [ "$background_status" -eq 0 ]
}

check_phase() { logged_phase check build/check.log make --no-print-directory check; }
unit_slow_phase() { logged_phase unit-slow build/unit-slow.log make --no-print-directory unit-slow; }
lab_phase() { phase lab make --no-print-directory lab-deploy; }
integration_phase() { phase integration make --no-print-directory integration-tests; }

# The unit tests run whatever check gave, so one run reports both.
unit_tests() {
  check_phase
  unit_slow_phase
}

# The quick checks beside the lab's deployment: neither needs the other, the deployment mostly
# waits for containers and JVMs, and the tests after them need both to pass. unit-slow goes on
# in the background (the lane waits for it); UNIT_TESTS_PID is its job.
check_beside_lab() {
  local lab_status check_status
  echo "==> check, then unit-slow: running beside the lab's deployment (output: build/check.log, build/unit-slow.log)"
  unit_tests &
  UNIT_TESTS_PID=$!
  lab_phase
  lab_status=$?
  await_phase check
  check_status=$?
  report_logged_phase check build/check.log
  [ "$lab_status" -eq 0 ] && [ "$check_status" -eq 0 ]
}

side_by_side() {
  local status
  echo "==> molecule, then kerberos (after unit-slow): running beside the integration tests" \
    "(output: build/molecule.log, build/kerberos.log)"
  beside lane integration_phase
  status=$?
  report_logged_phase unit-slow build/unit-slow.log
  report_logged_phase molecule build/molecule.log
  report_logged_phase kerberos build/kerberos.log
  return "$status"
}

run_phases() {
  local status
  UNIT_TESTS_PID=
  phase setup make --no-print-directory setup &&
    check_beside_lab &&
    side_by_side
  status=$?
  # After a failure before the lane, unit-slow still reports.
  if [ -n "$UNIT_TESTS_PID" ]; then
    wait "$UNIT_TESTS_PID"
    grep -q "^unit-slow	" "$times" && ! grep -q "^molecule	" "$times" && report_logged_phase unit-slow build/unit-slow.log
  fi
  return "$status"
}

run_phases
status=$?
.venv/bin/python scripts/phase_times.py "$times" tests/time_budget.json build/phases.json || status=1
exit "$status"
