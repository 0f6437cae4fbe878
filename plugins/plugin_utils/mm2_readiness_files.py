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

import json
import re
from typing import Any, Dict, List, Mapping

STATE_FORMAT = 1
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


def readiness_state_ids(text: Any) -> Dict[str, str]:
    """The topic ids a state file holds; none for an empty text. A file that is not one is an error."""
    if text is None or not str(text).strip():
        return {}
    try:
        document = json.loads(str(text))
    except ValueError as exc:
        raise ValueError('the readiness state file is not JSON (%s); remove it to start afresh' % exc) from exc
    if not isinstance(document, dict) or document.get('format') != STATE_FORMAT or not isinstance(document.get('topic_ids'), dict):
        raise ValueError('the readiness state file is not in format %d; remove it to start afresh' % STATE_FORMAT)
    return {str(topic): str(topic_id) for topic, topic_id in document['topic_ids'].items() if topic_id}


def readiness_state(topic_ids: Mapping[str, Any], flow: str, measured_at: str) -> str:
    """The state file's text: the topic ids this run saw."""
    return json.dumps({'format': STATE_FORMAT, 'flow': flow, 'measured_at': measured_at,
                       'topic_ids': {str(topic): topic_id for topic, topic_id in topic_ids.items()}},
                      indent=2, sort_keys=True) + '\n'
