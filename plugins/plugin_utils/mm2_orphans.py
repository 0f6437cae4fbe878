# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Connectors a plan no longer wants: the candidates for pruning."""

from __future__ import annotations

import re
from typing import Any, Dict, List, Mapping

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.mm2_common import MIRROR_CLASSES


def orphans(request: Mapping[str, Any]) -> Dict[str, List[str]]:
    """Connectors to remove: named like the plan's (managed_pattern), running the Mirror* class that
    matches the name's suffix, and wanted by no flow any more (not in desired_names).

    request: existing ({name: connector_info entry}), managed_pattern, desired_names.
    """
    pattern = re.compile(str(request['managed_pattern']))
    desired = set(request.get('desired_names') or [])
    found: List[str] = []
    for name, entry in sorted((request.get('existing') or {}).items()):
        match = pattern.match(name)
        if not match or name in desired:
            continue
        config = (entry or {}).get('config') or {}
        if str(config.get('connector.class', '')).strip() == MIRROR_CLASSES[match.group(1)]:
            found.append(name)
    return {'orphans': found}
