# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The seed connector fixtures are the reference guides' JSON byte for byte, except for the
substitutions listed in tests/integration/fixtures/seeds/substitutions.json (and its README)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pytest

REPO_ROOT = Path(__file__).resolve().parents[3]
FIXTURES = REPO_ROOT / 'tests' / 'integration' / 'fixtures' / 'seeds'
SEEDS = Path(os.environ.get('KAFKA_DR_SEEDS_DIR', REPO_ROOT.parent / 'shared' / 'seeds'))
SUBSTITUTIONS: Dict[str, Any] = json.loads((FIXTURES / 'substitutions.json').read_text(encoding='utf-8'))['seeds']


def connector_documents(text: str) -> Iterator[str]:
    """Every complete JSON object in a guide that is a connector config (bare or in a POST envelope)."""
    decoder = json.JSONDecoder()
    position = 0
    while True:
        start = text.find('{', position)
        if start < 0:
            return
        try:
            document, end = decoder.raw_decode(text, start)
        except ValueError:
            position = start + 1
            continue
        config = document.get('config') if isinstance(document, dict) and isinstance(document.get('config'), dict) else document
        if isinstance(config, dict) and 'connector.class' in config:
            yield text[start:end]
            position = end
        else:
            position = start + 1


def substituted(original: str, replacements: List[List[str]]) -> str:
    for old, new in replacements:
        original = original.replace(old, new)
    return original


def test_every_fixture_is_listed_once() -> None:
    listed = [name for entry in SUBSTITUTIONS.values() for name in entry['fixtures']]
    assert sorted(listed) == sorted(path.name for path in FIXTURES.glob('*.json') if path.name != 'substitutions.json')
    assert len(listed) == len(set(listed))


def test_readme_documents_every_substitution() -> None:
    readme = (FIXTURES / 'README.md').read_text(encoding='utf-8')
    for seed, entry in SUBSTITUTIONS.items():
        assert seed in readme
        for old, new in entry['replace']:
            assert old in readme and new in readme, (seed, old)


@pytest.mark.parametrize('seed', sorted(SUBSTITUTIONS))
def test_fixtures_match_the_guides(seed: str) -> None:
    guide = SEEDS / seed
    if not guide.exists():
        pytest.skip('reference guides not available at %s (set KAFKA_DR_SEEDS_DIR)' % SEEDS)
    entry = SUBSTITUTIONS[seed]
    originals = list(connector_documents(guide.read_text(encoding='utf-8')))
    assert len(originals) == len(entry['fixtures'])
    for original, fixture in zip(originals, entry['fixtures']):
        for old, _new in entry['replace']:
            assert old in original or not any(old in other for other in originals), (fixture, old)
        assert (FIXTURES / fixture).read_text(encoding='utf-8') == substituted(original, entry['replace']), fixture


def test_guides_without_connector_json_have_no_fixture() -> None:
    if not SEEDS.exists():
        pytest.skip('reference guides not available')
    for guide in sorted(SEEDS.glob('*.txt')):
        found = list(connector_documents(guide.read_text(encoding='utf-8')))
        assert (guide.name in SUBSTITUTIONS) == bool(found), guide.name
