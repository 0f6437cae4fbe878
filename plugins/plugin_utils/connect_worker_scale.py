# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Connect workers that stay and workers that leave (connect_worker_state: present or absent).

Logic behind the filters connect_workers_present (the hosts that run a worker), connect_worker_drain (what a drain
of one worker does, and whether it may: the last worker of a Connect cluster is never drained),
connect_worker_assignments (the connectors and tasks the Connect cluster still gives to a worker) and
connect_rest_urls (the workers' REST URLs as role mirrormaker calls them, drained ones left out). Other hosts'
settings come from hostvars, which hold what the inventory sets and none of role connect_worker's defaults: the
caller passes those defaults. Errors are ValueError; the filters turn them into AnsibleFilterError.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Mapping

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.connect_workers import local_host, watchdog_worker_id
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.role_rules import NOTHING_CHANGED, jinja_text, require_settings

STATE_VAR = 'connect_worker_state'
STATES = ('present', 'absent')
# The settings of another worker a drain reads, each taken from defaults when its hostvars lack it.
PEER_SETTINGS = ('connect_worker_state', 'connect_worker_cluster_name', 'connect_worker_rest_scheme',
                 'connect_worker_rest_port', 'connect_worker_properties')
# The options of connect_worker_drain: this host, the hosts that may run a worker of its Connect cluster, its own
# settings (without connect_worker_), the role's defaults of PEER_SETTINGS, and the host's service state as
# tasks/host_state.yml read it with the unit names.
DRAIN_OPTIONS = ('host', 'hosts', 'group', 'cluster_name', 'rest_scheme', 'rest_port', 'rest_advertised_host',
                 'properties', 'peer_defaults', 'host_state', 'service', 'watchdog_service')
# systemctl is-active answers that need a stop; is-enabled answers that need a disable.
RUNNING_STATES = ('active', 'activating', 'reloading', 'deactivating', 'refreshing')
ENABLED_STATES = ('enabled', 'enabled-runtime')
# systemctl is-enabled prints nothing (older systemd) or not-found (newer) for a unit that is not installed.
NOT_INSTALLED = ('', 'not-found')


def _host_list(hosts: Any, what: str) -> List[str]:
    """The host names in order, each once; a single name or a mapping is refused."""
    if isinstance(hosts, (str, bytes, Mapping)) or not isinstance(hosts, Iterable):
        raise ValueError('%s expects a list of host names, got %s' % (what, type(hosts).__name__))
    ordered: List[str] = []
    for host in hosts:
        if str(host) not in ordered:
            ordered.append(str(host))
    return ordered


def _host_vars(hostvars: Any, host: str) -> Mapping[str, Any]:
    if not isinstance(hostvars, Mapping):
        raise ValueError('expected the play\'s hostvars, got %s' % type(hostvars).__name__)
    host_vars = hostvars.get(host) if host in hostvars else {}
    return host_vars if isinstance(host_vars, Mapping) else {}


def worker_state(host_vars: Mapping[str, Any], host: str, default: Any = 'present') -> str:
    """A host's connect_worker_state (present unless set), refused when it is neither present nor absent."""
    state = jinja_text(host_vars.get(STATE_VAR, default)).strip()
    if state not in STATES:
        raise ValueError("%s of %s must be present or absent, got '%s'" % (STATE_VAR, host, state))
    return state


def connect_workers_present(hosts: Any, hostvars: Any) -> List[str]:
    """The hosts, in order and once each, without those whose connect_worker_state is absent (drained workers)."""
    return [host for host in _host_list(hosts, 'connect_workers_present')
            if worker_state(_host_vars(hostvars, host), host) == 'present']


def worker_id(properties: Any, advertised_host: Any, port: Any) -> str:
    """Connect's worker_id as the watchdog knows its worker: the advertised REST host and port."""
    if not isinstance(properties, Mapping):
        raise ValueError('connect_worker_properties must be a mapping, got %s' % type(properties).__name__)
    return watchdog_worker_id(properties, advertised_host, port)


def _peer(host: str, host_vars: Mapping[str, Any], defaults: Mapping[str, Any]) -> Dict[str, Any]:
    """Another worker's settings: its hostvars, else the role's defaults; its advertised name, else its host name."""
    settings = {name: host_vars.get(name, defaults[name]) for name in PEER_SETTINGS}
    advertised = host_vars.get('connect_worker_rest_advertised_host') or host
    settings['worker_id'] = worker_id(settings['connect_worker_properties'], advertised, settings['connect_worker_rest_port'])
    settings['state'] = worker_state(host_vars, host, defaults['connect_worker_state'])
    return settings


def _unit_steps(host_state: Any, service: str, watchdog_service: str) -> Dict[str, bool]:
    """Which systemd calls the drain needs: only those that change something, none for a unit not installed."""
    if not isinstance(host_state, Mapping):
        raise ValueError('connect_worker_drain: host_state must be the mapping tasks/host_state.yml read, got %s'
                         % type(host_state).__name__)
    steps: Dict[str, bool] = {}
    for what, unit in (('worker', service), ('watchdog', watchdog_service)):
        missing = [key for key in ('active.' + unit, 'enabled.' + unit) if key not in host_state]
        if missing:
            raise ValueError('connect_worker_drain: the host state has no %s' % ', '.join(missing))
        enabled = jinja_text(host_state['enabled.' + unit]).strip()
        installed = enabled not in NOT_INSTALLED
        steps['%s_installed' % what] = installed
        steps['stop_%s' % what] = installed and jinja_text(host_state['active.' + unit]).strip() in RUNNING_STATES
        steps['disable_%s' % what] = installed and enabled in ENABLED_STATES
    return steps


def connect_worker_drain(drain: Mapping[str, Any], hostvars: Any) -> Dict[str, Any]:
    """What draining this host's worker does.

    The workers that remain are the other hosts of the group (and of the play) with the same Connect cluster name
    whose state is not absent; with none, errors holds the refusal. urls are their REST base URLs (scheme and
    port as each sets them, named by its advertised name, the name its certificate and the other workers know it
    by), worker_id is how the Connect cluster names this worker in its assignments, and the steps say which
    systemd calls change something.
    """
    require_settings(drain, DRAIN_OPTIONS, 'connect_worker_drain')
    defaults = drain['peer_defaults']
    require_settings(defaults, PEER_SETTINGS, 'connect_worker_drain peer_defaults')
    host = jinja_text(drain['host'])
    cluster = jinja_text(drain['cluster_name'])
    candidates = [name for name in _host_list(drain['hosts'], 'connect_worker_drain') if name != host]
    same_cluster = []
    for name in candidates:
        peer = _peer(name, _host_vars(hostvars, name), defaults)
        if jinja_text(peer['connect_worker_cluster_name']) == cluster:
            same_cluster.append((name, peer))
    remaining = [(name, peer) for name, peer in same_cluster if peer['state'] == 'present']
    errors: List[str] = []
    if not remaining:
        drained = [name for name, _peer_settings in same_cluster]
        others = ('the other workers of that cluster (%s) are drained too' % ', '.join(drained) if drained
                  else 'no other host of group %s has that connect_worker_cluster_name' % jinja_text(drain['group']))
        errors.append("connect_worker: %s is the last worker of Connect cluster '%s' (%s); draining it would stop "
                      'every connector and task of the cluster. Keep connect_worker_state present on one of its '
                      'workers, or add a worker first. %s' % (host, cluster, others, NOTHING_CHANGED))
    plan: Dict[str, Any] = {
        'cluster': cluster,
        'errors': errors,
        'remaining': [name for name, _peer_settings in remaining],
        'urls': ['%s://%s' % (jinja_text(peer['connect_worker_rest_scheme']).strip(), peer['worker_id'])
                 for _name, peer in remaining],
        'worker_id': worker_id(drain['properties'], drain['rest_advertised_host'], drain['rest_port']),
    }
    plan.update(_unit_steps(drain['host_state'], jinja_text(drain['service']), jinja_text(drain['watchdog_service'])))
    return plan


def connect_worker_assignments(connectors: Any, drained_worker_id: str) -> List[str]:
    """What the Connect cluster still gives to a worker: each connector and task whose status names its worker_id.

    connectors is what module connector_info returns (name -> {status: {connector: {worker_id}, tasks: [...]}});
    a status a worker wrote when it let go of its work (UNASSIGNED) still names that worker until another one
    takes the work over, so it counts.
    """
    if not isinstance(connectors, Mapping):
        raise ValueError('connect_worker_assignments expects the connectors of module connector_info (a mapping), got %s'
                         % type(connectors).__name__)
    wanted = jinja_text(drained_worker_id).strip()
    if not wanted:
        raise ValueError('connect_worker_assignments needs the worker_id of the drained worker')
    held: List[str] = []
    for name in sorted(connectors):
        described = connectors[name] if isinstance(connectors[name], Mapping) else {}
        status = described.get('status') if isinstance(described.get('status'), Mapping) else {}
        connector = status.get('connector') if isinstance(status.get('connector'), Mapping) else {}
        if jinja_text(connector.get('worker_id')).strip() == wanted:
            held.append('connector %s (%s)' % (name, jinja_text(connector.get('state'))))
        for task in status.get('tasks') or []:
            if isinstance(task, Mapping) and jinja_text(task.get('worker_id')).strip() == wanted:
                held.append('task %s-%s (%s)' % (name, jinja_text(task.get('id')), jinja_text(task.get('state'))))
    return held


def local_rest_host(hostvars: Any, host: str) -> str:
    """How a plain HTTP client on `host` reaches its worker: the address its listener binds, as role connect_worker
    defaults it (the host's ansible_host, else its name); loopback when it binds every address or without hostvars."""
    if hostvars is None:
        return '127.0.0.1'
    host_vars = _host_vars(hostvars, host)
    return local_host(jinja_text(host_vars.get('connect_worker_rest_listen_address', host_vars.get('ansible_host', host))).strip())


def connect_rest_urls(play_hosts: Any, this_host: str, scheme: str, port: Any, advertised_host: str,
                      hostvars: Any = None) -> List[str]:
    """The REST URL of this host's worker first (its certificate's name over https, else the address its plain HTTP
    listener binds), then the other hosts'.

    With hostvars, the hosts whose connect_worker_state is absent (drained workers) are left out, this one too.
    """
    if isinstance(play_hosts, (str, bytes, Mapping)):
        raise ValueError('connect_rest_urls expects the list of the play\'s hosts, got %s' % type(play_hosts).__name__)

    def running(host: str) -> bool:
        return hostvars is None or worker_state(_host_vars(hostvars, host), host) == 'present'

    others: List[str] = []
    for host in play_hosts:
        if host != this_host and host not in others and running(host):
            others.append(host)
    local = [advertised_host if scheme == 'https' else local_rest_host(hostvars, this_host)] if running(this_host) else []
    return ['%s://%s:%s' % (scheme, host, port) for host in local + others]
