# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""spark-defaults.conf as Spark reads it back (java.util.Properties, then trimmed values): ordinary settings
render as the former template wrote them, any other value is escaped, and a line break, which would add a
setting of the inventory's choosing, is refused naming the key and never the value (the file holds a secret)."""

from __future__ import annotations

import re
from typing import Any, Dict

import pytest

from ansible_collections.kafka_dr.mm2.plugins.module_utils.java_properties import loads
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.spark_conf import spark_conf

SECRET = 'cluster-secret-0123456789'


def test_ordinary_settings_render_as_before() -> None:
    settings = [{'spark.authenticate': 'true', 'spark.local.dir': '/var/lib/spark/tmp',
                 'spark.driver.extraJavaOptions': '-Djava.io.tmpdir=/var/lib/spark/tmp', 'spark.cores.max': 4},
                {'spark.authenticate.secret': SECRET}]
    assert spark_conf(settings, 'spark_standalone_conf') == (
        'spark.authenticate true\nspark.local.dir /var/lib/spark/tmp\n'
        'spark.driver.extraJavaOptions -Djava.io.tmpdir=/var/lib/spark/tmp\nspark.cores.max 4\n'
        'spark.authenticate.secret %s\n' % SECRET)


@pytest.mark.parametrize('key, value', [
    ('spark.executor.extraJavaOptions', '-Dpath=C:\\tmp\\x -Dother=1'),
    ('spark.app.name', '=starts with a separator'),
    ('spark.app.name', ':colon first'),
    ('spark.app.name', 'caf\u00e9 \u4e2d'),
    ('#spark.odd key', 'value with # and !'),
    ('spark.authenticate.secret', 'p@ss=w:rd\\#!'),
])
def test_any_other_value_is_read_back_as_given(key: str, value: str) -> None:
    text = spark_conf({key: value}, 'spark_standalone_conf')
    assert text.count('\n') == 1
    assert {name: read.strip() for name, read in loads(text).items()} == {key: value}


@pytest.mark.parametrize('settings, message', [
    ({'spark.app.name': 'x\nspark.authenticate false'}, "spark_standalone_conf: the value of spark.app.name must not hold a line break"),
    ({'spark.authenticate.secret': 'abc\rdef'}, 'spark_standalone_conf: the value of spark.authenticate.secret must not hold a line break'),
    ({'spark.a\nb': 'x'}, "spark_standalone_conf: the key 'spark.a\\nb' must not hold a line break"),
    ({'spark.app.name': None}, 'spark_standalone_conf: the value of spark.app.name must be a string or a number'),
    ({'': 'x'}, 'spark_standalone_conf: a key is empty'),
])
def test_what_would_add_a_setting_is_refused_without_the_value(settings: Dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)) as raised:
        spark_conf([settings, {'spark.authenticate.secret': SECRET}], 'spark_standalone_conf')
    assert SECRET not in str(raised.value) and 'abc' not in str(raised.value)


def test_the_settings_must_be_mappings() -> None:
    with pytest.raises(ValueError, match='spark_standalone_conf must map Spark settings to values'):
        spark_conf([['spark.a', 'b']], 'spark_standalone_conf')
