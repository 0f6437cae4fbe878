# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""ACL bindings: the inventory's format, AclCommand's listing, the diff and the commands that apply it.

A binding here is what Kafka stores: one resource pattern, principal, host, operation and
permission. The inventory's entries carry several operations each and expand to one binding
per operation. Values use Kafka's enum spelling (TOPIC, PREFIXED, DESCRIBE_CONFIGS, ALLOW),
so bindings from the inventory and from the listing compare as they are.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import Any, Dict, FrozenSet, Iterable, List, Mapping, Optional, Set, Tuple

from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_tool import write_private_file

# Resource types: the inventory's name -> Kafka's enum and AclCommand's option.
RESOURCE_TYPES: Dict[str, Tuple[str, str]] = {
    'topic': ('TOPIC', '--topic'),
    'group': ('GROUP', '--group'),
    'cluster': ('CLUSTER', '--cluster'),
    'transactional_id': ('TRANSACTIONAL_ID', '--transactional-id'),
    'delegation_token': ('DELEGATION_TOKEN', '--delegation-token'),
    'user': ('USER', '--user-principal'),
}
CLUSTER_NAME = 'kafka-cluster'
# Operations as AclCommand takes them; the listing spells them DESCRIBE_CONFIGS etc.
OPERATIONS = ('All', 'Read', 'Write', 'Create', 'Delete', 'Alter', 'Describe', 'ClusterAction', 'DescribeConfigs',
              'AlterConfigs', 'IdempotentWrite', 'CreateTokens', 'DescribeTokens', 'TwoPhaseCommit')
# What each resource type accepts besides All (the union over Kafka 3.x and 4.x; the broker has the last word).
SUPPORTED_OPERATIONS: Dict[str, FrozenSet[str]] = {
    'TOPIC': frozenset(('READ', 'WRITE', 'CREATE', 'DESCRIBE', 'DELETE', 'ALTER', 'DESCRIBE_CONFIGS', 'ALTER_CONFIGS')),
    'GROUP': frozenset(('READ', 'DESCRIBE', 'DELETE', 'DESCRIBE_CONFIGS', 'ALTER_CONFIGS')),
    'CLUSTER': frozenset(('CREATE', 'CLUSTER_ACTION', 'DESCRIBE_CONFIGS', 'ALTER_CONFIGS', 'IDEMPOTENT_WRITE', 'ALTER',
                          'DESCRIBE')),
    'TRANSACTIONAL_ID': frozenset(('DESCRIBE', 'WRITE', 'TWO_PHASE_COMMIT')),
    'DELEGATION_TOKEN': frozenset(('DESCRIBE',)),
    'USER': frozenset(('CREATE_TOKENS', 'DESCRIBE_TOKENS')),
}
PATTERN_TYPES = ('literal', 'prefixed')
PERMISSIONS = ('allow', 'deny')
PRINCIPAL = re.compile(r'^[A-Za-z][A-Za-z0-9_]*:.+$')
RECORD_FORMAT = 1

# AclCommand --list (Kafka 3.x and 4.x): a header per resource pattern, then one entry per line.
# 3.x pads both with spaces; names may hold ", " (group names), so the fixed tail anchors the match.
RESOURCE_LINE = re.compile(
    r'^Current ACLs for resource `ResourcePattern\(resourceType=(?P<type>[A-Z_]+), name=(?P<name>.*), '
    r'patternType=(?P<pattern>[A-Z_]+)\)`:\s*$')
ENTRY_LINE = re.compile(
    r'^\(principal=(?P<principal>.*), host=(?P<host>.*), operation=(?P<operation>[A-Z_]+), '
    r'permissionType=(?P<permission>[A-Z]+)\)$')


def listing_operation(operation: str) -> str:
    """'DescribeConfigs' -> 'DESCRIBE_CONFIGS'."""
    return re.sub(r'(?<=[a-z])(?=[A-Z])', '_', operation).upper()


def command_operation(operation: str) -> str:
    """'DESCRIBE_CONFIGS' -> 'DescribeConfigs' (AclCommand's --operation spelling)."""
    return ''.join(word.capitalize() for word in operation.split('_'))


OPERATION_BY_KEY = {listing_operation(name).replace('_', ''): listing_operation(name) for name in OPERATIONS}


