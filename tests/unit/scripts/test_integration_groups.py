# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The integration suite's groups hold under pytest-xdist: every test of the lab-flow group runs
on one worker, one after the other (tests/integration/conftest.py). A pytest or xdist release
that drops the grouping would let tests that deploy flows race on the shared lab."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.integration import conftest

ROOT = Path(__file__).resolve().parents[3]
CONFTEST = ROOT / 'tests' / 'integration' / 'conftest.py'
SLOW_TEST = 'import time\n\n\ndef test_one():\n    time.sleep(0.3)\n\n\ndef test_two():\n    time.sleep(0.3)\n'


def test_lab_flow_modules_share_one_worker(tmp_path: Path) -> None:
    suite = tmp_path / 'integration'
    suite.mkdir()
    # The real conftest, without the lab fixtures' imports.
    source = CONFTEST.read_text().replace('from tests.integration import lab\n', '')
    (suite / 'conftest.py').write_text(source)
    names = ['test_mirrormaker_e2e.py', 'test_mirrormaker_topologies.py', 'test_lab_kafka.py', 'test_kafka_acls.py']
    for name in names:
        (suite / name).write_text(SLOW_TEST)
    done = subprocess.run([sys.executable, '-m', 'pytest', '-v', '-n', '2', '--dist', 'loadgroup', '--no-loadscope-reorder',
                           '-p', 'no:cacheprovider',
                           '-c', '/dev/null', '--rootdir', str(tmp_path), str(suite)],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    workers = {}
    for worker, module in re.findall(r'\[(gw\d)\] .*PASSED \S*?(test_\w+\.py)::', done.stdout):
        workers.setdefault(module, set()).add(worker)
    assert len(workers) == len(names), done.stdout[-2000:]
    lab_flow = workers['test_mirrormaker_e2e.py'] | workers['test_mirrormaker_topologies.py']
    assert len(lab_flow) == 1, workers


def test_every_group_has_its_place_in_the_longest_first_order() -> None:
    modules = {path.name for path in CONFTEST.parent.glob('test_*.py')}
    groups = {conftest.LAB_FLOW_GROUP if module in conftest.LAB_FLOW_MODULES else module for module in modules}
    assert len(conftest.LONGEST_FIRST) == len(set(conftest.LONGEST_FIRST))
    assert set(conftest.LONGEST_FIRST) == groups


def test_a_group_left_out_of_the_order_runs_last() -> None:
    assert conftest.rank_of('test_failover_drill.py') == 0
    assert conftest.rank_of('test_not_ranked.py') == len(conftest.LONGEST_FIRST)
