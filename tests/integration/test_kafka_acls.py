"""Modules kafka_acl and kafka_scram_user on the lab's target cluster: converge, rerun without
change, prune only what the module created, and leave every other binding of the cluster alone."""

from __future__ import annotations

import secrets
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_acls import AclBinding, parse_acl_listing
from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_scram import parse_scram_listing
from tests.integration import ansible_run, lab

HOST = lab.TARGET_BROKER
RESOURCE_OPTIONS = {"TOPIC": "--topic", "GROUP": "--group", "TRANSACTIONAL_ID": "--transactional-id",
                    "DELEGATION_TOKEN": "--delegation-token", "USER": "--user-principal"}
CONNECTION = {"bootstrap_server": f"{HOST}:{lab.ADMIN_PORT}", "command_config": lab.ADMIN_CLIENT_CONFIG}


def cluster_bindings() -> set[AclBinding]:
    return parse_acl_listing(lab.kafka_run(HOST, lab.ACL_COMMAND, "--bootstrap-server", lab.bootstrap(HOST), "--list"))


def remove_bindings_of(principal: str) -> None:
    """Cleanup with AclCommand itself, not with the module under test."""
    for binding in sorted(cluster_bindings()):
        if binding.principal != principal:
            continue
        resource = ["--cluster"] if binding.resource_type == "CLUSTER" else [RESOURCE_OPTIONS[binding.resource_type],
                                                                             binding.name]
        lab.kafka_run(HOST, lab.ACL_COMMAND, "--bootstrap-server", lab.bootstrap(HOST), "--remove", "--force",
                      f"--{binding.permission.lower()}-principal", principal,
                      f"--{binding.permission.lower()}-host", binding.host,
                      "--operation", "".join(word.capitalize() for word in binding.operation.split("_")),
                      "--resource-pattern-type", binding.pattern_type.lower(), *resource)


def bystander_of(name: str) -> str:
    """Another principal of the test, granted outside the module: prune must not touch it. (The
    other tests change the cluster's bindings meanwhile, so the whole listing is no reference.)"""
    return f"User:{name}-bystander"


@pytest.fixture
def itest_name(lab_brokers: tuple[str, str]) -> Iterator[str]:
    """A name nobody else uses, and a scratch state directory on the broker removed afterwards."""
    name = f"itest-acl-{secrets.token_hex(4)}"
    try:
        yield name
    finally:
        remove_bindings_of(f"User:{name}")
        remove_bindings_of(bystander_of(name))
        subprocess.run(["docker", "exec", HOST, "rm", "-rf", f"/root/{name}"], check=False, capture_output=True)


def show(title: str, principal: str) -> None:
    """The principal's bindings on the cluster, as AclCommand lists them (seen with pytest -s)."""
    print(f"\n{title}:")
    for binding in sorted(binding for binding in cluster_bindings() if binding.principal == principal):
        print(f"  {binding.permission} {binding.operation} on {binding.resource_type} {binding.name} ({binding.pattern_type})")


def run_acl(name: str, bindings: list[dict[str, Any]], *flags: str, **options: Any) -> dict[str, Any]:
    arguments = {**CONNECTION, "state_file": f"/root/{name}/acl-bindings.json", "bindings": bindings, **options}
    return ansible_run.module(HOST, "kafka_dr.mm2.kafka_acl", arguments, *flags)


