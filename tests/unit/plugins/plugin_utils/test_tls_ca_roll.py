"""The CA roll's decisions: which CAs the hosts trust, which one signs them, and which steps are refused."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.filter.tls_ca_roll import tls_ca_key_ids, tls_ca_next_name, tls_ca_roll
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.tls_ca_roll import (
    ca_key_ids,
    host_issuer,
    next_common_name,
    plan_roll,
    staged_key_ids,
)

OLD = 'AA:BB:CC'
NEW = 'DD:EE:FF'


def test_no_roll_trusts_the_current_ca_only() -> None:
    plan = plan_roll('none', False, None)
    assert (plan.create_next, plan.promote, plan.trust, plan.errors) == (False, False, ['current'], [])


def test_add_creates_the_new_ca_once_and_trusts_both() -> None:
    first = plan_roll('add', False, None)
    assert (first.create_next, first.trust) == (True, ['current', 'next'])
    again = plan_roll('add', True, NEW)
    assert (again.create_next, again.trust, again.errors) == (False, ['current', 'next'], [])


def test_a_routine_run_during_a_roll_keeps_both_cas_trusted() -> None:
    assert plan_roll('none', True, NEW).trust == ['current', 'next']


def test_switch_before_add_is_refused() -> None:
    plan = plan_roll('switch', False, None)
    assert plan.errors and 'kafka_tls_ca_roll=add first' in plan.errors[0]
    assert plan.trust == ['current']


def test_retire_is_refused_while_a_host_holds_a_certificate_of_the_old_ca() -> None:
    plan = plan_roll('retire', True, NEW, {'task-1-1': NEW, 'dst-kafka-1': OLD, 'gone': None})
    assert not plan.promote
    assert 'dst-kafka-1, gone' in plan.errors[0]


def test_retire_promotes_when_every_staged_host_moved() -> None:
    # Key identifiers match whatever their case and separators.
    plan = plan_roll('retire', True, NEW, {'task-1-1': 'dd:ee:ff', 'dst-kafka-1': 'DDEEFF'})
    assert (plan.promote, plan.trust, plan.errors) == (True, ['current'], [])


def test_retire_again_after_the_promotion_changes_nothing() -> None:
    plan = plan_roll('retire', False, None, {})
    assert (plan.create_next, plan.promote, plan.trust, plan.errors) == (False, False, ['current'], [])


def test_an_unknown_phase_is_an_error() -> None:
    assert plan_roll('rotate', False, None).errors


@pytest.mark.parametrize('phase, next_exists, host_key_id, expected', [
    ('none', False, OLD, 'current'),
    ('add', True, OLD, 'current'),
    ('switch', True, OLD, 'next'),
    ('switch', True, NEW, 'next'),
    # After the switch, a routine run or a rerun of add keeps the host with the new CA.
    ('none', True, NEW, 'next'),
    ('add', True, 'dd:ee:ff', 'next'),
    # A host added to the inventory in the middle of a roll starts on the current CA.
    ('none', True, None, 'current'),
])
def test_the_ca_that_signs_a_host(phase: str, next_exists: bool, host_key_id: str, expected: str) -> None:
    plan = plan_roll(phase, next_exists, NEW if next_exists else None).as_dict()
    assert host_issuer(phase, plan, host_key_id, NEW if next_exists else None) == expected


def test_after_the_promotion_the_current_ca_signs() -> None:
    plan = plan_roll('retire', True, NEW, {'a': NEW}).as_dict()
    assert host_issuer('retire', plan, NEW, NEW) == 'current'


@pytest.mark.parametrize('current, expected', [
    ('kafka-dr-lab CA', 'kafka-dr-lab CA G2'),
    ('kafka-dr-lab CA G2', 'kafka-dr-lab CA G3'),
    ('kafka-dr-lab CA G9', 'kafka-dr-lab CA G10'),
    (None, 'base CA G2'),
])
def test_each_new_ca_gets_a_name_of_its_own(current: str, expected: str) -> None:
    assert next_common_name(current, 'base CA') == expected
    assert tls_ca_next_name(current, 'base CA') == expected


def test_the_filter_returns_the_plan_or_the_host_decision() -> None:
    plan = tls_ca_roll('add', next_exists=False)
    assert plan == {'create_next': True, 'promote': False, 'trust': ['current', 'next'], 'errors': []}
    assert tls_ca_roll('switch', next_key_id=NEW, plan=plan, host_key_id=OLD) == 'next'
    with pytest.raises(AnsibleFilterError):
        tls_ca_roll(None)  # type: ignore[arg-type]


def test_staged_certificates_are_named_by_their_host_directory() -> None:
    results = [{'item': {'path': '/lab/tls/hosts/task-1-1/cert.pem'}, 'authority_key_identifier': NEW},
               {'item': {'path': '/lab/tls/hosts/src-kafka-1/cert.pem'}, 'failed': True}]
    assert staged_key_ids(results) == {'task-1-1': NEW, 'src-kafka-1': None}
    plan = tls_ca_roll('retire', next_exists=True, next_key_id=NEW, staged_certs=results)
    assert not plan['promote'] and 'src-kafka-1' in plan['errors'][0]


# x509_certificate_info's result on a missing file (failed_when: false) has no key identifier.
MISSING = {'failed': True, 'msg': 'The file does not exist'}
CURRENT_INFO = {'subject_key_identifier': OLD}
NEXT_INFO = {'subject_key_identifier': NEW}


def test_the_filter_reads_the_new_ca_from_its_certificate_info() -> None:
    assert tls_ca_roll('add', next_info=MISSING)['create_next'] is True
    assert tls_ca_roll('add', next_info=NEXT_INFO)['create_next'] is False
    assert tls_ca_roll('switch', next_info=MISSING)['errors']
    staged = [{'item': {'path': '/lab/tls/hosts/task-1-1/cert.pem'}, 'authority_key_identifier': OLD}]
    refused = tls_ca_roll('retire', next_info=NEXT_INFO, staged_certs=staged)
    assert not refused['promote'] and 'task-1-1' in refused['errors'][0]


@pytest.mark.parametrize('phase, next_info, created, expected', [
    ('none', MISSING, {'skipped': True}, {'current': OLD, 'next': None}),
    ('add', MISSING, {'subject_key_identifier': NEW}, {'current': OLD, 'next': NEW}),
    ('add', NEXT_INFO, {'skipped': True}, {'current': OLD, 'next': NEW}),
    ('switch', NEXT_INFO, {'skipped': True}, {'current': OLD, 'next': NEW}),
    ('retire', NEXT_INFO, {'skipped': True}, {'current': NEW, 'next': None}),
])
def test_each_step_names_the_key_ids_of_the_cas_it_uses(phase: str, next_info: dict, created: dict, expected: dict) -> None:
    plan = tls_ca_roll(phase, next_info=next_info)
    assert tls_ca_key_ids(plan, CURRENT_INFO, next_info, created) == expected
    assert ca_key_ids(plan, CURRENT_INFO, next_info, created) == expected


def test_the_key_ids_filter_wants_a_plan() -> None:
    with pytest.raises(AnsibleFilterError):
        tls_ca_key_ids('add', CURRENT_INFO, NEXT_INFO)  # type: ignore[arg-type]
