# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the watchdog reaches over HTTP: its worker's REST API (the collection's ConnectClient) and
its worker's JMX exporter endpoint (for stall detection)."""

from __future__ import annotations

from typing import List, Optional

from .config import WatchdogConfig
from .shared import ConnectClient, ExpositionError, Sample, parse_exposition, requests

EXPORTER_ACCEPT = 'text/plain; version=0.0.4'


class ExporterError(Exception):
    """The worker's exporter endpoint did not answer with a readable page."""


class ExporterReader:
    """GET of the worker's JMX exporter endpoint, with basic authentication and a CA when set."""

    def __init__(self, url: str, username: str = '', password: str = '', ca_path: str = '', validate_certs: bool = True,
                 timeout: float = 10.0) -> None:
        if requests is None:
            raise RuntimeError('the Python library requests is required')
        self.url = url
        self.timeout = timeout
        self.session = requests.Session()
        self.session.headers.update({'Accept': EXPORTER_ACCEPT})
        if username:
            self.session.auth = (username, password)
        self.session.verify = (ca_path or True) if validate_certs else False

    def read(self) -> List[Sample]:
        """The samples of the page; ExporterError when there is no readable page."""
        try:
            response = self.session.get(self.url, timeout=self.timeout)
        except requests.RequestException as exc:
            raise ExporterError('GET %s failed: %s' % (self.url, exc.__class__.__name__)) from exc
        if response.status_code != 200:
            raise ExporterError('GET %s answered HTTP %d' % (self.url, response.status_code))
        try:
            return parse_exposition(response.content.decode('utf-8', errors='replace'))
        except ExpositionError as exc:
            raise ExporterError('GET %s: not the Prometheus text format (%s)' % (self.url, exc)) from exc


def build_client(config: WatchdogConfig) -> ConnectClient:
    return ConnectClient(
        list(config.urls), username=config.username or None, password=config.password or None,
        client_cert=config.client_cert or None, client_key=config.client_key or None, ca_path=config.ca_path or None,
        validate_certs=config.validate_certs, timeout=config.timeout,
        # A rebalance is waited out within one poll interval; the next poll tries again.
        retry_timeout=min(config.timeout, config.poll_interval),
    )


def build_exporter(config: WatchdogConfig) -> Optional[ExporterReader]:
    if not config.stall_seconds:
        return None
    return ExporterReader(config.exporter_url, config.exporter_username, config.exporter_password, config.exporter_ca_path,
                          config.validate_certs, timeout=min(config.timeout, config.poll_interval))
