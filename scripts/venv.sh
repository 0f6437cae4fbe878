#!/usr/bin/env bash
# The controller's Python venv with the pinned packages, and nothing else: what
# `make check` needs. `make setup` runs it first, then installs the lab's pieces.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  python3 -m venv .venv
fi
pins=$(sha256sum requirements.txt | cut -d' ' -f1)
if [ "$(cat .venv/.requirements.sha256 2>/dev/null)" != "$pins" ]; then
  echo "setup: installing pinned Python packages"
  # The ansible package bundles about a hundred collections (15,000 Python files) and the
  # playbooks use those of requirements.yml. So pip compiles nothing, and bytecode is compiled
  # here, on both cores, for everything but the other collections. Ansible's runs need it:
  # PYTHONDONTWRITEBYTECODE keeps them from writing their own. As with pip, a file that does
  # not compile is only reported.
  .venv/bin/pip install -q --disable-pip-version-check --no-compile -r requirements.txt
  used=$(sed -n 's/^ *- name: \([a-z0-9_]*\)\.\([a-z0-9_]*\)$/\1\/\2/p' requirements.yml | paste -sd'|')
  .venv/bin/python -m compileall -q -j 0 -x "ansible_collections/(?!($used)/)[^/]+/[^/]+/" \
    .venv/lib/python*/site-packages || echo "setup: some files were left without bytecode"
  echo "$pins" >.venv/.requirements.sha256
fi

# Collections: bundled by the pinned `ansible` package; a Galaxy install otherwise.
if ! .venv/bin/ansible-galaxy collection list community.docker 2>/dev/null | grep -q community.docker; then
  .venv/bin/ansible-galaxy collection install -r requirements.yml
fi
