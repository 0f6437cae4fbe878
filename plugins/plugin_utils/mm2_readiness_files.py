# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The controller files of the readiness check: the failover reports it reads the recovery time
from, and its state file (the source topic ids of the previous run).

Role failover names a report failover-<flow>-<mode>.json, where <flow> is how the operator named
the flow (failover_flow: "<source>-><target>" or the flow's name) with "->" as "_to_" and any
other character outside A-Z, a-z, 0-9, ".", "_" and "-" as "_". The flow may have been named
either way, so each spelling is looked for.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Mapping

# The state file's format is shared with the readiness exporter, which keeps the same file on its host.
from ansible_collections.kafka_dr.mm2.plugins.module_utils.mm2_readiness import (  # noqa: F401  pylint: disable=unused-import
    STATE_FORMAT,
    readiness_state,
    readiness_state_accepted,
    readiness_state_ids,
)

UNSAFE = re.compile('[^A-Za-z0-9_.-]+')


def flow_file_name(reference: str) -> str:
    """A flow reference as role failover writes it into file names."""
    return UNSAFE.sub('_', str(reference).replace('->', '_to_'))


def readiness_files(inputs: Mapping[str, Any], flow: str, reports_dir: str, state_dir: str) -> Dict[str, Any]:
    """The patterns of the flow's failover reports (each spelling of the flow) and the state file's path."""
    canonical = '%s->%s' % (inputs['source_alias'], inputs['target_alias'])
    names: List[str] = []
    for reference in (flow, canonical, inputs.get('name') or ''):
        name = flow_file_name(reference) if reference else ''
        if name and name not in names:
            names.append(name)
    return {
        'reports_dir': str(reports_dir).rstrip('/') or '/',
        'failover_report_patterns': ['failover-%s-*.json' % name for name in names],
        'state_file': '%s/readiness-%s.json' % (str(state_dir).rstrip('/'), flow_file_name(canonical)),
    }
