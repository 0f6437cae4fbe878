# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The core of module kafka_dr.mm2.file_set: directories and files of one host in one pass.

Read (what is on disk) -> diff (content, owner, group, mode) -> write (only what differs, each file
atomically through a temporary file in its own directory). Nothing is written in check mode.
Secret files never appear in a diff; their content is never returned.
"""

from __future__ import annotations

import fnmatch
import grp
import os
import pwd
import stat
import tempfile
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

# A diff of a larger file says only that it changed.
MAX_DIFF_BYTES = 256 * 1024


class FileSetError(Exception):
    """A path, owner, group or mode that cannot be applied, found before the first write."""


@dataclass(frozen=True)
class Attributes:
    owner: Optional[str]
    group: Optional[str]
    mode: int


@dataclass(frozen=True)
class WantedDirectory:
    path: str
    attributes: Attributes
    # A glob: the directory's regular files that match it and that the set does not list are removed.
    prune: Optional[str] = None


@dataclass(frozen=True)
class WantedFile:
    dest: str
    content: bytes
    attributes: Attributes
    secret: bool = False
    # A command with %s for the path of a private copy of the new content; it must exit 0 before
    # the file is replaced (see apply).
    validate: Optional[str] = None


# Runs a file's validate command on a path; the command's complaint, or None when it passed.
Validator = Callable[[str, str], Optional[str]]


@dataclass
class Outcome:
    path: str
    state: str  # created, updated, attributes, removed or unchanged
    diff: Optional[Dict[str, Any]] = None

    @property
    def changed(self) -> bool:
        return self.state != 'unchanged'


@dataclass
class Report:
    directories: List[Outcome] = field(default_factory=list)
    files: List[Outcome] = field(default_factory=list)
    # Files left out because their directory does not exist (missing_directories=skip).
    skipped: List[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return any(outcome.changed for outcome in self.directories + self.files)

    def as_result(self) -> Dict[str, Any]:
        return {
            'changed': self.changed,
            'directories': [{'path': o.path, 'state': o.state, 'changed': o.changed} for o in self.directories],
            'files': [{'path': o.path, 'state': o.state, 'changed': o.changed} for o in self.files],
            'changed_paths': [o.path for o in self.directories + self.files if o.changed],
            'skipped_paths': list(self.skipped),
            'diff': [o.diff for o in self.directories + self.files if o.diff is not None],
        }


def parse_mode(mode: str, where: str) -> int:
    """An octal mode string such as '0640'; symbolic modes are refused (they depend on the old mode)."""
    text = str(mode).strip()
    try:
        value = int(text, 8)
    except ValueError:
        raise FileSetError(f"{where}: mode {text!r} is not an octal mode such as '0640'") from None
    if not 0 <= value <= 0o7777:
        raise FileSetError(f"{where}: mode {text!r} is out of range")
    return value


def _account_id(name: Optional[str], lookup: Callable[[str], Any], kind: str, where: str) -> int:
    """The id of a user or group by name; -1 (leave as is) when no name is given."""
    if name is None:
        return -1
    try:
        return lookup(name)[2]
    except KeyError:
        raise FileSetError(f"{where}: no {kind} {name!r} on this host") from None


def _ids(attributes: Attributes, where: str) -> Tuple[int, int]:
    return (_account_id(attributes.owner, pwd.getpwnam, 'user', where),
            _account_id(attributes.group, grp.getgrnam, 'group', where))


def _attributes_differ(current: os.stat_result, wanted: Attributes, uid: int, gid: int) -> bool:
    return (
        stat.S_IMODE(current.st_mode) != wanted.mode
        or (uid != -1 and current.st_uid != uid)
        or (gid != -1 and current.st_gid != gid)
    )


def _attributes_diff(path: str, current: Optional[os.stat_result], wanted: Attributes, uid: int, gid: int) -> Dict[str, Any]:
    def describe(mode: int, owner_id: int, group_id: int) -> str:
        return f"mode {mode:04o}, uid {owner_id}, gid {group_id}\n"

    before = 'absent\n' if current is None else describe(stat.S_IMODE(current.st_mode), current.st_uid, current.st_gid)
    after_uid = uid if uid != -1 else (current.st_uid if current else os.getuid())
    after_gid = gid if gid != -1 else (current.st_gid if current else os.getgid())
    return {'before_header': f"{path} (attributes)", 'after_header': f"{path} (attributes)",
            'before': before, 'after': describe(wanted.mode, after_uid, after_gid)}


def _as_text(data: bytes) -> Optional[str]:
    if len(data) > MAX_DIFF_BYTES or b'\0' in data:
        return None
    try:
        return data.decode('utf-8')
    except UnicodeDecodeError:
        return None


def _content_diff(wanted: WantedFile, before: Optional[bytes]) -> Dict[str, Any]:
    if wanted.secret:
        before_text, after_text = ('(secret)\n' if before is not None else 'absent\n'), '(secret, changed)\n'
    else:
        after_text = _as_text(wanted.content)
        before_text = 'absent\n' if before is None else _as_text(before)
        if after_text is None or before_text is None:
            before_text, after_text = '(binary or large)\n', '(binary or large, changed)\n'
    return {'before_header': wanted.dest, 'after_header': wanted.dest, 'before': before_text, 'after': after_text}


def _stat(path: str) -> Optional[os.stat_result]:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None


def apply_directory(wanted: WantedDirectory, ids: Tuple[int, int], check_mode: bool, want_diff: bool) -> Outcome:
    uid, gid = ids
    current = _stat(wanted.path)
    if current is not None and not _attributes_differ(current, wanted.attributes, uid, gid):
        return Outcome(wanted.path, 'unchanged')
    diff = _attributes_diff(wanted.path, current, wanted.attributes, uid, gid) if want_diff else None
    if not check_mode:
        if current is None:
            os.makedirs(wanted.path, mode=0o700, exist_ok=True)
        os.chown(wanted.path, uid, gid)
        os.chmod(wanted.path, wanted.attributes.mode)
    return Outcome(wanted.path, 'created' if current is None else 'attributes', diff)


def _write_atomically(wanted: WantedFile, uid: int, gid: int) -> None:
    directory = os.path.dirname(wanted.dest) or '.'
    # The temporary file is private until its owner and mode are right: a secret never sits
    # readable by others, not even for a moment.
    handle, temporary = tempfile.mkstemp(prefix='.' + os.path.basename(wanted.dest) + '.', dir=directory)
    try:
        with os.fdopen(handle, 'wb') as stream:
            stream.write(wanted.content)
            stream.flush()
            os.fsync(stream.fileno())
        os.chown(temporary, uid, gid)
        os.chmod(temporary, wanted.attributes.mode)
        os.replace(temporary, wanted.dest)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def apply_file(wanted: WantedFile, ids: Tuple[int, int], check_mode: bool, want_diff: bool) -> Outcome:
    uid, gid = ids
    current = _stat(wanted.dest)
    before = _read(wanted.dest) if current is not None else None
    if before == wanted.content:
        if not _attributes_differ(current, wanted.attributes, uid, gid):
            return Outcome(wanted.dest, 'unchanged')
        diff = _attributes_diff(wanted.dest, current, wanted.attributes, uid, gid) if want_diff else None
        if not check_mode:
            os.chown(wanted.dest, uid, gid)
            os.chmod(wanted.dest, wanted.attributes.mode)
        return Outcome(wanted.dest, 'attributes', diff)
    diff = _content_diff(wanted, before) if want_diff else None
    if not check_mode:
        # Unspecified owner or group keep the old file's, as an in-place edit would.
        keep_uid = uid if uid != -1 else (current.st_uid if current else -1)
        keep_gid = gid if gid != -1 else (current.st_gid if current else -1)
        _write_atomically(wanted, keep_uid, keep_gid)
    return Outcome(wanted.dest, 'created' if current is None else 'updated', diff)


def _parent_missing(wanted: WantedFile, made_here: set) -> bool:
    parent = os.path.dirname(os.path.normpath(wanted.dest))
    return parent not in made_here and not os.path.isdir(parent)


def _check_paths(directories: List[WantedDirectory], files: List[WantedFile], check_mode: bool) -> None:
    """What would stop the set half way, found before the first write."""
    made_here = {os.path.normpath(directory.path) for directory in directories}
    for directory in directories:
        if not os.path.isabs(directory.path):
            raise FileSetError(f"{directory.path}: not an absolute path")
        current = _stat(directory.path)
        if current is not None and not stat.S_ISDIR(current.st_mode):
            raise FileSetError(f"{directory.path}: exists and is not a directory")
    for wanted in files:
        if not os.path.isabs(wanted.dest):
            raise FileSetError(f"{wanted.dest}: not an absolute path")
        current = _stat(wanted.dest)
        if current is not None and not stat.S_ISREG(current.st_mode):
            raise FileSetError(f"{wanted.dest}: exists and is not a regular file")
        # In check mode an earlier task may only have predicted the directory.
        if current is None and not check_mode and _parent_missing(wanted, made_here):
            raise FileSetError(f"{wanted.dest}: its directory does not exist")


def _unlisted_files(directory: WantedDirectory, listed: set) -> List[str]:
    """The directory's regular files that match its prune pattern and that the set does not list."""
    if not directory.prune or not os.path.isdir(directory.path):
        return []
    with os.scandir(directory.path) as entries:
        return sorted(entry.path for entry in entries
                      if entry.is_file(follow_symlinks=False) and fnmatch.fnmatchcase(entry.name, directory.prune)
                      and os.path.normpath(entry.path) not in listed)


