# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The generated parts of the docs (scripts/gen_docs.py): role variable tables equal to
meta/argument_specs.yml, the lab model in docs/mirrormaker.md equal to the lab inventory; the
changelog fragments pass antsibull-changelog's lint and CHANGELOG.md is generated from
changelogs/changelog.yaml; the README's commands and links hold."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
LAB_MODEL = 'inventories/lab/group_vars/all.yml'


def load_gen_docs() -> ModuleType:
    spec = importlib.util.spec_from_file_location('gen_docs', REPO_ROOT / 'scripts' / 'gen_docs.py')
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gen_docs = load_gen_docs()


def test_generated_docs_match_their_sources() -> None:
    stale = gen_docs.stale_docs(REPO_ROOT)
    assert stale == [], 'regenerate with `%s`:\n%s' % (gen_docs.COMMAND, '\n'.join(stale))


def test_every_role_has_a_readme_with_its_variable_table() -> None:
    roles = sorted(path for path in (REPO_ROOT / 'roles').iterdir() if path.is_dir())
    assert roles
    for role in roles:
        assert (role / 'meta' / 'argument_specs.yml').is_file(), role.name
        readme = (role / 'README.md').read_text()
        assert readme.startswith('# Role `kafka_dr.mm2.%s`' % role.name)
        assert gen_docs.SPECS_BLOCK.search(readme), role.name


def test_the_guide_quotes_the_lab_model_whole() -> None:
    guide = (REPO_ROOT / 'docs' / 'mirrormaker.md').read_text()
    blocks = [match for match in gen_docs.INCLUDE_BLOCK.finditer(guide) if match['path'] == LAB_MODEL]
    assert len(blocks) == 1
    assert (REPO_ROOT / LAB_MODEL).read_text() in blocks[0]['body']
    assert ':9092' not in guide.split('## Topologies')[0], 'the lab serves SASL_SSL on 9094 only'


@pytest.mark.parametrize('markup, markdown', [
    ('C(security.protocol) of the clients', '`security.protocol` of the clients'),
    ('I(emphasis) and B(bold)', '*emphasis* and **bold**'),
    ('With V(PLAINTEXT) and O(kafka_tls_pkcs12=true)', 'With `PLAINTEXT` and `kafka_tls_pkcs12=true`'),
    ('O(kafka_acls_scram_users[].state=absent)', '`kafka_acls_scram_users[].state=absent`'),
    (r'V(a\)b) and E(KAFKA_DR_CACHE) and RV(changed)', '`a)b` and `KAFKA_DR_CACHE` and `changed`'),
    ('M(kafka_dr.mm2.connector) and P(kafka_dr.mm2.to_properties#filter)',
     '`kafka_dr.mm2.connector` and `kafka_dr.mm2.to_properties`'),
    ('See L(the guide, https://example.org/g) or U(https://example.org)',
     'See [the guide](https://example.org/g) or <https://example.org>'),
    ('R(Secrets, secrets) HORIZONTALLINE end', 'Secrets end'),
    ('C({Service: {Nice: 5}})', '`{Service: {Nice: 5}}`'),
    ('C(<prefix>-source|checkpoint)', r'`<prefix>-source\|checkpoint`'),
    ('producer.override.* and <inventory_hostname>', r'producer.override.\* and &lt;inventory_hostname>'),
    ('a TOPIC(x) is no markup', 'a TOPIC(x) is no markup'),
])
def test_ansible_markup_becomes_markdown(markup: str, markdown: str) -> None:
    assert gen_docs.markup_to_markdown(markup) == markdown


def _mini_checkout(root: Path) -> None:
    """A checkout with one role and one guide, both generated."""
    role = root / 'roles' / 'demo'
    (role / 'meta').mkdir(parents=True)
    (role / 'defaults').mkdir()
    (role / 'defaults' / 'main.yml').write_text('demo_port: 9094\ndemo_url: "http://{{ inventory_hostname }}"\n')
    (role / 'meta' / 'argument_specs.yml').write_text(textwrap.dedent('''\
        argument_specs:
          main:
            short_description: A C(demo) role.
            options:
              demo_port:
                type: int
                description: Port; V(9094) serves SASL_SSL.
              demo_url:
                type: str
                description: URL.
              demo_users:
                type: list
                elements: dict
                default: []
                description: [Accounts., "Each with I(name)."]
                options:
                  name: {type: str, required: true, description: Account name.}
                  mode: {type: str, choices: [a, b], default: a, description: Mode.}
        '''))
    (root / 'inventories').mkdir()
    (root / 'inventories' / 'model.yml').write_text('---\nmm2_flows: []\n')
    (root / 'docs').mkdir()
    (root / 'docs' / 'guide.md').write_text('# Guide\n\n<!-- BEGIN INCLUDE inventories/model.yml -->\n<!-- END INCLUDE -->\n')
    (root / 'README.md').write_text('# Checkout\n')
    assert gen_docs.main(['--root', str(root)]) == 0


