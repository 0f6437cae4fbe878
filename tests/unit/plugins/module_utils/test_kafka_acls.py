# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""ACL bindings: the listing parser, input checks, the diff with prune, grouping into AclCommand runs, the record."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any, Dict, List

import pytest

from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_acls import (
    AclBinding,
    AclListingError,
    AclRecordError,
    DesiredBindings,
    binding_input_errors,
    command_operation,
    desired_bindings,
    group_changes,
    listing_operation,
    next_record,
    parse_acl_listing,
    plan_acls,
    prune_scope_errors,
    read_record,
    write_record,
)

FIXTURES = Path(__file__).resolve().parents[1] / 'fixtures'
# Kafka 3.x (Scala AclCommand) pads the header and the first and last entry with spaces.
KAFKA_3_LISTING = (
    'Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=src., patternType=PREFIXED)`: \n'
    ' \t(principal=User:mm2, host=*, operation=WRITE, permissionType=ALLOW)\n'
    '\t(principal=User:mm2, host=*, operation=DESCRIBE_CONFIGS, permissionType=ALLOW) \n'
    ' \n'
    'Current ACLs for resource `ResourcePattern(resourceType=CLUSTER, name=kafka-cluster, patternType=LITERAL)`: \n'
    ' \t(principal=User:mm2, host=*, operation=ALTER, permissionType=ALLOW) \n'
    ' \n'
)


def binding(resource_type: str = 'TOPIC', name: str = '*', pattern_type: str = 'LITERAL', principal: str = 'User:mm2',
            host: str = '*', operation: str = 'READ', permission: str = 'ALLOW') -> AclBinding:
    return AclBinding(resource_type, name, pattern_type, principal, host, operation, permission)


def desired(entries: List[Dict[str, Any]]) -> DesiredBindings:
    wanted, errors = desired_bindings(entries)
    assert errors == []
    return wanted


# ---- the listing -----------------------------------------------------------------------------------

def test_a_kafka_4_listing_from_the_lab_parses_completely() -> None:
    text = (FIXTURES / 'acl_listing_kafka4.txt').read_text(encoding='utf-8')
    bindings = parse_acl_listing(text)

    assert len(bindings) == text.count('(principal=')
    assert binding('TOPIC', 'src.', 'PREFIXED', operation='DESCRIBE_CONFIGS') in bindings
    assert binding('CLUSTER', 'kafka-cluster', operation='ALTER') in bindings
    assert binding('GROUP', 'connect-mm2-lab', principal='User:connect', operation='READ') in bindings
    assert binding('TOPIC', 'connect-mm2-lab-', 'PREFIXED', principal='User:connect', operation='ALL') in bindings


def test_a_kafka_3_listing_with_its_padding_parses_the_same() -> None:
    assert parse_acl_listing(KAFKA_3_LISTING) == {
        binding('TOPIC', 'src.', 'PREFIXED', operation='WRITE'),
        binding('TOPIC', 'src.', 'PREFIXED', operation='DESCRIBE_CONFIGS'),
        binding('CLUSTER', 'kafka-cluster', operation='ALTER'),
    }


def test_names_and_principals_with_commas_and_log_lines_around() -> None:
    text = ('WARN some log line the tool printed\n'
            'Current ACLs for resource `ResourcePattern(resourceType=GROUP, name=team a, b, patternType=LITERAL)`:\n'
            '\t(principal=User:CN=app,O=Example, Inc., host=10.0.0.1, operation=READ, permissionType=DENY)\n\n')

    assert parse_acl_listing(text) == {
        binding('GROUP', 'team a, b', principal='User:CN=app,O=Example, Inc.', host='10.0.0.1', permission='DENY')}


def test_an_empty_cluster_lists_nothing() -> None:
    assert parse_acl_listing('') == set()


@pytest.mark.parametrize('text', [
    '\t(principal=User:mm2, host=*, operation=READ, permissionType=ALLOW)\n',
    'Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=x, patternType=LITERAL)`:\n'
    '\t(principal=User:mm2, host=*, operation=READ)\n',
    'Current ACLs for resource `Topic:LITERAL:x`:\n',
])
def test_an_entry_that_cannot_be_read_stops_everything(text: str) -> None:
    with pytest.raises(AclListingError):
        parse_acl_listing(text)


@pytest.mark.parametrize('command, listing', [('Read', 'READ'), ('DescribeConfigs', 'DESCRIBE_CONFIGS'),
                                              ('IdempotentWrite', 'IDEMPOTENT_WRITE'), ('All', 'ALL')])
def test_operation_spellings(command: str, listing: str) -> None:
    assert listing_operation(command) == listing and command_operation(listing) == command


# ---- input -----------------------------------------------------------------------------------------

