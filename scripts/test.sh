#!/usr/bin/env bash
# `make test`: every phase, each timed. The phase times are printed at the end (also after a
# failure) and written to build/phases.json; a phase over its budget in tests/time_budget.json,
# or the test phases' wall time over `total`, fails the run, so growth shows when it happens.
#
# The integration tests and the Molecule scenarios run side by side: both mostly wait for
# JVMs and containers, Molecule's containers are its own (network kafka-dr-molecule), and
# neither touches the other's hosts. Molecule's output goes to build/molecule.log and is
# printed after the integration tests.
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

side_by_side() {
  local molecule_pid integration_status molecule_status
  phase molecule make --no-print-directory molecule >build/molecule.log 2>&1 &
  molecule_pid=$!
  echo "==> molecule: running beside the integration tests (output: build/molecule.log)"
  phase integration make --no-print-directory integration-tests
  integration_status=$?
  wait "$molecule_pid"
  molecule_status=$?
  if [ "$molecule_status" -eq 0 ]; then
    echo "==> molecule: passed (output: build/molecule.log)"
  else
    tail -n 200 build/molecule.log
    echo "==> molecule: FAILED (exit $molecule_status), see build/molecule.log"
  fi
  [ "$integration_status" -eq 0 ] && [ "$molecule_status" -eq 0 ]
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
