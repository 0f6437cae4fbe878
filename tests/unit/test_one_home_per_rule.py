# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Each rule has one home in plugins/module_utils; nothing else in the tree writes it again.

Copies drift apart (the failover once named heartbeats otherwise than the planner, and read
escaped passwords otherwise than Kafka). Unit tests may spell formats out to test the homes.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
HOMES = 'plugins/module_utils/'

# rule -> (its home, patterns that betray another implementation)
RULES: Dict[str, Tuple[str, List[str]]] = {
    # Naming is checked outside tests/ only: integration tests spell the names they expect Kafka to show.
    'MM2 topic naming': (HOMES + 'mm2_naming.py', [
        r'def (remote_topic_name|remote_heartbeats_topic|checkpoints_topic|offset_syncs_topic)\b',
        r'''(%s|\}[._-]?)checkpoints|checkpoints['"]\s*(\+|,\s*['"]internal)''',
        r'''mm2-offset-syncs([._-]?\{|['"]\s*[+%])''',
        r'''(%s|\}[._-]?)heartbeats['"]''',
    ]),
    'MM2 record codec': (HOMES + 'mm2_records.py', [
        r'''(un)?pack(_from)?\(\s*['"]>(h|hq|qq|hqq)['"]''',
    ]),
    'Java properties': (HOMES + 'java_properties.py', [
        r'def _?(read_properties|parse_properties|escape_property_value|escape|unescape|_escape|_unescape)\(',
        r'''['"] ?[=:#!]{4}['"]''',
        r'unicode_escape',
    ]),
    'loose value readers': (HOMES + 'connect_values.py', [
        r'def (as_int|trace_excerpt)\(',
    ]),
}

# Rules checked in tests/integration too: implementations, not expectations.
INTEGRATION_TEST_RULES = ('MM2 record codec', 'Java properties', 'loose value readers')

# Known copies, each with the reason it stays for now.
EXCEPTIONS: Dict[str, str] = {
    # The watchdog package is shipped on its own by connect_worker; it masks secrets before cutting.
    'roles/connect_worker/files/connect_watchdog/log_lines.py': 'loose value readers',
}


def python_files() -> List[str]:
    listing = subprocess.run(['git', 'ls-files', '--cached', '--others', '--exclude-standard', '--', '*.py'],
                             cwd=REPO_ROOT, capture_output=True, text=True, check=False)
    if listing.returncode != 0:
        pytest.skip('needs a git checkout')
    return sorted({path for path in listing.stdout.splitlines()
                   if not path.startswith('tests/unit/') and (REPO_ROOT / path).is_file()})


def checked(path: str, rule: str, home: str) -> bool:
    if path == home or EXCEPTIONS.get(path) == rule:
        return False
    return not path.startswith('tests/') or (path.startswith('tests/integration/') and rule in INTEGRATION_TEST_RULES)


def offences() -> List[str]:
    found = []
    for path in python_files():
        text = (REPO_ROOT / path).read_text(encoding='utf-8', errors='replace')
        for rule, (home, patterns) in RULES.items():
            if not checked(path, rule, home):
                continue
            for pattern in patterns:
                for match in re.finditer(pattern, text):
                    line = text.count('\n', 0, match.start()) + 1
                    found.append('%s:%d writes the %s rule again (%r); use %s' % (path, line, rule, match.group(0), home))
    return found


def test_every_rule_has_one_home() -> None:
    assert offences() == []


def test_the_exceptions_are_still_needed() -> None:
    """An exception whose copy is gone goes too, so the list only shrinks."""
    stale = []
    for path, rule in EXCEPTIONS.items():
        text = (REPO_ROOT / path).read_text(encoding='utf-8') if (REPO_ROOT / path).is_file() else ''
        if not any(re.search(pattern, text) for pattern in RULES[rule][1]):
            stale.append(path)
    assert stale == []
