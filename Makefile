# kafka_dr.mm2: `make demo` runs the local lab, `make test` runs every test,
# `make check` is the quick loop (in-process unit tests, lint, sanity; no docker, no lab).
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
export PATH := $(BIN):$(PATH)
export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg
# Keeps the job package free of bytecode that tests would add between deployments.
export PYTHONDONTWRITEBYTECODE := 1
PYTEST := $(BIN)/pytest

# LAB_SHAPE=ha: the lab targets (lab, lab-down, lab-deploy, demo) work on the three-node lab of
# inventories/lab-ha (hosts ha-*, state in .lab-ha) instead of the default one; LAB_SHAPE=krb on
# the Kerberos lab of inventories/lab-krb (a KDC, hosts krb-*, state in .lab-krb). They can run
# side by side.
LAB_SHAPE ?= default
ifeq ($(LAB_SHAPE),ha)
export ANSIBLE_INVENTORY := $(CURDIR)/inventories/lab-ha
export LAB_HOST_PREFIX := ha-
export LAB_STATE_DIR := .lab-ha
else ifeq ($(LAB_SHAPE),krb)
export ANSIBLE_INVENTORY := $(CURDIR)/inventories/lab-krb
export LAB_HOST_PREFIX := krb-
export LAB_STATE_DIR := .lab-krb
else ifneq ($(LAB_SHAPE),default)
$(error LAB_SHAPE is default, ha or krb, not '$(LAB_SHAPE)')
endif
export LAB_SHAPE

.PHONY: venv setup lab lab-down lab-deploy demo test check unit unit-fast unit-slow integration integration-tests \
	integration-ha integration-ha-tests integration-krb integration-krb-tests integration-rotation integration-rotation-tests \
	integration-ha-fresh integration-krb-fresh integration-rotation-run bench-run release-check compat integration-scale integration-readiness integration-verification kafka-previous-release \
	molecule lint docs sanity bench drill spark-cluster validate-cluster clean

# The controller's venv only: enough for check, unit, lint and sanity.
venv:
	@scripts/venv.sh

# Everything the lab, integration tests and Molecule need as well.
setup:
	@scripts/setup.sh

lab: setup
	ansible-playbook playbooks/lab.yml

lab-down: setup
	ansible-playbook playbooks/lab_down.yml

# The lab, the deployment, sample data, the validation job, then a summary. playbooks/lab.yml
# provisioned the brokers (site.yml's stage kafka), so the deployment goes on from the workers.
demo: export DEMO_STARTED := $(shell date +%s.%N)
demo: lab
	ansible-playbook site.yml --skip-tags kafka,validate
	@scripts/demo_data.sh
	ansible-playbook playbooks/validate.yml
	@scripts/demo_summary.sh

# Quick loop: the in-process unit tests, lint and sanity, with no docker and no lab. The three
# run side by side; each one's output is printed whole when it ends. The one sub-make builds
# their shared venv prerequisite once. The unit tests that start a Spark JVM or ansible-playbook
# (unit-slow) are left to `make unit` and `make test`: they are most of the unit tests' CPU time.
check:
	@$(MAKE) --no-print-directory -j 3 --output-sync=target unit-fast lint sanity

# Every unit test; two test processes, as most of the time goes to Spark jobs and playbook runs.
unit: venv
	$(PYTEST) -q -n 2 tests/unit

# Only the in-process unit tests (no ansible-playbook, no Spark JVM): seconds.
unit-fast: venv
	$(PYTEST) -q -n 2 -m 'not playbook and not spark' tests/unit

# The unit tests that start a Spark JVM or run ansible-playbook (markers spark, playbook).
unit-slow: venv
	$(PYTEST) -q -n 2 -m 'playbook or spark' tests/unit

# The deployment runs with -vvv into build/site-vvv.log: tests/integration/test_security_lab.py
# checks that its output holds no secret. The demo's sample data is left on the lab, as a
# user's lab would hold it, so the tests prove they do not depend on a clean lab.
lab-deploy: lab
	@mkdir -p build
	ansible-playbook -vvv site.yml --skip-tags validate > build/site-vvv.log 2>&1 || { tail -n 60 build/site-vvv.log; exit 1; }
	@sed -n '/PLAY RECAP/,$$p' build/site-vvv.log
	@scripts/demo_data.sh

# The default lab's tests: the drill suites under tests/integration/ (ha, kerberos, rotation) run
# on labs or schedules of their own, below.
DRILL_SUITES := ha kerberos rotation compat scale readiness verification
integration-tests:
	$(PYTEST) -q --durations=20 -n 2 --dist loadgroup --no-loadscope-reorder --junitxml=build/integration.xml \
		$(DRILL_SUITES:%=--ignore=tests/integration/%) tests/integration

# Tests that need a lab shape of their own, each on a fresh lab of that shape, removed when they
# pass (kept for a look when they fail):
# - integration-ha: the drills of the production shape (tests/integration/ha), on the three-node lab at the
#   previous Kafka release (the rolling upgrade drill moves it to the current one);
# - integration-krb: Kerberos end to end (tests/integration/kerberos), on the Kerberos lab (a KDC, GSSAPI
#   brokers, keytab logins).
#
# The suites outside `test` (integration-ha, integration-rotation, bench) run through
# scripts/suites.py, which times them and, when they pass, records the commit, date, wall time
# and the digests of the files they watch in tests/suites.json (commit it) and docs/development.md.
# `make test` fails while a watched file differs from its suite's last pass. `make release-check`
# runs the three, one after the other.
SUITE := $(BIN)/python scripts/suites.py run
integration-ha: setup
	@$(SUITE) integration-ha -- $(MAKE) --no-print-directory kafka-previous-release integration-ha-fresh

