# kafka_dr.mm2: `make demo` runs the local lab, `make test` runs every test.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
export PATH := $(BIN):$(PATH)
export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg
# Keeps the job package free of bytecode that tests would add between deployments.
export PYTHONDONTWRITEBYTECODE := 1
PYTEST := $(BIN)/pytest

.PHONY: setup lab lab-down demo test unit integration molecule lint sanity bench clean

setup:
	@scripts/setup.sh

lab: setup
	ansible-playbook playbooks/lab.yml

lab-down: setup
	ansible-playbook playbooks/lab_down.yml

# The lab, the deployment, sample data, the validation job, then a summary.
demo: export DEMO_STARTED := $(shell date +%s.%N)
demo: lab
	ansible-playbook site.yml --skip-tags validate
	@scripts/demo_data.sh
	ansible-playbook playbooks/validate.yml
	@scripts/demo_summary.sh

unit: setup
	$(PYTEST) -q tests/unit

# The deployment runs with -vvv into build/site-vvv.log: tests/integration/test_security_lab.py
# checks that its output holds no secret.
integration: lab
	@mkdir -p build
	ansible-playbook -vvv site.yml --skip-tags validate > build/site-vvv.log 2>&1 || { tail -n 60 build/site-vvv.log; exit 1; }
	@sed -n '/PLAY RECAP/,$$p' build/site-vvv.log
	$(PYTEST) -q --durations=15 tests/integration

lint: setup
	ansible-lint --offline --profile production -q

# ansible-test needs the collection under ansible_collections/<namespace>/<name>.
sanity: setup
	scripts/sanity.sh

molecule: setup
	molecule test --all

test: unit lint sanity integration molecule

bench: lab
	ansible-playbook site.yml --skip-tags validate
	ansible-playbook playbooks/validate.yml --tags replication_check_install
	$(BIN)/python -m tests.bench

clean:
	rm -rf build .pytest_cache
