# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The filters mm2_from_dedicated and mm2_dedicated_secret_files: registered under their names, the
converter's refusal as a filter error (plugin_utils/mm2_dedicated.py holds the logic and its tests)."""

from __future__ import annotations

from pathlib import Path

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.filter import mm2_dedicated_secret_files, mm2_from_dedicated

ONE_WAY = (Path(__file__).resolve().parents[1] / 'plugin_utils' / 'fixtures' / 'mm2_dedicated_one_way.properties').read_text(encoding='utf-8')


def test_filters_are_registered_under_their_names() -> None:
    assert mm2_from_dedicated.FilterModule().filters() == {'mm2_from_dedicated': mm2_from_dedicated.mm2_from_dedicated}
    assert mm2_dedicated_secret_files.FilterModule().filters() == {
        'mm2_dedicated_secret_files': mm2_dedicated_secret_files.mm2_dedicated_secret_files}


def test_the_model_and_the_secrets_come_from_separate_filters() -> None:
    model = mm2_from_dedicated.mm2_from_dedicated(ONE_WAY)
    assert sorted(model) == ['mm2_clusters', 'mm2_flows', 'notes', 'secrets', 'unmapped']
    assert mm2_dedicated_secret_files.mm2_dedicated_secret_files(ONE_WAY)['src.properties'] == {'sasl.password': 'pass'}


@pytest.mark.parametrize('convert', [mm2_from_dedicated.mm2_from_dedicated, mm2_dedicated_secret_files.mm2_dedicated_secret_files])
def test_a_refusal_is_a_filter_error_naming_the_line(convert) -> None:
    with pytest.raises(AnsibleFilterError, match='line 5: a->c.enabled: names the cluster alias c'):
        convert('clusters = a, b\na.bootstrap.servers = a:1\nb.bootstrap.servers = b:1\na->b.enabled = true\na->c.enabled = true\n')
    with pytest.raises(AnsibleFilterError, match='expects the text of an mm2.properties file, got dict'):
        convert({'clusters': 'a, b'})
