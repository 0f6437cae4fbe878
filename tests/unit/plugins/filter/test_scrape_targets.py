"""scrape_targets turns inventory hosts into Prometheus targets, honouring each host's port and switch."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.filter.scrape_targets import scrape_targets

HOSTVARS = {
    "task-1-1": {"connect_worker_metrics_port": 9404},
    "task-1-2": {"connect_worker_metrics_port": "9500", "connect_worker_metrics_enabled": "yes"},
    "task-1-3": {"connect_worker_metrics_enabled": False},
    "task-1-4": {},
}


def test_each_host_with_its_own_port_or_the_default() -> None:
    hosts = ["task-1-1", "task-1-2", "task-1-4"]
    assert scrape_targets(hosts, HOSTVARS, "connect_worker_metrics_port", 9404) == [
        "task-1-1:9404", "task-1-2:9500", "task-1-4:9404"]


def test_hosts_with_the_exporter_off_are_left_out() -> None:
    targets = scrape_targets(list(HOSTVARS), HOSTVARS, "connect_worker_metrics_port", 9404, "connect_worker_metrics_enabled")
    assert "task-1-3:9404" not in targets
    assert len(targets) == 3


def test_a_host_in_two_groups_is_scraped_once() -> None:
    assert scrape_targets(["task-1-1", "task-1-1"], HOSTVARS, "connect_worker_metrics_port", 9404) == ["task-1-1:9404"]


@pytest.mark.parametrize("hostvars, message", [
    ({"h": {"port": "http"}}, "not a port number"),
    ({"h": {"port": 70000}}, "outside 1-65535"),
    ({"h": {"on": "maybe"}}, "on is not a boolean"),
])
def test_bad_values_name_the_host_and_variable(hostvars: dict, message: str) -> None:
    with pytest.raises(AnsibleFilterError, match=message):
        scrape_targets(["h"], hostvars, "port", 9404, "on")


def test_a_string_instead_of_a_list_is_refused() -> None:
    with pytest.raises(AnsibleFilterError, match="list of host names"):
        scrape_targets("task-1-1", HOSTVARS, "connect_worker_metrics_port", 9404)


def test_drained_workers_are_left_out() -> None:
    hostvars = {"task-1-1": {"connect_worker_state": "absent"}, "task-1-2": {"connect_worker_state": "present"}, "task-1-3": {}}
    assert scrape_targets(list(hostvars), hostvars, "connect_worker_metrics_port", 9404, "connect_worker_metrics_enabled",
                          "connect_worker_state") == ["task-1-2:9404", "task-1-3:9404"]
    # Without state_var (the brokers' jobs) nobody is left out for it.
    assert len(scrape_targets(list(hostvars), hostvars, "connect_worker_metrics_port", 9404)) == 3


def test_a_state_other_than_present_or_absent_names_the_host() -> None:
    with pytest.raises(AnsibleFilterError, match="connect_worker_state of task-1-1 must be present or absent, got 'gone'"):
        scrape_targets(["task-1-1"], {"task-1-1": {"connect_worker_state": "gone"}}, "port", 9404, None, "connect_worker_state")


def test_an_exporter_off_by_default_is_scraped_only_where_switched_on() -> None:
    hostvars = {"task-1-1": {"readiness_exporter_enabled": True, "readiness_exporter_port": 9506}, "task-1-2": {}}
    assert scrape_targets(list(hostvars), hostvars, "readiness_exporter_port", 9406, "readiness_exporter_enabled",
                          enabled_default=False) == ["task-1-1:9506"]
