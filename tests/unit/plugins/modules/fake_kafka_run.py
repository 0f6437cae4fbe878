# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A stand-in for kafka-run that answers AclCommand and ConfigCommand from a JSON file.

`kafka-run <main class> args...` is what the modules start; this script keeps a cluster's ACLs
and SCRAM credentials in the file named by its first argument, prints what the real tools
print (the 4.x listing format, or 3.x with "listing_format": 3), and logs every call with its
arguments, so tests can count JVMs and check that no password reached a command line.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from typing import Any, Dict, List, Optional, Tuple

ACL_CLASSES = ('org.apache.kafka.tools.AclCommand', 'kafka.admin.AclCommand')
CONFIG_CLASS = 'kafka.admin.ConfigCommand'
RESOURCE_OPTIONS = {'--topic': 'TOPIC', '--group': 'GROUP', '--transactional-id': 'TRANSACTIONAL_ID',
                    '--delegation-token': 'DELEGATION_TOKEN', '--user-principal': 'USER'}
VALUE_OPTIONS = set(RESOURCE_OPTIONS) | {'--bootstrap-server', '--command-config', '--allow-principal',
                                         '--deny-principal', '--allow-host', '--deny-host', '--resource-pattern-type',
                                         '--operation', '--entity-type', '--entity-name', '--add-config-file',
                                         '--delete-config', '--principal'}


def parse(args: List[str]) -> Tuple[Dict[str, List[str]], List[str]]:
    values: Dict[str, List[str]] = {}
    flags: List[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        if '=' in arg and arg.split('=', 1)[0] in VALUE_OPTIONS:
            key, value = arg.split('=', 1)
            values.setdefault(key, []).append(value)
        elif arg in VALUE_OPTIONS:
            index += 1
            values.setdefault(arg, []).append(args[index])
        else:
            flags.append(arg)
        index += 1
    return values, flags


def upper_operation(name: str) -> str:
    out = ''
    for index, char in enumerate(name):
        if char.isupper() and index and name[index - 1].islower():
            out += '_'
        out += char.upper()
    return out


def acl_command(state: Dict[str, Any], args: List[str]) -> int:
    values, flags = parse(args)
    failure = state.get('fail', {})
    action = next(flag for flag in ('--list', '--add', '--remove') if flag in flags)
    if failure.get('action') == action and failure.get('skip', 0) > 0:
        failure['skip'] -= 1
    elif failure.get('action') == action:
        sys.stdout.write(failure.get('stdout', ''))
        sys.stderr.write(failure.get('stderr', ''))
        return int(failure.get('rc', 1))
    acls = state.setdefault('acls', [])
    if action == '--list':
        print_listing(acls, state.get('listing_format', 4))
        return 0
    pattern = values.get('--resource-pattern-type', ['literal'])[0].upper()
    resources = [(kind, name) for option, kind in RESOURCE_OPTIONS.items() for name in values.get(option, [])]
    if '--cluster' in flags and pattern == 'LITERAL':
        resources.append(('CLUSTER', 'kafka-cluster'))
    if not resources:
        sys.stderr.write('You must provide at least one resource: --topic <topic> or --cluster or --group <group>\n')
        return 1
    entries = []
    for side in ('allow', 'deny'):
        for principal in values.get('--%s-principal' % side, []):
            for host in values.get('--%s-host' % side, ['*']):
                for operation in values.get('--operation', ['All']):
                    entries.append([principal, host, upper_operation(operation), side.upper()])
    for kind, name in resources:
        for principal, host, operation, permission in entries:
            binding = [kind, name, pattern, principal, host, operation, permission]
            if action == '--add' and binding not in acls:
                acls.append(binding)
            if action == '--remove' and binding in acls:
                acls.remove(binding)
        if action == '--add':
            sys.stdout.write('Adding ACLs for resource `ResourcePattern(resourceType=%s, name=%s, patternType=%s)`: \n'
                             % (kind, name, pattern))
    return 0


def print_listing(acls: List[List[str]], listing_format: int) -> None:
    resources: Dict[Tuple[str, str, str], List[List[str]]] = {}
    for binding in acls:
        resources.setdefault(tuple(binding[:3]), []).append(binding)  # type: ignore[arg-type]
    # 3.x pads the header and the entries with spaces, 4.x does not.
    pad = ' ' if listing_format == 3 else ''
    for (kind, name, pattern), bindings in resources.items():
        entries = ['\t(principal=%s, host=%s, operation=%s, permissionType=%s)' % tuple(b[3:]) for b in bindings]
        sys.stdout.write('Current ACLs for resource `ResourcePattern(resourceType=%s, name=%s, patternType=%s)`:%s\n'
                         % (kind, name, pattern, pad))
        sys.stdout.write(pad + ('\n'.join(entries)) + pad + '\n' + pad + '\n')


def read_properties(path: str) -> Dict[str, str]:
    """Enough of Java's properties format for the credential files the module writes."""
    result: Dict[str, str] = {}
    with open(path, encoding='utf-8') as handle:
        for line in handle.read().splitlines():
            if not line or line.startswith('#'):
                continue
            key, value = line.split('=', 1)
            result[key] = value.encode('latin-1', 'backslashreplace').decode('unicode_escape')
    return result


def config_command(state: Dict[str, Any], args: List[str]) -> int:
    values, flags = parse(args)
    failure = state.get('fail', {})
    action = '--describe' if '--describe' in flags else '--alter'
    if failure.get('action') == action:
        sys.stderr.write(failure.get('stderr', ''))
        return int(failure.get('rc', 1))
    scram: Dict[str, Dict[str, Dict[str, Any]]] = state.setdefault('scram', {})
    if action == '--describe':
        for name, mechanisms in scram.items():
            if mechanisms:
                described = ', '.join('%s=iterations=%d' % (mechanism, info['iterations'])
                                      for mechanism, info in sorted(mechanisms.items()))
                sys.stdout.write("SCRAM credential configs for user-principal '%s' are %s\n" % (name, described))
        return 0
    name = values['--entity-name'][0]
    for path in values.get('--add-config-file', []):
        state.setdefault('credential_file_modes', []).append(oct(stat.S_IMODE(os.stat(path).st_mode)))
        for mechanism, value in read_properties(path).items():
            iterations, password = value.split(',', 1)
            scram.setdefault(name, {})[mechanism] = {'iterations': int(iterations.split('=', 1)[1]),
                                                     'password': password.split('=', 1)[1]}
    for mechanism in values.get('--delete-config', []):
        scram.get(name, {}).pop(mechanism, None)
    sys.stdout.write('Completed updating config for user %s.\n' % name)
    return 0


def main(state_path: str, main_class: str, args: List[str]) -> int:
    with open(state_path, encoding='utf-8') as handle:
        state = json.load(handle)
    state.setdefault('calls', []).append([main_class] + args)
    code: Optional[int]
    if main_class in ACL_CLASSES and main_class == state.get('acl_class', ACL_CLASSES[0]):
        code = acl_command(state, args)
    elif main_class == CONFIG_CLASS:
        code = config_command(state, args)
    else:
        sys.stderr.write('Error: Could not find or load main class %s\n'
                         'Caused by: java.lang.ClassNotFoundException: %s\n' % (main_class, main_class))
        code = 1
    with open(state_path, 'w', encoding='utf-8') as handle:
        json.dump(state, handle)
    return code


if __name__ == '__main__':
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
