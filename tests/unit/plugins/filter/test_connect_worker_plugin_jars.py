# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""connect_worker_plugin_jars: where each jar goes on a worker (plugin.path or the class path), and the checks before
anything is installed (entries, the controller's file and its SHA-256, the ServiceLoader manifests)."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.filter.connect_worker_plugin_jar_errors import connect_worker_plugin_jar_errors
from ansible_collections.kafka_dr.mm2.plugins.filter.connect_worker_plugin_jars import connect_worker_plugin_jars

PLUGIN_DIR = '/opt/kafka/plugins'
CLASSPATH_DIR = '/opt/kafka/connect-classpath'
SMT_MANIFEST = 'META-INF/services/org.apache.kafka.connect.transforms.Transformation'


def make_jar(path: Path, manifest: Optional[str] = None) -> Path:
    with zipfile.ZipFile(path, 'w') as jar:
        jar.writestr('com/example/Thing.class', b'\xca\xfe\xba\xbe')
        if manifest:
            jar.writestr(manifest, 'com.example.Thing\n')
    return path


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def stat_of(path: str) -> Dict[str, Any]:
    """What ansible.builtin.stat with get_checksum and checksum_algorithm sha256 reports, as a loop result."""
    file = Path(path)
    if not file.exists():
        return {'item': {'src': path}, 'stat': {'exists': False}}
    stat: Dict[str, Any] = {'exists': True, 'isreg': file.is_file()}
    if file.is_file():
        stat['checksum'] = sha256(file)
    return {'item': {'src': path}, 'stat': stat}


def errors(jars: List[Dict[str, Any]], discovery: str = 'service_load', kafka_version: str = '4.1.0') -> List[str]:
    check = {'jars': jars, 'stats': {'results': [stat_of(str(jar.get('src'))) for jar in jars]}, 'plugin_dir': PLUGIN_DIR,
             'classpath_dir': CLASSPATH_DIR, 'plugin_discovery': discovery, 'kafka_version': kafka_version}
    return connect_worker_plugin_jar_errors(check)


def test_plugins_under_the_plugin_path_and_policies_on_the_class_path() -> None:
    jars = [{'src': '/srv/jars/prefix-policy-1.2.jar', 'sha256': 'a' * 64, 'name': 'prefix-policy', 'classpath': True},
            {'src': '/srv/jars/my-smt-2.0.jar', 'sha256': 'b' * 64},
            {'src': '/srv/jars/my-smt-deps.jar', 'sha256': 'c' * 64, 'name': 'my-smt-2.0'},
            {'src': '/srv/jars/filters.jar', 'sha256': 'd' * 64, 'classpath': 'yes'}]
    layout = connect_worker_plugin_jars(jars, PLUGIN_DIR, CLASSPATH_DIR + '/', 'kafka')
    assert layout['files'] == [
        {'src': '/srv/jars/prefix-policy-1.2.jar', 'dest': CLASSPATH_DIR + '/prefix-policy/prefix-policy-1.2.jar',
         'owner': 'root', 'group': 'kafka', 'mode': '0640'},
        {'src': '/srv/jars/my-smt-2.0.jar', 'dest': PLUGIN_DIR + '/my-smt-2.0/my-smt-2.0.jar', 'owner': 'root', 'group': 'kafka',
         'mode': '0640'},
        {'src': '/srv/jars/my-smt-deps.jar', 'dest': PLUGIN_DIR + '/my-smt-2.0/my-smt-deps.jar', 'owner': 'root', 'group': 'kafka',
         'mode': '0640'},
        {'src': '/srv/jars/filters.jar', 'dest': CLASSPATH_DIR + '/filters/filters.jar', 'owner': 'root', 'group': 'kafka',
         'mode': '0640'},
    ]
    assert [directory['path'] for directory in layout['directories']] == [
        CLASSPATH_DIR, CLASSPATH_DIR + '/prefix-policy', PLUGIN_DIR + '/my-smt-2.0', CLASSPATH_DIR + '/filters']
    assert {(directory['owner'], directory['group'], directory['mode']) for directory in layout['directories']} == {('root', 'kafka', '0750')}
    assert layout['classpath'] == [CLASSPATH_DIR + '/prefix-policy/*', CLASSPATH_DIR + '/filters/*']
    assert layout['jar_directories'] == [CLASSPATH_DIR + '/prefix-policy', PLUGIN_DIR + '/my-smt-2.0', CLASSPATH_DIR + '/filters']


def test_no_jars_no_layout() -> None:
    assert connect_worker_plugin_jars([], PLUGIN_DIR, CLASSPATH_DIR) == {
        'directories': [], 'files': [], 'classpath': [], 'jar_directories': []}


def test_the_layout_refuses_what_the_check_reports() -> None:
    with pytest.raises(AnsibleFilterError, match=r"connect_worker_plugin_jars\[0\] \(policy.jar\): src must be the absolute path"):
        connect_worker_plugin_jars([{'src': 'policy.jar', 'sha256': 'a' * 64}], PLUGIN_DIR, CLASSPATH_DIR)


def test_verified_jars_pass(tmp_path: Path) -> None:
    plugin = make_jar(tmp_path / 'my-smt.jar', SMT_MANIFEST)
    dependency = make_jar(tmp_path / 'my-smt-deps.jar')
    policy = make_jar(tmp_path / 'policy.jar')
    jars = [{'src': str(plugin), 'sha256': sha256(plugin).upper(), 'name': 'my-smt'},
            {'src': str(dependency), 'sha256': sha256(dependency), 'name': 'my-smt'},
            {'src': str(policy), 'sha256': sha256(policy), 'classpath': True}]
    assert errors(jars) == []


def test_a_mismatched_checksum_names_the_file_and_both_digests(tmp_path: Path) -> None:
    policy = make_jar(tmp_path / 'policy.jar')
    expected = '0' * 64
    found = errors([{'src': str(policy), 'sha256': expected, 'classpath': True}])
    assert found == ['connect_worker: connect_worker_plugin_jars[0] (%s): %s has the SHA-256 %s, not the expected %s. '
                     'Nothing was changed.' % (policy, policy, sha256(policy), expected)]


def test_a_missing_jar_or_a_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / 'dir.jar').mkdir()
    found = errors([{'src': str(tmp_path / 'gone.jar'), 'sha256': 'a' * 64, 'classpath': True},
                    {'src': str(tmp_path / 'dir.jar'), 'sha256': 'a' * 64, 'classpath': True}])
    assert found == [
        'connect_worker: connect_worker_plugin_jars[0] (%s): %s does not exist on the controller. Nothing was changed.'
        % (tmp_path / 'gone.jar', tmp_path / 'gone.jar'),
        'connect_worker: connect_worker_plugin_jars[1] (%s): %s is not a regular file. Nothing was changed.'
        % (tmp_path / 'dir.jar', tmp_path / 'dir.jar')]


