"""Jinja in the roles and playbooks stays short: scripts/jinja_lengths.py and its limit."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO_ROOT = Path(__file__).resolve().parents[3]
LIMIT = 200
# Files that still hold expressions over the limit, with how many. The numbers only go
# down: move the logic into a filter or an action plugin instead of raising one.
KNOWN_LONG: dict = {}


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location('jinja_lengths', REPO_ROOT / 'scripts' / 'jinja_lengths.py')
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope='module')
def jinja_lengths() -> ModuleType:
    return load_script()


def test_no_new_long_expressions(jinja_lengths: ModuleType) -> None:
    long_ones: dict = {}
    for expression in jinja_lengths.all_expressions(REPO_ROOT):
        if expression.length > LIMIT:
            long_ones.setdefault(expression.path, []).append(expression)
    grown = {
        path: ['%s:%d (%d characters)' % (item.path, item.line, item.length) for item in items]
        for path, items in long_ones.items() if len(items) > KNOWN_LONG.get(path, 0)
    }
    assert not grown, 'Jinja expressions over %d characters: move the logic into plugins/ (%s)' % (LIMIT, grown)


def test_known_long_list_is_current(jinja_lengths: ModuleType) -> None:
    """A file that got shorter lowers its number here, so it cannot grow back."""
    counts: dict = {}
    for expression in jinja_lengths.all_expressions(REPO_ROOT):
        if expression.length > LIMIT:
            counts[expression.path] = counts.get(expression.path, 0) + 1
    stale = {path: (allowed, counts.get(path, 0)) for path, allowed in KNOWN_LONG.items() if counts.get(path, 0) < allowed}
    assert not stale, 'lower KNOWN_LONG (allowed, found): %s' % stale


def test_nested_braces_and_strings(jinja_lengths: ModuleType) -> None:
    text = "a {{ {'x': {'y': '}}'}} | combine({}) }} b {{ c }}"
    assert list(jinja_lengths.expressions_in(text)) == ["{{ {'x': {'y': '}}'}} | combine({}) }}", '{{ c }}']


def test_folded_quoted_and_keys(jinja_lengths: ModuleType, tmp_path: Path) -> None:
    role = tmp_path / 'roles' / 'demo' / 'vars'
    role.mkdir(parents=True)
    (role / 'main.yml').write_text(
        '---\n'
        'folded: >-\n'
        '  {{ [1, 2]\n'
        '     | sum }}\n'
        'quoted: "x{{ \\"a\\" ~ b }}y"\n'
        '"{{ key }}": !unsafe plain\n',
        encoding='utf-8')
    found = [(item.line, item.length, item.text) for item in jinja_lengths.all_expressions(tmp_path)]
    assert found == [
        (3, len('{{ [1, 2]\n     | sum }}'), '{{ [1, 2] | sum }}'),
        (5, len('{{ \\"a\\" ~ b }}'), '{{ \\"a\\" ~ b }}'),
        (6, len('{{ key }}'), '{{ key }}'),
    ]
    compact = [item.length for item in jinja_lengths.all_expressions(tmp_path, compact=True)]
    assert compact[0] == len('{{ [1, 2] | sum }}')
