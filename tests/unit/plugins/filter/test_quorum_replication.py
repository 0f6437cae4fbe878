"""quorum_replication reads the replication table of MetadataQuorumCommand, Kafka 3 and 4 alike."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.filter.quorum_replication import quorum_replication

# Kafka 4.x pads the columns with spaces and adds DirectoryId.
KAFKA_4 = """\
NodeId DirectoryId            LogEndOffset Lag LastFetchTimestamp LastCaughtUpTimestamp Status
1      pNhxvOVQQ8mJKd0EmnFr1g 5423         0   1763899425811      1763899425811         Leader
2      ZxE3yJ7bRYuIftaaaK9Ypw 5420         3   1763899425700      1763899425100         Follower
3      n0OC1Ms8QNW4nPAs3_3sVg -1           5424 -1                -1                    Follower
"""

# Kafka 3.x separates the columns with tabs.
KAFKA_3 = ("NodeId\tLogEndOffset\tLag\tLastFetchTimestamp\tLastCaughtUpTimestamp\tStatus\n"
           "1\t310\t0\t1699000000000\t1699000000000\tLeader\n"
           "4\t310\t0\t1699000000001\t1699000000001\tObserver\n")


def test_kafka_4_rows_by_column_name() -> None:
    rows = quorum_replication(KAFKA_4)
    assert [row['NodeId'] for row in rows] == [1, 2, 3]
    assert rows[1] == {'NodeId': 2, 'DirectoryId': 'ZxE3yJ7bRYuIftaaaK9Ypw', 'LogEndOffset': 5420, 'Lag': 3,
                       'LastFetchTimestamp': 1763899425700, 'LastCaughtUpTimestamp': 1763899425100, 'Status': 'Follower'}
    assert rows[2]['LogEndOffset'] == -1


def test_kafka_3_rows_by_column_name() -> None:
    rows = quorum_replication(KAFKA_3)
    assert rows == [
        {'NodeId': 1, 'LogEndOffset': 310, 'Lag': 0, 'LastFetchTimestamp': 1699000000000,
         'LastCaughtUpTimestamp': 1699000000000, 'Status': 'Leader'},
        {'NodeId': 4, 'LogEndOffset': 310, 'Lag': 0, 'LastFetchTimestamp': 1699000000001,
         'LastCaughtUpTimestamp': 1699000000001, 'Status': 'Observer'},
    ]


def test_the_gate_question_is_one_select_away() -> None:
    caught_up = [row['NodeId'] for row in quorum_replication(KAFKA_4) if row['Lag'] == 0]
    assert caught_up == [1]


def test_warnings_before_the_table_and_lines_as_a_list() -> None:
    lines = ['[0.011s][warning][cds] The shared archive file was created by a different version'] + KAFKA_3.splitlines()
    assert [row['NodeId'] for row in quorum_replication(lines)] == [1, 4]


@pytest.mark.parametrize('output', ['', None, [], 'ClusterId: abc\nLeaderId: 1\n', 'Error while running describe'])
def test_no_table_no_rows(output: object) -> None:
    assert quorum_replication(output) == []  # type: ignore[arg-type]


def test_other_input_is_refused() -> None:
    with pytest.raises(AnsibleFilterError, match='text or a list'):
        quorum_replication(42)  # type: ignore[arg-type]
