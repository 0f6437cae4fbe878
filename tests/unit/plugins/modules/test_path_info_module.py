# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Module kafka_dr.mm2.path_info as Ansible runs it: arguments in, JSON out."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any


def test_the_module_reports_each_path_and_changes_nothing(run_module: Any, tmp_path: Path) -> None:
    store = tmp_path / 'keystore.p12'
    store.write_bytes(b'store')
    result = run_module('path_info', paths=[str(store), str(tmp_path / 'absent'), str(store)], checksum=True)
    assert result['changed'] is False
    assert list(result['paths']) == [str(store), str(tmp_path / 'absent')]
    assert result['paths'][str(store)]['checksum'] == hashlib.sha256(b'store').hexdigest()
    assert result['missing'] == [str(tmp_path / 'absent')]


def test_a_relative_or_empty_path_fails_the_task(run_module: Any) -> None:
    for path in ('relative/path', ''):
        result = run_module('path_info', paths=['/etc', path])
        assert result['failed'] is True and f"'{path}' is not an absolute path" in result['msg']
