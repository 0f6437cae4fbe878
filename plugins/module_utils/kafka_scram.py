# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""SCRAM accounts: ConfigCommand's listing, the salted fingerprints of what was applied, the plan.

The cluster keeps only salted SCRAM hashes, so a password cannot be compared with it. An account
is applied when it lacks the mechanism, when its iterations differ from the listing, or when its
settings changed since they were last applied: a salted SHA-512 of salt, name, mechanism,
iterations and password, kept root-only in the state directory (one file per account and
mechanism, the same format the role wrote before this module existed).
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import string
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple

from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_values import as_int
from ansible_collections.kafka_dr.mm2.plugins.module_utils.java_properties import escape_value
from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_tool import write_private_file

MECHANISMS = ('SCRAM-SHA-512', 'SCRAM-SHA-256')
MIN_ITERATIONS = 4096
ACCOUNT_NAME = re.compile(r'^[A-Za-z0-9._@-]+$')
SALT_FILE = 'salt'
SALT_LENGTH = 32

# ConfigCommand --describe --entity-type users: one line per account with credentials.
CREDENTIALS_LINE = re.compile(r"^SCRAM credential configs for user-principal '(?P<name>.*)' are (?P<mechanisms>.*)$")
MECHANISM_ENTRY = re.compile(r'^(?P<mechanism>SCRAM-SHA-\d+)=iterations=(?P<iterations>\d+)$')


def parse_scram_listing(text: str) -> Dict[str, Dict[str, int]]:
    """{account: {mechanism: iterations}} from ConfigCommand's listing; quota lines and accounts
    whose credentials could not be read ("Error retrieving ...") count as no credentials."""
    accounts: Dict[str, Dict[str, int]] = {}
    for raw in text.splitlines():
        match = CREDENTIALS_LINE.match(raw.strip())
        if not match:
            continue
        mechanisms = accounts.setdefault(match.group('name'), {})
        for item in match.group('mechanisms').split(','):
            entry = MECHANISM_ENTRY.match(item.strip())
            if entry:
                mechanisms[entry.group('mechanism')] = int(entry.group('iterations'))
    return accounts


@dataclass(frozen=True)
class ScramAccount:
    """One account's credential for one mechanism, defaults resolved."""

    name: str
    mechanism: str
    iterations: int
    password: Optional[str]
    present: bool

    @property
    def marker(self) -> str:
        """File name of its fingerprint in the state directory."""
        return '%s.%s' % (self.name, self.mechanism)

    def fingerprint(self, salt: str) -> str:
        text = '%s:%s:%s:%d:%s' % (salt, self.name, self.mechanism, self.iterations, self.password or '')
        return hashlib.sha512(text.encode('utf-8')).hexdigest()


def account_errors(users: Any, default_mechanism: Any, default_iterations: Any) -> List[str]:
    """Everything wrong with the accounts, one message per broken rule (passwords never quoted)."""
    errors: List[str] = []
    if default_mechanism not in MECHANISMS:
        errors.append('the default mechanism must be one of %s' % ', '.join(MECHANISMS))
    if (as_int(default_iterations) or 0) < MIN_ITERATIONS:
        errors.append('the default iterations must be at least %d (Kafka refuses fewer)' % MIN_ITERATIONS)
    if not isinstance(users, list):
        return errors + ['the accounts must be a list']
    seen: Dict[Tuple[str, str], int] = {}
    for index, user in enumerate(users):
        label = 'account %d' % (index + 1)
        if not isinstance(user, Mapping):
            errors.append('%s: must be a dictionary' % label)
            continue
        name = user.get('name')
        if not isinstance(name, str) or not ACCOUNT_NAME.match(name):
            errors.append("%s: name must be letters, digits, '.', '_', '@' or '-' (got %r)" % (label, name))
        else:
            label = 'account %s' % name
        state = user.get('state') or 'present'
        if state not in ('present', 'absent'):
            errors.append('%s: state must be present or absent' % label)
        if state == 'present' and not user.get('password'):
            errors.append('%s: a password is required unless the state is absent' % label)
        mechanism = user.get('mechanism') or default_mechanism
        if mechanism not in MECHANISMS:
            errors.append('%s: mechanism must be one of %s' % (label, ', '.join(MECHANISMS)))
        iterations = user.get('iterations')
        if iterations is not None and (as_int(iterations) or 0) < MIN_ITERATIONS:
            errors.append('%s: iterations must be at least %d (Kafka refuses fewer)' % (label, MIN_ITERATIONS))
        key = (str(name), str(mechanism))
        if key in seen:
            errors.append('%s: %s is declared twice (accounts %d and %d)' % (label, mechanism, seen[key], index + 1))
        seen.setdefault(key, index + 1)
    return errors