def test_entries_expand_to_one_binding_per_operation_with_defaults() -> None:
    wanted = desired([{'principal': 'User:mm2', 'resource_type': 'cluster', 'operations': ['Describe', 'alter']},
                      {'principal': 'User:x', 'resource_type': 'topic', 'name': 'a', 'operations': ['describe_configs'],
                       'permission': 'deny', 'host': '10.0.0.1', 'state': 'absent'}])

    assert wanted.present == {binding('CLUSTER', 'kafka-cluster', operation='DESCRIBE'),
                              binding('CLUSTER', 'kafka-cluster', operation='ALTER')}
    assert wanted.absent == {binding('TOPIC', 'a', principal='User:x', host='10.0.0.1', operation='DESCRIBE_CONFIGS',
                                     permission='DENY')}


def test_every_broken_rule_of_an_entry_gets_its_own_message() -> None:
    errors = binding_input_errors([{'principal': 'mm2', 'resource_type': 'cluster', 'name': 'x',
                                    'pattern_type': 'prefixed', 'operations': ['Read']}])

    assert errors == [
        "binding 1 (mm2 cluster:kafka-cluster): principal must be Type:name, for example User:mm2 (got 'mm2')",
        'binding 1 (mm2 cluster:kafka-cluster): a cluster binding takes no name (the cluster is one resource)',
        'binding 1 (mm2 cluster:kafka-cluster): a cluster binding is literal; prefixed patterns apply to named '
        'resources',
        'binding 1 (mm2 cluster:kafka-cluster): a cluster binding cannot grant Read; it takes All, Alter, '
        'AlterConfigs, ClusterAction, Create, Describe, DescribeConfigs, IdempotentWrite',
    ]


def test_operations_must_exist_and_fit_the_resource() -> None:
    assert binding_input_errors([{'principal': 'User:a', 'resource_type': 'group', 'name': 'g',
                                  'operations': ['Write']}]) == [
        'binding 1 (User:a group:g): a group binding cannot grant Write; it takes All, AlterConfigs, Delete, Describe, '
        'DescribeConfigs, Read']
    assert 'unknown operation Fly' in binding_input_errors([{'principal': 'User:a', 'resource_type': 'topic',
                                                             'name': 't', 'operations': ['Fly']}])[0]
    assert binding_input_errors('nope') == ['bindings must be a list']
    assert prune_scope_errors(['User:mm2', 'mm2']) == [
        "prune scope: 'mm2' is not a principal (Type:name, for example User:mm2)"]


# ---- the diff --------------------------------------------------------------------------------------

READ = binding(operation='READ')
DESCRIBE = binding(operation='DESCRIBE')
CLUSTER_DESCRIBE = binding('CLUSTER', 'kafka-cluster', operation='DESCRIBE')
BY_HAND = binding('GROUP', 'manual')
OTHER = binding(principal='User:other')
MM2_TOPICS = {'principal': 'User:mm2', 'resource_type': 'topic', 'name': '*', 'operations': ['Read', 'Describe']}


def test_nothing_to_do_when_the_cluster_matches() -> None:
    plan = plan_acls({READ, DESCRIBE, OTHER}, desired([MM2_TOPICS]), {READ, DESCRIBE}, prune=True)

    assert not plan.changes and plan.to_add == set() and plan.to_remove == set()


def test_missing_bindings_are_added_and_absent_ones_removed() -> None:
    wanted = desired([MM2_TOPICS, {'principal': 'User:other', 'resource_type': 'topic', 'name': '*',
                                   'operations': ['Read'], 'state': 'absent'}])

    plan = plan_acls({READ, OTHER}, wanted, set(), prune=False)

    assert plan.to_add == {DESCRIBE} and plan.to_remove == {OTHER} and plan.pruned == set()


def test_prune_removes_recorded_undeclared_bindings_only() -> None:
    current = {READ, DESCRIBE, CLUSTER_DESCRIBE, BY_HAND, OTHER}
    recorded = {READ, DESCRIBE, CLUSTER_DESCRIBE, binding('TOPIC', 'gone-already')}

    assert plan_acls(current, desired([MM2_TOPICS]), recorded, prune=False).to_remove == set()
    plan = plan_acls(current, desired([MM2_TOPICS]), recorded, prune=True)
    assert plan.to_remove == plan.pruned == {CLUSTER_DESCRIBE}


def test_prune_scope_owns_every_binding_of_its_principals() -> None:
    plan = plan_acls({READ, BY_HAND, OTHER}, desired([MM2_TOPICS]), set(), prune=True, prune_scope=[' User:mm2'])

    assert plan.to_add == {DESCRIBE} and plan.pruned == {BY_HAND}


def test_the_record_keeps_what_the_collection_owns_and_still_exists() -> None:
    wanted = desired([MM2_TOPICS])
    after = {READ, DESCRIBE, BY_HAND, CLUSTER_DESCRIBE}

    record = next_record({CLUSTER_DESCRIBE, binding('TOPIC', 'gone')}, wanted, after)

    assert record == {READ, DESCRIBE, CLUSTER_DESCRIBE}


