# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""MaskedInvocationModule logs the masked copy of its parameters and keeps the parameters themselves."""

from __future__ import annotations

from typing import Any, Dict

import pytest
from host_log import SINKS, run_logged

from ansible_collections.kafka_dr.mm2.plugins.module_utils.masked_invocation import MaskedInvocationModule

SPEC = {'items': {'type': 'list', 'elements': 'dict', 'options': {'name': {'type': 'str'}, 'text': {'type': 'str'}}}}


def without_texts(params: Dict[str, Any]) -> Dict[str, Any]:
    return {**params, 'items': [{**item, 'text': 'masked'} for item in params['items']]}


def main() -> None:
    module = MaskedInvocationModule(argument_spec=SPEC, logged_params=without_texts)
    module.exit_json(changed=False, texts=[item['text'] for item in module.params['items']])


@pytest.mark.parametrize('sink', SINKS)
def test_the_log_gets_the_copy_and_the_module_its_parameters(sink: str) -> None:
    result, logged = run_logged(main, {'items': [{'name': 'a', 'text': 'line 1\nline "2"'}]}, sink=sink)
    assert result['texts'] == ['line 1\nline "2"']
    assert "'name': 'a', 'text': 'masked'" in logged and 'line' not in logged