def prune_files(directories: List[WantedDirectory], files: List[WantedFile], check_mode: bool, want_diff: bool) -> List[Outcome]:
    listed = {os.path.normpath(wanted.dest) for wanted in files}
    outcomes = []
    for directory in directories:
        for path in _unlisted_files(directory, listed):
            if not check_mode:
                os.unlink(path)
            diff = {'before_header': path, 'after_header': path, 'before': 'present\n', 'after': 'absent\n'} if want_diff else None
            outcomes.append(Outcome(path, 'removed', diff))
    return outcomes


def _read(path: str) -> Optional[bytes]:
    try:
        with open(path, 'rb') as stream:
            return stream.read()
    except FileNotFoundError:
        return None


def _validation_failure(wanted: WantedFile, validator: Validator) -> Optional[str]:
    """Run the file's command on a private copy of its new content, outside the file's directory
    (a server watching that directory must not read it)."""
    handle, copy = tempfile.mkstemp(prefix='.file_set.', suffix='.' + os.path.basename(wanted.dest))
    try:
        with os.fdopen(handle, 'wb') as stream:
            stream.write(wanted.content)
        complaint = validator(str(wanted.validate), copy)
    finally:
        os.unlink(copy)
    if complaint is None:
        return None
    # A secret's checker may quote the content.
    return 'rejected by its validate command' if wanted.secret else f"rejected by `{wanted.validate}`: {complaint}"


