# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""SCRAM accounts: ConfigCommand's listing, fingerprints, the plan, the credential file, input checks."""

from __future__ import annotations

import hashlib
import stat
from pathlib import Path
from typing import Dict, List

import pytest

from ansible_collections.kafka_dr.mm2.plugins.module_utils.java_properties import read_file
from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_scram import (
    ScramAccount,
    StateDir,
    account_errors,
    parse_scram_listing,
    plan_scram,
    resolve_accounts,
)

SALT = 'Abc123Def456Ghi789Jkl012Mno345Pq'
LISTING = (
    "Quota configs for user-principal 'mm2' are consumer_byte_rate=1024.0\n"
    "SCRAM credential configs for user-principal 'mm2' are SCRAM-SHA-256=iterations=4096, "
    "SCRAM-SHA-512=iterations=8192\n"
    "SCRAM credential configs for user-principal 'connect' are SCRAM-SHA-512=iterations=8192\n"
    "Error retrieving SCRAM credential configs for user-principal 'quota-only': ResourceNotFoundException: "
    "No SCRAM credentials\n"
)


def account(name: str = 'mm2', mechanism: str = 'SCRAM-SHA-512', iterations: int = 8192, password: str = 'secret',
            present: bool = True) -> ScramAccount:
    return ScramAccount(name, mechanism, iterations, password if present else None, present)


def test_a_kafka_4_listing_from_the_lab() -> None:
    text = (Path(__file__).resolve().parents[1] / 'fixtures' / 'scram_listing_kafka4.txt').read_text(encoding='utf-8')

    assert parse_scram_listing(text) == {'mm2': {'SCRAM-SHA-512': 8192}, 'connect': {'SCRAM-SHA-512': 8192}}


def test_the_listing_gives_mechanisms_and_iterations_per_account() -> None:
    assert parse_scram_listing(LISTING) == {'mm2': {'SCRAM-SHA-256': 4096, 'SCRAM-SHA-512': 8192},
                                            'connect': {'SCRAM-SHA-512': 8192}}
    assert parse_scram_listing('') == {}


def test_the_fingerprint_is_the_one_the_role_always_wrote() -> None:
    expected = hashlib.sha512(('%s:mm2:SCRAM-SHA-512:8192:secret' % SALT).encode()).hexdigest()

    assert account().fingerprint(SALT) == expected
    assert account(password='other').fingerprint(SALT) != expected
    assert account(iterations=16384).fingerprint(SALT) != expected
    assert account().fingerprint('another-salt') != expected


def plan_for(accounts: List[ScramAccount], listed: Dict[str, Dict[str, int]], markers: Dict[str, str]) -> List[str]:
    plan = plan_scram(accounts, listed, SALT, markers)
    return (['set %s' % item.marker for item in plan.to_set] + ['delete %s' % item.marker for item in plan.to_delete]
            + ['forget %s' % item.marker for item in plan.to_forget])


def test_an_applied_account_is_left_alone() -> None:
    mm2 = account()
    assert plan_for([mm2], {'mm2': {'SCRAM-SHA-512': 8192}}, {mm2.marker: mm2.fingerprint(SALT)}) == []


@pytest.mark.parametrize('listed, marker', [
    ({}, 'same'),                                   # the cluster lacks the account
    ({'mm2': {'SCRAM-SHA-256': 8192}}, 'same'),     # ... or the mechanism
    ({'mm2': {'SCRAM-SHA-512': 4096}}, 'same'),     # iterations changed outside
    ({'mm2': {'SCRAM-SHA-512': 8192}}, 'stale'),    # password or settings changed since applied
    ({'mm2': {'SCRAM-SHA-512': 8192}}, None),       # never applied by the collection
])
def test_an_account_is_set_when_anything_differs(listed: Dict[str, Dict[str, int]], marker: str) -> None:
    mm2 = account()
    markers = {} if marker is None else {mm2.marker: mm2.fingerprint(SALT) if marker == 'same' else 'stale'}

    assert plan_for([mm2], listed, markers) == ['set mm2.SCRAM-SHA-512']


