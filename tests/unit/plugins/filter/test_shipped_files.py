# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter shipped_files: only the copies a host lacks or holds differently are planned."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.filter.shipped_files import FilterModule, shipped_files

JARS = ['/cache/jars/a.jar', '/cache/jars/b.jar']
CONTROLLER = {'/cache/jars/a.jar': {'exists': True, 'isreg': True, 'checksum': 'aaa'},
              '/cache/jars/b.jar': {'exists': True, 'isreg': True, 'checksum': 'bbb'}}


def on_host(**changes: dict) -> dict:
    copies = {'/opt/job/jars/a.jar': {'exists': True, 'isreg': True, 'owner': 'root', 'group': 'root', 'mode': '0644',
                                      'checksum': 'aaa'},
              '/opt/job/jars/b.jar': {'exists': True, 'isreg': True, 'owner': 'root', 'group': 'root', 'mode': '0644',
                                      'checksum': 'bbb'}}
    for path, fields in changes.items():
        copies[path] = dict(copies[path], **fields)
    return copies


def test_nothing_is_due_when_every_copy_matches() -> None:
    assert shipped_files(JARS, '/opt/job/jars', on_host(), CONTROLLER) == []


@pytest.mark.parametrize('change', [
    {'exists': False, 'isreg': False},
    {'isreg': False},
    {'checksum': 'old'},
    {'mode': '0600'},
    {'owner': 'kafka'},
    {'group': 'kafka'},
])
def test_a_copy_that_differs_is_due(change: dict) -> None:
    copies = on_host(**{'/opt/job/jars/b.jar': change})
    assert shipped_files(JARS, '/opt/job/jars/', copies, CONTROLLER) == [
        {'src': '/cache/jars/b.jar', 'dest': '/opt/job/jars/b.jar'}]


def test_a_missing_copy_is_due_in_input_order() -> None:
    assert shipped_files(JARS, '/opt/job/jars', {}, CONTROLLER) == [
        {'src': '/cache/jars/a.jar', 'dest': '/opt/job/jars/a.jar'},
        {'src': '/cache/jars/b.jar', 'dest': '/opt/job/jars/b.jar'}]


def test_the_wanted_owner_group_and_mode_are_parameters() -> None:
    copies = on_host(**{path: {'owner': 'spark', 'group': 'spark', 'mode': '0640'} for path in on_host()})
    assert shipped_files(JARS, '/opt/job/jars', copies, CONTROLLER, owner='spark', group='spark', mode='0640') == []


@pytest.mark.parametrize('sources, directory, controller, message', [
    ('/cache/jars/a.jar', '/opt/job/jars', CONTROLLER, 'must be a list'),
    (JARS, 'jars', CONTROLLER, 'must be an absolute path'),
    (JARS, '/opt/job/jars', {'/cache/jars/a.jar': CONTROLLER['/cache/jars/a.jar']}, "'/cache/jars/b.jar' is not a regular file"),
    (JARS, '/opt/job/jars', dict(CONTROLLER, **{'/cache/jars/a.jar': {'exists': True, 'isreg': True}}), 'with a checksum'),
])
def test_bad_input_is_refused(sources: object, directory: str, controller: dict, message: str) -> None:
    with pytest.raises(AnsibleFilterError, match=message):
        shipped_files(sources, directory, on_host(), controller)  # type: ignore[arg-type]


def test_the_filter_is_registered() -> None:
    assert FilterModule().filters()['shipped_files'] is shipped_files
