"""controller_files turns controller paths into file_set entries copied into one host directory."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.filter.controller_files import controller_files


def test_one_entry_per_path_named_after_it_in_the_directory() -> None:
    entries = controller_files(['/srv/rules/mm2.yml', '/opt/other/extra.yml'], '/etc/prometheus/rules/',
                               owner='root', group='root', validate='promtool check rules %s')
    assert entries == [
        {'src': '/srv/rules/mm2.yml', 'dest': '/etc/prometheus/rules/mm2.yml', 'mode': '0644', 'owner': 'root',
         'group': 'root', 'validate': 'promtool check rules %s'},
        {'src': '/opt/other/extra.yml', 'dest': '/etc/prometheus/rules/extra.yml', 'mode': '0644', 'owner': 'root',
         'group': 'root', 'validate': 'promtool check rules %s'},
    ]
    assert controller_files([], '/etc/x') == []
    assert controller_files(['/a/b.yml'], '/etc/x', mode='0600') == [{'src': '/a/b.yml', 'dest': '/etc/x/b.yml', 'mode': '0600'}]


@pytest.mark.parametrize(('paths', 'directory', 'message'), [
    ('/srv/rules/mm2.yml', '/etc/x', 'must be a list of file paths'),
    (['/srv/a/mm2.yml', ''], '/etc/x', 'must be a list of file paths'),
    (['/srv/a/mm2.yml'], 'etc/x', 'must be an absolute path'),
    (['/srv/a/mm2.yml', '/srv/b/mm2.yml'], '/etc/x', 'to the same name: mm2.yml'),
])
def test_bad_input_is_refused_with_its_reason(paths: object, directory: str, message: str) -> None:
    with pytest.raises(AnsibleFilterError, match=message):
        controller_files(paths, directory)  # type: ignore[arg-type]
