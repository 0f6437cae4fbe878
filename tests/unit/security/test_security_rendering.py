"""What kafka_broker and connect_worker write for each security setting.

The default settings must render exactly what the roles wrote before security existed
(golden/); the secured ones must carry no secret outside the secret files. A worker's own
secrets sit in its connect-distributed.properties and in worker-secrets.properties beside it,
never in the secrets directory that connector placeholders may read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


GOLDEN = Path(__file__).resolve().parent / 'golden'
# The case secrets of conftest.py.
STORE_PASSWORD = 'store-secret-1'
SCRAM_PASSWORD = 'scram-secret-2'
PLAIN_PASSWORD = 'plain-secret-3'
REST_PASSWORD = 'rest-secret-4'
SECRETS = (PLAIN_PASSWORD, REST_PASSWORD, SCRAM_PASSWORD, STORE_PASSWORD)
CLIENT_PREFIXES = ('', 'producer.', 'consumer.', 'admin.')
# The worker's own secrets file (for the readiness check's placeholders), and the directory connectors read.
WORKER_SECRETS = '/etc/kafka/connect/worker-secrets.properties'
CONNECTOR_SECRETS_DIR = '/etc/kafka/connect/secrets/'


def golden(name: str, host: str) -> str:
    return (GOLDEN / name).read_text(encoding='utf-8').replace('broker_default', host)


@pytest.mark.parametrize(('case', 'name'), [
    ('broker_default', 'server.properties'),
    ('broker_default', 'kafka-broker.service'),
    ('worker_default', 'connect-distributed.properties'),
    ('worker_default', 'kafka-connect.service'),
])
def test_defaults_render_what_the_roles_wrote_before(rendered: Any, case: str, name: str) -> None:
    assert rendered.text(case, name) == golden(name, case)


def test_defaults_have_no_secret_files(rendered: Any) -> None:
    assert rendered.properties('broker_default', 'tls.properties') == {}
    assert not rendered.exists('worker_default', 'worker-secrets.properties')


# ---- broker -------------------------------------------------------------------------

def test_secure_broker_listeners(rendered: Any) -> None:
    props = rendered.properties('broker_secure', 'server.properties')
    assert props['listeners'] == 'SASL_SSL://0.0.0.0:9094,SSL://0.0.0.0:9095,CONTROLLER://0.0.0.0:9093'
    assert props['advertised.listeners'] == 'SASL_SSL://broker_secure:9094,SSL://broker_secure:9095'
    assert props['listener.security.protocol.map'] == 'CONTROLLER:SSL,SASL_SSL:SASL_SSL,SSL:SSL'
    assert props['inter.broker.listener.name'] == 'SSL'
    assert props['sasl.enabled.mechanisms'] == 'SCRAM-SHA-512,PLAIN'


def test_secure_broker_requires_client_certificates_on_ssl_and_controller_only(rendered: Any) -> None:
    props = rendered.properties('broker_secure', 'server.properties')
    assert props['listener.name.ssl.ssl.client.auth'] == 'required'
    assert props['listener.name.controller.ssl.client.auth'] == 'required'
    assert 'ssl.client.auth' not in props
    assert 'listener.name.sasl_ssl.ssl.client.auth' not in props
    assert props['ssl.keystore.type'] == 'PEM'
    assert props['ssl.keystore.location'] == '/etc/kafka/tls/keystore.pem'
    assert props['ssl.truststore.location'] == '/etc/kafka/tls/ca.pem'
    assert props['ssl.principal.mapping.rules'] == 'RULE:^CN=([A-Za-z0-9._-]+)$/$1/,DEFAULT'


def test_secure_broker_authorizer_and_super_users(rendered: Any) -> None:
    props = rendered.properties('broker_secure', 'server.properties')
    assert props['authorizer.class.name'] == 'org.apache.kafka.metadata.authorizer.StandardAuthorizer'
    assert props['super.users'] == 'User:broker_secure'
    assert props['allow.everyone.if.no.acl.found'] == 'false'


def test_secure_broker_jaas_file_and_unit(rendered: Any) -> None:
    jaas = rendered.text('broker_secure', 'jaas.conf')
    assert 'sasl_ssl.KafkaServer {' in jaas
    assert 'org.apache.kafka.common.security.scram.ScramLoginModule required;' in jaas
    assert 'org.apache.kafka.common.security.plain.PlainLoginModule required' in jaas
    assert 'user_probe="%s"' % PLAIN_PASSWORD in jaas
    assert 'user_hard="say \\"hi\\" \\\\n\\\\x\\n;} \u00e9\\\\"' in jaas
    assert ' -Djava.security.auth.login.config=/etc/kafka/broker/secrets/jaas.conf ' in \
        rendered.exec_start('broker_secure', 'kafka-broker.service')


def test_scram_only_broker_leaves_plain_out(rendered: Any) -> None:
    jaas = rendered.text('broker_scram_only', 'jaas.conf')
    assert 'PlainLoginModule' not in jaas
    props = rendered.properties('broker_scram_only', 'server.properties')
    assert props['listener.security.protocol.map'] == 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL'
    assert props['inter.broker.listener.name'] == 'PLAINTEXT'


def test_gssapi_broker_logs_in_with_its_keytab(rendered: Any) -> None:
    jaas = rendered.text('broker_gssapi', 'jaas.conf')
    assert ('com.sun.security.auth.module.Krb5LoginModule required\n        useKeyTab=true\n        storeKey=true\n'
            '        keyTab="/etc/kafka/broker/secrets/kafka.keytab"\n'
            '        principal="kafka/broker-1.example.com@EXAMPLE.COM";') in jaas
    assert 'org.apache.kafka.common.security.scram.ScramLoginModule required;' in jaas
    props = rendered.properties('broker_gssapi', 'server.properties')
    assert props['sasl.enabled.mechanisms'] == 'GSSAPI,SCRAM-SHA-512'
    assert props['sasl.kerberos.service.name'] == 'kafka'
    assert props['sasl.kerberos.principal.to.local.rules'] == 'RULE:[1:$1@$0](.*@PARTNER.EXAMPLE)s/@.*//,DEFAULT'
    assert ' -Djava.security.krb5.conf=/etc/krb5.conf ' in rendered.exec_start('broker_gssapi', 'kafka-broker.service')


def test_broker_jvm_options_replace_the_default_collector_and_keep_the_roles_options(rendered: Any) -> None:
    command = rendered.exec_start('broker_gssapi', 'kafka-broker.service')
    assert ' -Xmx512m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Djava.io.tmpdir=' in command
    assert 'G1' not in command
    assert ' -Djava.security.auth.login.config=' in command and ' -Djava.security.krb5.conf=' in command


def test_brokers_without_gssapi_have_no_kerberos_settings(rendered: Any) -> None:
    props = rendered.properties('broker_secure', 'server.properties')
    assert not [key for key in props if 'kerberos' in key]
    assert 'Krb5LoginModule' not in rendered.text('broker_secure', 'jaas.conf')
    assert 'krb5' not in rendered.exec_start('broker_secure', 'kafka-broker.service')


def test_secure_broker_admin_client_uses_the_broker_certificate(rendered: Any) -> None:
    assert rendered.properties('broker_secure', 'admin-client.properties') == {
        'security.protocol': 'SSL',
        'ssl.keystore.type': 'PEM',
        'ssl.keystore.location': '/etc/kafka/tls/keystore.pem',
        'ssl.truststore.type': 'PEM',
        'ssl.truststore.location': '/etc/kafka/tls/ca.pem',
    }


def test_pkcs12_store_passwords_are_placeholders(rendered: Any) -> None:
    props = rendered.properties('broker_pkcs12', 'server.properties')
    reference = '${file:/etc/kafka/broker/secrets/tls.properties:%s}'
    for key in ('ssl.keystore.password', 'ssl.key.password', 'ssl.truststore.password'):
        assert props[key] == reference % key
    assert props['config.providers'] == 'file'
    assert props['config.providers.file.class'] == 'org.apache.kafka.common.config.provider.FileConfigProvider'
    assert props['config.providers.file.param.allowed.paths'] == '/etc/kafka/broker/secrets'
    assert rendered.properties('broker_pkcs12', 'tls.properties') == {
        'ssl.keystore.password': STORE_PASSWORD, 'ssl.key.password': STORE_PASSWORD, 'ssl.truststore.password': STORE_PASSWORD}
    assert STORE_PASSWORD not in rendered.text('broker_pkcs12', 'server.properties')


# ---- worker -------------------------------------------------------------------------

def test_scram_worker_clients(rendered: Any) -> None:
    props = rendered.properties('worker_scram_https', 'connect-distributed.properties')
    placeholders = rendered.properties('worker_scram_https', 'placeholders.properties')
    jaas = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="connect" password="%s";' % SCRAM_PASSWORD
    for prefix in CLIENT_PREFIXES:
        assert props[prefix + 'security.protocol'] == 'SASL_SSL'
        assert props[prefix + 'sasl.mechanism'] == 'SCRAM-SHA-512'
        assert props[prefix + 'sasl.jaas.config'] == jaas
        assert placeholders[prefix + 'sasl.jaas.config'] == '${file:%s:sasl.jaas.config}' % WORKER_SECRETS
        assert props[prefix + 'ssl.truststore.type'] == 'PEM'
        assert props[prefix + 'ssl.truststore.location'] == '/etc/kafka/tls/ca.pem'
        assert prefix + 'ssl.keystore.location' not in props
    assert rendered.properties('worker_scram_https', 'worker-secrets.properties')['sasl.jaas.config'] == jaas


def test_https_rest_listener(rendered: Any) -> None:
    props = rendered.properties('worker_scram_https', 'connect-distributed.properties')
    placeholders = rendered.properties('worker_scram_https', 'placeholders.properties')
    assert props['listeners'] == 'https://worker_scram_https:8083'
    assert props['rest.advertised.listener'] == 'https'
    assert props['listeners.https.ssl.keystore.type'] == 'PKCS12'
    assert props['listeners.https.ssl.keystore.location'] == '/etc/kafka/tls/keystore.p12'
    assert props['listeners.https.ssl.keystore.password'] == STORE_PASSWORD
    assert props['listeners.https.ssl.key.password'] == STORE_PASSWORD
    assert props['listeners.https.ssl.truststore.location'] == '/etc/kafka/tls/truststore.p12'
    assert props['listeners.https.ssl.truststore.password'] == STORE_PASSWORD
    assert placeholders['listeners.https.ssl.keystore.password'] == '${file:%s:rest.ssl.keystore.password}' % WORKER_SECRETS
    assert props['listeners.https.ssl.client.auth'] == 'none'
    # Present even empty (the JVM's cipher suites): Connect 4.2.0 fails to start without it.
    assert props['listeners.https.ssl.cipher.suites'] == ''
    assert props['listeners.https.ssl.endpoint.identification.algorithm'] == 'https'
    secrets = rendered.properties('worker_scram_https', 'worker-secrets.properties')
    assert secrets['rest.ssl.keystore.password'] == STORE_PASSWORD
    assert secrets['rest.ssl.key.password'] == STORE_PASSWORD
    assert secrets['rest.ssl.truststore.password'] == STORE_PASSWORD


def test_basic_auth_extension_jaas_and_credentials(rendered: Any) -> None:
    props = rendered.properties('worker_scram_https', 'connect-distributed.properties')
    assert props['rest.extension.classes'] == 'org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension'
    jaas = rendered.text('worker_scram_https', 'rest-jaas.conf')
    assert 'KafkaConnect {' in jaas
    assert ('org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule required\n'
            '        file="/etc/kafka/connect/rest-auth/rest-credentials.properties";') in jaas
    assert rendered.properties('worker_scram_https', 'rest-credentials.properties') == {
        'operator': REST_PASSWORD, 'reader': 'a:b=c d'}
    assert ' -Djava.security.auth.login.config=/etc/kafka/connect/rest-auth/rest-jaas.conf ' in \
        rendered.exec_start('worker_scram_https', 'kafka-connect.service')


@pytest.mark.parametrize('case', ['worker_scram_https', 'worker_plain', 'worker_mtls', 'worker_gssapi'])
def test_no_secret_in_the_unit_and_none_read_from_the_connectors_directory(rendered: Any, case: str) -> None:
    assert not [secret for secret in SECRETS if secret in rendered.text(case, 'kafka-connect.service')]
    # The worker reads its own secrets from its properties, never through a placeholder a connector could use.
    for name in ('connect-distributed.properties', 'placeholders.properties'):
        assert CONNECTOR_SECRETS_DIR not in rendered.text(case, name), name
    assert '${file:' not in rendered.text(case, 'connect-distributed.properties')
    # Kept once more beside them, for the readiness check that resolves the placeholders itself.
    assert rendered.exists(case, 'worker-secrets.properties')


def test_plain_worker(rendered: Any) -> None:
    props = rendered.properties('worker_plain', 'connect-distributed.properties')
    assert props['sasl.mechanism'] == 'PLAIN'
    assert rendered.properties('worker_plain', 'worker-secrets.properties') == {
        'sasl.jaas.config': 'org.apache.kafka.common.security.plain.PlainLoginModule required '
                            'username="connect" password="%s";' % PLAIN_PASSWORD}
    assert props['sasl.jaas.config'] == rendered.properties('worker_plain', 'worker-secrets.properties')['sasl.jaas.config']
    assert 'listeners.https.ssl.keystore.location' not in props
    assert props['listeners'] == 'http://worker_plain:8083'


def test_mtls_worker_presents_its_certificate(rendered: Any) -> None:
    props = rendered.properties('worker_mtls', 'connect-distributed.properties')
    for prefix in CLIENT_PREFIXES:
        assert props[prefix + 'security.protocol'] == 'SSL'
        assert props[prefix + 'ssl.keystore.type'] == 'PKCS12'
        assert props[prefix + 'ssl.keystore.location'] == '/etc/kafka/tls/keystore.p12'
        assert props[prefix + 'ssl.keystore.password'] == STORE_PASSWORD
        assert props[prefix + 'ssl.key.password'] == STORE_PASSWORD
        assert prefix + 'sasl.mechanism' not in props
        assert prefix + 'sasl.jaas.config' not in props
    assert rendered.properties('worker_mtls', 'worker-secrets.properties') == {
        'ssl.keystore.password': STORE_PASSWORD, 'ssl.key.password': STORE_PASSWORD}


def test_gssapi_worker(rendered: Any) -> None:
    props = rendered.properties('worker_gssapi', 'connect-distributed.properties')
    for prefix in CLIENT_PREFIXES:
        assert props[prefix + 'sasl.mechanism'] == 'GSSAPI'
        assert props[prefix + 'sasl.kerberos.service.name'] == 'kafka'
    jaas = ('com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true '
            'keyTab="/etc/kafka/connect/kafka-client.keytab" principal="connect/task-1.example.com@EXAMPLE.COM";')
    for prefix in CLIENT_PREFIXES:
        assert props[prefix + 'sasl.jaas.config'] == jaas
    assert rendered.properties('worker_gssapi', 'worker-secrets.properties') == {'sasl.jaas.config': jaas}
    exec_start = rendered.exec_start('worker_gssapi', 'kafka-connect.service')
    assert ' -Djava.security.krb5.conf=/etc/kafka/connect/krb5.conf ' in exec_start
    assert 'java.security.auth.login.config' not in exec_start


# ---- login probe (tasks/credentials.yml) ---------------------------------------------

def test_probe_logs_in_with_the_worker_settings_and_the_secrets_in_place(rendered: Any) -> None:
    worker = rendered.properties('worker_scram_https', 'connect-distributed.properties')
    probe = rendered.properties('worker_scram_https', 'probe.properties')
    assert probe['bootstrap.servers'] == worker['bootstrap.servers'] == 'broker-1:9094'
    for key in ('security.protocol', 'sasl.mechanism', 'ssl.truststore.type', 'ssl.truststore.location'):
        assert probe[key] == worker[key]
    assert probe['sasl.jaas.config'] == rendered.properties('worker_scram_https', 'worker-secrets.properties')['sasl.jaas.config']
    # Only client settings: no REST, group or storage settings reach the probe.
    assert sorted(probe) == ['bootstrap.servers', 'sasl.jaas.config', 'sasl.mechanism', 'security.protocol',
                             'ssl.truststore.location', 'ssl.truststore.type']


def test_mtls_probe_presents_the_worker_certificate(rendered: Any) -> None:
    probe = rendered.properties('worker_mtls', 'probe.properties')
    assert probe['security.protocol'] == 'SSL'
    assert probe['ssl.keystore.location'] == '/etc/kafka/tls/keystore.p12'
    assert probe['ssl.keystore.password'] == probe['ssl.key.password'] == STORE_PASSWORD


def test_gssapi_probe_uses_the_worker_keytab(rendered: Any) -> None:
    probe = rendered.properties('worker_gssapi', 'probe.properties')
    assert probe['sasl.kerberos.service.name'] == 'kafka'
    assert 'keyTab="/etc/kafka/connect/kafka-client.keytab"' in probe['sasl.jaas.config']
