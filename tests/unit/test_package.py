# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The collection tarball that `ansible-galaxy collection build` makes holds the collection and
nothing else: no lab state, reports, venvs, caches, key material or literal passwords; and its
declared dependencies are the collections its content calls."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tarfile
from pathlib import Path
from typing import Dict, Iterator, List

import ansible
import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
ANSIBLE_GALAXY = REPO_ROOT / '.venv' / 'bin' / 'ansible-galaxy'

# What ships, by top-level path (a trailing / names a directory and all below it). The lab
# (inventories/lab, playbooks/lab*.yml), molecule/, tests/, bench/, scripts/ and the Makefile's
# tooling stay in the checkout: they need its venv, its Docker lab and each other.
SHIPPED = ('MANIFEST.json', 'FILES.json', 'README.md', 'CHANGELOG.md', 'changelogs/', 'meta/', 'plugins/', 'roles/',
           'playbooks/', 'docs/', 'inventories/example_emr/', 'extensions/')
NOT_SHIPPED = ('playbooks/lab.yml', 'playbooks/lab_down.yml')

# --- what counts as a secret -------------------------------------------------------------------

PRIVATE_KEY_BLOCK = re.compile(rb'-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----')
KEY_FILE_NAME = re.compile(r'\.(?:key|p12|pfx|jks|keytab)$|^id_(?:rsa|dsa|ecdsa|ed25519)$')
SECRET_DIRECTORIES = {'.lab', '.lab-ha', '.lab-krb', 'secrets'}
PASSWORD_SETTING = re.compile(
    r'''(?P<key>[\w.-]*(?:password|passwd|passphrase)[\w.-]*)["']?\s*[:=]\s*(?P<value>.*)''', re.IGNORECASE)
# Keys that name where a password is, not the password itself (file, key in a file, path ...).
REFERENCE_KEY = re.compile(r'(?:file|_key|path|location|dir|src)$', re.IGNORECASE)
# Unquoted values that are no literal: expressions, variables named like a password, YAML block
# indicators (the template follows on the next lines).
BARE_NON_LITERAL = re.compile(r'.*[(\[{].*|\w*(?:password|passwd|passphrase|secret)\w*|[|>][-+]?\d*', re.IGNORECASE)
# Values that are no password: templates, config-provider placeholders, vault data, samples.
PLACEHOLDER = re.compile(r'''.*(?:\{\{|\{%|\$\{|!vault|\$ANSIBLE_VAULT|lookup\().*|<[^>]*>|\.{3}|\*+|x{3,}|change[-_ ]?me.*'''
                         r'''|null|none|~|true|false|omit''', re.IGNORECASE | re.DOTALL)


def literal_password(line: str, python: bool) -> bool:
    """Whether a line sets a password-like key to a literal value.

    Quoted strings count everywhere. In YAML, properties or Markdown an unquoted single token
    counts too, unless it is an expression, a variable named like a password, or a YAML block
    indicator; in Python only quoted strings are literals.
    """
    match = PASSWORD_SETTING.search(line)
    if not match or REFERENCE_KEY.search(match['key']):
        return False
    value = re.sub(r'\s+#.*$', '', match['value']).strip().rstrip(',;.)}]').strip()
    quoted = re.fullmatch(r'''(["'])(.*)\1''', value)
    if quoted:
        value = quoted[2]
    elif python or ' ' in value or BARE_NON_LITERAL.fullmatch(value):
        return False
    return bool(value) and not PLACEHOLDER.fullmatch(value)


def secret_findings(path: str, content: bytes) -> List[str]:
    """Why a file of the tarball looks like a secret; empty when it does not."""
    findings: List[str] = []
    parts = path.split('/')
    if SECRET_DIRECTORIES.intersection(parts[:-1]) or parts[-1] in SECRET_DIRECTORIES:
        findings.append('%s: lies in a secrets directory' % path)
    if KEY_FILE_NAME.search(parts[-1]):
        findings.append('%s: named like a key or key store' % path)
    if PRIVATE_KEY_BLOCK.search(content):
        findings.append('%s: holds a PEM private key' % path)
    text = content.decode('utf-8', errors='replace')
    for number, line in enumerate(text.splitlines(), 1):
        if literal_password(line, python=path.endswith('.py')):
            # The key only: a test failure must not print the password it found.
            findings.append('%s:%d: a literal value for %s' % (path, number, PASSWORD_SETTING.search(line)['key']))
    return findings


# --- the detector itself ---------------------------------------------------------------------

FAKE_KEY = (b'-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n'
            b'-----END PRIVATE KEY-----\n')


