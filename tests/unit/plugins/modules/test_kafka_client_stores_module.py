# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Module kafka_dr.mm2.kafka_client_stores as Ansible runs it: the passwords come from the host's
secret files through placeholders and never show in the result."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

SECRET = 'p@ss=w:rd\\x#'


def test_missing_stores_and_secret_files_are_named_per_cluster(run_module: Any, tmp_path: Path) -> None:
    secrets = tmp_path / 'src.properties'
    secrets.write_text('ssl.truststore.password=%s\n' % SECRET.replace('\\', '\\\\').replace('=', '\\=').replace(':', '\\:'))
    result = run_module('kafka_client_stores', clusters={
        'src': {'bootstrap.servers': '127.0.0.1:1', 'ssl.truststore.location': str(tmp_path / 'absent.p12'),
                'ssl.truststore.password': '${file:%s:ssl.truststore.password}' % secrets},
        'dst': {'bootstrap.servers': '127.0.0.1:1', 'ssl.truststore.location': str(tmp_path / 'absent.p12'),
                'ssl.truststore.password': '${file:%s:nope}' % secrets},
        'plain': {'bootstrap.servers': '127.0.0.1:1'},
    })
    assert result['changed'] is False
    assert result['errors'] == ['cluster dst: secret file %s has no key nope' % secrets,
                                'cluster src: %s does not exist' % (tmp_path / 'absent.p12')]
    assert [(store['cluster'], store['kind']) for store in result['stores']] == [('src', 'truststore')]
    assert SECRET not in json.dumps(result)


@pytest.mark.skipif(not shutil.which('keytool'), reason='needs keytool')
def test_a_file_that_is_no_store_is_an_error_naming_it(run_module: Any, tmp_path: Path) -> None:
    store = tmp_path / 'store.p12'
    store.write_bytes(b'not a key store')
    result = run_module('kafka_client_stores', clusters={'src': {
        'bootstrap.servers': '127.0.0.1:1', 'ssl.truststore.location': str(store), 'ssl.truststore.password': SECRET}})
    (error,) = result['errors']
    assert error.startswith('cluster src: %s cannot be opened with its password (ssl.truststore.password): keytool error' % store)
    assert SECRET not in json.dumps(result)


def test_settings_that_are_no_mapping_fail_the_task(run_module: Any) -> None:
    result = run_module('kafka_client_stores', clusters={'src': 'bootstrap.servers=b:9092'})
    assert result['failed'] is True and 'clusters.src must be a mapping' in result['msg']
