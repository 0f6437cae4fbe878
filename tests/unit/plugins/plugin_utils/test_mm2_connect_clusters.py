# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Connect clusters of a plan, and the warning for one of a single worker (not highly available)."""

from __future__ import annotations

from typing import Any, Callable, Dict

import pytest

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_connect_clusters import running_workers, unlimited_play_hosts

PlanOk = Callable[..., Dict[str, Any]]


def test_the_plays_hosts_run_the_flows_without_connect_cluster(plan_ok: PlanOk) -> None:
    result = plan_ok(play_hosts=['task-1-2', 'task-1-1'])
    assert result['connect_clusters'] == [{'name': None, 'workers': ['task-1-1', 'task-1-2'], 'flows': ['src-dst']}]
    assert result['warnings'] == []


def test_one_worker_of_the_play_is_a_warning(plan_ok: PlanOk) -> None:
    flows = [{'source': 'src', 'target': 'dst'}, {'source': 'dst', 'target': 'src'}]
    result = plan_ok(flows=flows, play_hosts=['task-1-1'])
    assert result['warnings'] == [
        "Connect cluster of the play's hosts has one worker, task-1-1: it is not highly available; while that worker "
        'is down, flows src-dst, dst-src replicate nothing. Give it a second worker.']


def test_a_connect_cluster_group_of_one_host_is_a_warning(plan_ok: PlanOk) -> None:
    flows = [{'source': 'src', 'target': 'dst', 'connect_cluster': 'connect_dr'}]
    result = plan_ok(flows=flows, deploy_host='task-2-1', play_hosts=['task-2-1', 'task-2-2'])
    assert result['connect_clusters'] == [{'name': 'connect_dr', 'workers': ['task-2-1'], 'flows': ['src-dst']}]
    assert result['warnings'] == ['Connect cluster connect_dr has one worker, task-2-1: it is not highly available; '
                                  'while that worker is down, flow src-dst replicates nothing. Give it a second worker.']


def test_the_group_decides_over_the_plays_hosts(plan_ok: PlanOk) -> None:
    flows = [{'source': 'src', 'target': 'dst', 'connect_cluster': 'connect_workers'}]
    assert plan_ok(flows=flows, play_hosts=['task-1-1'])['warnings'] == []


def test_unknown_play_hosts_warn_about_nothing(plan_ok: PlanOk) -> None:
    result = plan_ok()
    assert result['connect_clusters'] == [{'name': None, 'workers': None, 'flows': ['src-dst']}]
    assert result['warnings'] == []


def test_flows_of_other_connect_clusters_are_theirs_to_judge(plan_ok: PlanOk) -> None:
    flows = [{'source': 'src', 'target': 'dst', 'connect_cluster': 'connect_dr'}]
    result = plan_ok(flows=flows, play_hosts=['task-1-1'])
    assert result['connect_clusters'] == [] and result['warnings'] == []


GROUPS = {'all': ['task-1-1', 'task-1-2', 'task-1-3', 'prometheus-1'], 'connect_workers': ['task-1-1', 'task-1-2', 'task-1-3'],
          'monitoring': ['prometheus-1']}


def test_a_play_pattern_of_names_resolves_before_the_limit() -> None:
    assert unlimited_play_hosts(['connect_workers'], GROUPS) == ['task-1-1', 'task-1-2', 'task-1-3']
    assert unlimited_play_hosts(['connect_workers:monitoring'], GROUPS) == ['task-1-1', 'task-1-2', 'task-1-3', 'prometheus-1']
    assert unlimited_play_hosts(['task-1-2, connect_workers'], GROUPS) == ['task-1-2', 'task-1-1', 'task-1-3']


@pytest.mark.parametrize('pattern', ['connect_workers:!task-1-1', 'connect_workers:&monitoring', 'task-*', 'nowhere', '~task.*'])
def test_richer_patterns_are_left_to_the_play(pattern: str) -> None:
    assert unlimited_play_hosts([pattern], GROUPS) is None


def test_drained_workers_are_not_counted() -> None:
    hosts = ['task-1-1', 'task-1-2', 'task-1-3']
    assert running_workers(hosts, {'task-1-1': 'absent', 'task-1-2': None, 'task-1-3': 'present'}) == ['task-1-2', 'task-1-3']
