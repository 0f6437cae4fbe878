# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A small read-only client for the Prometheus HTTP API (instant and range queries)."""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Tuple
from urllib.parse import urlsplit, urlunsplit

# The Connect client's guarded import (None without requests): module mm2_status reports a missing
# requests through REQUESTS_IMPORT_ERROR of connect_client; importing this file never fails.
from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_client import requests

# Server bodies that are not Prometheus JSON are cut to this length in error messages.
MAX_BODY_EXCERPT = 300

# "[Errno 111] Connection refused", "[Errno -2] Name or service not known" inside a requests message.
OS_ERROR_TEXT = re.compile(r"\[Errno -?[0-9]+\] [^'\")]+")

# One series of a query answer: its labels and its (unix time, value) samples.
Sample = Tuple[float, float]


def url_without_credentials(url: str) -> str:
    """The URL with any user:password@ removed, safe to print."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ''
    if ':' in host:
        host = '[%s]' % host
    netloc = host if parts.port is None else '%s:%d' % (host, parts.port)
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


class PrometheusApiError(Exception):
    """A failed query: HTTP status (None when the server did not answer) and the server's message."""

    def __init__(self, base_url: str, status: Optional[int], message: str, query: str = '') -> None:
        self.base_url = url_without_credentials(base_url)
        self.status = status
        self.message = message
        self.query = query
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.status is None:
            return 'Prometheus at %s is unreachable: %s' % (self.base_url, self.message)
        text = 'Prometheus at %s answered HTTP %d: %s' % (self.base_url, self.status, self.message)
        return text + (' (query: %s)' % self.query if self.query else '')


def parse_value(raw: Any) -> float:
    """Prometheus sends sample values as strings ('1', 'NaN', '+Inf')."""
    try:
        return float(raw)
    except (TypeError, ValueError):
        return float('nan')


def answer_error(response: Any) -> str:
    """The `error` field of a Prometheus error body, or an excerpt of the raw body."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict) and body.get('error'):
        return '%s: %s' % (body.get('errorType') or 'error', body['error'])
    text = (response.text or '').strip()
    return text[:MAX_BODY_EXCERPT] if text else (response.reason or 'no message')


class PrometheusClient:
    """Runs PromQL queries against one Prometheus server; never writes anything."""

    def __init__(
        self,
        url: str,
        username: Optional[str] = None,
        password: Optional[str] = None,
        ca_path: Optional[str] = None,
        validate_certs: bool = True,
        timeout: float = 30,
    ) -> None:
        if requests is None:
            raise RuntimeError('the Python library requests is required')
        self.base_url = url.rstrip('/')
        self.display_url = url_without_credentials(self.base_url)
        self.timeout = timeout
        self.session = requests.Session()
        self.session.headers.update({'Accept': 'application/json'})
        if username:
            self.session.auth = (username, password or '')
        # A CA path only matters when verification is on; verify=False wins.
        self.session.verify = (ca_path or True) if validate_certs else False

    def _get(self, path: str, params: Dict[str, str]) -> Dict[str, Any]:
        """GET an API path; returns the `data` member of a successful answer."""
        query = params.get('query', '')
        try:
            response = self.session.get(self.base_url + path, params=params, timeout=self.timeout)
        except requests.exceptions.RequestException as exc:
            raise PrometheusApiError(self.base_url, None, '%s (%s)' % (exc.__class__.__name__, self._reason(exc))) from None
        try:
            body = response.json()
        except ValueError:
            body = None
        if response.status_code >= 400 or not isinstance(body, dict) or body.get('status') != 'success':
            raise PrometheusApiError(self.base_url, response.status_code, answer_error(response), query)
        return body.get('data') or {}

    def _reason(self, exc: Exception) -> str:
        """The operating system's words (refused, unknown host, timed out) rather than urllib3's
        whole chain, which repeats the query and, for some errors, the URL."""
        text = str(exc)
        errno_text = OS_ERROR_TEXT.search(text)
        if errno_text:
            return errno_text.group(0)
        if 'timed out' in text.lower():
            return 'timed out after %ss' % self.timeout
        return text.replace(self.base_url, self.display_url)[:MAX_BODY_EXCERPT]

    def query(self, promql: str, at: Optional[float] = None) -> List[Tuple[Dict[str, str], float]]:
        """Instant query: (labels, value) per series; scalars come back as one unlabelled series."""
        params = {'query': promql}
        if at is not None:
            params['time'] = '%.3f' % at
        data = self._get('/api/v1/query', params)
        result = data.get('result')
        if data.get('resultType') in ('scalar', 'string') and isinstance(result, list):
            return [({}, parse_value(result[1]))]
        return [(dict(series.get('metric') or {}), parse_value((series.get('value') or [0, 'NaN'])[1])) for series in result or []]

    def query_range(self, promql: str, start: float, end: float, step: float) -> List[Tuple[Dict[str, str], List[Sample]]]:
        """Range query: (labels, samples) per series, samples oldest first."""
        params = {'query': promql, 'start': '%.3f' % start, 'end': '%.3f' % end, 'step': '%gs' % step}
        data = self._get('/api/v1/query_range', params)
        answer = []
        for series in data.get('result') or []:
            samples = [(float(stamp), parse_value(value)) for stamp, value in series.get('values') or []]
            answer.append((dict(series.get('metric') or {}), samples))
        return answer
