# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""line_values finds what a line-based file cannot hold: control characters, and values that are no scalar."""

from __future__ import annotations

from typing import Any, Optional, Tuple

import pytest

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.line_values import first_control, scalar_text


@pytest.mark.parametrize('text, found', [
    ('plain value with spaces, % and "quotes"', None),
    ('', None),
    ('a\nb', (2, 'a line break')),
    ('ab\rc\n', (3, 'a carriage return')),
    ('\tx', (1, 'a tab')),
    ('x\x00', (2, "the control character '\\x00'")),
    ('x\x7f', (2, "the control character '\\x7f'")),
])
def test_the_first_control_character_is_found_with_its_position(text: str, found: Optional[Tuple[int, str]]) -> None:
    assert first_control(text) == found


@pytest.mark.parametrize('value, text', [('x', 'x'), (8083, '8083'), (True, 'True'), (0.5, '0.5'),
                                         (None, None), ({'a': 1}, None), ([1], None), ((1,), None), ({1}, None)])
def test_scalars_render_as_a_template_would_and_the_rest_is_none(value: Any, text: Optional[str]) -> None:
    assert scalar_text(value) == text
