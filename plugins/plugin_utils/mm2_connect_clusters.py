# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Kafka Connect clusters that run a plan's flows, and whether each is highly available.

A flow runs on the hosts of its connect_cluster inventory group, else on the hosts of the play
(the workers whose REST URLs role mirrormaker deploys through). A Connect cluster of one worker
replicates nothing while that worker is down: the plan warns about it.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Mapping, Optional, Sequence

# What a play's host pattern may hold for unlimited_play_hosts to resolve it: names joined by ':' or ','.
PLAIN_NAMES = re.compile(r'^[\w.-]+(?:\s*[:,]\s*[\w.-]+)*$')


def unlimited_play_hosts(patterns: Sequence[str], groups: Mapping[str, Sequence[str]]) -> Optional[List[str]]:
    """The hosts of a play's host patterns as the inventory holds them, before --limit: a run limited
    to a worker new to its Connect cluster still counts the workers it joins. Only for patterns of
    group and host names joined by ':' or ','; None for anything else (exclusions, intersections,
    wildcards), and the caller keeps the play's own hosts."""
    known_hosts = {str(host) for members in groups.values() for host in members}
    hosts: List[str] = []
    for pattern in patterns:
        if not PLAIN_NAMES.match(pattern.strip()):
            return None
        for name in re.split(r'\s*[:,]\s*', pattern.strip()):
            if name in groups:
                members = [str(host) for host in groups[name]]
            elif name in known_hosts:
                members = [name]
            else:
                return None
            hosts.extend(host for host in members if host not in hosts)
    return hosts


def running_workers(hosts: Sequence[str], worker_states: Mapping[str, Any]) -> List[str]:
    """The hosts without the drained workers (connect_worker_state absent)."""
    return [host for host in hosts if str(worker_states.get(host) or 'present') != 'absent']


def connect_clusters_of(flows: Sequence[Mapping[str, Any]], groups: Mapping[str, Any],
                        play_hosts: Optional[Sequence[str]]) -> List[Dict[str, Any]]:
    """Each Connect cluster of the flows: name (the connect_cluster group, None for the play's hosts),
    workers (None when the play's hosts are not known) and the names of its flows."""
    clusters: Dict[str, Dict[str, Any]] = {}
    for flow in flows:
        group = flow.get('connect_cluster')
        hosts = groups.get(group) if group else play_hosts
        entry = clusters.setdefault(str(group or ''), {
            'name': group or None,
            'workers': None if hosts is None else sorted({str(host) for host in hosts}),
            'flows': [],
        })
        entry['flows'].append(str(flow['name']))
    return [clusters[key] for key in sorted(clusters)]


def single_worker_warnings(clusters: Sequence[Mapping[str, Any]]) -> List[str]:
    """One warning per Connect cluster of exactly one worker."""
    warnings = []
    for cluster in clusters:
        workers = cluster.get('workers')
        if workers is None or len(workers) != 1:
            continue
        flows = cluster['flows']
        warnings.append('Connect cluster %s has one worker, %s: it is not highly available; while that worker is down, '
                        'flow%s %s replicate%s nothing. Give it a second worker.'
                        % ('of the play\'s hosts' if cluster['name'] is None else cluster['name'], workers[0],
                           '' if len(flows) == 1 else 's', ', '.join(flows), 's' if len(flows) == 1 else ''))
    return warnings
