# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A password read inside a JAAS line reaches Kafka's login module unchanged, in a JVM with the
Kafka client jars: the secret file written as the mirrormaker role writes it (properties_files
with the keys of mm2_jaas_secret_keys), read by Kafka's FileConfigProvider, substituted into the
model's login line by Kafka's ConfigTransformer (what Connect does) and parsed by
JaasContext.loadClientContext (what a client does with sasl.jaas.config). The failover module's
path (resolve_file_placeholders, then the same parser) reads the same password."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict

import pytest

from ansible_collections.kafka_dr.mm2.plugins.filter.mm2_jaas_secret_keys import mm2_jaas_secret_keys
from ansible_collections.kafka_dr.mm2.plugins.filter.properties_files import properties_files
from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_jvm import resolve_file_placeholders
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_clusters import cluster_connection
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_common import ModelErrors

pytestmark = pytest.mark.spark  # starts a JVM (fixture jvm of tests/unit/conftest.py)

PASSWORDS = {
    'backslash': 'p@ss=w:rd\\x#\u00e9!',
    'quote': 'say "hi" \\"there\\" \\',
    'line breaks and more': ' lead\ttab\nnew\rline ;} \u6f22 \U0001d11e \\n trail ',
    'ordinary': 'Ordinary-pass=w0rd: #1',
}


def write_secret_file(secrets_dir: Path, password: str) -> str:
    """The mirrormaker role's way: the model's JAAS line, the keys it reads, the file properties_files renders."""
    clusters = {'dst': {'bootstrap_servers': 'b-1:9094', 'security_protocol': 'SASL_SSL', 'sasl_mechanism': 'SCRAM-SHA-512',
                        'sasl_username': 'mm2', 'sasl_password_file': 'mm2.properties'}}
    files = {'mm2.properties': {'sasl.password': password}}
    (entry,) = properties_files(files, str(secrets_dir), jaas_keys=mm2_jaas_secret_keys(clusters, str(secrets_dir), files))
    Path(entry['dest']).write_text(entry['content'], encoding='utf-8')
    errors = ModelErrors()
    line = cluster_connection('dst', clusters['dst'], str(secrets_dir), errors)['sasl.jaas.config']
    assert not errors and '${file:%s/mm2.properties:sasl.password}' % secrets_dir in line
    return line


def resolved_by_kafka(jvm: Any, line: str) -> str:
    """sasl.jaas.config after Kafka's ConfigTransformer with a FileConfigProvider, as a Connect worker resolves it."""
    provider = jvm.org.apache.kafka.common.config.provider.FileConfigProvider()
    provider.configure(jvm.java.util.HashMap())
    providers = jvm.java.util.HashMap()
    providers.put('file', provider)
    configs = jvm.java.util.HashMap()
    configs.put('sasl.jaas.config', line)
    try:
        return str(jvm.org.apache.kafka.common.config.ConfigTransformer(providers).transform(configs).data()
                   .get('sasl.jaas.config'))
    finally:
        provider.close()


def login_options(jvm: Any, line: str) -> Dict[str, str]:
    """The options Kafka's JAAS parser hands the login module for a client's sasl.jaas.config."""
    configs = jvm.java.util.HashMap()
    configs.put('sasl.jaas.config', jvm.org.apache.kafka.common.config.types.Password(line))
    (entry,) = list(jvm.org.apache.kafka.common.security.JaasContext.loadClientContext(configs).configurationEntries())
    assert str(entry.getLoginModuleName()) == 'org.apache.kafka.common.security.scram.ScramLoginModule'
    return {str(key): str(value) for key, value in dict(entry.getOptions()).items()}


@pytest.mark.parametrize('password', PASSWORDS.values(), ids=PASSWORDS.keys())
def test_kafka_logs_in_with_the_password_as_given(jvm: Any, tmp_path: Path, password: str) -> None:
    line = write_secret_file(tmp_path, password)
    assert login_options(jvm, resolved_by_kafka(jvm, line)) == {'username': 'mm2', 'password': password}
    # The failover module resolves the placeholder itself, then Kafka parses the line the same way.
    assert login_options(jvm, resolve_file_placeholders({'sasl.jaas.config': line})['sasl.jaas.config']) == {
        'username': 'mm2', 'password': password}


def test_an_unescaped_backslash_is_what_kafka_loses(jvm: Any, tmp_path: Path) -> None:
    """Why the escape exists: the raw password in the file reaches the login module altered."""
    line = write_secret_file(tmp_path, PASSWORDS['backslash'])
    (tmp_path / 'mm2.properties').write_text(properties_files({'mm2.properties': {'sasl.password': PASSWORDS['backslash']}},
                                                              str(tmp_path))[0]['content'], encoding='utf-8')
    assert login_options(jvm, resolved_by_kafka(jvm, line))['password'] == 'p@ss=w:rdx#\u00e9!'
