# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The readiness check's controller files: the flow's failover report names as role failover writes them,
and the state file of the source topic ids."""

from __future__ import annotations

import json

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.filter.mm2_readiness_files import mm2_readiness_files
from ansible_collections.kafka_dr.mm2.plugins.filter.mm2_readiness_state import mm2_readiness_state

INPUTS = {'source_alias': 'src', 'target_alias': 'dst', 'name': 'orders'}


def test_each_spelling_of_the_flow_is_looked_for() -> None:
    files = mm2_readiness_files(INPUTS, 'src->dst', 'reports/', '/var/lib/kafka-dr/')
    assert files == {'reports_dir': 'reports', 'failover_report_patterns': ['failover-src_to_dst-*.json', 'failover-orders-*.json'],
                     'state_file': '/var/lib/kafka-dr/readiness-src_to_dst.json'}
    by_name = mm2_readiness_files(dict(INPUTS, name='eu west/1'), 'eu west/1', 'r', 's')
    assert by_name['failover_report_patterns'] == ['failover-eu_west_1-*.json', 'failover-src_to_dst-*.json']


def test_the_names_match_role_failovers_report_names() -> None:
    # roles/failover/tasks/main.yml: failover-{{ failover_flow | replace('->', '_to_') | regex_replace('[^A-Za-z0-9_.-]+', '_') }}-<mode>
    (pattern,) = mm2_readiness_files({'source_alias': 'a b', 'target_alias': 'c', 'name': ''}, 'a b->c', 'r', 's')[
        'failover_report_patterns']
    assert pattern == 'failover-a_b_to_c-*.json'


def test_the_state_file_round_trip() -> None:
    text = mm2_readiness_state({'foo.orders': 'id-1', 'bar': None}, 'src->dst', '2026-11-28T10:00:00.000Z')
    document = json.loads(text)
    assert document == {'format': 1, 'flow': 'src->dst', 'measured_at': '2026-11-28T10:00:00.000Z',
                        'topic_ids': {'foo.orders': 'id-1', 'bar': None}}
    assert mm2_readiness_state(text) == {'foo.orders': 'id-1'}
    assert mm2_readiness_state('') == {} and mm2_readiness_state(None) == {}


def test_the_state_file_keeps_the_accepted_log_starts() -> None:
    text = mm2_readiness_state({'foo.orders': 'id-1'}, 'src->dst', 'now', accepted_log_starts={'foo.orders': {'0': 300}})
    assert json.loads(text)['accepted_log_starts'] == {'foo.orders': {'0': 300}}
    assert mm2_readiness_state(text, read='accepted_log_starts') == {'foo.orders': {'0': 300}}
    assert mm2_readiness_state(text) == {'foo.orders': 'id-1'}
    assert mm2_readiness_state('', read='accepted_log_starts') == {}
    with pytest.raises(AnsibleFilterError, match='read must be one of'):
        mm2_readiness_state(text, read='everything')


@pytest.mark.parametrize('text', ['not json', '{"format": 2, "topic_ids": {}}', '[]', '{"format": 1}'])
def test_a_foreign_state_file_fails_saying_to_remove_it(text: str) -> None:
    with pytest.raises(AnsibleFilterError, match='remove it to start afresh'):
        mm2_readiness_state(text)
