# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""How the replication_check role runs the validation job: its launcher, arguments and environment.

Controller-side logic behind the filter validator_invocation. The input is the role's
settings by name without the replication_check_ prefix (``home``, ``mode``, ``topics`` ...),
plus ``jars``, the Spark Kafka jars' paths on the node. Errors are ValueError.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping

MODES = ('local', 'submit')
# Options given only when their setting is set (non-empty), in the job's argument order.
OPTIONAL_VALUES = (
    ('--source-bootstrap', 'source_bootstrap'),
    ('--target-bootstrap', 'target_bootstrap'),
)
OPTIONAL_TOPICS = (
    ('--checkpoints-topic', 'checkpoints_topic'),
    ('--offset-syncs-topic', 'offset_syncs_topic'),
    ('--offset-syncs-bootstrap', 'offset_syncs_bootstrap'),
    ('--heartbeats-topic', 'heartbeats_topic'),
)


def _unset(value: Any) -> bool:
    """A limit or a start left empty: None or the empty string (0 is a value)."""
    return value is None or (isinstance(value, str) and value == '')


def _limit(value: Any) -> str:
    return 'unlimited' if _unset(value) else str(value)


def _joined(values: Any) -> str:
    return ','.join(str(value) for value in values)


def _truthy(value: Any) -> bool:
    """A role's boolean, also when templating made it a string."""
    if isinstance(value, str):
        return value.strip().lower() in ('true', 'yes', 'on', '1')
    return bool(value)


def from_offsets_value(offsets: Any) -> str:
    """--from-offsets in the job's form topic:partition=offset,... ; a string is taken as it is."""
    if isinstance(offsets, str):
        return offsets
    if not offsets:
        return ''
    if not isinstance(offsets, Mapping) or not all(isinstance(partitions, Mapping) for partitions in offsets.values()):
        raise ValueError('from_offsets must be topic: {partition: offset} or the string topic:partition=offset,..., got %r'
                         % (offsets,))
    return ','.join('%s:%s=%s' % (topic, partition, offset)
                    for topic, partitions in offsets.items() for partition, offset in partitions.items())


def _require(settings: Mapping[str, Any], *names: str) -> None:
    missing = [name for name in names if name not in settings]
    if missing:
        raise ValueError('the job settings lack %s' % ', '.join(missing))


def launcher(settings: Mapping[str, Any]) -> List[Any]:
    """The command that starts the job: the venv's Python (mode local) or spark-submit (mode submit)."""
    _require(settings, 'home', 'mode', 'master', 'driver_memory', 'jars')
    home = settings['home']
    jars = _joined(settings['jars'])
    if settings['mode'] == 'local':
        return ['%s/venv/bin/python' % home, '-m', 'mm2_validator', '--master', settings['master'],
                '--jars', jars, '--spark-conf', 'spark.driver.memory=%s' % settings['driver_memory']]
    _require(settings, 'spark_submit')
    return [settings['spark_submit'], '--master', settings['master'], '--driver-memory', settings['driver_memory'],
            '--jars', jars, '--py-files', '%s/job/mm2_validator.zip' % home, '%s/job/mm2_validate.py' % home]


def job_arguments(settings: Mapping[str, Any]) -> List[Any]:
    """The arguments of mm2_validator: the flow, the verdict's limits, the window, Spark settings."""
    _require(settings, 'home', 'source_alias', 'target_alias', 'replication_policy', 'separator', 'catchup_timeout',
             'delivery')
    home = settings['home']
    args: List[Any] = [
        '--source-alias', settings['source_alias'], '--target-alias', settings['target_alias'],
        '--source-properties', '%s/secrets/source.properties' % home,
        '--target-properties', '%s/secrets/target.properties' % home,
        '--replication-policy', settings['replication_policy'], '--separator', settings['separator'],
        '--catchup-timeout', str(settings['catchup_timeout']),
        '--report-json', '%s/reports/replication-report.json' % home,
        '--report-html', '%s/reports/replication-report.html' % home,
    ]
    for option, name in OPTIONAL_VALUES:
        if settings.get(name):
            args += [option, settings[name]]
    # Topics by name win; else the regex, even empty (the job then says what is missing).
    if settings.get('topics'):
        args += ['--topics', _joined(settings['topics'])]
    else:
        args += ['--topics-regex', settings.get('topics_regex', '')]
    if settings.get('groups'):
        args += ['--groups', _joined(settings['groups'])]
    for option, name in OPTIONAL_TOPICS:
        if settings.get(name):
            args += [option, settings[name]]
    args += ['--delivery', settings['delivery'],
             '--max-duplicates', _limit(settings.get('max_duplicates')),
             '--max-duplicate-ratio', _limit(settings.get('max_duplicate_ratio'))]
    if not _unset(settings.get('from_timestamp')):
        args += ['--from-timestamp', str(settings['from_timestamp'])]
    from_offsets = from_offsets_value(settings.get('from_offsets'))
    if from_offsets:
        args += ['--from-offsets', from_offsets]
    if _truthy(settings.get('incremental')):
        if _unset(settings.get('state')):
            raise ValueError('incremental needs state, the path of the state file on the node')
        args += ['--incremental', '--state', str(settings['state'])]
        if _truthy(settings.get('reset_state')):
            args.append('--reset-state')
    if _truthy(settings.get('raw_key_preview')):
        args.append('--raw-key-preview')
    spark_conf = settings.get('spark_conf') or {}
    if not isinstance(spark_conf, Mapping):
        raise ValueError('spark_conf must be a mapping of Spark settings, got %r' % (spark_conf,))
    args += ['--spark-conf=%s=%s' % (key, value) for key, value in spark_conf.items()]
    extra_args = settings.get('extra_args') or []
    if isinstance(extra_args, (str, Mapping)):
        raise ValueError('extra_args must be a list of arguments, got %r' % (extra_args,))
    return args + list(extra_args)


def environment(settings: Mapping[str, Any]) -> Dict[str, Any]:
    """The job's environment; in mode submit spark-submit reads spark-defaults.conf from SPARK_CONF_DIR."""
    _require(settings, 'home')
    result: Dict[str, Any] = {'PYTHONPATH': '%s/job' % settings['home'], 'PYTHONDONTWRITEBYTECODE': '1'}
    if settings.get('spark_conf_dir'):
        result['SPARK_CONF_DIR'] = settings['spark_conf_dir']
    extra = settings.get('environment') or {}
    if not isinstance(extra, Mapping):
        raise ValueError('environment must be a mapping, got %r' % (extra,))
    result.update(extra)
    return result


def invocation(settings: Mapping[str, Any]) -> Dict[str, Any]:
    """launcher, args and environment of the job."""
    if not isinstance(settings, Mapping):
        raise ValueError('the job settings must be a mapping, got %s' % type(settings).__name__)
    if settings.get('mode') not in MODES:
        raise ValueError('mode must be one of %s, got %r' % (', '.join(MODES), settings.get('mode')))
    return {'launcher': launcher(settings), 'args': job_arguments(settings), 'environment': environment(settings)}
