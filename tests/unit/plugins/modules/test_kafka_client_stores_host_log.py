# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Module kafka_dr.mm2.kafka_client_stores given literal secrets (mirrormaker_inline_secrets) logs its clusters
on the host with those secrets masked; placeholders and the other settings stay readable."""

from __future__ import annotations

from pathlib import Path

import pytest
from host_log import SINKS, leaked, run_logged

from ansible_collections.kafka_dr.mm2.plugins.modules import kafka_client_stores

STORE_PASSWORD = "cs-st0re-'pw'@4410-tail"
JAAS_PASSWORD = 'cs-jaas-pw-9071'
SECRETS = {'store': STORE_PASSWORD, 'jaas': JAAS_PASSWORD, 'store tail': '4410-tail'}


@pytest.mark.parametrize('sink', SINKS)
def test_the_host_log_shows_the_clusters_with_their_secrets_masked(tmp_path: Path, sink: str) -> None:
    absent = str(tmp_path / 'absent.p12')
    jaas = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="mm2" password="%s";' % JAAS_PASSWORD
    clusters = {
        'src': {'bootstrap.servers': 'src-kafka-1:9094', 'ssl.truststore.location': absent,
                'ssl.truststore.password': STORE_PASSWORD, 'sasl.jaas.config': jaas},
        # As module mm2_plan returns them: the settings under client_properties.
        'dst': {'client_properties': {'bootstrap.servers': 'dst-kafka-1:9094', 'ssl.truststore.location': absent,
                                      'ssl.truststore.password': '${file:/etc/kafka/connect/secrets/mm2.properties:dst}'}},
    }
    result, logged = run_logged(kafka_client_stores.main, {'clusters': clusters, 'verify_chain': False}, sink=sink)
    assert 'Invoked with' in logged and "'bootstrap.servers': 'src-kafka-1:9094'" in logged
    assert "'ssl.truststore.password': '********'" in logged
    assert '${file:/etc/kafka/connect/secrets/mm2.properties:dst}' in logged
    assert leaked(logged, SECRETS) == []
    # The module still read the settings themselves: each cluster's missing store is named.
    assert result['errors'] == ['cluster dst: cannot read secret file /etc/kafka/connect/secrets/mm2.properties: '
                                'No such file or directory', 'cluster src: %s does not exist' % absent]