def validate_changed(files: List[WantedFile], validator: Optional[Validator]) -> None:
    """Every changed file with a validate command passes it, or nothing is written."""
    complaints = []
    for wanted in files:
        if wanted.validate and _read(wanted.dest) != wanted.content:
            if validator is None:
                raise FileSetError(f"{wanted.dest}: no way to run its validate command")
            complaint = _validation_failure(wanted, validator)
            if complaint is not None:
                complaints.append(f"{wanted.dest}: {complaint}")
    if complaints:
        raise FileSetError('; '.join(complaints))


def apply(directories: List[WantedDirectory], files: List[WantedFile], check_mode: bool, want_diff: bool,
          skip_missing_directories: bool = False, validator: Optional[Validator] = None) -> Report:
    """Directories first (files may live in them), in the order given, then the files, then what
    the directories' prune patterns remove. Every path, owner and group is checked before the
    first write, and every changed file with a validate command is checked by it (in check mode
    too), so a wrong one changes nothing. With skip_missing_directories, a file whose directory
    neither exists nor is in the set is left out (reported in skipped) instead."""
    report = Report()
    if skip_missing_directories:
        made_here = {os.path.normpath(directory.path) for directory in directories}
        report.skipped = [wanted.dest for wanted in files if _parent_missing(wanted, made_here)]
        files = [wanted for wanted in files if wanted.dest not in report.skipped]
    _check_paths(directories, files, check_mode)
    validate_changed(files, validator)
    directory_ids = [_ids(directory.attributes, directory.path) for directory in directories]
    file_ids = [_ids(wanted.attributes, wanted.dest) for wanted in files]
    for directory, ids in zip(directories, directory_ids):
        report.directories.append(apply_directory(directory, ids, check_mode, want_diff))
    for wanted, ids in zip(files, file_ids):
        report.files.append(apply_file(wanted, ids, check_mode, want_diff))
    report.files.extend(prune_files(directories, files, check_mode, want_diff))
    return report
