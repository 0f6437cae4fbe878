"""mm2_topics_present gives role mirrormaker the topics by cluster its former Jinja gave.

fixtures/mirrormaker_vars_jinja.yml holds that Jinja as it was in vars/main.yml; each case renders
it with Ansible's templar and compares with the filters that took over: outputs_by_item for what
the source clusters listed (and listed again, in tasks/verify.yml), mm2_topics_present for what
each cluster held at the end of the topic check.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List

import pytest
import yaml
from ansible.errors import AnsibleFilterError
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template

from ansible_collections.kafka_dr.mm2.plugins.filter.mm2_topics_present import mm2_topics_present
from ansible_collections.kafka_dr.mm2.plugins.filter.outputs_by_item import outputs_by_item
from ansible_collections.kafka_dr.mm2.plugins.filter.topic_names import topic_names

OLD_JINJA = Path(__file__).resolve().parent / 'fixtures' / 'mirrormaker_vars_jinja.yml'
# The former Jinja's use of a collection filter, which a bare templar does not load: the same
# function, called through a global.
FILTER_CALL = ("zip(__mirrormaker_listed | map(attribute='stdout') | map('kafka_dr.mm2.topic_names'))",
               "zip(names_in_each(__mirrormaker_listed | map(attribute='stdout')))")
DESCRIBED_DST = (
    'Topic: src.orders\tTopicId: eYvZB266SCW6JuAmBnXkUQ\tPartitionCount: 1\tReplicationFactor: 1\tConfigs: \n'
    '\tTopic: src.orders\tPartition: 0\tLeader: 1\tReplicas: 1\tIsr: 1\tElr: \tLastKnownElr: \n'
    'Topic: src.heartbeats\tTopicId: _6azyUI5SnCg2Rj7DUivoA\tPartitionCount: 1\tReplicationFactor: 1\t'
    'Configs: message.timestamp.type=LogAppendTime\n'
)


def listed(alias: str, *topics: str) -> Dict[str, Any]:
    """A result of the source clusters' --list loop."""
    return {'item': alias, 'stdout': '\n'.join(topics), 'stdout_lines': list(topics), 'rc': 0, 'changed': False}


def checked(alias: str, stdout: str, rc: int = 0) -> Dict[str, Any]:
    """A result of the topic check, looped over the expected topics by alias."""
    return {'item': {'key': alias, 'value': ['heartbeats']}, 'stdout': stdout, 'stdout_lines': stdout.splitlines(),
            'stderr': '' if rc == 0 else 'Error while executing topic command', 'rc': rc, 'attempts': 1, 'changed': False}


def skipped(alias: str) -> Dict[str, Any]:
    return {'item': {'key': alias, 'value': ['heartbeats']}, 'skipped': True, 'changed': False, 'false_condition': '...'}


SOURCES = [listed('src', 'orders', 'heartbeats', 'mm2-offset-syncs.dst.internal'), listed('dc-2.east')]

# (the source aliases, the source clusters' listing, the topic check's results)
CASES: Dict[str, Any] = {
    'no source cluster': ([], [], []),
    'every cluster checked': (['src'], SOURCES[:1], [checked('dst', DESCRIBED_DST), checked('src', 'heartbeats\n')]),
    'a source cluster skipped': (['src', 'dc-2.east'], SOURCES, [checked('dst', DESCRIBED_DST), skipped('src')]),
    'a failed check still counts': (['src'], SOURCES[:1], [checked('dst', 'Topic: src.orders\tTopicId: x', rc=1), skipped('src')]),
    'an empty description': (['src'], SOURCES[:1], [checked('dst', '')]),
    'the check replaces a source listing': (['src', 'dc-2.east'], SOURCES, [checked('dc-2.east', 'src.heartbeats')]),
}


def former(aliases: List[str], sources: List[Dict[str, Any]], results: List[Dict[str, Any]]) -> Dict[str, Any]:
    """What vars/main.yml's former Jinja rendered for these results."""
    source = OLD_JINJA.read_text(encoding='utf-8')
    assert FILTER_CALL[0] in source
    old = yaml.safe_load(source.replace(*FILTER_CALL))
    variables: Dict[str, Any] = {name: trust_as_template(text) for name, text in old.items()}
    variables.update(__mirrormaker_plan={'source_aliases': aliases}, __mirrormaker_source_listing={'results': sources},
                     __mirrormaker_topic_listing={'results': results},
                     names_in_each=lambda outputs: [topic_names(output) for output in outputs])
    templar = Templar(loader=DataLoader(), variables=variables)
    return {name: templar.template(trust_as_template('{{ __mirrormaker_%s }}' % name)) for name in ('source_topics', 'present')}


@pytest.mark.parametrize('aliases, sources, results', CASES.values(), ids=list(CASES))
def test_same_topics_as_the_former_jinja(aliases: List[str], sources: List[Dict[str, Any]], results: List[Dict[str, Any]]) -> None:
    source_topics = outputs_by_item(sources, 'item', 'stdout_lines')
    assert {'source_topics': source_topics, 'present': mm2_topics_present(results, source_topics)} == former(aliases, sources, results)


def test_a_description_shows_its_topics_sorted() -> None:
    present = mm2_topics_present([checked('dst', DESCRIBED_DST)], {'src': ['b', 'a']})
    assert present == {'src': ['b', 'a'], 'dst': ['src.heartbeats', 'src.orders']}


@pytest.mark.parametrize('results, source_topics, message', [
    ({'results': []}, {}, 'results must be a list'),
    ([], [], 'source_topics must be a mapping'),
    (['dst'], {}, 'each result must be a mapping'),
    ([{'stdout': 'x'}], {}, 'no item.key'),
    ([{'item': {'key': 'dst'}, 'stdout': ['x']}], {}, 'stdout of a result must be a string'),
])
def test_malformed_input_is_refused(results: Any, source_topics: Any, message: str) -> None:
    with pytest.raises(AnsibleFilterError, match=message):
        mm2_topics_present(results, source_topics)