@dataclass(frozen=True, order=True)
class AclBinding:
    """One binding as Kafka stores it."""

    resource_type: str
    name: str
    pattern_type: str
    principal: str
    host: str
    operation: str
    permission: str

    def as_dict(self) -> Dict[str, str]:
        """The inventory's spelling (resource_type topic, operation DescribeConfigs, permission allow)."""
        return {
            'principal': self.principal,
            'resource_type': self.resource_type.lower(),
            'name': self.name,
            'pattern_type': self.pattern_type.lower(),
            'operation': command_operation(self.operation),
            'permission': self.permission.lower(),
            'host': self.host,
        }

    def describe(self) -> str:
        return '%s %s %s on %s:%s:%s from %s' % (
            self.principal, self.permission, self.operation, self.resource_type, self.pattern_type, self.name, self.host)

    @classmethod
    def from_dict(cls, item: Mapping[str, Any]) -> 'AclBinding':
        """A binding from its inventory spelling (the state record's format)."""
        return cls(
            resource_type=str(item['resource_type']).upper(),
            name=str(item['name']),
            pattern_type=str(item['pattern_type']).upper(),
            principal=str(item['principal']),
            host=str(item['host']),
            operation=listing_operation(str(item['operation'])),
            permission=str(item['permission']).upper(),
        )


class AclListingError(ValueError):
    """A listing line that looks like an ACL but cannot be read: acting on a partial listing is unsafe."""


def parse_acl_listing(text: str) -> Set[AclBinding]:
    """Every binding of an AclCommand --list output. Lines that are neither headers nor entries (log
    lines, the blank separators) are skipped; an entry line that does not parse is an error."""
    bindings: Set[AclBinding] = set()
    resource: Optional[Tuple[str, str, str]] = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        header = RESOURCE_LINE.match(line)
        if header:
            resource = (header.group('type'), header.group('name'), header.group('pattern'))
            continue
        if not line.startswith('(principal='):
            if 'Current ACLs for resource' in line:
                raise AclListingError('line %d of the ACL listing has an unknown resource format: %s' % (number, line))
            continue
        entry = ENTRY_LINE.match(line)
        if entry is None or resource is None:
            raise AclListingError('line %d of the ACL listing cannot be read: %s' % (number, line))
        bindings.add(AclBinding(resource[0], resource[1], resource[2], entry.group('principal'), entry.group('host'),
                                entry.group('operation'), entry.group('permission')))
    return bindings


# ---- the inventory's entries -------------------------------------------------------------------

def _operation_of(value: Any) -> Optional[str]:
    """Kafka's spelling of an operation given as AclCommand spells it ('DescribeConfigs'; case and
    underscores are forgiven), or None when there is no such operation."""
    key = re.sub(r'[_\s-]', '', str(value)).upper()
    return OPERATION_BY_KEY.get(key)


def entry_label(index: int, entry: Mapping[str, Any]) -> str:
    name = CLUSTER_NAME if entry.get('resource_type') == 'cluster' else entry.get('name', '?')
    return 'binding %d (%s %s:%s)' % (index + 1, entry.get('principal', '?'), entry.get('resource_type', '?'), name)


def entry_errors(index: int, entry: Mapping[str, Any]) -> List[str]:
    """Everything wrong with one inventory entry, one message per broken rule."""
    label = entry_label(index, entry)
    errors: List[str] = []
    principal = entry.get('principal')
    if not isinstance(principal, str) or not PRINCIPAL.match(principal.strip()):
        errors.append('%s: principal must be Type:name, for example User:mm2 (got %r)' % (label, principal))
    resource_type = entry.get('resource_type')
    if resource_type not in RESOURCE_TYPES:
        errors.append('%s: resource_type must be one of %s' % (label, ', '.join(RESOURCE_TYPES)))
    pattern_type = entry.get('pattern_type') or 'literal'
    if pattern_type not in PATTERN_TYPES:
        errors.append('%s: pattern_type must be literal or prefixed' % label)
    name = entry.get('name')
    if resource_type == 'cluster':
        if name not in (None, ''):
            errors.append('%s: a cluster binding takes no name (the cluster is one resource)' % label)
        if pattern_type != 'literal':
            errors.append('%s: a cluster binding is literal; prefixed patterns apply to named resources' % label)
    elif resource_type in RESOURCE_TYPES and (not isinstance(name, str) or not name.strip()):
        errors.append('%s: name is required for a %s binding (* for all)' % (label, resource_type))
    if (entry.get('permission') or 'allow') not in PERMISSIONS:
        errors.append('%s: permission must be allow or deny' % label)
    if (entry.get('state') or 'present') not in ('present', 'absent'):
        errors.append('%s: state must be present or absent' % label)
    host = entry.get('host')
    if host is not None and (not isinstance(host, str) or not host.strip()):
        errors.append('%s: host must be a host name or address, or * for any' % label)
    operations = entry.get('operations')
    if not isinstance(operations, list) or not operations:
        errors.append('%s: operations must list at least one of %s' % (label, ', '.join(OPERATIONS)))
        return errors
    unknown = [str(operation) for operation in operations if _operation_of(operation) is None]
    if unknown:
        errors.append('%s: unknown operation %s; operations are %s' % (label, ', '.join(unknown), ', '.join(OPERATIONS)))
    elif resource_type in RESOURCE_TYPES:
        kafka_type = RESOURCE_TYPES[resource_type][0]
        unsupported = [str(op) for op in operations if _operation_of(op) not in SUPPORTED_OPERATIONS[kafka_type] | {'ALL'}]
        if unsupported:
            allowed = ['All'] + sorted(command_operation(op) for op in SUPPORTED_OPERATIONS[kafka_type])
            errors.append('%s: a %s binding cannot grant %s; it takes %s'
                          % (label, resource_type, ', '.join(unsupported), ', '.join(allowed)))
    return errors


