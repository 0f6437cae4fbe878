"""kafka_tool_argv gives role mirrormaker's topic and config tool runs the command lines its Jinja gave.

fixtures/mirrormaker_tool_argv_jinja.yml holds the argv of each run as tasks/verify.yml had it; each
case renders it with Ansible's templar and compares with the filter.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List

import pytest
import yaml
from ansible.errors import AnsibleFilterError
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.kafka_dr.mm2.plugins.filter.kafka_tool_argv import kafka_tool_argv

OLD_JINJA = Path(__file__).resolve().parent / 'fixtures' / 'mirrormaker_tool_argv_jinja.yml'

TOPIC_COMMAND = ['/opt/kafka/kafka-run', 'org.apache.kafka.tools.TopicCommand']
CONFIG_COMMAND = ['/opt/kafka/kafka-run', 'kafka.admin.ConfigCommand']
CLUSTERS = {'src': {'bootstrap_servers': 'src-kafka-1:9092,src-kafka-2:9092'}, 'dst': {'bootstrap_servers': 'dst-kafka-1:9094'},
            'dc-2.east': {'bootstrap_servers': '[fd00::1]:9093'}}
PATTERNS = {'src': 'heartbeats|mm2-offset-syncs\\.dst\\.internal', 'dst': 'src\\..*|heartbeats', 'dc-2.east': '.*'}

# (the fixture's key, the loop's item, what the new task passes as arguments)
RUNS = {
    'source_listing': (lambda item: item, lambda item: ['--list']),
    'source_relisting': (lambda item: item, lambda item: ['--list']),
    'topic_check': (lambda item: item['key'],
                    lambda item: ['--describe', '--if-exists', '--topic', PATTERNS[item['key']]]),
    'heartbeats_described': (lambda item: item['key'], lambda item: ['--describe', '--topic', item['value']]),
    'log_append_time': (lambda item: item['alias'],
                        lambda item: ['--alter', '--entity-type', 'topics', '--entity-name', item['topic'],
                                      '--add-config', 'message.timestamp.type=LogAppendTime']),
}
ITEMS = {
    'source_listing': ['src', 'dc-2.east'],
    'source_relisting': ['dst'],
    'topic_check': [{'key': 'src', 'value': ['heartbeats']}, {'key': 'dc-2.east', 'value': []}],
    'heartbeats_described': [{'key': 'dst', 'value': 'src\\.heartbeats'}, {'key': 'src', 'value': 'dst\\.heartbeats'}],
    'log_append_time': [{'alias': 'dst', 'topic': 'src.heartbeats'}, {'alias': 'dc-2.east', 'topic': 'dst.heartbeats'}],
}
CASES = [(run, item, client_dir) for run, items in ITEMS.items() for item in items
         for client_dir in ('/etc/kafka-dr/mm2-clients', '/etc/kafka-dr/mm2-clients/prod_a')]


def jinja_argv(run: str, item: Any, client_dir: str) -> List[Any]:
    old = yaml.safe_load(OLD_JINJA.read_text(encoding='utf-8'))
    variables: Dict[str, Any] = {
        'mirrormaker_topic_command': TOPIC_COMMAND, 'mirrormaker_config_command': CONFIG_COMMAND,
        '__mirrormaker_plan': {'clusters': CLUSTERS}, '__mirrormaker_client_dir': client_dir,
        '__mirrormaker_expect': {'expected_patterns': PATTERNS}, 'item': item,
    }
    return Templar(loader=DataLoader(), variables=variables).template(trust_as_template(old[run]))


@pytest.mark.parametrize('run, item, client_dir', CASES)
def test_same_command_line_as_the_former_jinja(run: str, item: Any, client_dir: str) -> None:
    alias, arguments = RUNS[run]
    command = CONFIG_COMMAND if run == 'log_append_time' else TOPIC_COMMAND
    assert kafka_tool_argv(command, CLUSTERS, alias(item), client_dir, arguments(item)) == jinja_argv(run, item, client_dir)


def test_without_arguments() -> None:
    assert kafka_tool_argv(TOPIC_COMMAND, CLUSTERS, 'dst', '/c') == TOPIC_COMMAND + [
        '--bootstrap-server', 'dst-kafka-1:9094', '--command-config', '/c/dst.properties']


@pytest.mark.parametrize('command, alias, arguments, message', [
    ('kafka-topics.sh', 'dst', [], 'as lists'),
    (TOPIC_COMMAND, 'dst', '--list', 'as lists'),
    (TOPIC_COMMAND, 'west', [], 'no cluster west'),
])
def test_malformed_calls_are_refused(command: Any, alias: str, arguments: Any, message: str) -> None:
    with pytest.raises(AnsibleFilterError, match=message):
        kafka_tool_argv(command, CLUSTERS, alias, '/c', arguments)
