"""kafka_broker_voters and kafka_broker_replication give role kafka_broker what its former Jinja gave.

fixtures/kafka_broker_cluster_jinja.yml holds that Jinja as it was in vars/main.yml; each case renders
it with Ansible's templar and compares with the filters.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest
import yaml
from ansible.errors import AnsibleFilterError
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.kafka_dr.mm2.plugins.filter.kafka_broker_cluster import kafka_broker_replication, kafka_broker_voters

OLD_JINJA = Path(__file__).resolve().parent / 'fixtures' / 'kafka_broker_cluster_jinja.yml'

# Each case: the group's members, and their inventory settings (role defaults are not in hostvars).
CLUSTERS: Dict[str, Tuple[List[str], Dict[str, Dict[str, Any]]]] = {
    'one node': (['kafka-1'], {'kafka-1': {}}),
    'three nodes': (['kafka-1', 'kafka-2', 'kafka-3'], {'kafka-1': {}, 'kafka-2': {}, 'kafka-3': {}}),
    'node ids, names and ports set': (['kafka-2', 'kafka-1'], {
        'kafka-1': {'kafka_broker_node_id': 11, 'kafka_broker_advertised_host': 'kafka-1.example.com'},
        'kafka-2': {'kafka_broker_node_id': '12', 'kafka_broker_controller_port': 19093}}),
    'a setting left empty': (['kafka-1', 'kafka-2'], {'kafka-1': {'kafka_broker_node_id': None}, 'kafka-2': {'kafka_broker_advertised_host': ''}}),
    'five nodes': (['k1', 'k2', 'k3', 'k4', 'k5'], {host: {} for host in ('k1', 'k2', 'k3', 'k4', 'k5')}),
    'no node': ([], {}),
}


def jinja_values(members: List[str], hostvars: Dict[str, Dict[str, Any]]) -> Dict[str, Any]:
    """What the role's former Jinja rendered for this cluster."""
    old = yaml.safe_load(OLD_JINJA.read_text(encoding='utf-8'))
    variables: Dict[str, Any] = {name: trust_as_template(text) for name, text in old.items()}
    variables.update(groups={'kafka_brokers': members}, kafka_broker_group='kafka_brokers', hostvars=hostvars,
                     kafka_broker_controller_port=9093)
    templar = Templar(loader=DataLoader(), variables=variables)
    return {name: templar.template(trust_as_template('{{ __kafka_broker_%s }}' % name))
            for name in ('voters', 'replication_factor', 'min_insync_replicas')}


@pytest.mark.parametrize(('members', 'hostvars'), CLUSTERS.values(), ids=list(CLUSTERS))
def test_same_values_as_the_former_jinja(members: List[str], hostvars: Dict[str, Dict[str, Any]]) -> None:
    expected = jinja_values(members, hostvars)
    assert kafka_broker_voters(members, hostvars, 9093) == expected.pop('voters')
    assert kafka_broker_replication(members) == expected


def test_voters_in_the_group_order() -> None:
    members, hostvars = CLUSTERS['node ids, names and ports set']
    assert kafka_broker_voters(members, hostvars, 9093) == '12@kafka-2:19093,11@kafka-1.example.com:9093'


def test_a_member_without_hostvars_is_named() -> None:
    with pytest.raises(AnsibleFilterError, match='kafka-2 is not in hostvars'):
        kafka_broker_voters(['kafka-1', 'kafka-2'], {'kafka-1': {}}, 9093)


@pytest.mark.parametrize('members', ['kafka-1', {'kafka-1': {}}])
def test_members_must_be_a_list(members: Any) -> None:
    with pytest.raises(AnsibleFilterError, match="list of the group's hosts"):
        kafka_broker_replication(members)