def expand_entry(entry: Mapping[str, Any]) -> Set[AclBinding]:
    """The bindings of one valid inventory entry, one per operation."""
    resource_type = RESOURCE_TYPES[entry['resource_type']][0]
    name = CLUSTER_NAME if resource_type == 'CLUSTER' else entry['name'].strip()
    return {AclBinding(resource_type, name, (entry.get('pattern_type') or 'literal').upper(), entry['principal'].strip(),
                       (entry.get('host') or '*').strip(), str(_operation_of(operation)),
                       (entry.get('permission') or 'allow').upper())
            for operation in entry['operations']}


@dataclass(frozen=True)
class DesiredBindings:
    present: FrozenSet[AclBinding]
    absent: FrozenSet[AclBinding]


def desired_bindings(entries: Iterable[Mapping[str, Any]]) -> Tuple[DesiredBindings, List[str]]:
    """Expanded bindings of the inventory's entries and every input error (the bindings are
    meaningless when there are errors). A binding both present and absent is an error."""
    errors: List[str] = []
    present: Set[AclBinding] = set()
    absent: Set[AclBinding] = set()
    for index, entry in enumerate(entries):
        if not isinstance(entry, Mapping):
            errors.append('binding %d: must be a dictionary' % (index + 1))
            continue
        found = entry_errors(index, entry)
        if found:
            errors += found
            continue
        (absent if entry.get('state') == 'absent' else present).update(expand_entry(entry))
    for binding in sorted(present & absent):
        errors.append('%s is declared both present and absent' % binding.describe())
    return DesiredBindings(frozenset(present), frozenset(absent)), errors


def binding_input_errors(entries: Any) -> List[str]:
    """Input errors of a list of inventory entries (for the role's checks and the module)."""
    if not isinstance(entries, list):
        return ['bindings must be a list']
    return desired_bindings(entries)[1]


def prune_scope_errors(principals: Any) -> List[str]:
    if not isinstance(principals, list):
        return ['prune scope must be a list of principals']
    return ['prune scope: %r is not a principal (Type:name, for example User:mm2)' % principal
            for principal in principals if not isinstance(principal, str) or not PRINCIPAL.match(principal.strip())]


# ---- the diff ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class AclPlan:
    """What to change so the cluster matches the inventory."""

    to_add: FrozenSet[AclBinding]
    to_remove: FrozenSet[AclBinding]
    # The part of to_remove that only prune asked for (not declared absent).
    pruned: FrozenSet[AclBinding]

    @property
    def changes(self) -> bool:
        return bool(self.to_add or self.to_remove)


def plan_acls(current: Set[AclBinding], desired: DesiredBindings, recorded: Set[AclBinding], prune: bool,
              prune_scope: Iterable[str] = ()) -> AclPlan:
    """Add what is declared present and missing; remove what is declared absent and exists; with
    prune, also remove bindings the collection owns and no longer declares: the recorded ones, and
    every binding of a principal in prune_scope."""
    to_add = desired.present - current
    declared_absent = desired.absent & current
    pruned: Set[AclBinding] = set()
    if prune:
        scope = {principal.strip() for principal in prune_scope}
        owned = set(recorded) | {binding for binding in current if binding.principal in scope}
        pruned = (owned & current) - desired.present - declared_absent
    return AclPlan(frozenset(to_add), frozenset(declared_absent | pruned), frozenset(pruned))


