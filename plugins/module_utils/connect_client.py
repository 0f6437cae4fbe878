# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one client for the Kafka Connect REST API used by every module of this collection."""

from __future__ import annotations

import time
import traceback
from typing import Any, Dict, List, Optional, Sequence, Tuple
from urllib.parse import quote

REQUESTS_IMPORT_ERROR: Optional[str]
try:
    import requests
    REQUESTS_IMPORT_ERROR = None
except ImportError:
    # Reported through missing_required_lib by the modules; importing must not fail.
    requests = None  # type: ignore[assignment]
    REQUESTS_IMPORT_ERROR = traceback.format_exc()

HTTP_CONFLICT = 409
HTTP_SERVER_ERROR = 500
HTTP_UNAVAILABLE = 503
# Connect answers 500 rather than 409 for these passing states of the group: a
# request that reached a worker whose view of the group is about to change, or
# whose config snapshot is behind the config topic. Both clear after a rebalance.
TRANSIENT_SERVER_MESSAGES = ('rebalance is expected', 'stale configuration')
# A single backoff step never sleeps longer than this, whatever the base.
MAX_BACKOFF_SECONDS = 5.0
# Server bodies that are not JSON are cut to this length in error messages.
MAX_BODY_EXCERPT = 500


class ConnectApiError(Exception):
    """A failed REST call: HTTP status (None when no worker answered) and the server's message."""

    def __init__(self, status: Optional[int], message: str, method: str, path: str) -> None:
        self.status = status
        self.message = message
        self.method = method
        self.path = path
        super().__init__(str(self))

    def __str__(self) -> str:
        status_text = 'no HTTP response' if self.status is None else 'HTTP %d' % self.status
        return '%s %s failed (%s): %s' % (self.method, self.path, status_text, self.message)


def connector_path(name: str, *suffix: str) -> str:
    """Path of a connector resource; the name is quoted so '/', '?', spaces stay in the name."""
    parts = ['connectors', quote(name, safe='')] + list(suffix)
    return '/' + '/'.join(parts)


