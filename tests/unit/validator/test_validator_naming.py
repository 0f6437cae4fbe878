"""The job's own default topic names (for runs by hand) come from the collection's naming rules,
which the roles use to pass the names explicitly."""

from __future__ import annotations

import pytest

from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_naming import ReplicationNaming
from mm2_validator.cli import build_parser, config_from_args

ALIASES = ["--source-alias", "src", "--target-alias", "dst", "--topics", "t"]
BOOTSTRAPS = ["--source-bootstrap", "src:9092", "--target-bootstrap", "dst:9092"]


@pytest.mark.parametrize("policy", ["default", "identity"])
@pytest.mark.parametrize("separator", [".", "_", "-"])
@pytest.mark.parametrize("location", ["source", "target"])
def test_cli_defaults_are_mm2_names(policy, separator, location):
    offset_syncs = ["--offset-syncs-bootstrap", "dst:9092"] if location == "target" else []
    args = build_parser().parse_args(
        [*ALIASES, *BOOTSTRAPS, "--replication-policy", policy, "--separator", separator, *offset_syncs]
    )
    config = config_from_args(args)
    naming = ReplicationNaming(policy, separator)
    assert config.checkpoints_topic == naming.checkpoints_topic("src")
    assert (config.offset_syncs_cluster.bootstrap, config.offset_syncs_topic) == (
        {"src": "src:9092", "dst": "dst:9092"}[naming.offset_syncs_placement("src", "dst", location)[0]],
        naming.offset_syncs_placement("src", "dst", location)[1],
    )
    assert config.remote_topic("orders") == naming.remote_topic("src", "orders")
    assert config.naming.remote_heartbeats_topic("src") == naming.remote_heartbeats_topic("src")


def test_names_given_on_the_command_line_win():
    args = build_parser().parse_args(
        [*ALIASES, *BOOTSTRAPS, "--separator", "_", "--checkpoints-topic", "cp", "--offset-syncs-topic", "os"]
    )
    config = config_from_args(args)
    assert (config.checkpoints_topic, config.offset_syncs_topic) == ("cp", "os")