# ---- grouping into AclCommand runs -----------------------------------------------------------------

def test_operations_of_one_resource_share_a_run() -> None:
    runs = group_changes({READ, DESCRIBE})

    assert len(runs) == 1
    assert runs[0].arguments(add=True) == ['--add', '--allow-principal', 'User:mm2', '--allow-host', '*', '--topic', '*',
                                           '--resource-pattern-type', 'literal', '--operation=Describe',
                                           '--operation=Read']
    assert runs[0].bindings() == {READ, DESCRIBE}


def test_resources_needing_the_same_operations_share_a_run() -> None:
    group_read = binding('GROUP', 'g', operation='READ')
    cluster_read = binding('CLUSTER', 'kafka-cluster', operation='DESCRIBE')
    runs = group_changes({READ, group_read, DESCRIBE, cluster_read, binding('GROUP', 'g', operation='DESCRIBE')})

    assert len(runs) == 2
    shared = next(run for run in runs if len(run.resources) == 2)
    assert shared.resources == (('GROUP', 'g'), ('TOPIC', '*')) and shared.operations == ('DESCRIBE', 'READ')
    cluster_run = next(run for run in runs if run is not shared)
    assert cluster_run.arguments(add=False) == ['--remove', '--force', '--allow-principal', 'User:mm2', '--allow-host',
                                                '*', '--cluster', '--resource-pattern-type', 'literal',
                                                '--operation=Describe']


@pytest.mark.parametrize('other', [
    binding(host='10.0.0.1'), binding(permission='DENY'), binding('TOPIC', 'src.', 'PREFIXED'),
])
def test_runs_never_mix_hosts_permissions_or_pattern_types(other: AclBinding) -> None:
    runs = group_changes({READ, other})

    assert len(runs) == 2
    assert set().union(*(run.bindings() for run in runs)) == {READ, other}


def test_principals_with_the_same_operations_on_the_same_resources_share_a_run() -> None:
    validator_read = binding(principal='User:validator')
    validator_describe = binding(principal='User:validator', operation='DESCRIBE')
    runs = group_changes({READ, DESCRIBE, validator_read, validator_describe})

    assert len(runs) == 1
    assert runs[0].principals == ('User:mm2', 'User:validator')
    assert runs[0].arguments(add=True)[:6] == ['--add', '--allow-principal', 'User:mm2', '--allow-principal',
                                               'User:validator', '--allow-host']
    assert runs[0].bindings() == {READ, DESCRIBE, validator_read, validator_describe}


@pytest.mark.parametrize('other', [
    binding(principal='User:other', operation='DESCRIBE'), binding('GROUP', 'g', principal='User:other'),
])
def test_principals_needing_other_operations_or_resources_get_runs_of_their_own(other: AclBinding) -> None:
    """A shared run applies the product: sharing here would grant one of them a right it was not given."""
    runs = group_changes({READ, other})

    assert len(runs) == 2
    assert all(len(run.principals) == 1 for run in runs)
    assert set().union(*(run.bindings() for run in runs)) == {READ, other}


def test_deny_bindings_use_the_deny_options() -> None:
    (run,) = group_changes({binding(permission='DENY', host='10.0.0.1')})

    assert run.arguments(add=True)[1:5] == ['--deny-principal', 'User:mm2', '--deny-host', '10.0.0.1']


# ---- the record ------------------------------------------------------------------------------------

def test_the_record_round_trips_root_only(tmp_path: Path) -> None:
    path = tmp_path / 'state' / 'acl-bindings.json'
    write_record(str(path), {READ, CLUSTER_DESCRIBE})

    assert read_record(str(path)) == {READ, CLUSTER_DESCRIBE}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    document = json.loads(path.read_text())
    assert document['format'] == 1
    assert document['bindings'][0] == {'principal': 'User:mm2', 'resource_type': 'cluster', 'name': 'kafka-cluster',
                                       'pattern_type': 'literal', 'operation': 'Describe', 'permission': 'allow',
                                       'host': '*'}
    assert [item.name for item in tmp_path.joinpath('state').iterdir()] == ['acl-bindings.json']


def test_no_record_means_nothing_is_owned(tmp_path: Path) -> None:
    assert read_record(str(tmp_path / 'missing.json')) == set() and read_record(None) == set()


@pytest.mark.parametrize('content', ['{oops', '[]', '{"format": 2, "bindings": []}', '{"format": 1, "bindings": [{}]}'])
def test_an_unreadable_record_is_an_error(tmp_path: Path, content: str) -> None:
    path = tmp_path / 'acl-bindings.json'
    path.write_text(content)

    with pytest.raises(AclRecordError, match='cannot read the ACL state record'):
        read_record(str(path))
