# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The core of module kafka_dr.mm2.file_set on a temporary directory: read, diff, write."""

from __future__ import annotations

import grp
import os
import pwd
import stat
from pathlib import Path

import pytest

from ansible_collections.kafka_dr.mm2.plugins.module_utils.file_set import (
    Attributes,
    FileSetError,
    WantedDirectory,
    WantedFile,
    apply,
    parse_mode,
)

ME = pwd.getpwuid(os.getuid()).pw_name
MY_GROUP = grp.getgrgid(os.getgid()).gr_name


def wanted_file(path: Path, content: bytes, mode: int = 0o640, secret: bool = False) -> WantedFile:
    return WantedFile(str(path), content, Attributes(ME, MY_GROUP, mode), secret)


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_set_is_created_then_a_second_pass_changes_nothing(tmp_path: Path) -> None:
    config_dir = tmp_path / 'etc' / 'kafka'
    directories = [WantedDirectory(str(config_dir), Attributes(ME, MY_GROUP, 0o750))]
    files = [wanted_file(config_dir / 'server.properties', b'a=1\n'), wanted_file(config_dir / 'jaas.conf', b'p="s3"\n', 0o600, True)]

    first = apply(directories, files, check_mode=False, want_diff=True).as_result()
    assert first['changed'] is True
    assert first['changed_paths'] == [str(config_dir), str(config_dir / 'server.properties'), str(config_dir / 'jaas.conf')]
    assert [f['state'] for f in first['files']] == ['created', 'created']
    assert (config_dir / 'server.properties').read_bytes() == b'a=1\n'
    assert mode_of(config_dir) == 0o750 and mode_of(config_dir / 'jaas.conf') == 0o600

    second = apply(directories, files, check_mode=False, want_diff=True).as_result()
    assert second['changed'] is False and second['changed_paths'] == [] and second['diff'] == []


def test_only_the_file_that_differs_is_rewritten_with_a_diff(tmp_path: Path) -> None:
    kept, edited = tmp_path / 'kept', tmp_path / 'edited'
    kept.write_bytes(b'same\n')
    edited.write_bytes(b'old\n')
    for path in (kept, edited):
        path.chmod(0o640)
    inode_of_kept = kept.stat().st_ino

    result = apply([], [wanted_file(kept, b'same\n'), wanted_file(edited, b'new\n')], check_mode=False, want_diff=True).as_result()
    assert result['changed_paths'] == [str(edited)]
    assert result['diff'] == [{'before_header': str(edited), 'after_header': str(edited), 'before': 'old\n', 'after': 'new\n'}]
    assert edited.read_bytes() == b'new\n' and kept.stat().st_ino == inode_of_kept


def test_a_wrong_mode_alone_is_corrected_without_rewriting(tmp_path: Path) -> None:
    path = tmp_path / 'server.properties'
    path.write_bytes(b'a=1\n')
    path.chmod(0o644)
    inode = path.stat().st_ino
    result = apply([], [wanted_file(path, b'a=1\n')], check_mode=False, want_diff=True).as_result()
    assert result['files'][0]['state'] == 'attributes'
    assert 'mode 0644' in result['diff'][0]['before'] and 'mode 0640' in result['diff'][0]['after']
    assert mode_of(path) == 0o640 and path.stat().st_ino == inode


def test_check_mode_reports_without_writing(tmp_path: Path) -> None:
    new_dir = tmp_path / 'new'
    path = new_dir / 'file'
    result = apply([WantedDirectory(str(new_dir), Attributes(None, None, 0o755))], [wanted_file(path, b'x')],
                   check_mode=True, want_diff=False).as_result()
    assert result['changed'] is True and result['changed_paths'] == [str(new_dir), str(path)]
    assert not new_dir.exists()


def test_a_secret_never_reaches_the_diff_or_the_result(tmp_path: Path) -> None:
    path = tmp_path / 'secret.properties'
    path.write_bytes(b'password=old-secret-value\n')
    path.chmod(0o600)
    result = apply([], [wanted_file(path, b'password=new-secret-value\n', 0o600, secret=True)], check_mode=False, want_diff=True)
    text = repr(result.as_result())
    assert 'secret-value' not in text
    assert result.as_result()['diff'][0]['after'] == '(secret, changed)\n'
    assert path.read_bytes() == b'password=new-secret-value\n'


def test_binary_content_is_written_as_is_and_not_diffed(tmp_path: Path) -> None:
    path = tmp_path / 'keystore.p12'
    path.write_bytes(b'\x30\x82\x00old')
    path.chmod(0o600)
    result = apply([], [wanted_file(path, b'\x30\x82\x00new', 0o600)], check_mode=False, want_diff=True).as_result()
    assert result['diff'][0]['after'] == '(binary or large, changed)\n'
    assert path.read_bytes() == b'\x30\x82\x00new'


