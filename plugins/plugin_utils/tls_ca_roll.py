# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The lab CA's roll, decided on the controller (role kafka_tls, filter ``tls_ca_roll``).

A CA roll moves every host from the current CA (``ca/``) to a new one (``ca-next/``) without
a moment where two hosts distrust each other:

- ``add``: the new CA is created; every host trusts both (its ``ca.pem`` bundle holds the
  two certificates); host certificates still come from the current CA.
- ``switch``: every host certificate is re-issued by the new CA; both are still trusted.
- ``retire``: once every staged host certificate comes from the new CA, it becomes the
  current one (``ca-next/`` moves to ``ca/``, the old CA to ``ca-retired-<time>/``) and the
  bundles hold it alone.
- ``none``: no roll step; while a new CA exists the bundles keep both, and a host stays with
  the CA that signed its certificate, so a routine run in the middle of a roll undoes nothing.

Certificates are matched to CAs by key identifier (the host certificate's authority key
identifier against each CA's subject key identifier), never by name.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence

PHASES = ('none', 'add', 'switch', 'retire')
CURRENT = 'current'
NEXT = 'next'
_GENERATION = re.compile(r'^(?P<base>.*) G(?P<number>\d+)$')


@dataclass(frozen=True)
class RollPlan:
    """What the CA step of this run does, once for the play."""
    create_next: bool
    promote: bool
    # CAs every host trusts after this run, in bundle order ('current', 'next').
    trust: List[str]
    errors: List[str] = field(default_factory=list)

    def as_dict(self) -> Dict[str, object]:
        return {'create_next': self.create_next, 'promote': self.promote, 'trust': list(self.trust),
                'errors': list(self.errors)}


def _key_id(value: Optional[str]) -> str:
    """Key identifiers as x509_certificate_info prints them (hex pairs with colons), compared loosely."""
    return (value or '').replace(':', '').lower()


def plan_roll(phase: str, next_exists: bool, next_key_id: Optional[str],
              host_key_ids: Optional[Mapping[str, Optional[str]]] = None) -> RollPlan:
    """The CA step for `phase`. `host_key_ids` maps every host staged on the controller to the
    authority key identifier of its certificate: needed by `retire`, which refuses while a host
    still presents a certificate of the CA that is about to lose trust."""
    if phase not in PHASES:
        return RollPlan(False, False, [CURRENT], ['kafka_tls_ca_roll must be one of %s, got %r' % (', '.join(PHASES), phase)])
    if phase == 'switch' and not next_exists:
        return RollPlan(False, False, [CURRENT], [
            'kafka_tls_ca_roll=switch needs a new CA: run with kafka_tls_ca_roll=add first, so that every host '
            'trusts it before any host presents a certificate it issued'])
    if phase == 'retire' and next_exists:
        behind = sorted(host for host, key_id in (host_key_ids or {}).items()
                        if _key_id(key_id) != _key_id(next_key_id))
        if behind:
            return RollPlan(False, False, [CURRENT, NEXT], [
                'kafka_tls_ca_roll=retire would leave %s with a certificate of the retired CA; run '
                'kafka_tls_ca_roll=switch on every host first (or remove the staged directories of hosts '
                'that are gone)' % ', '.join(behind)])
        return RollPlan(False, True, [CURRENT])
    if phase == 'retire':  # nothing left to retire: a rerun after the promotion
        return RollPlan(False, False, [CURRENT])
    create = phase == 'add' and not next_exists
    return RollPlan(create, False, [CURRENT, NEXT] if (next_exists or create) else [CURRENT])


def staged_key_ids(results: Sequence[Mapping[str, Any]]) -> Dict[str, Optional[str]]:
    """Host name -> authority key identifier, from x509_certificate_info run over each staged
    ``hosts/<host>/cert.pem`` (a loop's results); a certificate it could not read maps to None."""
    found: Dict[str, Optional[str]] = {}
    for result in results:
        path = str((result.get('item') or {}).get('path') or '')
        if path:
            found[posixpath.basename(posixpath.dirname(path))] = result.get('authority_key_identifier')
    return found


def host_issuer(phase: str, plan: Mapping[str, object], host_key_id: Optional[str],
                next_key_id: Optional[str]) -> str:
    """Which CA signs this host's certificate in this run: the new one on `switch`, and later
    on for a host it already signed while the roll is under way; otherwise the current CA."""
    if NEXT not in list(plan.get('trust') or []) or plan.get('promote'):
        return CURRENT
    if phase == 'switch':
        return NEXT
    if next_key_id and _key_id(host_key_id) == _key_id(next_key_id):
        return NEXT
    return CURRENT


def ca_key_ids(plan: Mapping[str, object], current_info: Mapping[str, Any], next_info: Mapping[str, Any],
               created_info: Optional[Mapping[str, Any]] = None) -> Dict[str, Optional[str]]:
    """The subject key identifiers of the CAs this run uses, from x509_certificate_info's results
    read before the step (`current_info`, `next_info`) and of a CA the step created: after a
    promotion the new CA is the current one and there is no next."""
    if plan.get('promote'):
        return {CURRENT: next_info.get('subject_key_identifier'), NEXT: None}
    source = (created_info or {}) if plan.get('create_next') else next_info
    return {CURRENT: current_info.get('subject_key_identifier'), NEXT: source.get('subject_key_identifier')}


def next_common_name(current_common_name: Optional[str], base_common_name: str) -> str:
    """A distinct subject for the new CA ('<base> G<n+1>'): peers pick trust anchors by subject
    first, so two CAs of one name in a bundle would confuse some of them."""
    match = _GENERATION.match(current_common_name or '')
    if match:
        return '%s G%d' % (match.group('base'), int(match.group('number')) + 1)
    return '%s G2' % (current_common_name or base_common_name)