def resolve_accounts(users: List[Mapping[str, Any]], default_mechanism: str, default_iterations: int) -> List[ScramAccount]:
    """Accounts with defaults filled in (input already checked by account_errors)."""
    return [ScramAccount(name=user['name'], mechanism=user.get('mechanism') or default_mechanism,
                         iterations=int(user.get('iterations') or default_iterations), password=user.get('password'),
                         present=(user.get('state') or 'present') == 'present')
            for user in users]


@dataclass(frozen=True)
class ScramPlan:
    """What to do with each account."""

    to_set: Tuple[ScramAccount, ...]
    to_delete: Tuple[ScramAccount, ...]
    # Fingerprints of deleted accounts (or accounts gone from the cluster) to forget.
    to_forget: Tuple[ScramAccount, ...]


def plan_scram(accounts: List[ScramAccount], listed: Mapping[str, Mapping[str, int]], salt: Optional[str],
               markers: Mapping[str, str]) -> ScramPlan:
    """Set an account that lacks the mechanism, whose iterations differ, or whose fingerprint does
    not match the one recorded (no salt yet means nothing was recorded); delete an absent one the
    cluster still has."""
    to_set: List[ScramAccount] = []
    to_delete: List[ScramAccount] = []
    to_forget: List[ScramAccount] = []
    for account in accounts:
        iterations = listed.get(account.name, {}).get(account.mechanism)
        if account.present:
            recorded = markers.get(account.marker)
            if iterations != account.iterations or salt is None or recorded != account.fingerprint(salt):
                to_set.append(account)
        else:
            if iterations is not None:
                to_delete.append(account)
            if account.marker in markers:
                to_forget.append(account)
    return ScramPlan(tuple(to_set), tuple(to_delete), tuple(to_forget))


# ---- files in the state directory ----------------------------------------------------------------

def read_text(path: str) -> Optional[str]:
    try:
        with open(path, encoding='utf-8') as handle:
            return handle.read().strip()
    except FileNotFoundError:
        return None


class StateDir:
    """The root-only directory with the salt and one fingerprint per account and mechanism."""

    def __init__(self, path: str) -> None:
        self.path = path

    def file(self, name: str) -> str:
        return os.path.join(self.path, name)

    def read_salt(self) -> Optional[str]:
        return read_text(self.file(SALT_FILE)) or None

    def ensure_salt(self) -> str:
        """The salt, created once (random letters and digits)."""
        salt = self.read_salt()
        if salt is None:
            os.makedirs(self.path, mode=0o700, exist_ok=True)
            alphabet = string.ascii_letters + string.digits
            salt = ''.join(secrets.choice(alphabet) for dummy in range(SALT_LENGTH))
            write_private_file(self.file(SALT_FILE), salt)
        return salt

    def read_markers(self, accounts: List[ScramAccount]) -> Dict[str, str]:
        markers: Dict[str, str] = {}
        for account in accounts:
            content = read_text(self.file(account.marker))
            if content is not None:
                markers[account.marker] = content
        return markers

    def record(self, account: ScramAccount, salt: str) -> None:
        write_private_file(self.file(account.marker), account.fingerprint(salt))

    def forget(self, account: ScramAccount) -> None:
        try:
            os.unlink(self.file(account.marker))
        except FileNotFoundError:
            pass

    def write_credential(self, account: ScramAccount) -> str:
        """The credential as ConfigCommand reads it (--add-config-file), root-only; returns its path."""
        path = self.file('%s.add-config' % account.name)
        value = 'iterations=%d,password=%s' % (account.iterations, account.password or '')
        write_private_file(path, '%s=%s\n' % (account.mechanism, escape_value(value)))
        return path


def describe_accounts(listed: Mapping[str, Mapping[str, int]], touched: Iterable[Tuple[str, str]] = ()) -> str:
    """One line per account and mechanism, the touched ones marked: the text of a diff (no secret in it)."""
    marked = set(touched)
    return ''.join('%s %s iterations=%d%s\n' % (name, mechanism, iterations,
                                                ' (credential set)' if (name, mechanism) in marked else '')
                   for name in sorted(listed) for mechanism, iterations in sorted(listed[name].items()))
