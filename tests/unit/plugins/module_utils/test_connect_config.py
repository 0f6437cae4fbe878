# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The connector config option as a log may show it: secret values masked, the rest as given."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_config import MASK, mask_config_document

CONFIG = {'connector.class': 'org.apache.kafka.connect.mirror.MirrorSourceConnector', 'tasks.max': 2,
          'source.cluster.sasl.jaas.config': 'org.apache.kafka.common.security.plain.PlainLoginModule required password="x";',
          'target.cluster.ssl.truststore.password': '${file:/etc/kafka/connect/secrets/mm2.properties:store}',
          'opaque': 'token-1'}
MASKED = {**CONFIG, 'source.cluster.sasl.jaas.config': MASK, 'opaque': MASK}


@pytest.mark.parametrize('given', [CONFIG, json.dumps(CONFIG)], ids=['mapping', 'JSON text'])
def test_secret_values_are_masked_and_placeholders_shown(given: Any) -> None:
    assert mask_config_document(given, ['opaque']) == MASKED


def test_the_config_of_an_envelope_is_masked() -> None:
    assert mask_config_document({'name': 'a', 'config': CONFIG}, ['opaque']) == {'name': 'a', 'config': MASKED}


@pytest.mark.parametrize('given', ['{"password": "x"', '["password", "x"]', 7], ids=['broken JSON', 'JSON list', 'number'])
def test_what_is_no_config_document_is_masked_whole(given: Any) -> None:
    assert mask_config_document(given) == MASK


def test_keys_that_are_not_strings_yet_and_no_config() -> None:
    assert mask_config_document({1: 'x', 'sasl.password': 'y'}) == {'1': 'x', 'sasl.password': MASK}
    assert mask_config_document(None) is None