def test_without_a_salt_every_present_account_is_set() -> None:
    plan = plan_scram([account()], {'mm2': {'SCRAM-SHA-512': 8192}}, None, {})
    assert [item.name for item in plan.to_set] == ['mm2']


def test_an_absent_account_is_deleted_while_the_cluster_has_it_and_forgotten() -> None:
    gone = account(present=False)

    assert plan_for([gone], {'mm2': {'SCRAM-SHA-512': 8192}}, {gone.marker: 'x'}) == [
        'delete mm2.SCRAM-SHA-512', 'forget mm2.SCRAM-SHA-512']
    assert plan_for([gone], {'mm2': {'SCRAM-SHA-256': 8192}}, {}) == []


def test_defaults_fill_each_account() -> None:
    assert resolve_accounts([{'name': 'a', 'password': 'p'},
                             {'name': 'b', 'mechanism': 'SCRAM-SHA-256', 'iterations': '4096', 'state': 'absent'}],
                            'SCRAM-SHA-512', 8192) == [
        ScramAccount('a', 'SCRAM-SHA-512', 8192, 'p', True), ScramAccount('b', 'SCRAM-SHA-256', 4096, None, False)]


def test_each_broken_rule_has_its_message_and_no_password_in_it() -> None:
    errors = account_errors([{'name': 'ok', 'password': 'hunter2-secret'},
                             {'name': 'bad name', 'password': 'hunter2-secret'},
                             {'name': 'nopass'},
                             {'name': 'few', 'password': 'hunter2-secret', 'iterations': 100},
                             {'name': 'ok', 'password': 'hunter2-secret'},
                             {'name': 'odd', 'state': 'gone', 'mechanism': 'SCRAM-SHA-1'}], 'SCRAM-SHA-512', 8192)

    assert errors == [
        "account 2: name must be letters, digits, '.', '_', '@' or '-' (got 'bad name')",
        'account nopass: a password is required unless the state is absent',
        'account few: iterations must be at least 4096 (Kafka refuses fewer)',
        'account ok: SCRAM-SHA-512 is declared twice (accounts 1 and 5)',
        'account odd: state must be present or absent',
        'account odd: mechanism must be one of SCRAM-SHA-512, SCRAM-SHA-256',
    ]
    assert not any('hunter2' in error for error in errors)
    assert account_errors([], 'SCRAM-SHA-1', '100') == [
        'the default mechanism must be one of SCRAM-SHA-512, SCRAM-SHA-256',
        'the default iterations must be at least 4096 (Kafka refuses fewer)']
    assert account_errors([{'name': 'x', 'state': 'absent'}], 'SCRAM-SHA-512', '8192') == []


@pytest.mark.parametrize('password', ['plain', 'p=ss:w#rd!', ' leading space', 'back\\slash', 'wörd 𝄞', 'tab\there'])
def test_credential_values_read_back_unchanged(tmp_path: Path, password: str) -> None:
    state = StateDir(str(tmp_path / 'state'))
    state.ensure_salt()
    credential = Path(state.write_credential(account(password=password)))
    text = credential.read_text(encoding='utf-8')

    assert read_file(str(credential)) == {'SCRAM-SHA-512': 'iterations=8192,password=%s' % password}
    assert all(32 <= ord(char) < 127 for char in text.rstrip('\n'))


def test_state_files_are_root_only(tmp_path: Path) -> None:
    state = StateDir(str(tmp_path / 'state'))
    salt = state.ensure_salt()
    mm2 = account()
    state.record(mm2, salt)
    credential = Path(state.write_credential(mm2))

    assert state.ensure_salt() == salt and len(salt) == 32 and salt.isalnum()
    assert state.read_markers([mm2, account('other')]) == {mm2.marker: mm2.fingerprint(salt)}
    assert credential.read_text() == 'SCRAM-SHA-512=iterations=8192,password=secret\n'
    for path in (tmp_path / 'state').iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    assert stat.S_IMODE((tmp_path / 'state').stat().st_mode) == 0o700
    state.forget(mm2)
    state.forget(mm2)
    assert state.read_markers([mm2]) == {}
