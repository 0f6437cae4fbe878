# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""path_info describes several paths at once: type, owner, group, mode and a file's SHA-256."""

from __future__ import annotations

import grp
import hashlib
import os
import pwd
from pathlib import Path

import pytest

from ansible_collections.kafka_dr.mm2.plugins.module_utils.path_info import PathInfoError, describe, describe_all


def test_a_regular_file_with_its_checksum(tmp_path: Path) -> None:
    store = tmp_path / 'truststore.p12'
    store.write_bytes(b'\x00store')
    store.chmod(0o640)
    info = describe(str(store), checksum=True)
    assert info['exists'] and info['isreg'] and not info['isdir']
    assert info['mode'] == '0640' and info['size'] == 6
    assert info['checksum'] == hashlib.sha256(b'\x00store').hexdigest()
    assert 'checksum' not in describe(str(store), checksum=False)


def test_a_directory_has_no_checksum(tmp_path: Path) -> None:
    info = describe(str(tmp_path), checksum=True)
    assert info['isdir'] and not info['isreg'] and 'checksum' not in info


def test_a_link_is_followed_and_a_broken_one_is_missing(tmp_path: Path) -> None:
    (tmp_path / 'java-17').write_text('binary')
    (tmp_path / 'java').symlink_to(tmp_path / 'java-17')
    (tmp_path / 'dangling').symlink_to(tmp_path / 'nowhere')
    java = describe(str(tmp_path / 'java'), checksum=False)
    assert java['isreg'] and java['link_target'] == str(tmp_path / 'java-17')
    assert 'link_target' not in describe(str(tmp_path / 'java-17'), checksum=False)
    assert describe(str(tmp_path / 'dangling'), checksum=False) == {'exists': False}


def test_missing_paths_are_listed_in_the_order_given(tmp_path: Path) -> None:
    (tmp_path / 'present').write_text('x')
    (tmp_path / 'file').write_text('x')
    paths = [str(tmp_path / 'b'), str(tmp_path / 'present'), str(tmp_path / 'a'), str(tmp_path / 'file' / 'below')]
    described = describe_all(paths, checksum=False)
    assert described['missing'] == [paths[0], paths[2], paths[3]]
    assert list(described['paths']) == paths


def test_owner_and_group_are_names(tmp_path: Path) -> None:
    info = describe(str(tmp_path), checksum=False)
    assert info['owner'] == pwd.getpwuid(os.getuid()).pw_name
    assert info['group'] == grp.getgrgid(os.getgid()).gr_name


def test_a_relative_path_is_refused() -> None:
    with pytest.raises(PathInfoError, match='not an absolute path'):
        describe('etc/kafka', checksum=False)