def after_plan(current: Set[AclBinding], added: Iterable[AclBinding], removed: Iterable[AclBinding]) -> Set[AclBinding]:
    return (set(current) | set(added)) - set(removed)


def next_record(recorded: Set[AclBinding], desired: DesiredBindings, after: Set[AclBinding]) -> Set[AclBinding]:
    """The collection owns what it recorded before and what it declares present, as long as it exists."""
    return (set(recorded) | set(desired.present)) & after


# ---- applying: as few AclCommand runs as the bindings allow --------------------------------------

@dataclass(frozen=True, order=True)
class AclChange:
    """One AclCommand run: every operation on every resource, for every principal, on one host and
    permission.

    AclCommand applies the product of its resources, principals, hosts and operations, so only
    resources that need the very same operations share a run, and only principals that need the very
    same operations on the very same resources."""

    pattern_type: str
    principals: Tuple[str, ...]
    host: str
    permission: str
    operations: Tuple[str, ...]
    resources: Tuple[Tuple[str, str], ...]

    def arguments(self, add: bool) -> List[str]:
        side = self.permission.lower()
        args = ['--add'] if add else ['--remove', '--force']
        for principal in self.principals:
            args += ['--%s-principal' % side, principal]
        args += ['--%s-host' % side, self.host]
        for resource_type, name in self.resources:
            option = next(flag for kind, flag in RESOURCE_TYPES.values() if kind == resource_type)
            args += [option] if resource_type == 'CLUSTER' else [option, name]
        args += ['--resource-pattern-type', self.pattern_type.lower()]
        args += ['--operation=%s' % command_operation(operation) for operation in self.operations]
        return args

    def bindings(self) -> Set[AclBinding]:
        return {AclBinding(resource_type, name, self.pattern_type, principal, self.host, operation, self.permission)
                for principal in self.principals for resource_type, name in self.resources
                for operation in self.operations}


def group_changes(bindings: Iterable[AclBinding]) -> List[AclChange]:
    """Bindings grouped into AclCommand runs, each a JVM: operations per resource first, then
    resources that need the same operations for the same principal, host, permission and pattern
    type, then principals whose runs are otherwise the same (a group that several accounts read)."""
    per_resource: Dict[Tuple[str, str, str, str, str, str], Set[str]] = {}
    for binding in bindings:
        key = (binding.pattern_type, binding.principal, binding.host, binding.permission, binding.resource_type,
               binding.name)
        per_resource.setdefault(key, set()).add(binding.operation)
    per_principal: Dict[Tuple[str, str, str, str, Tuple[str, ...]], List[Tuple[str, str]]] = {}
    for (pattern_type, principal, host, permission, resource_type, name), operations in per_resource.items():
        per_principal.setdefault((pattern_type, principal, host, permission, tuple(sorted(operations))), []).append(
            (resource_type, name))
    runs: Dict[Tuple[str, str, str, Tuple[str, ...], Tuple[Tuple[str, str], ...]], List[str]] = {}
    for (pattern_type, principal, host, permission, operations), resources in per_principal.items():
        runs.setdefault((pattern_type, host, permission, operations, tuple(sorted(resources))), []).append(principal)
    return sorted(AclChange(pattern_type, tuple(sorted(principals)), host, permission, operations, resources)
                  for (pattern_type, host, permission, operations, resources), principals in runs.items())


# ---- the state record: bindings the collection owns ----------------------------------------------

class AclRecordError(ValueError):
    """A state record that cannot be read: prune must not guess which bindings are owned."""


def read_record(path: Optional[str]) -> Set[AclBinding]:
    """The recorded bindings; none when there is no path or no file yet."""
    if not path or not os.path.exists(path):
        return set()
    try:
        with open(path, encoding='utf-8') as handle:
            document = json.load(handle)
        if not isinstance(document, dict) or document.get('format') != RECORD_FORMAT:
            raise ValueError('unknown format %r' % (document.get('format') if isinstance(document, dict) else None))
        return {AclBinding.from_dict(item) for item in document.get('bindings', [])}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise AclRecordError('cannot read the ACL state record %s (%s); fix or remove it. Removing it makes the '
                             'collection forget which bindings it created, so prune leaves them alone.'
                             % (path, exc)) from exc


