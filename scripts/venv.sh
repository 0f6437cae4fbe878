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
  .venv/bin/pip install -q --disable-pip-version-check -r requirements.txt
  echo "$pins" >.venv/.requirements.sha256
fi

# Collections: bundled by the pinned `ansible` package; a Galaxy install otherwise.
if ! .venv/bin/ansible-galaxy collection list community.docker 2>/dev/null | grep -q community.docker; then
  .venv/bin/ansible-galaxy collection install -r requirements.yml
fi