@pytest.mark.parametrize('jar, message', [
    ({'src': 'relative/policy.jar', 'sha256': 'a' * 64}, 'src must be the absolute path of a .jar file on the controller'),
    ({'src': '/srv/policy.zip', 'sha256': 'a' * 64}, 'src must be the absolute path of a .jar file'),
    ({'src': '/srv/policy.jar', 'sha256': 'sha256:' + 'a' * 64}, "sha256 must be the jar's SHA-256 in 64 hexadecimal digits"),
    ({'src': '/srv/policy.jar', 'sha256': 'a' * 63}, 'in 64 hexadecimal digits'),
    ({'src': '/srv/policy.jar', 'sha256': 'a' * 64, 'name': '../etc'}, "the directory name '../etc' may only hold"),
    ({'src': '/srv/my policy.jar', 'sha256': 'a' * 64}, "the directory name 'my policy' may only hold"),
    ({'src': '/srv/policy.jar', 'sha256': 'a' * 64, 'path': '/x'}, 'has unknown key path'),
])
def test_malformed_entries_are_named(jar: Dict[str, Any], message: str) -> None:
    found = errors([jar])
    assert len(found) == 1 and message in found[0] and found[0].startswith('connect_worker: connect_worker_plugin_jars[0]')


def test_two_jars_on_one_path_are_refused() -> None:
    jars = [{'src': '/a/policy.jar', 'sha256': 'a' * 64, 'name': 'p'}, {'src': '/b/policy.jar', 'sha256': 'b' * 64, 'name': 'p'}]
    assert 'would both be installed as %s/p/policy.jar' % PLUGIN_DIR in errors(jars)[0]
    # The same name on the class path and under plugin.path are two directories.
    assert connect_worker_plugin_jars([jars[0], dict(jars[1], classpath=True)], PLUGIN_DIR, CLASSPATH_DIR)['classpath'] == [
        CLASSPATH_DIR + '/p/*']


def test_the_class_path_root_may_not_be_the_plugin_path() -> None:
    check = {'jars': [{'src': '/a/policy.jar', 'sha256': 'a' * 64, 'classpath': True}], 'stats': [],
             'plugin_dir': PLUGIN_DIR, 'classpath_dir': PLUGIN_DIR + '/', 'plugin_discovery': 'hybrid_warn', 'kafka_version': ''}
    assert 'connect_worker_classpath_dir must not be connect_worker_plugin_dir' in connect_worker_plugin_jar_errors(check)[0]


def test_a_plugin_directory_without_manifests_is_refused_with_service_load(tmp_path: Path) -> None:
    policy = make_jar(tmp_path / 'policy.jar')
    jars = [{'src': str(policy), 'sha256': sha256(policy)}]
    found = errors(jars)
    assert len(found) == 1
    assert 'no jar of %s/policy declares a Connect plugin in META-INF/services' % PLUGIN_DIR in found[0]
    assert 'set classpath: true' in found[0]
    # Connect scans every class with the hybrid modes, and before Kafka 3.6 (no plugin.discovery).
    assert errors(jars, discovery='hybrid_warn') == []
    assert errors(jars, kafka_version='3.5.2') == []
    # An unknown version counts as a new one.
    assert len(errors(jars, kafka_version='')) == 1


def test_a_file_that_is_no_jar_is_named(tmp_path: Path) -> None:
    bogus = tmp_path / 'bogus.jar'
    bogus.write_bytes(b'not a zip')
    found = errors([{'src': str(bogus), 'sha256': sha256(bogus)}])
    assert len(found) == 1 and '%s is not a readable jar' % bogus in found[0]


def test_stats_must_match_the_jars() -> None:
    check = {'jars': [{'src': '/a/policy.jar', 'sha256': 'a' * 64}], 'stats': {'results': []}, 'plugin_dir': PLUGIN_DIR,
             'classpath_dir': CLASSPATH_DIR, 'plugin_discovery': 'service_load', 'kafka_version': ''}
    with pytest.raises(AnsibleFilterError, match='one stat result per jar'):
        connect_worker_plugin_jar_errors(check)
    with pytest.raises(AnsibleFilterError, match='is missing plugin_discovery'):
        connect_worker_plugin_jar_errors({'jars': [], 'stats': [], 'plugin_dir': '', 'classpath_dir': '', 'kafka_version': ''})
