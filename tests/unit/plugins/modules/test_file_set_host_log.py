# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Module kafka_dr.mm2.file_set logs no file's content on the host, while its result keeps the diff of
the files not marked secret."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any, Dict

import pytest
from host_log import SINKS, leaked, run_logged

from ansible_collections.kafka_dr.mm2.plugins.modules import file_set

# A keytab-like binary, a JAAS file (newlines and quotes: its repr differs from the text) and a
# properties file not marked secret that holds a password all the same.
KEY_SECRET = 'fs-key-material-6620'
JAAS_SECRET = 'fs-jaas-pw-4471-tail'
PROPERTIES_SECRET = 'fs-rest-pw-8812-tail'
# Given as content (the module run without the action plugin), a text that no_log could not mask
# in the log: its repr escapes the newline, and Ansible's URL heuristic cuts the text after it.
DIRECT_SECRET = "fs-direct-'pw'-9921"
SECRETS = {'key': KEY_SECRET, 'jaas': JAAS_SECRET, 'properties': PROPERTIES_SECRET, 'direct': DIRECT_SECRET}


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def file_args(target: Path) -> Dict[str, Any]:
    jaas = 'KafkaClient {\n  org.apache.kafka.common.security.scram.ScramLoginModule required\n' \
           '  username="mm2" password="%s\\"x";\n};\n' % JAAS_SECRET
    return {'directories': [{'path': str(target), 'mode': '0750'}],
            'files': [{'dest': str(target / 'client.keytab'), 'content_base64': b64(b'\x05\x02\0' + KEY_SECRET.encode() + b'\xff'),
                       'mode': '0600', 'secret': True},
                      {'dest': str(target / 'jaas.conf'), 'content_base64': b64(jaas.encode()), 'mode': '0600', 'secret': True},
                      {'dest': str(target / 'worker.properties'), 'mode': '0640',
                       'content_base64': b64(('group.id=mm2\nrest.password=%s\n' % PROPERTIES_SECRET).encode())},
                      {'dest': str(target / 'direct.properties'), 'mode': '0600', 'secret': True,
                       'content': 'token=%s\nurl=http://mm2:x@registry:8081\n' % DIRECT_SECRET}]}


@pytest.mark.parametrize('sink', SINKS)
def test_no_content_reaches_the_host_log(tmp_path: Path, sink: str) -> None:
    target = tmp_path / 'conf'
    result, logged = run_logged(file_set.main, file_args(target), sink=sink, diff=True)
    assert result['changed'] is True and 'failed' not in result, result.get('msg')
    assert 'Invoked with' in logged and str(target / 'jaas.conf') in logged and '0640' in logged
    assert leaked(logged, SECRETS) == []
    # The module wrote the contents it was given, not the masked copy.
    assert KEY_SECRET.encode() in (target / 'client.keytab').read_bytes()
    assert DIRECT_SECRET in (target / 'direct.properties').read_text()


def test_the_diff_of_a_file_not_marked_secret_still_shows_its_text(tmp_path: Path) -> None:
    target = tmp_path / 'conf'
    preview, logged = run_logged(file_set.main, file_args(target), check_mode=True, diff=True)
    assert not target.exists()
    diffs = {diff['after_header']: diff['after'] for diff in preview['diff']}
    assert diffs[str(target / 'worker.properties')] == 'group.id=mm2\nrest.password=%s\n' % PROPERTIES_SECRET
    assert diffs[str(target / 'jaas.conf')] == '(secret, changed)\n'
    assert leaked(logged, SECRETS) == []
    # The returned invocation, which the action plugin drops, masks what is no_log.
    assert leaked(repr(preview['invocation']), {'key': KEY_SECRET, 'jaas': JAAS_SECRET, 'properties': PROPERTIES_SECRET}) == []


def test_a_short_text_given_as_content_is_not_masked_in_messages(tmp_path: Path) -> None:
    args = {'files': [{'dest': str(tmp_path / 'a'), 'content': 'a', 'mode': '0644', 'validate': 'true'}]}
    result, logged = run_logged(file_set.main, args)
    assert result['failed'] is True and 'validate must hold %s' in result['msg']
    assert "'content': 'NOT_LOGGING_PARAMETER'" in logged
