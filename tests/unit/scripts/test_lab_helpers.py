# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The integration helpers that decide without a lab: the polling (it backs off, still polls once at
the deadline, reports the last error) and the ACL grants (one listing per cluster, only missing
bindings added, only added bindings removed) and the Connect REST calls (rebalance answers
repeated, one reconnection, the lab account). The clock, the Admin clients and the HTTPS pools
are faked."""

from __future__ import annotations

import itertools
import json
import subprocess
from pathlib import Path

import pytest

from tests.integration import lab


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(lab.time, 'monotonic', fake.monotonic)
    monkeypatch.setattr(lab.time, 'sleep', fake.sleep)
    return fake


def test_pauses_grow_by_half_up_to_the_ceiling() -> None:
    assert list(itertools.islice(lab.poll_pauses(2.0), 7)) == [2.0, 3.0, 4.5, 6.75, 8.0, 8.0, 8.0]


def test_a_longer_interval_than_the_ceiling_stays_as_asked() -> None:
    assert list(itertools.islice(lab.poll_pauses(10.0), 3)) == [10.0, 10.0, 10.0]


def test_returns_the_first_truthy_result(clock: FakeClock) -> None:
    answers = iter([None, 0, {}, 'ready'])
    assert lab.wait_until(lambda: next(answers), 60, 'a thing') == 'ready'
    assert clock.sleeps == [2.0, 3.0, 4.5]


def test_a_probe_that_raises_is_not_yet_and_its_error_is_reported(clock: FakeClock) -> None:
    def probe() -> None:
        raise RuntimeError('topic not there yet')

    with pytest.raises(lab.Deadline, match='waiting for the topic; last error: topic not there yet'):
        lab.wait_until(probe, 10, 'the topic')


def test_the_last_poll_comes_at_the_deadline(clock: FakeClock) -> None:
    polled_at: list[float] = []

    def probe() -> None:
        polled_at.append(clock.now - 1000.0)

    with pytest.raises(lab.Deadline, match='timed out after 20s'):
        lab.wait_until(probe, 20, 'nothing')
    assert polled_at == [0.0, 2.0, 5.0, 9.5, 16.25, 20.0]


def test_a_tool_timeout_counts_as_not_yet(clock: FakeClock) -> None:
    outcomes = iter([subprocess.TimeoutExpired(['kafka-run'], 180), 'done'])

    def probe() -> str:
        outcome = next(outcomes)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    assert lab.wait_until(probe, 60, 'a slow tool') == 'done'


ENTRIES = {
    ('GROUP', '*', 'LITERAL'): {('User:mm2', 'DESCRIBE', 'ALLOW')},
    ('TOPIC', 'src.', 'PREFIXED'): {('User:mm2', 'READ', 'ALLOW'), ('User:mm2', 'DESCRIBE_CONFIGS', 'ALLOW')},
    ('CLUSTER', 'kafka-cluster', 'LITERAL'): {('User:other', 'ALTER', 'ALLOW')},
}


class FakeAdmin:
    """The Admin clients' ACL calls on the lab: every cluster lists ENTRIES; changes are recorded."""

    def __init__(self) -> None:
        self.calls: list[tuple[object, ...]] = []

    def acl_entries(self, host: str) -> dict:
        self.calls.append(('list', host))
        return ENTRIES

    def change_acls(self, host: str, add: bool, principal: str, operations: list[str], resource: tuple) -> None:
        self.calls.append(('add' if add else 'remove', host, principal, list(operations), resource))

    def of(self, action: str) -> list[tuple[object, ...]]:
        return [call[1:] for call in self.calls if call[0] == action]


