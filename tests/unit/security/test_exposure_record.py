# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The exposure ceilings the tests hold the units to (molecule/default/files/exposure.yml) are the figures and
accounts docs/security.md publishes in "Services on the hosts"."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Dict, List

import yaml

REPO_ROOT = Path(__file__).resolve().parents[3]
RECORDED = yaml.safe_load((REPO_ROOT / 'molecule' / 'default' / 'files' / 'exposure.yml').read_text())['units']


def table_rows() -> List[List[str]]:
    text = (REPO_ROOT / 'docs' / 'security.md').read_text()
    section = text.split('\n## Services on the hosts\n', 1)[1].split('\n## ', 1)[0]
    rows = [line.strip('|').split(' | ') for line in section.splitlines() if line.startswith('| `')]
    return [[cell.strip() for cell in row] for row in rows]


def test_the_documented_figures_are_the_recorded_ceilings() -> None:
    documented: Dict[str, Dict[str, object]] = {}
    for unit_cell, account, _writes, _before, after in table_rows():
        for unit in re.findall(r'`([^`]+)\.service`', unit_cell):
            documented[unit] = {'user': re.match(r'`([^`]+)`', account).group(1),
                                'max_exposure': float(after.split()[0])}
    assert {unit: documented.get(unit) for unit in RECORDED} == RECORDED


def test_the_verify_play_reads_the_ceilings() -> None:
    verify = (REPO_ROOT / 'molecule' / 'default' / 'verify.yml').read_text()
    assert "lookup('ansible.builtin.file', 'exposure.yml')" in verify
    for unit in ('kafka-broker', 'kafka-connect', 'kafka-connect-watchdog'):
        assert unit in RECORDED and "'%s'" % unit in verify
