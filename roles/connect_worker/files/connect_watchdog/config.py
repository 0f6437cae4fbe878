# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The settings file the role writes (JSON, 0600, owned by the service user), checked."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Dict, Mapping, Tuple

from .decisions import WatchdogError


@dataclass(frozen=True)
class WatchdogConfig:
    """The settings file the role writes (JSON, 0600, owned by the service user)."""

    urls: Tuple[str, ...]
    worker_id: str
    state_file: str
    poll_interval: float = 30.0
    max_restarts: int = 0
    metrics_address: str = '0.0.0.0'
    metrics_port: int = 9405
    username: str = ''
    password: str = field(default='', repr=False)
    ca_path: str = ''
    validate_certs: bool = True
    client_cert: str = ''
    client_key: str = ''
    timeout: float = 30.0
    # Stall detection (0: off) and the worker's JMX exporter endpoint it reads.
    stall_seconds: float = 0
    exporter_url: str = ''
    exporter_username: str = ''
    exporter_password: str = field(default='', repr=False)
    exporter_ca_path: str = ''


_CONFIG_TYPES: Dict[str, Tuple[type, ...]] = {
    'urls': (list,), 'worker_id': (str,), 'state_file': (str,), 'poll_interval': (int, float), 'max_restarts': (int,),
    'metrics_address': (str,), 'metrics_port': (int,), 'username': (str,), 'password': (str,), 'ca_path': (str,),
    'validate_certs': (bool,), 'client_cert': (str,), 'client_key': (str,), 'timeout': (int, float),
    'stall_seconds': (int, float), 'exporter_url': (str,), 'exporter_username': (str,), 'exporter_password': (str,),
    'exporter_ca_path': (str,),
}


def parse_config(document: Any) -> WatchdogConfig:
    """Checked settings; WatchdogError names the first wrong key (never a value)."""
    if not isinstance(document, Mapping):
        raise WatchdogError('the settings must be a JSON object')
    unknown = sorted(set(document) - set(_CONFIG_TYPES))
    if unknown:
        raise WatchdogError('unknown settings: %s' % ', '.join(unknown))
    for name, types in _CONFIG_TYPES.items():
        value = document.get(name)
        wrong_type = value is not None and (not isinstance(value, types) or (isinstance(value, bool) and bool not in types))
        if wrong_type:
            raise WatchdogError('setting %s must be %s' % (name, ' or '.join(kind.__name__ for kind in types)))
    missing = [name for name in ('urls', 'worker_id', 'state_file') if not document.get(name)]
    if missing:
        raise WatchdogError('missing settings: %s' % ', '.join(missing))
    if not all(isinstance(url, str) and url for url in document['urls']):
        raise WatchdogError('setting urls must list Kafka Connect base URLs')
    values = {name: value for name, value in document.items() if value is not None}
    values['urls'] = tuple(document['urls'])
    config = WatchdogConfig(**values)
    if config.poll_interval <= 0 or config.max_restarts < 0 or not 0 <= config.metrics_port < 65536:
        raise WatchdogError('poll_interval must be positive, max_restarts at least 0 and metrics_port 0-65535')
    check_stall_settings(config)
    return config


def check_stall_settings(config: WatchdogConfig) -> None:
    """A window of at least two polls, and an http(s) exporter URL when it is on."""
    if config.exporter_url and not config.exporter_url.startswith(('http://', 'https://')):
        raise WatchdogError("setting exporter_url must be an http:// or https:// URL of the worker's metrics endpoint")
    if not math.isfinite(config.stall_seconds) or config.stall_seconds < 0:
        raise WatchdogError('setting stall_seconds must be 0 (off) or a number of seconds')
    if config.stall_seconds and config.stall_seconds < 2 * config.poll_interval:
        raise WatchdogError('setting stall_seconds must be 0 (off) or at least twice poll_interval (%s s): a window '
                            'needs three polls' % config.poll_interval)
    if config.stall_seconds and not config.exporter_url:
        raise WatchdogError("setting stall_seconds needs exporter_url (the worker's metrics endpoint); 0 switches it off")


def load_config(path: str) -> WatchdogConfig:
    try:
        with open(path, encoding='utf-8') as handle:
            document = json.load(handle)
    except (OSError, ValueError) as exc:
        raise WatchdogError('cannot read settings %s: %s' % (path, exc)) from exc
    return parse_config(document)


def describe_stall_detection(config: WatchdogConfig) -> str:
    if not config.stall_seconds:
        return 'stall detection off'
    return 'stall detection over %ss from %s' % (config.stall_seconds, config.exporter_url)
