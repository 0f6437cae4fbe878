# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The collection's module_utils files the watchdog uses: the Connect client of the modules and
the reader of the Prometheus text format.

One copy of each serves the modules and the watchdog: the role ships those same files into this
package when it installs it (tasks/auto_restart.yml), so on a worker they sit next to this
module; in the collection (unit tests, a checkout) nothing is shipped and they are imported from
the collection itself.
"""

from __future__ import annotations

from typing import Tuple

try:
    from . import connect_client, prometheus_text
except ImportError:
    from ansible_collections.kafka_dr.mm2.plugins.module_utils import connect_client, prometheus_text  # type: ignore[no-redef]

ConnectApiError = connect_client.ConnectApiError
ConnectClient = connect_client.ConnectClient
requests = connect_client.requests
ExpositionError = prometheus_text.ExpositionError
Sample = prometheus_text.Sample
parse_exposition = prometheus_text.parse_exposition

# Errors of one request that a poll counts and logs; the next poll tries again.
TRANSPORT_ERRORS: Tuple[type, ...] = (requests.RequestException,) if requests is not None else ()
