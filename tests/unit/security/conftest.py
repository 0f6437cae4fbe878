"""Renders the security settings of kafka_broker and connect_worker once per test session.

Each case is a set of role variables; tests/unit/security/render.yml renders, for every
case, the files the role would write, from the role's own defaults, vars and templates.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[3]
RENDER_PLAYBOOK = Path(__file__).resolve().parent / 'render.yml'

BROKER = {'kafka_broker_cluster_id': 'RenderCluster000000000'}
WORKER = {'connect_worker_bootstrap_servers': 'broker-1:9094', 'connect_worker_rest_advertised_host': 'task-1'}
STORE_PASSWORD = 'store-secret-1'
SCRAM_PASSWORD = 'scram-secret-2'
PLAIN_PASSWORD = 'plain-secret-3'
REST_PASSWORD = 'rest-secret-4'
# The REST API over plain HTTP without authentication, accepted on purpose where a case tests the Kafka clients (the
# role's defaults, HTTPS with basic authentication, are case worker_scram_https).
PLAIN_REST = {'connect_worker_rest_scheme': 'http', 'connect_worker_rest_basic_auth': False,
              'connect_worker_rest_insecure': True}
# Quotes, backslashes (one before a letter) and a line break: escaped in the broker's JAAS file.
HARD_PLAIN_PASSWORD = 'say "hi" \\n\\x\n;} \u00e9\\'

CASES: Dict[str, Dict[str, Any]] = {
    'broker_default': {'role': 'kafka_broker', 'vars': {}},
    'broker_secure': {'role': 'kafka_broker', 'vars': {
        'kafka_broker_plaintext_enabled': False,
        'kafka_broker_sasl_ssl_enabled': True,
        'kafka_broker_ssl_enabled': True,
        'kafka_broker_authorizer_enabled': True,
        'kafka_broker_plain_users': [{'username': 'probe', 'password': PLAIN_PASSWORD},
                                     {'username': 'hard', 'password': HARD_PLAIN_PASSWORD}],
    }},
    'broker_pkcs12': {'role': 'kafka_broker', 'vars': {
        'kafka_broker_ssl_enabled': True,
        'kafka_broker_ssl_keystore_location': '/etc/kafka/tls/keystore.p12',
        'kafka_broker_ssl_keystore_type': 'PKCS12',
        'kafka_broker_ssl_keystore_password': STORE_PASSWORD,
        'kafka_broker_ssl_key_password': STORE_PASSWORD,
        'kafka_broker_ssl_truststore_location': '/etc/kafka/tls/truststore.p12',
        'kafka_broker_ssl_truststore_type': 'PKCS12',
        'kafka_broker_ssl_truststore_password': STORE_PASSWORD,
    }},
    'broker_scram_only': {'role': 'kafka_broker', 'vars': {
        'kafka_broker_sasl_ssl_enabled': True,
        'kafka_broker_sasl_mechanisms': ['SCRAM-SHA-512'],
    }},
    'broker_gssapi': {'role': 'kafka_broker', 'vars': {
        'kafka_broker_sasl_ssl_enabled': True,
        'kafka_broker_sasl_mechanisms': ['GSSAPI', 'SCRAM-SHA-512'],
        'kafka_broker_kerberos_principal': 'kafka/broker-1.example.com@EXAMPLE.COM',
        'kafka_broker_kerberos_principal_to_local_rules': ['RULE:[1:$1@$0](.*@PARTNER.EXAMPLE)s/@.*//', 'DEFAULT'],
        'kafka_broker_jvm_options': ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'],
    }},
    'worker_default': {'role': 'connect_worker', 'vars': dict(PLAIN_REST)},
    'worker_scram_https': {'role': 'connect_worker', 'vars': {
        'connect_worker_kafka_security_protocol': 'SASL_SSL',
        'connect_worker_kafka_sasl_mechanism': 'SCRAM-SHA-512',
        'connect_worker_kafka_sasl_username': 'connect',
        'connect_worker_kafka_sasl_password': SCRAM_PASSWORD,
        'connect_worker_rest_scheme': 'https',
        'connect_worker_rest_ssl_keystore_password': STORE_PASSWORD,
        'connect_worker_rest_ssl_truststore_password': STORE_PASSWORD,
        'connect_worker_rest_basic_auth': True,
        'connect_worker_rest_users': [{'username': 'operator', 'password': REST_PASSWORD},
                                      {'username': 'reader', 'password': 'a:b=c d'}],
    }},
    'worker_plain': {'role': 'connect_worker', 'vars': {
        **PLAIN_REST,
        'connect_worker_kafka_security_protocol': 'SASL_SSL',
        'connect_worker_kafka_sasl_mechanism': 'PLAIN',
        'connect_worker_kafka_sasl_username': 'connect',
        'connect_worker_kafka_sasl_password': PLAIN_PASSWORD,
    }},
    'worker_mtls': {'role': 'connect_worker', 'vars': {
        **PLAIN_REST,
        'connect_worker_kafka_security_protocol': 'SSL',
        'connect_worker_kafka_ssl_keystore_location': '/etc/kafka/tls/keystore.p12',
        'connect_worker_kafka_ssl_keystore_type': 'PKCS12',
        'connect_worker_kafka_ssl_keystore_password': STORE_PASSWORD,
        'connect_worker_kafka_ssl_key_password': STORE_PASSWORD,
    }},
    'worker_gssapi': {'role': 'connect_worker', 'vars': {
        **PLAIN_REST,
        'connect_worker_kafka_security_protocol': 'SASL_SSL',
        'connect_worker_kafka_sasl_mechanism': 'GSSAPI',
        'connect_worker_kafka_kerberos_principal': 'connect/task-1.example.com@EXAMPLE.COM',
        'connect_worker_kafka_kerberos_service_name': 'kafka',
        'connect_worker_krb5_conf': '/etc/kafka/connect/krb5.conf',
    }},
}


def parse_properties(text: str) -> Dict[str, str]:
    """The subset of java.util.Properties that to_properties writes: key=value lines with backslash escapes."""
    result: Dict[str, str] = {}
    for line in text.splitlines():
        if not line or line.startswith('#'):
            continue
        match = re.match(r'((?:\\.|[^=\\])*)=(.*)$', line)
        assert match, 'not a properties line: %r' % line
        result[_unescape(match.group(1))] = _unescape(match.group(2))
    return result


def _unescape(text: str) -> str:
    def replace(match: 're.Match[str]') -> str:
        escaped = match.group(1)
        if escaped.startswith('u'):
            return chr(int(escaped[1:], 16))
        return {'n': '\n', 'r': '\r', 't': '\t'}.get(escaped, escaped)
    return re.sub(r'\\(u[0-9a-fA-F]{4}|.)', replace, text)


class Rendered:
    def __init__(self, root: Path) -> None:
        self.root = root

    def text(self, case: str, name: str) -> str:
        return (self.root / case / name).read_text(encoding='utf-8')

    def exists(self, case: str, name: str) -> bool:
        return (self.root / case / name).exists()

    def properties(self, case: str, name: str) -> Dict[str, str]:
        return parse_properties(self.text(case, name))

    def exec_start(self, case: str, unit: str) -> str:
        return next(line for line in self.text(case, unit).splitlines() if line.startswith('ExecStart='))


@pytest.fixture(scope='session')
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Rendered:
    base = tmp_path_factory.mktemp('security-render')
    output = base / 'out'
    inventory: Dict[str, Any] = {'all': {'children': {}}}
    for name, case in CASES.items():
        defaults = BROKER if case['role'] == 'kafka_broker' else WORKER
        variables = dict(defaults, **case['vars'])
        if case['role'] == 'kafka_broker':
            variables['kafka_broker_group'] = 'cluster_' + name
        case_file = base / (name + '.yml')
        case_file.write_text(yaml.safe_dump(variables), encoding='utf-8')
        inventory['all']['children']['cluster_' + name] = {'hosts': {name: {
            'ansible_connection': 'local',
            'ansible_python_interpreter': sys.executable,
            'case_role': case['role'],
            'case_file': str(case_file),
            'render_dir': str(output),
        }}}
    inventory_file = base / 'inventory.yml'
    inventory_file.write_text(yaml.safe_dump(inventory), encoding='utf-8')
    environment = dict(os.environ, ANSIBLE_CONFIG=str(REPO_ROOT / 'ansible.cfg'), ANSIBLE_NOCOLOR='1')
    done = subprocess.run(
        [str(Path(sys.executable).parent / 'ansible-playbook'), '-i', str(inventory_file), str(RENDER_PLAYBOOK)],
        cwd=REPO_ROOT, env=environment, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    return Rendered(output)
