#!/usr/bin/env bash
# ansible-test sanity on a copy of the collection laid out as
# ansible_collections/kafka_dr/mm2, outside the checkout (inside it, ansible-test
# would list files through git). A venv of its own keeps the sanity pins apart.
set -euo pipefail
cd "$(dirname "$0")/.."
root=${TMPDIR:-/tmp}/kafka-dr-sanity
collection=$root/ansible_collections/kafka_dr/mm2
sanity_venv=$PWD/.venv-sanity
core_pin=$(grep -E '^ansible-core==' requirements.txt)

[ -x "$sanity_venv/bin/python" ] || python3 -m venv "$sanity_venv"
"$sanity_venv/bin/pip" install -q --disable-pip-version-check "$core_pin"

# ansible-test bootstraps pip in each test venv with a script it downloads from a
# host outside the package registries; put an equivalent where it looks first.
pip_version=$("$sanity_venv/bin/python" -c '
from ansible_test._internal.python_requirements import get_venv_packages
from ansible_test._internal.host_configs import NativePythonConfig
print(get_venv_packages(NativePythonConfig(version="3.11"))["pip"])')
mkdir -p "$HOME/.ansible/test/cache"
cp scripts/ansible_test_get_pip.py "$HOME/.ansible/test/cache/get_pip_${pip_version//./_}.py"

rm -rf "$root" && mkdir -p "$collection"
# tar rather than rsync: `make check` installs nothing beyond the venv. The lab state
# (.lab: CA key, passwords) and run output stay behind.
tar -C . --exclude './.venv*' --exclude ./.collections --exclude ./build --exclude ./.git \
  --exclude ./.lab --exclude ./.lab-ha --exclude ./.lab-krb --exclude ./reports --exclude ./tests/output --exclude './*.tar.gz' \
  --exclude __pycache__ --exclude .pytest_cache -cf - . \
  | tar -C "$collection" -xf -
cd "$collection"
"$sanity_venv/bin/ansible-test" sanity --requirements --python 3.11 \
  --python-interpreter "$sanity_venv/bin/python" --color no "$@"
