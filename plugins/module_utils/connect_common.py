# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Connection options shared by every Kafka Connect module, and the client built from them."""

from __future__ import annotations

from typing import Any, Dict, Iterable, NoReturn

from ansible.module_utils.basic import missing_required_lib

from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_client import (
    REQUESTS_IMPORT_ERROR,
    ConnectApiError,
    ConnectClient,
)

DEFAULT_URL = 'http://localhost:8083'


def connect_argument_spec() -> Dict[str, Dict[str, Any]]:
    """Options documented by the kafka_dr.mm2.connect doc fragment (keep both in step)."""
    return {
        'url': {'type': 'list', 'elements': 'str', 'default': [DEFAULT_URL]},
        'url_username': {'type': 'str'},
        'url_password': {'type': 'str', 'no_log': True},
        'client_cert': {'type': 'path'},
        'client_key': {'type': 'path', 'no_log': False},
        'ca_path': {'type': 'path'},
        'validate_certs': {'type': 'bool', 'default': True},
        'timeout': {'type': 'int', 'default': 30},
        'retry_timeout': {'type': 'int', 'default': 60},
        'retry_backoff': {'type': 'float', 'default': 0.5},
    }


def build_client(module: Any) -> ConnectClient:
    """A client for the module's connection options; fails the module when requests is missing."""
    if REQUESTS_IMPORT_ERROR:
        module.fail_json(msg=missing_required_lib('requests'), exception=REQUESTS_IMPORT_ERROR)
    params = module.params
    urls = [url.strip() for url in params['url'] if url and url.strip()]
    if not urls:
        module.fail_json(msg='url must name at least one Kafka Connect worker')
    return ConnectClient(
        urls=urls,
        username=params['url_username'],
        password=params['url_password'],
        client_cert=params['client_cert'],
        client_key=params['client_key'],
        ca_path=params['ca_path'],
        validate_certs=params['validate_certs'],
        timeout=params['timeout'],
        retry_timeout=params['retry_timeout'],
        retry_backoff=params['retry_backoff'],
    )


def hide_values(module: Any, values: Iterable[str]) -> None:
    """Scrub these strings from everything the module returns, invocation and messages included."""
    module.no_log_values.update(value for value in values if value)


def fail_api(module: Any, error: ConnectApiError, action: str, **extra: Any) -> NoReturn:
    """fail_json with the HTTP status and the server's message (secrets are scrubbed by no_log_values)."""
    module.fail_json(msg='%s: %s' % (action, error), http_status=error.status, server_message=error.message, **extra)