def record_document(bindings: Set[AclBinding]) -> str:
    return json.dumps({'format': RECORD_FORMAT, 'bindings': [binding.as_dict() for binding in sorted(bindings)]},
                      indent=2, sort_keys=True) + '\n'


def write_record(path: str, bindings: Set[AclBinding]) -> None:
    """Replace the record atomically, root-only (0600 in a 0700 directory)."""
    os.makedirs(os.path.dirname(path) or '.', mode=0o700, exist_ok=True)
    write_private_file(path, record_document(bindings))


def describe_all(bindings: Iterable[AclBinding]) -> str:
    """One line per binding, sorted by principal: the text of a diff."""
    return ''.join(sorted(binding.describe() + '\n' for binding in bindings))


# ---- what the bindings allow: the authorizer's rules ---------------------------------------------

WILDCARD = '*'
# An ALLOW of one of these operations allows DESCRIBE of the resource too; ALTER_CONFIGS allows
# DESCRIBE_CONFIGS (the rule of Kafka's AclAuthorizer and StandardAuthorizer).
IMPLIES_DESCRIBE = frozenset(('READ', 'WRITE', 'DELETE', 'ALTER'))
IMPLIES_DESCRIBE_CONFIGS = frozenset(('ALTER_CONFIGS',))


@dataclass(frozen=True, order=True)
class AclNeed:
    """One operation a client needs: on a resource (a name, or every name under a prefix with PREFIXED),
    from a host (* when it is not known)."""

    principal: str
    resource_type: str
    name: str
    operation: str
    pattern_type: str = 'LITERAL'
    host: str = WILDCARD

    def binding(self) -> AclBinding:
        """The ALLOW binding that grants exactly this need."""
        return AclBinding(self.resource_type, self.name, self.pattern_type, self.principal, self.host, self.operation,
                          'ALLOW')


def _principal_matches(binding: AclBinding, principal: str) -> bool:
    kind = principal.split(':', 1)[0]
    return binding.principal in (principal, '%s:%s' % (kind, WILDCARD))


def _host_matches(binding: AclBinding, host: str) -> bool:
    return binding.host in (WILDCARD, host)


def _covers(binding: AclBinding, need: AclNeed) -> bool:
    """The binding's pattern applies to every name the need names."""
    if binding.resource_type != need.resource_type:
        return False
    if binding.pattern_type == 'LITERAL':
        return binding.name == WILDCARD or (need.pattern_type == 'LITERAL' and binding.name == need.name)
    if binding.pattern_type == 'PREFIXED':
        return need.name.startswith(binding.name)
    return False


def _overlaps(binding: AclBinding, need: AclNeed) -> bool:
    """The binding's pattern applies to at least one name the need names (what a DENY must not do)."""
    if _covers(binding, need):
        return True
    if binding.resource_type != need.resource_type or need.pattern_type != 'PREFIXED':
        return False
    return binding.name.startswith(need.name)


def _grants(binding: AclBinding, operation: str) -> bool:
    return (binding.operation in ('ALL', operation)
            or (operation == 'DESCRIBE' and binding.operation in IMPLIES_DESCRIBE)
            or (operation == 'DESCRIBE_CONFIGS' and binding.operation in IMPLIES_DESCRIBE_CONFIGS))


def allowed(bindings: Iterable[AclBinding], need: AclNeed) -> bool:
    """Whether the bindings allow the need: an ALLOW applies (its operation, ALL, or an operation that
    implies DESCRIBE) and no DENY of that operation or ALL does. Super users and
    allow.everyone.if.no.acl.found are broker settings this cannot see: it answers as if neither applied."""
    applicable = [binding for binding in bindings
                  if _principal_matches(binding, need.principal) and _host_matches(binding, need.host)]
    if any(binding.permission == 'DENY' and binding.operation in ('ALL', need.operation) and _overlaps(binding, need)
           for binding in applicable):
        return False
    return any(binding.permission == 'ALLOW' and _grants(binding, need.operation) and _covers(binding, need)
               for binding in applicable)


def granting(bindings: Iterable[AclBinding], principal: str, resource_type: str, name: str, operation: str) -> List[AclBinding]:
    """The ALLOW bindings of the principal that grant the operation on the named resource (any host)."""
    need = AclNeed(principal, resource_type, name, operation)
    return sorted(binding for binding in bindings
                  if binding.permission == 'ALLOW' and _principal_matches(binding, principal)
                  and _grants(binding, operation) and _covers(binding, need))