def test_bindings_converge_and_prune_removes_only_what_the_module_created(itest_name: str) -> None:
    principal = f"User:{itest_name}"
    topic_rights = {"principal": principal, "resource_type": "topic", "name": f"{itest_name}-t",
                    "operations": ["Read", "Describe"]}
    group_rights = {"principal": principal, "resource_type": "group", "name": f"{itest_name}-g",
                    "operations": ["Read"]}
    cluster_rights = {"principal": principal, "resource_type": "cluster", "operations": ["Describe"]}
    bystander = bystander_of(itest_name)
    lab.change_acl(HOST, True, bystander, ["Read", "Describe"], "--topic", f"{itest_name}-t")
    lab.change_acl(HOST, True, bystander, ["Describe"], "--cluster")
    bystander_before = {binding for binding in cluster_bindings() if binding.principal == bystander}
    assert len(bystander_before) == 3, bystander_before

    first = run_acl(itest_name, [topic_rights, group_rights, cluster_rights])
    assert first.get("changed") is True, first
    assert len(first["added"]) == 4 and first["removed"] == []
    # One listing, then one AclCommand per set of operations: {Read, Describe}, {Read}, {Describe}.
    assert first["jvm_runs"] == 4
    mine = {binding for binding in cluster_bindings() if binding.principal == principal}
    assert {(binding.resource_type, binding.operation) for binding in mine} == {
        ("TOPIC", "READ"), ("TOPIC", "DESCRIBE"), ("GROUP", "READ"), ("CLUSTER", "DESCRIBE")}

    again = run_acl(itest_name, [topic_rights, group_rights, cluster_rights])
    assert again.get("changed") is False, again
    assert again["jvm_runs"] == 1

    # A right granted outside the module, for the same principal: prune must leave it.
    lab.change_acl(HOST, True, principal, ["Write"], "--topic", f"{itest_name}-t")

    show("bindings before the inventory drops the cluster binding", principal)
    preview = run_acl(itest_name, [topic_rights], "--check", "--diff", prune=True)
    assert preview.get("changed") is True
    assert sorted(item["resource_type"] for item in preview["pruned"]) == ["cluster", "group"]
    assert len({binding for binding in cluster_bindings() if binding.principal == principal}) == 5

    pruned = run_acl(itest_name, [topic_rights, group_rights], prune=True)
    show("bindings after the run with prune", principal)
    assert pruned.get("changed") is True, pruned
    assert [(item["resource_type"], item["operation"]) for item in pruned["pruned"]] == [("cluster", "Describe")]
    assert pruned["removed"] == pruned["pruned"] and pruned["added"] == []
    mine = {binding for binding in cluster_bindings() if binding.principal == principal}
    assert {(binding.resource_type, binding.operation) for binding in mine} == {
        ("TOPIC", "READ"), ("TOPIC", "DESCRIBE"), ("TOPIC", "WRITE"), ("GROUP", "READ")}

    settled = run_acl(itest_name, [topic_rights, group_rights], prune=True)
    assert settled.get("changed") is False and settled["jvm_runs"] == 1
    assert {binding for binding in cluster_bindings() if binding.principal == bystander} == bystander_before
    assert {item["principal"] for item in pruned["removed"] + settled["removed"]} == {principal}


def test_bad_input_changes_nothing(itest_name: str) -> None:
    result = run_acl(itest_name, [{"principal": f"User:{itest_name}", "resource_type": "cluster", "name": "x",
                                   "operations": ["Read"]}])

    assert result.get("failed") is True
    assert "a cluster binding takes no name" in result["msg"] and "cannot grant Read" in result["msg"]
    assert [binding for binding in cluster_bindings() if binding.principal == f"User:{itest_name}"] == []


def scram_accounts() -> dict[str, dict[str, int]]:
    return parse_scram_listing(lab.kafka_run(HOST, lab.CONFIG_COMMAND, "--bootstrap-server", lab.bootstrap(HOST),
                                             "--describe", "--entity-type", "users"))


def test_a_scram_account_is_set_once_and_deleted(itest_name: str) -> None:
    password = secrets.token_urlsafe(24)
    arguments = {**CONNECTION, "state_dir": f"/root/{itest_name}"}
    try:
        created = ansible_run.module(HOST, "kafka_dr.mm2.kafka_scram_user",
                                     {**arguments, "users": [{"name": itest_name, "password": password}]})
        assert created.get("changed") is True, created
        assert scram_accounts()[itest_name] == {"SCRAM-SHA-512": 8192}
        assert password not in str(created)

        again = ansible_run.module(HOST, "kafka_dr.mm2.kafka_scram_user",
                                   {**arguments, "users": [{"name": itest_name, "password": password}]})
        assert again.get("changed") is False and again["jvm_runs"] == 1

        deleted = ansible_run.module(HOST, "kafka_dr.mm2.kafka_scram_user",
                                     {**arguments, "users": [{"name": itest_name, "state": "absent"}]})
        assert deleted["deleted"] == [{"name": itest_name, "mechanism": "SCRAM-SHA-512"}]
        assert itest_name not in scram_accounts()
    finally:
        if itest_name in scram_accounts():
            lab.delete_scram_account(HOST, itest_name)
