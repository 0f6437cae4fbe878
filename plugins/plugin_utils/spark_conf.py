# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""spark-defaults.conf, written as Spark reads it back.

Controller-side logic behind the filter spark_conf. Spark loads the file with java.util.Properties
over UTF-8 and trims the values: one `key value` per line. A line break in a key or value would start
a setting of the inventory's choosing (spark.authenticate.secret included), so control characters are
refused, naming the setting and never quoting the value (the file holds the cluster's secret). Keys and
values are otherwise escaped as module_utils/java_properties writes them (a backslash, a leading
separator or comment mark, characters beyond ASCII), so values without those render as they always did.
Errors are ValueError.
"""

from __future__ import annotations

from typing import Any, Iterable, List, Mapping

from ansible_collections.kafka_dr.mm2.plugins.module_utils.java_properties import escape_key, escape_value
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.line_values import first_control, scalar_text


def conf_text(value: Any, where: str) -> str:
    """A key or value as the former template rendered it ({{ value }}), without control characters."""
    text = scalar_text(value)
    if text is None:
        raise ValueError('%s must be a string or a number, got %s' % (where, type(value).__name__))
    control = first_control(text)
    if control:
        raise ValueError('%s must not hold a line break or other control character (character %d): spark-defaults.conf '
                         'would read the rest as a setting of its own' % (where, control[0]))
    return text


def conf_line(key: Any, value: Any, name: str) -> str:
    key_text = conf_text(key, '%s: the key %r' % (name, key))
    if not key_text:
        raise ValueError('%s: a key is empty' % name)
    return '%s %s' % (escape_key(key_text), escape_value(conf_text(value, '%s: the value of %s' % (name, key_text))))


def spark_conf(settings: Iterable[Mapping[str, Any]], name: str) -> str:
    """The lines of spark-defaults.conf from mappings of settings, in order (a later one wins in Spark), each ended."""
    if isinstance(settings, Mapping):
        settings = [settings]
    lines: List[str] = []
    for mapping in settings:
        if not isinstance(mapping, Mapping):
            raise ValueError('%s must map Spark settings to values, got %s' % (name, type(mapping).__name__))
        lines += [conf_line(key, value, name) for key, value in mapping.items()]
    return ''.join(line + '\n' for line in lines)
