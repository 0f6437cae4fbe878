# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment:
    """Connection options of every Kafka Connect module (see module_utils/connect_common.py)."""

    DOCUMENTATION = r'''
options:
  url:
    description:
      - Base URLs of the Kafka Connect workers' REST API, for example V(https://connect-1:8083).
      - The URLs are tried in order; on a connection error or timeout the next one is used,
        and the one that answered is tried first for the following requests.
      - A single URL may be given as a string.
    type: list
    elements: str
    default: [http://localhost:8083]
  url_username:
    description:
      - User name for HTTP basic authentication against the REST API.
    type: str
  url_password:
    description:
      - Password for HTTP basic authentication against the REST API.
    type: str
  client_cert:
    description:
      - PEM file with the client certificate for TLS client authentication.
      - May also hold the private key, in which case O(client_key) is not needed.
    type: path
  client_key:
    description:
      - PEM file with the private key matching O(client_cert).
    type: path
  ca_path:
    description:
      - CA bundle file or directory used to verify the workers' TLS certificates.
      - Defaults to the system trust store.
    type: path
  validate_certs:
    description:
      - Verify the workers' TLS certificates.
      - Only set to V(false) on a lab with self-signed certificates.
    type: bool
    default: true
  timeout:
    description:
      - Seconds to wait for each HTTP request before trying the next URL.
    type: int
    default: 30
  retry_timeout:
    description:
      - Kafka Connect answers HTTP 409 while a rebalance is in progress; such requests are retried
        with exponential backoff for at most this many seconds, then the module fails.
      - V(0) disables the retries.
    type: int
    default: 60
  retry_backoff:
    description:
      - First delay in seconds between two retries after HTTP 409. The delay doubles on every retry,
        up to 5 seconds per retry.
    type: float
    default: 0.5
requirements:
  - requests
notes:
  - Connector names are URL-encoded in request paths.
  - Error messages carry the HTTP status and the message the worker returned.
'''

    # Attributes of the modules that only read (connector_info, connect_cluster_info).
    READ_ONLY = r'''
attributes:
  check_mode:
    description: The module only reads, so it runs unchanged in check mode.
    support: full
  diff_mode:
    description: Nothing changes, so there is no diff.
    support: N/A
  action_group:
    description: Use C(group/kafka_dr.mm2.connect) in C(module_defaults) to set the connection options once.
    support: full
    membership:
      - kafka_dr.mm2.connect
'''