@pytest.fixture
def acl_admin(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> FakeAdmin:
    fake = FakeAdmin()
    monkeypatch.setattr(lab, 'admin', lambda: fake)
    monkeypatch.setattr(lab, 'REPO_ROOT', tmp_path)
    monkeypatch.setenv('PYTEST_XDIST_TESTRUNUID', 'unit')
    return fake


def test_acl_bindings_lists_one_resource_as_acl_command_prints_it(acl_admin: FakeAdmin) -> None:
    listing = lab.acl_bindings('dst-kafka-1', '--topic', 'src.', '--resource-pattern-type', 'prefixed')
    assert listing.splitlines() == [
        '(principal=User:mm2, host=*, operation=DESCRIBE_CONFIGS, permissionType=ALLOW)',
        '(principal=User:mm2, host=*, operation=READ, permissionType=ALLOW)']
    assert lab.acl_bindings('dst-kafka-1', '--topic', 'src.') == ''


def test_grants_list_each_cluster_once_and_add_only_what_is_missing(acl_admin: FakeAdmin) -> None:
    grants = [lab.Grant('src-kafka-1', ('Read', 'Describe', 'DescribeConfigs'),
                        ('--topic', 'src.', '--resource-pattern-type', 'prefixed')),
              lab.Grant('src-kafka-1', ('Describe',), ('--group', '*')),
              lab.Grant('src-kafka-1', ('Describe', 'Alter'), ('--cluster',)),
              lab.Grant('dst-kafka-1', ('Describe',), ('--group', '*'))]
    with lab.granted(grants):
        assert acl_admin.of('list') == [('src-kafka-1',), ('dst-kafka-1',)]
        assert acl_admin.of('add') == [
            ('src-kafka-1', 'User:mm2', ['Describe'], ('TOPIC', 'src.', 'PREFIXED')),
            ('src-kafka-1', 'User:mm2', ['Describe', 'Alter'], ('CLUSTER', 'kafka-cluster', 'LITERAL'))]
        assert not acl_admin.of('remove')
    assert acl_admin.of('remove') == [
        ('src-kafka-1', 'User:mm2', ['Describe'], ('TOPIC', 'src.', 'PREFIXED')),
        ('src-kafka-1', 'User:mm2', ['Describe', 'Alter'], ('CLUSTER', 'kafka-cluster', 'LITERAL'))]
    assert json.loads((lab.REPO_ROOT / 'build' / 'acl-holds' / 'unit.json').read_text()) == {}


def test_a_binding_two_blocks_hold_stays_until_the_last_one_ends(acl_admin: FakeAdmin) -> None:
    cluster = [lab.Grant('src-kafka-1', ('Alter',), ('--cluster',))]
    with lab.granted(cluster):
        with lab.granted(cluster):
            pass
        assert not acl_admin.of('remove')
    assert len(acl_admin.of('remove')) == 1


# ---- Connect REST calls from the test process ----------------------------------------------

class FakeAnswer:
    def __init__(self, status: int, data: bytes) -> None:
        self.status, self.data = status, data


class FakePool:
    """Answers in turn; raises what it is given instead of an answer."""

    def __init__(self, *answers: object) -> None:
        self.answers = list(answers)
        self.requests: list[tuple[str, str, object, dict]] = []

    def request(self, method: str, path: str, body: object = None, headers: dict | None = None) -> FakeAnswer:
        self.requests.append((method, path, body, dict(headers or {})))
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer  # type: ignore[return-value]


@pytest.fixture
def pools(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[FakePool]]:
    """The pools connect_rest gets: `current` for a kept pool, `fresh` for each new one."""
    given: dict[str, list[FakePool]] = {'current': [], 'fresh': []}

    def pool(worker: str, fresh: bool = False) -> FakePool:
        queue = given['fresh' if fresh else 'current']
        return queue[0] if not fresh else queue.pop(0)

    monkeypatch.setattr(lab, '_rest_pool', pool)
    monkeypatch.setattr(lab, 'rest_auth', lambda: ('operator', 'rest-secret'))
    return given


def test_rest_call_repeats_a_rebalance_answer_then_returns_the_result(
        pools: dict[str, list[FakePool]], clock: FakeClock) -> None:
    pool = FakePool(FakeAnswer(409, b'{"message": "Cannot complete request momentarily due to rebalance"}'),
                    FakeAnswer(500, b'{"message": "Request cannot be completed because a rebalance is expected"}'),
                    FakeAnswer(201, b'{"name": "c1"}'))
    pools['current'].append(pool)
    assert lab.connect_rest('POST', '/connectors', {'name': 'c1'}) == (201, {'name': 'c1'})
    assert [request[:3] for request in pool.requests] == [('POST', '/connectors', '{"name": "c1"}')] * 3
    assert clock.sleeps == [1, 1]


def test_rest_call_gives_up_on_a_rebalance_after_a_minute(pools: dict[str, list[FakePool]], clock: FakeClock) -> None:
    pools['current'].append(FakePool(*[FakeAnswer(503, b'')] * 100))
    assert lab.connect_rest('GET', '/connectors') == (503, None)
    assert 60 <= len(clock.sleeps) <= 62


def test_rest_call_returns_errors_that_are_not_transient_at_once(
        pools: dict[str, list[FakePool]], clock: FakeClock) -> None:
    pools['current'].append(FakePool(FakeAnswer(500, b'{"error_code": 500, "message": "Connector config is invalid"}')))
    assert lab.connect_rest('PUT', '/connectors/c1/config', {}) == (
        500, {'error_code': 500, 'message': 'Connector config is invalid'})
    assert clock.sleeps == []


def test_rest_call_sends_the_lab_account_unless_anonymous(pools: dict[str, list[FakePool]], clock: FakeClock) -> None:
    pool = FakePool(FakeAnswer(200, b'[]'), FakeAnswer(401, b'<html>Unauthorized</html>'))
    pools['current'].append(pool)
    assert lab.connect_rest('GET', '/connectors') == (200, [])
    assert lab.connect_rest('GET', '/connectors', anonymous=True) == (401, '<html>Unauthorized</html>')
    with_account, anonymous = (request[3] for request in pool.requests)
    assert with_account['authorization'] == 'Basic b3BlcmF0b3I6cmVzdC1zZWNyZXQ='
    # Jetty checks the Host header against its certificate: the worker's name, not its address.
    assert with_account['Host'] == anonymous['Host'] == f'{lab.CONNECT_WORKERS[0]}:8083'
    assert 'authorization' not in {key.lower() for key in anonymous}


def test_rest_call_reconnects_once_on_a_fresh_pool(pools: dict[str, list[FakePool]], clock: FakeClock) -> None:
    refused = lab.urllib3.exceptions.NewConnectionError(None, 'connection refused')  # type: ignore[arg-type]
    pools['current'].append(FakePool(refused))
    pools['fresh'].append(FakePool(FakeAnswer(200, b'{"version": "4.3.1"}')))
    assert lab.connect_rest('GET', '/') == (200, {'version': '4.3.1'})


def test_rest_call_fails_clearly_when_the_worker_stays_unreachable(
        pools: dict[str, list[FakePool]], clock: FakeClock) -> None:
    refused = lab.urllib3.exceptions.NewConnectionError(None, 'connection refused')  # type: ignore[arg-type]
    pools['current'].append(FakePool(refused))
    pools['fresh'].append(FakePool(refused))
    with pytest.raises(RuntimeError, match=r'REST GET /connectors/c1/status on task-1-1 failed'):
        lab.connect_rest('GET', '/connectors/c1/status', worker='task-1-1')
