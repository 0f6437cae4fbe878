# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""spark-defaults.conf lines, escaped as Spark reads them back."""

from __future__ import annotations

DOCUMENTATION = r"""
name: spark_conf
short_description: Spark settings as the lines of spark-defaults.conf
version_added: 0.4.0
description:
  - Returns one C(key value) line per setting, each ended by a line break, in the order given; later mappings of the
    list come after earlier ones (Spark keeps the last value of a key).
  - Spark reads the file with C(java.util.Properties) over UTF-8. A line break or any other control character in a key
    or value is refused, naming O(name) and the key but never the value; keys and values are otherwise escaped as Java
    properties (a backslash, a leading separator or comment mark, characters beyond ASCII), so every value is read
    back as given.
options:
  _input:
    description: A mapping of settings, or a list of them.
    type: raw
    required: true
  name:
    description: The variable the settings come from, for the error message.
    type: str
    required: true
"""

EXAMPLES = r"""
- name: Write spark-defaults.conf
  ansible.builtin.copy:
    dest: /etc/spark/spark-defaults.conf
    content: "{{ [{'spark.authenticate': 'true'}, spark_conf] | kafka_dr.mm2.spark_conf('spark_conf') }}"
    mode: "0640"
"""

RETURN = r"""
_value:
  description: The lines.
  type: str
"""

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.filter_errors import as_filter
from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.spark_conf import spark_conf


class FilterModule:
    def filters(self) -> dict:
        return {'spark_conf': as_filter(spark_conf)}