def test_a_new_role_gets_a_readme_with_its_table(tmp_path: Path) -> None:
    _mini_checkout(tmp_path)
    readme = (tmp_path / 'roles' / 'demo' / 'README.md').read_text()
    assert readme.startswith('# Role `kafka_dr.mm2.demo`\n\nA `demo` role.\n\n## Variables\n')
    assert '| `demo_port` | int | `9094` | Port; `9094` serves SASL_SSL. |' in readme
    assert '| `demo_url` | str | `http://{{ inventory_hostname }}` | URL. |' in readme
    assert '| `demo_users` | list of dict | `[]` | Accounts. Each with *name*. |' in readme
    assert '| `demo_users[].name` | str | required | Account name. |' in readme
    assert '| `demo_users[].mode` | str | `a` | Mode. One of: `a`, `b`. |' in readme
    assert '```yaml\n---\nmm2_flows: []\n```' in (tmp_path / 'docs' / 'guide.md').read_text()
    assert gen_docs.stale_docs(tmp_path) == []


def test_check_names_each_drift_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _mini_checkout(tmp_path)
    spec = tmp_path / 'roles' / 'demo' / 'meta' / 'argument_specs.yml'
    spec.write_text(spec.read_text().replace('description: URL.', 'description: URL of the demo.'))
    (tmp_path / 'inventories' / 'model.yml').write_text('---\nmm2_flows: [{source: a, target: b}]\n')
    guide_before = (tmp_path / 'docs' / 'guide.md').read_text()

    assert gen_docs.main(['--check', '--root', str(tmp_path)]) == 1
    errors = capsys.readouterr().err
    assert 'roles/demo/README.md: the variable table differs from demo/meta/argument_specs.yml' in errors
    assert 'docs/guide.md: the quoted copy differs from inventories/model.yml' in errors
    assert (tmp_path / 'docs' / 'guide.md').read_text() == guide_before

    assert gen_docs.main(['--root', str(tmp_path)]) == 0
    assert gen_docs.main(['--check', '--root', str(tmp_path)]) == 0


def test_check_finds_a_readme_without_its_table(tmp_path: Path) -> None:
    _mini_checkout(tmp_path)
    (tmp_path / 'roles' / 'demo' / 'README.md').write_text('# Role `kafka_dr.mm2.demo`\n\nHand-written only.\n')
    assert gen_docs.stale_docs(tmp_path) == ['roles/demo/README.md: no ARGUMENT SPECS block (the generator appends one)']


# --- the changelog (antsibull-changelog, docs/development.md) ------------------------------------

def antsibull_changelog(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    if importlib.util.find_spec('antsibull_changelog') is None:
        pytest.fail('antsibull-changelog is missing from the venv: `make setup` installs it (requirements.txt)')
    return subprocess.run([sys.executable, '-m', 'antsibull_changelog', *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120, check=False)


def test_changelog_fragments_pass_the_lint() -> None:
    result = antsibull_changelog('lint', cwd=REPO_ROOT)
    assert (result.returncode, result.stdout + result.stderr) == (0, '')


def test_changelog_yaml_passes_the_lint() -> None:
    result = antsibull_changelog('lint-changelog-yaml', 'changelogs/changelog.yaml', cwd=REPO_ROOT)
    assert (result.returncode, result.stdout + result.stderr) == (0, '')


def test_changelog_is_generated_from_changelog_yaml(tmp_path: Path) -> None:
    """CHANGELOG.md is what `antsibull-changelog generate` writes: edit changelogs/, not it."""
    shutil.copy(REPO_ROOT / 'galaxy.yml', tmp_path)
    (tmp_path / 'changelogs').mkdir()
    for name in ('config.yaml', 'changelog.yaml'):
        shutil.copy(REPO_ROOT / 'changelogs' / name, tmp_path / 'changelogs')
    result = antsibull_changelog('generate', cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (REPO_ROOT / 'CHANGELOG.md').read_text() == (tmp_path / 'CHANGELOG.md').read_text(), (
        'CHANGELOG.md differs from changelogs/changelog.yaml: run `antsibull-changelog generate`')
    assert not (REPO_ROOT / 'CHANGELOG.rst').exists(), 'one changelog: CHANGELOG.md'


# --- the README ----------------------------------------------------------------------------------

README = REPO_ROOT / 'README.md'


def test_readme_opens_with_the_two_commands() -> None:
    """.ci/run calls the README's test command."""
    first_block = re.search(r'```sh\n(.*?)```', README.read_text(), re.DOTALL)
    assert first_block is not None
    commands = [line.split('#')[0].strip() for line in first_block[1].splitlines()]
    assert commands == ['make demo', 'make test']
    assert 'make test' in (REPO_ROOT / '.ci' / 'run').read_text()


def test_readme_links_resolve() -> None:
    for target in re.findall(r'\]\(([^)#]+)(?:#[^)]*)?\)', README.read_text()):
        if '://' not in target:
            assert (REPO_ROOT / target).exists(), target


def test_development_guide_keeps_the_suites_table() -> None:
    """scripts/suites.py rewrites the block between these markers."""
    guide = (REPO_ROOT / 'docs' / 'development.md').read_text()
    assert guide.count('<!-- suites:begin') == 1 and guide.count('<!-- suites:end -->') == 1
    assert 'tests/time_budget.json' in guide and 'build/phases.json' in guide