def test_a_missing_owner_fails_before_anything_is_written(tmp_path: Path) -> None:
    first, second = tmp_path / 'first', tmp_path / 'second'
    files = [wanted_file(first, b'x'), WantedFile(str(second), b'y', Attributes('no-such-user-kafka-dr', None, 0o640))]
    with pytest.raises(FileSetError, match="no user 'no-such-user-kafka-dr'"):
        apply([], files, check_mode=False, want_diff=False)
    assert not first.exists() and not second.exists()


def test_a_relative_path_or_a_directory_in_the_way_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FileSetError, match='not an absolute path'):
        apply([], [WantedFile('etc/kafka/x', b'', Attributes(None, None, 0o644))], check_mode=False, want_diff=False)
    (tmp_path / 'conf').mkdir()
    with pytest.raises(FileSetError, match='not a regular file'):
        apply([], [wanted_file(tmp_path / 'conf', b'x')], check_mode=False, want_diff=False)


def test_a_file_whose_directory_is_missing_stops_the_set_before_any_write(tmp_path: Path) -> None:
    first = tmp_path / 'first'
    files = [wanted_file(first, b'x'), wanted_file(tmp_path / 'missing' / 'second', b'y')]
    with pytest.raises(FileSetError, match='its directory does not exist'):
        apply([], files, check_mode=False, want_diff=False)
    assert not first.exists()
    # A directory of the same set is created first, so its files are fine.
    made = apply([WantedDirectory(str(tmp_path / 'missing'), Attributes(None, None, 0o755))], files,
                 check_mode=False, want_diff=False)
    assert made.as_result()['changed_paths'][-1] == str(tmp_path / 'missing' / 'second')


def test_no_temporary_file_is_left_behind(tmp_path: Path) -> None:
    apply([], [wanted_file(tmp_path / 'a', b'1'), wanted_file(tmp_path / 'b', b'2')], check_mode=False, want_diff=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ['a', 'b']


@pytest.mark.parametrize('mode, expected', [('0640', 0o640), ('750', 0o750), (' 0600 ', 0o600)])
def test_octal_modes_are_read(mode: str, expected: int) -> None:
    assert parse_mode(mode, 'x') == expected


@pytest.mark.parametrize('mode', ['u+rw', '0999', '77777'])
def test_symbolic_or_invalid_modes_are_refused(mode: str) -> None:
    with pytest.raises(FileSetError):
        parse_mode(mode, 'x')


def test_a_prune_pattern_removes_only_matching_files_the_set_does_not_list(tmp_path: Path) -> None:
    clients = tmp_path / 'clients'
    clients.mkdir()
    (clients / 'gone.properties').write_text('old=1\n')
    (clients / 'notes.txt').write_text('kept\n')
    (clients / 'other-prefix').mkdir()
    (clients / 'other-prefix' / 'x.properties').write_text('kept=1\n')
    directory = WantedDirectory(str(clients), Attributes(ME, MY_GROUP, 0o750), prune='*.properties')
    files = [wanted_file(clients / 'src.properties', b'a=1\n')]

    preview = apply([directory], files, check_mode=True, want_diff=True)
    assert (clients / 'gone.properties').exists()
    assert [(o.path, o.state) for o in preview.files] == [(str(clients / 'src.properties'), 'created'),
                                                          (str(clients / 'gone.properties'), 'removed')]
    report = apply([directory], files, check_mode=False, want_diff=True)
    assert str(clients / 'gone.properties') in report.as_result()['changed_paths']
    assert sorted(p.name for p in clients.iterdir()) == ['notes.txt', 'other-prefix', 'src.properties']
    assert (clients / 'other-prefix' / 'x.properties').exists()
    assert not apply([directory], files, check_mode=False, want_diff=False).changed


def test_a_file_whose_directory_is_missing_is_left_out_when_asked(tmp_path: Path) -> None:
    present = wanted_file(tmp_path / 'a.properties', b'a=1\n')
    absent = wanted_file(tmp_path / 'not-yet' / 'b.properties', b'b=1\n')
    report = apply([], [present, absent], check_mode=False, want_diff=False, skip_missing_directories=True)
    result = report.as_result()
    assert result['skipped_paths'] == [absent.dest] and result['changed_paths'] == [present.dest]
    assert not (tmp_path / 'not-yet').exists()
    with pytest.raises(FileSetError, match='its directory does not exist'):
        apply([], [absent], check_mode=False, want_diff=False)


def test_a_secret_refused_by_its_validate_command_is_not_quoted(tmp_path: Path) -> None:
    seen = []

    def refuse(command: str, path: str) -> str:
        seen.append((command, Path(path).read_bytes(), stat.S_IMODE(os.stat(path).st_mode)))
        return 'line 1: password=hunter2 is wrong'

    secret = WantedFile(str(tmp_path / 'jaas.conf'), b'password=hunter2\n', Attributes(ME, MY_GROUP, 0o600), True, 'check %s')
    with pytest.raises(FileSetError) as refused:
        apply([], [secret], check_mode=False, want_diff=False, validator=refuse)
    assert 'hunter2' not in str(refused.value) and 'rejected by its validate command' in str(refused.value)
    assert seen == [('check %s', b'password=hunter2\n', 0o600)] and not (tmp_path / 'jaas.conf').exists()