@pytest.mark.parametrize('path, content', [
    ('roles/kafka_tls/files/ca.pem', FAKE_KEY),
    ('docs/notes.md', b'Keys look like this:\n-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----\n'),
    ('docs/encrypted.md', b'-----BEGIN ENCRYPTED PRIVATE KEY-----\n'),
    ('.lab/secrets/store', b'Zm9vYmFy'),
    ('roles/x/files/secrets/mm2.properties', b'sasl.username=mm2\n'),
    ('roles/x/files/host.key', b''),
    ('roles/x/files/keystore.p12', b''),
    ('roles/x/files/truststore.jks', b''),
    ('roles/x/files/kafka.keytab', b''),
    ('roles/x/defaults/main.yml', b'x_password: hunter2\n'),
    ('roles/x/defaults/main.yml', b'x_sasl_password: "s3cr3t pass"\n'),
    ('roles/x/templates/client.properties.j2', b'ssl.truststore.password = hunter2\n'),
    ('roles/x/templates/jaas.conf.j2', b'  username="mm2" password="hunter2";\n'),
    ('plugins/modules/x.py', b"    password = 'hunter2'\n"),
    ('docs/x.md', b'    "url_password": "hunter2",\n'),
])
def test_secret_detector_catches(path: str, content: bytes) -> None:
    assert secret_findings(path, content), path


@pytest.mark.parametrize('line, python', [
    ('connect_worker_kafka_sasl_password: "{{ vault_connect_password }}"', False),
    ('kafka_tls_store_password: ""', False),
    ('connect_worker_rest_ssl_keystore_password:', False),
    ('sasl.password: "{{ lab_mm2_password }}"', False),
    ('  username="mm2" password="${file:/etc/kafka/connect/secrets/mm2.properties:sasl.password}";', False),
    ('ssl.truststore.password={{ connect_worker_kafka_ssl_truststore_password }}', False),
    ('vault_emrsource_mm2_password: change-me', False),
    ('    ssl_truststore_password_file: emrsource.properties   # key ssl.truststore.password', False),
    ('sasl_password_key: sasl.password', False),
    ('password: !vault |', False),
    ('kafka_tls_provided_key_passphrase: <passphrase>', False),
    ('        description: Password; required unless absent.', False),
    ('Password: required unless the account is absent', False),
    ("    password = module.params['url_password']", True),
    ("        url_password=dict(type='str', no_log=True),", True),
    ('    no_log: true', False),
    ("        'ssl.keystore.password': connect_worker_kafka_ssl_keystore_password,", False),
    ("# PLAIN accounts, kept in the broker's JAAS file: [{username: ..., password: ...}].", False),
    ('mirrormaker_connect_password: >-', False),
    ('    password = sys.stdin.read().strip()', False),
])
def test_secret_detector_lets_references_and_placeholders_pass(line: str, python: bool) -> None:
    assert not literal_password(line, python)


def test_secret_detector_on_clean_content() -> None:
    assert secret_findings('roles/kafka_tls/tasks/secrets.yml', b'- name: x\n  no_log: true\n') == []
    assert secret_findings('docs/security.md', b'The CA key stays in `.lab/tls/ca/ca.key` on the controller.\n') == []


# --- the build --------------------------------------------------------------------------------

# Run output and local state that a checkout accumulates, planted in the copy the build reads.
PLANTED = {
    '.lab/secrets/x': FAKE_KEY,
    '.lab/tls/ca/ca.key': FAKE_KEY,
    'reports/r.json': b'{"verdict": "PASS"}\n',
    'build/site-vvv.log': b'sasl.password = hunter2\n',
    'tests/output/junit/result.xml': b'<testsuites/>\n',
    '.venv-sanity/pyvenv.cfg': b'home = /usr/bin\n',
    '.pytest_cache/v/cache/lastfailed': b'{}\n',
    '.ansible/collections/readme.txt': b'x\n',
    '.cache/kafka-dr/dist/kafka.tgz.sha512': b'x\n',
    'roles/mirrormaker/files/__pycache__/mirrormaker_plan.cpython-311.pyc': b'\0',
    'roles/kafka_tls/files/leftover.key': FAKE_KEY,
    'roles/connect_worker/files/secrets/worker.properties': b'sasl.jaas.config=x\n',
    'kafka_dr-mm2-0.0.1.tar.gz': b'\0',
}
# Not copied from the checkout: the real lab secrets and bulky or volatile local state
# (the planted files above stand for them).
ROOT_SKIPS = {'.git', '.lab', '.lab-ha', '.lab-krb', '.ansible', '.cache', '.pytest_cache', 'build', 'reports'}


