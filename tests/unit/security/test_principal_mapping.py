# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The brokers' default ssl.principal.mapping.rules map only the subject role kafka_tls issues
(CN=<host>, nothing else) to the short name; a look-alike subject of another CA (the same CN in
another OU or O) keeps its full DN, so it is not the broker and not a super user. Checked with a
reading of Kafka's rule syntax in process, and with Kafka's own SslPrincipalMapper in a JVM."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, List, Optional

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[3]
BROKER_DEFAULTS = REPO_ROOT / 'roles' / 'kafka_broker' / 'defaults' / 'main.yml'
TLS_ISSUE_TASKS = REPO_ROOT / 'roles' / 'kafka_tls' / 'tasks' / 'issue.yml'

# Kafka's SslPrincipalMapper: the rule list and one rule, as its regular expressions spell them.
RULE_PATTERN = r'(DEFAULT)|RULE:((\\.|[^\\/])*)/((\\.|[^\\/])*)/([LU]?).*?|(.*?)'
RULE_SPLITTER = re.compile(r'\s*(' + RULE_PATTERN + r')\s*(,\s*|$)')

# subject DN (as Kafka formats it, RFC 2253) -> the principal name it must map to
MAPPED = {
    'CN=src-kafka-1': 'src-kafka-1',
    'CN=task-1-1.example.com': 'task-1-1.example.com',
    # The same broker name from another CA, in another OU or O: the full DN, not the broker.
    'CN=src-kafka-1,OU=Sales,O=Example Corp': 'CN=src-kafka-1,OU=Sales,O=Example Corp',
    'CN=src-kafka-1,O=Example Corp': 'CN=src-kafka-1,O=Example Corp',
    'OU=Sales,CN=src-kafka-1': 'OU=Sales,CN=src-kafka-1',
    'CN=src-kafka-1 admin': 'CN=src-kafka-1 admin',
    'CN=src-kafka-1\\,OU=x': 'CN=src-kafka-1\\,OU=x',
}


def default_rules() -> str:
    return str(yaml.safe_load(BROKER_DEFAULTS.read_text())['kafka_broker_ssl_principal_mapping_rules'])


def kafka_rules(rules: str) -> List[str]:
    return [match.group(1) for match in RULE_SPLITTER.finditer(rules.strip()) if match.group(1)]


def apply_rule(rule: str, dn: str) -> Optional[str]:
    """One rule as SslPrincipalMapper applies it: DEFAULT keeps the DN; RULE:pattern/replacement/ needs a whole match."""
    if rule == 'DEFAULT':
        return dn
    parsed = re.fullmatch(r'RULE:((?:\\.|[^\\/])*)/((?:\\.|[^\\/])*)/([LU]?)', rule)
    assert parsed, rule
    pattern, replacement = parsed.group(1), re.sub(r'\$(\d)', r'\\\1', parsed.group(2))
    if not re.fullmatch(pattern, dn):
        return None
    return re.sub(pattern, replacement, dn, count=1)


def principal_name(rules: str, dn: str) -> str:
    for rule in kafka_rules(rules):
        name = apply_rule(rule, dn)
        if name is not None:
            return name
    raise AssertionError('no rule maps %s' % dn)


@pytest.mark.parametrize('dn, name', MAPPED.items())
def test_only_the_subject_kafka_tls_issues_maps_to_the_host_name(dn: str, name: str) -> None:
    assert principal_name(default_rules(), dn) == name


def test_kafka_tls_issues_subjects_of_the_common_name_alone() -> None:
    tasks = yaml.safe_load(TLS_ISSUE_TASKS.read_text())
    (csr,) = [task['community.crypto.openssl_csr_pipe'] for task in tasks if 'community.crypto.openssl_csr_pipe' in task]
    subject_options = {'common_name', 'country_name', 'state_or_province_name', 'locality_name', 'organization_name',
                       'organizational_unit_name', 'email_address', 'subject'}
    assert sorted(subject_options & set(csr)) == ['common_name']
    assert csr['common_name'] == '{{ kafka_tls_common_name }}'


@pytest.mark.spark  # starts a JVM (fixture jvm of tests/unit/conftest.py)
@pytest.mark.parametrize('dn, name', MAPPED.items())
def test_kafkas_own_mapper_agrees(jvm: Any, dn: str, name: str) -> None:
    mapper = jvm.org.apache.kafka.common.security.ssl.SslPrincipalMapper.fromRules(default_rules())
    assert str(mapper.getName(dn)) == name