# The three-node lab starts at Kafka's previous release, which its rolling upgrade drill leaves:
# built here, not by setup, as nothing else runs it.
kafka-previous-release:
	KAFKA_VERSION=$${KAFKA_DR_PREVIOUS_VERSION:-4.2.0} scripts/build_kafka_dist.sh

integration-krb: setup
	@$(MAKE) --no-print-directory integration-krb-fresh

integration-ha-fresh integration-krb-fresh: integration-%-fresh:
	@$(MAKE) --no-print-directory LAB_SHAPE=$* lab-down
	@$(MAKE) --no-print-directory LAB_SHAPE=$* integration-$*-tests
	@$(MAKE) --no-print-directory LAB_SHAPE=$* lab-down >/dev/null

# The version matrix (tests/integration/compat, docs/compatibility.md), beside the default lab: one-node
# clusters of Kafka 2.4.1 (ZooKeeper), 3.9.1 and 4.4.0 (KRaft) started from unmodified distributions,
# flows between them through the lab's Connect and through a plain connect-distributed 3.9.1.
# Figures in build/compat-figures.jsonl.
compat: lab-deploy
	$(PYTEST) -q -s --durations=10 -p no:cacheprovider tests/integration/compat

# The node lifecycle on the default lab (tests/integration/scale, docs/production.md "Scale out, scale
# in, replace a node"): a third task node joins, the first is drained, the second is lost and rebuilt,
# a replication policy comes from its own jar; each under a paced producer, ended by the validator.
# Figures in build/scale-figures.jsonl. The drills compile the policy jar (javac, JDK installed here).
integration-scale: lab-deploy
	@scripts/apt_install.sh openjdk-17-jdk-headless
	$(PYTEST) -q -s --durations=10 -p no:cacheprovider tests/integration/scale

# The DR readiness drills on the default lab (tests/integration/readiness, docs/readiness.md): the
# readiness exporter scraped by the lab's Prometheus, a consumer's missing binding, a lower
# min.insync.replicas, records deleted past a paused flow, a source topic re-created. They pause the
# lab's flow, so they stay outside `test`. Figures in build/readiness-figures.jsonl.
integration-readiness: lab-deploy
	$(PYTEST) -q -s --durations=10 -p no:cacheprovider tests/integration/readiness

# The continuous verification drills on the default lab (tests/integration/verification,
# docs/validator.md): role replication_check's increments on a timer for the drills' topics, scraped
# by the lab's Prometheus, under a paced load while a worker is SIGKILLed, the verification job is
# killed and restarted, the target's broker restarts, and the target is tampered with.
integration-verification: lab-deploy
	$(PYTEST) -q -s --durations=10 -p no:cacheprovider tests/integration/verification

integration-ha-tests:
	$(PYTEST) -q -s --durations=10 tests/integration/ha

integration-krb-tests:
	$(PYTEST) -q -s --durations=10 tests/integration/kerberos

# Credential rotation under load on the default lab (tests/integration/rotation, docs/security.md "Rotating
# credentials"): SCRAM passwords, host certificates, a CA roll; figures in build/rotation-figures.jsonl.
# Not part of test: the drills rotate the lab's credentials and take about 46 min on 2 cores.
integration-rotation: setup
	@$(SUITE) integration-rotation -- $(MAKE) --no-print-directory integration-rotation-run

integration-rotation-run: lab-deploy
	@$(MAKE) --no-print-directory integration-rotation-tests

integration-rotation-tests:
	$(PYTEST) -q -s --durations=10 tests/integration/rotation

# A Spark standalone cluster on the lab's task nodes (role spark_standalone), and the validation
# job submitted to it instead of running Spark in-process.
spark-cluster: setup
	ansible-playbook playbooks/spark.yml

validate-cluster: spark-cluster
	ansible-playbook playbooks/validate.yml -e @inventories/lab-options/spark_submit.yml

# The failover drill alone, with its figures (docs/failover.md).
drill: lab-deploy
	$(PYTEST) -q -s tests/integration/test_failover_drill.py

integration: lab-deploy
	@$(MAKE) --no-print-directory integration-tests

lint: venv
	ansible-lint --offline --profile production -q
	$(BIN)/python scripts/gen_docs.py --check

# Role README variable tables from meta/argument_specs.yml, and the guide's included files.
docs: venv
	$(BIN)/python scripts/gen_docs.py

# ansible-test needs the collection under ansible_collections/<namespace>/<name>.
sanity: venv
	scripts/sanity.sh

molecule: setup
	molecule test --all

# Every phase, timed against tests/time_budget.json (scripts/test.sh).
test:
	@scripts/test.sh

# Replication figures on the lab, deployed first (a no-change rerun when it already runs), with
# the validation job installed: docs/performance.md. BENCH_RECORDS, BENCH_SIZES, BENCH_PARTS,
# BENCH_DEPLOY=1, BENCH_SPARK_CLUSTER=0; writes build/bench/bench.{json,png,log}.
bench: setup
	@$(SUITE) bench -- $(MAKE) --no-print-directory bench-run

bench-run: lab-deploy
	ansible-playbook playbooks/validate.yml --tags replication_check_install
	@mkdir -p build/bench
	$(BIN)/python -m bench 2>&1 | tee build/bench/bench.log

# Every suite outside `test`, the check before a release: the three-node lab's drills on a lab of
# their own (removed when they pass), then the default lab's rotation drills and the benchmark.
release-check:
	@$(MAKE) --no-print-directory integration-ha
	@$(MAKE) --no-print-directory integration-rotation
	@$(MAKE) --no-print-directory bench

clean:
	rm -rf build .pytest_cache
