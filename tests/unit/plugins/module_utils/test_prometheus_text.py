# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The reader of the Prometheus text exposition format that the restart watchdog applies to its
worker's JMX exporter page: names, labels and their escapes, special values, comments, errors."""

from __future__ import annotations

import math

import pytest

from ansible_collections.kafka_dr.mm2.plugins.module_utils.prometheus_text import (
    ExpositionError,
    Sample,
    parse_exposition,
    parse_sample_line,
)

# The shape of a jmx_prometheus_javaagent 1.x page for one MirrorSourceConnector task.
EXPORTER_PAGE = '''\
# HELP kafka_connect_source_task_source_record_write_total Records a source task polled or wrote to the target.
# TYPE kafka_connect_source_task_source_record_write_total counter
kafka_connect_source_task_source_record_write_total{connector="mm2-src-dst-source",task="0"} 1.2345E4
# HELP kafka_connect_mirror_source_consumer_records_lag Records of a source partition the consumer has not read yet.
# TYPE kafka_connect_mirror_source_consumer_records_lag gauge
kafka_connect_mirror_source_consumer_records_lag{connector="mm2-src-dst-source",partition="0",source="src",\
source_topic="foo_orders",target="dst",task="0"} 12.0
kafka_connect_mirror_source_consumer_records_lag{connector="mm2-src-dst-source",partition="1",source="src",\
source_topic="foo_orders",target="dst",task="0"} NaN

jvm_memory_bytes_used{area="heap",} 1.0E8
# EOF
'''


def test_an_exporter_page_gives_its_samples_in_order() -> None:
    samples = parse_exposition(EXPORTER_PAGE)
    assert [sample.name for sample in samples] == [
        'kafka_connect_source_task_source_record_write_total', 'kafka_connect_mirror_source_consumer_records_lag',
        'kafka_connect_mirror_source_consumer_records_lag', 'jvm_memory_bytes_used']
    assert samples[0] == Sample('kafka_connect_source_task_source_record_write_total',
                                {'connector': 'mm2-src-dst-source', 'task': '0'}, 12345.0)
    assert samples[1].labels == {'connector': 'mm2-src-dst-source', 'partition': '0', 'source': 'src',
                                 'source_topic': 'foo_orders', 'target': 'dst', 'task': '0'}
    assert math.isnan(samples[2].value)
    # A trailing comma before "}" is allowed.
    assert samples[3].labels == {'area': 'heap'}


def test_label_values_unescape_quotes_backslashes_and_line_feeds() -> None:
    sample = parse_sample_line(r'm{a="say \"hi\"",b="C:\\dir",c="two\nlines",d="x\qy",e="{,}= "} 1')
    assert sample.labels == {'a': 'say "hi"', 'b': 'C:\\dir', 'c': 'two\nlines', 'd': 'x\\qy', 'e': '{,}= '}


@pytest.mark.parametrize('token, expected', [
    ('+Inf', math.inf), ('-Inf', -math.inf), ('Inf', math.inf), ('1e3', 1000.0), ('-0.5', -0.5), ('7', 7.0), ('.5', 0.5),
])
def test_values(token: str, expected: float) -> None:
    assert parse_sample_line('m ' + token).value == expected


def test_names_blanks_and_timestamps() -> None:
    assert parse_sample_line('a:b_c{} 2 1700000000000') == Sample('a:b_c', {}, 2.0)
    assert parse_sample_line('m{ a = "1" , b="2" }\t3') == Sample('m', {'a': '1', 'b': '2'}, 3.0)
    assert parse_sample_line('m -1 -5').value == -1.0


def test_comments_and_blank_lines_carry_no_sample() -> None:
    assert parse_exposition('# HELP m help with "quotes" and {braces}\n# TYPE m counter\n\n   \n# anything\n') == []
    assert parse_exposition('') == []


@pytest.mark.parametrize('line, message', [
    ('1m 2', 'no metric name'),
    ('m', 'no blank between m and its value'),
    ('m{a="1"}2', 'no blank between m and its value'),
    ('m one', "bad value 'one'"),
    ('m 1_000', "bad value '1_000'"),
    ('m 1 2 3', 'expected a value and an optional integer timestamp'),
    ('m 1 1.5', 'expected a value and an optional integer timestamp'),
    ('m{a=1} 1', 'value of label a is not quoted'),
    ('m{a="1} 1', 'value of label a has no closing quote'),
    ('m{a} 1', 'label a has no "="'),
    ('m{a="1" b="2"} 1', 'expected "," or "}" after label a'),
    ('m{1a="1"} 1', 'bad label name at column 3'),
])
def test_bad_lines_are_errors_that_say_why(line: str, message: str) -> None:
    with pytest.raises(ExpositionError, match=message):
        parse_sample_line(line)


def test_a_bad_line_fails_the_whole_page_with_its_number() -> None:
    with pytest.raises(ExpositionError, match=r'^line 3: bad value'):
        parse_exposition('# TYPE m gauge\nm 1\nm 1,5\nm 2\n')
