# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The replication_check role takes the validator's inputs from a flow of the MirrorMaker 2 model,
run by ansible-playbook up to the job's command line. Nothing is contacted but the controller."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest

REPO_ROOT = Path(__file__).resolve().parents[3]
PLAYBOOK = Path(__file__).with_name('flow_args.yml')
ANSIBLE_PLAYBOOK = REPO_ROOT / '.venv' / 'bin' / 'ansible-playbook'

pytestmark = pytest.mark.playbook


@pytest.fixture(scope='module', autouse=True)
def needs_ansible() -> None:
    if not ANSIBLE_PLAYBOOK.exists():
        pytest.skip('the project venv (make setup) provides ansible-playbook')


def job_options(tmp_path: Path, inventory: str, extra_vars: Dict[str, Any]) -> Dict[str, str]:
    """The job's --option value pairs the role would run it with."""
    output = tmp_path / 'args.json'
    vars_file = tmp_path / 'vars.json'
    vars_file.write_text(json.dumps(dict(extra_vars, args_output=str(output))))
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO_ROOT / 'ansible.cfg'), ANSIBLE_NOCOLOR='1')
    done = subprocess.run([str(ANSIBLE_PLAYBOOK), '-i', inventory, str(PLAYBOOK), '-e', '@%s' % vars_file],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    args: List[str] = json.loads(output.read_text())
    return dict(zip(args[::2], args[1::2]))


def test_lab_inventory_validates_its_flow(tmp_path: Path) -> None:
    options = job_options(tmp_path, str(REPO_ROOT / 'inventories' / 'lab'), {'check_hosts': 'connect_workers[0]'})
    assert options['--source-alias'] == 'src' and options['--target-alias'] == 'dst'
    assert options['--source-bootstrap'] == 'src-kafka-1:9094'
    assert options['--target-bootstrap'] == 'dst-kafka-1:9094'
    # The lab keeps its offset syncs on the target: read there, named after the source.
    assert options['--offset-syncs-bootstrap'] == 'dst-kafka-1:9094'
    assert options['--offset-syncs-topic'] == 'mm2-offset-syncs.src.internal'
    assert options['--checkpoints-topic'] == 'src.checkpoints.internal'
    assert options['--replication-policy'] == 'default' and options['--separator'] == '.'
    regex = options['--topics-regex']
    assert [topic for topic in ('foo.orders', 'bar.orders', 'foo.x.internal') if re.fullmatch(regex, topic)] == ['foo.orders']
    assert '--topics' not in options


def test_a_flow_with_separator_underscore_and_explicit_overrides(tmp_path: Path) -> None:
    model = {
        'mm2_clusters': {'east': {'bootstrap_servers': ['east-1:9092', 'east-2:9092']},
                         'west': {'bootstrap_servers': 'west-1:9092'}},
        'mm2_flows': [{'source': 'east', 'target': 'west', 'separator': '_', 'topics': ['orders_.*'],
                       'offset_syncs_topic_location': 'target'}],
        'replication_check_flow': 'east->west',
        # An explicit localhost is not the implicit one: point it at this interpreter.
        'ansible_python_interpreter': sys.executable,
    }
    options = job_options(tmp_path, 'localhost,', model)
    assert options['--source-bootstrap'] == 'east-1:9092,east-2:9092'
    assert options['--separator'] == '_'
    assert options['--checkpoints-topic'] == 'east_checkpoints_internal'
    assert options['--offset-syncs-topic'] == 'mm2-offset-syncs_east_internal'
    assert options['--offset-syncs-bootstrap'] == 'west-1:9092'
    assert re.fullmatch(options['--topics-regex'], 'orders_eu')

    # Variables given explicitly win over the flow (as playbooks/validate.yml runs with -e).
    overridden = job_options(tmp_path, 'localhost,', dict(model, replication_check_topics=['orders_eu'],
                                                          replication_check_topics_regex='',
                                                          replication_check_target_bootstrap='west-tls:9094'))
    assert overridden['--topics'] == 'orders_eu' and '--topics-regex' not in overridden
    assert overridden['--target-bootstrap'] == overridden['--offset-syncs-bootstrap'] == 'west-tls:9094'


def test_the_verdict_follows_the_flow_delivery_and_the_window_reaches_the_job(tmp_path: Path) -> None:
    model = {
        'mm2_clusters': {'east': {'bootstrap_servers': 'east-1:9092'}, 'west': {'bootstrap_servers': 'west-1:9092'}},
        'mm2_flows': [{'source': 'east', 'target': 'west', 'topics': ['orders'], 'exactly_once': True}],
        'replication_check_flow': 'east->west',
        'ansible_python_interpreter': sys.executable,
    }
    options = job_options(tmp_path, 'localhost,', model)
    assert options['--delivery'] == 'exactly-once'
    assert (options['--max-duplicates'], options['--max-duplicate-ratio']) == ('unlimited', '0.1')
    assert '--from-offsets' not in options and '--from-timestamp' not in options

    at_least_once = dict(model, mm2_flows=[{'source': 'east', 'target': 'west', 'topics': ['orders']}],
                         replication_check_max_duplicates=500, replication_check_max_duplicate_ratio='',
                         replication_check_from_offsets={'orders': {0: 1200, 1: 900}})
    options = job_options(tmp_path, 'localhost,', at_least_once)
    assert options['--delivery'] == 'at-least-once'
    assert (options['--max-duplicates'], options['--max-duplicate-ratio']) == ('500', 'unlimited')
    assert options['--from-offsets'] == 'orders:0=1200,orders:1=900'

    by_time = job_options(tmp_path, 'localhost,', dict(model, replication_check_delivery='at-least-once',
                                                       replication_check_from_timestamp='2024-05-01T10:00:00Z',
                                                       replication_check_from_offsets='orders:0=5'))
    assert by_time['--delivery'] == 'at-least-once'
    assert by_time['--from-timestamp'] == '2024-05-01T10:00:00Z' and by_time['--from-offsets'] == 'orders:0=5'