def copy_skips(directory: str, names: List[str]) -> List[str]:
    at_root = Path(directory) == REPO_ROOT
    return [name for name in names
            if name == '__pycache__'
            or (at_root and (name in ROOT_SKIPS or name.startswith('.venv') or name.endswith('.tar.gz')))
            or (Path(directory) == REPO_ROOT / 'tests' and name == 'output')]


@pytest.fixture(scope='module')
def tarball(tmp_path_factory: pytest.TempPathFactory) -> Dict[str, bytes]:
    """The files of a tarball built from a copy of the checkout with local state planted in it."""
    base = tmp_path_factory.mktemp('package')
    tree = base / 'mm2'
    shutil.copytree(REPO_ROOT, tree, symlinks=True, ignore=copy_skips)
    for relative, content in PLANTED.items():
        (tree / relative).parent.mkdir(parents=True, exist_ok=True)
        (tree / relative).write_bytes(content)
    out = base / 'out'
    result = subprocess.run([str(ANSIBLE_GALAXY), 'collection', 'build', '--output-path', str(out), str(tree)],
                            cwd=base, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    (built,) = out.glob('kafka_dr-mm2-*.tar.gz')
    with tarfile.open(built) as archive:
        return {member.name: archive.extractfile(member).read() if member.isfile() else b''
                for member in archive.getmembers()}


def _outside_allow_list(name: str) -> bool:
    if name in NOT_SHIPPED:
        return True
    return not any(name == entry.rstrip('/') or (entry.endswith('/') and name.startswith(entry))
                   or (entry.startswith(name + '/')) for entry in SHIPPED)


@pytest.mark.playbook
def test_tarball_holds_only_the_collection(tarball: Dict[str, bytes]) -> None:
    assert [name for name in tarball if _outside_allow_list(name)] == []
    for must in ('MANIFEST.json', 'FILES.json', 'README.md', 'meta/runtime.yml', 'playbooks/site.yml',
                 'plugins/modules/connector.py', 'roles/mirrormaker/tasks/main.yml', 'docs/mirrormaker.md',
                 'inventories/example_emr/hosts.yml', 'extensions/monitoring/prometheus/mm2_alerts.yml',
                 'CHANGELOG.md', 'changelogs/changelog.yaml', 'changelogs/config.yaml'):
        assert must in tarball, must


@pytest.mark.playbook
def test_tarball_leaves_planted_local_state_out(tarball: Dict[str, bytes]) -> None:
    assert [name for name in PLANTED if name in tarball] == []
    assert [name for name in tarball
            if name.split('/')[0] in ('.lab', 'reports', 'build', 'tests', 'molecule', 'bench', 'scripts')] == []


@pytest.mark.playbook
def test_tarball_holds_no_secret(tarball: Dict[str, bytes]) -> None:
    assert [finding for name, content in tarball.items() for finding in secret_findings(name, content)] == []


def _collection_calls(tarball: Dict[str, bytes]) -> Iterator[str]:
    """namespace.name of every collection of the ansible package that shipped roles, plugins or playbooks name."""
    installed = Path(ansible.__file__).resolve().parents[1] / 'ansible_collections'
    fqcn = re.compile(r'\b([a-z][a-z0-9_]*)\.([a-z][a-z0-9_]*)\.[a-z][a-z0-9_]*\b')
    for name, content in tarball.items():
        if name.split('/')[0] in ('roles', 'plugins', 'playbooks', 'meta'):
            for namespace, collection in fqcn.findall(content.decode('utf-8', errors='replace')):
                if (installed / namespace / collection / 'MANIFEST.json').is_file():
                    yield '%s.%s' % (namespace, collection)


@pytest.mark.playbook
def test_dependencies_are_the_collections_the_content_calls(tarball: Dict[str, bytes]) -> None:
    manifest = json.loads(tarball['MANIFEST.json'])
    declared = set(manifest['collection_info']['dependencies'])
    called = set(_collection_calls(tarball)) - {'ansible.builtin', 'kafka_dr.mm2'}
    assert called == declared
    runtime = yaml.safe_load(tarball['meta/runtime.yml'])
    assert runtime['requires_ansible'].startswith('>=2.19')


def test_ansible_test_reads_the_python_floor() -> None:
    """tests/config.yml parses as ansible-test's config (it only warns about a bad one)."""
    from ansible_test._internal.content_config import parse_content_config  # pylint: disable=import-outside-toplevel

    config = parse_content_config(yaml.safe_load((REPO_ROOT / 'tests' / 'config.yml').read_text()))
    assert config.modules.python_versions[0] == '3.11'
    assert not config.modules.controller_only