def server_message(response: Any) -> str:
    """The `message` field of a Connect error body, or an excerpt of the raw body."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict) and body.get('message'):
        return str(body['message'])
    text = (response.text or '').strip()
    return text[:MAX_BODY_EXCERPT] if text else (response.reason or 'no message')


def is_transient(status: int, message: str) -> bool:
    """True for answers that a rebalancing group gives and that a later retry clears.

    409 is the documented one. 503 comes from a worker still joining the group.
    500 is retried only for the two messages that name a rebalance or a stale
    config snapshot; any other 500 is a real failure and is raised at once.
    """
    if status in (HTTP_CONFLICT, HTTP_UNAVAILABLE):
        return True
    lowered = message.lower()
    return status == HTTP_SERVER_ERROR and any(text in lowered for text in TRANSIENT_SERVER_MESSAGES)


class ConnectClient:
    """Talks to one Kafka Connect cluster through any of its workers.

    Connection errors and timeouts move on to the next worker URL; the URL that
    answered is tried first next time. HTTP 409 (rebalance in progress) is
    retried with exponential backoff until `retry_timeout` seconds have passed,
    as are the other answers of a group in the middle of a rebalance (see
    `is_transient`).
    """

    def __init__(
        self,
        urls: Sequence[str],
        username: Optional[str] = None,
        password: Optional[str] = None,
        client_cert: Optional[str] = None,
        client_key: Optional[str] = None,
        ca_path: Optional[str] = None,
        validate_certs: bool = True,
        timeout: float = 30,
        retry_timeout: float = 60,
        retry_backoff: float = 0.5,
    ) -> None:
        if requests is None:
            raise RuntimeError('the Python library requests is required')
        if not urls:
            raise ValueError('at least one Kafka Connect URL is required')
        self.urls: List[str] = [url.rstrip('/') for url in urls]
        self.timeout = timeout
        self.retry_timeout = retry_timeout
        self.retry_backoff = retry_backoff
        self._preferred_index = 0
        self.answered_url: Optional[str] = None
        self.session = self._build_session(username, password, client_cert, client_key, ca_path, validate_certs)

    @staticmethod
    def _build_session(
        username: Optional[str],
        password: Optional[str],
        client_cert: Optional[str],
        client_key: Optional[str],
        ca_path: Optional[str],
        validate_certs: bool,
    ) -> Any:
        session = requests.Session()
        session.headers.update({'Accept': 'application/json'})
        if username:
            session.auth = (username, password or '')
        if client_cert:
            session.cert = (client_cert, client_key) if client_key else client_cert
        # A CA path only matters when verification is on; verify=False wins.
        session.verify = (ca_path or True) if validate_certs else False
        return session

    @property
    def preferred_url(self) -> str:
        """The URL tried first: the last one that answered."""
        return self.urls[self._preferred_index]

    # ---- transport -------------------------------------------------------

    def _ordered_urls(self) -> List[str]:
        start = self._preferred_index
        return self.urls[start:] + self.urls[:start]

    def _send_once(self, method: str, path: str, params: Any, body: Any) -> Any:
        """One attempt on every URL in turn; returns the first HTTP response."""
        failures: List[str] = []
        for base_url in self._ordered_urls():
            try:
                response = self.session.request(method, base_url + path, params=params, json=body, timeout=self.timeout)
            except (requests.exceptions.ConnectionError, requests.exceptions.Timeout) as exc:
                failures.append('%s: %s' % (base_url, exc.__class__.__name__))
                continue
            self._preferred_index = self.urls.index(base_url)
            self.answered_url = base_url
            return response
        raise ConnectApiError(None, 'no Kafka Connect worker reachable (%s)' % '; '.join(failures), method, path)

    def _backoff_delay(self, attempt: int, deadline: float) -> float:
        delay = min(self.retry_backoff * (2 ** attempt), MAX_BACKOFF_SECONDS)
        return max(0.0, min(delay, deadline - time.monotonic()))

    def request(self, method: str, path: str, params: Any = None, body: Any = None) -> Tuple[int, Any]:
        """Send a request; returns (status, parsed JSON or None). Raises ConnectApiError on 4xx/5xx."""
        deadline = time.monotonic() + self.retry_timeout
        attempt = 0
        while True:
            response = self._send_once(method, path, params, body)
            transient = is_transient(response.status_code, server_message(response) if response.status_code >= 400 else '')
            if not transient or time.monotonic() >= deadline:
                break
            time.sleep(self._backoff_delay(attempt, deadline))
            attempt += 1
        if response.status_code >= 400:
            message = server_message(response)
            if transient:
                message = '%s (rebalance still in progress after %d retries over %ss)' % (message, attempt, self.retry_timeout)
            raise ConnectApiError(response.status_code, message, method, path)
        return response.status_code, self._json_or_none(response)

    @staticmethod
    def _json_or_none(response: Any) -> Any:
        if not response.content:
            return None
        try:
            return response.json()
        except ValueError:
            return None

    def _get_or_none(self, path: str) -> Any:
        """GET that maps 404 (connector not found) to None."""
        try:
            return self.request('GET', path)[1]
        except ConnectApiError as exc:
            if exc.status == 404:
                return None
            raise

    # ---- worker ----------------------------------------------------------

    def worker_info(self) -> Dict[str, Any]:
        """GET / : version, commit, kafka_cluster_id of the worker that answered."""
        return self.request('GET', '/')[1] or {}

    def probe(self, base_url: str) -> Dict[str, Any]:
        """GET / on one URL only, without failover or retries, for reachability reports."""
        url = base_url.rstrip('/')
        try:
            response = self.session.request('GET', url + '/', timeout=self.timeout)
        except requests.exceptions.RequestException as exc:
            return {'url': url, 'reachable': False, 'error': exc.__class__.__name__}
        if response.status_code >= 400:
            return {'url': url, 'reachable': False, 'status': response.status_code, 'error': server_message(response)}
        info = self._json_or_none(response) or {}
        return {'url': url, 'reachable': True, 'status': response.status_code, 'version': info.get('version')}

    def prefer(self, base_url: str) -> None:
        """Try this URL first from now on (one known to answer)."""
        url = base_url.rstrip('/')
        if url in self.urls:
            self._preferred_index = self.urls.index(url)

    def connector_plugins(self, connectors_only: bool = True) -> List[Dict[str, Any]]:
        params = None if connectors_only else {'connectorsOnly': 'false'}
        return self.request('GET', '/connector-plugins', params=params)[1] or []

    def validate_config(self, connector_class: str, config: Dict[str, str]) -> Dict[str, Any]:
        path = '/connector-plugins/%s/config/validate' % quote(connector_class, safe='')
        return self.request('PUT', path, body=config)[1] or {}

    # ---- connectors ------------------------------------------------------

    def list_connectors(self) -> List[str]:
        return self.request('GET', '/connectors')[1] or []

    def list_connectors_expanded(self) -> Dict[str, Any]:
        """GET /connectors?expand=status&expand=info : every connector with its status and config."""
        params = [('expand', 'status'), ('expand', 'info')]
        return self.request('GET', '/connectors', params=params)[1] or {}

    def list_connectors_status(self) -> Dict[str, Any]:
        """GET /connectors?expand=status : every connector with the state and worker id of its instance and tasks."""
        return self.request('GET', '/connectors', params=[('expand', 'status')])[1] or {}

    def get_config(self, name: str) -> Optional[Dict[str, str]]:
        """The stored config, or None when the connector does not exist."""
        return self._get_or_none(connector_path(name, 'config'))

    def put_config(self, name: str, config: Dict[str, str]) -> Dict[str, Any]:
        """Create or replace the config. Connect restarts the connector even on an identical config."""
        return self.request('PUT', connector_path(name, 'config'), body=config)[1] or {}

    def get_status(self, name: str) -> Optional[Dict[str, Any]]:
        return self._get_or_none(connector_path(name, 'status'))

    def delete(self, name: str) -> None:
        self.request('DELETE', connector_path(name))

    def pause(self, name: str) -> None:
        self.request('PUT', connector_path(name, 'pause'))

    def resume(self, name: str) -> None:
        self.request('PUT', connector_path(name, 'resume'))

    def stop(self, name: str) -> None:
        """PUT /stop exists from Kafka 3.5 on."""
        self.request('PUT', connector_path(name, 'stop'))

    def restart(self, name: str, include_tasks: bool = False, only_failed: bool = False) -> Optional[Dict[str, Any]]:
        """POST /restart; with either flag set Connect answers 202 and the restart plan."""
        params = {'includeTasks': str(include_tasks).lower(), 'onlyFailed': str(only_failed).lower()}
        return self.request('POST', connector_path(name, 'restart'), params=params)[1]

    def restart_task(self, name: str, task_id: int) -> None:
        """POST /connectors/<name>/tasks/<id>/restart: restarts one task wherever it runs (204)."""
        self.request('POST', connector_path(name, 'tasks', str(task_id), 'restart'))

    def get_topics(self, name: str) -> Dict[str, Any]:
        return self.request('GET', connector_path(name, 'topics'))[1] or {}

    def get_offsets(self, name: str) -> Dict[str, Any]:
        return self.request('GET', connector_path(name, 'offsets'))[1] or {}
