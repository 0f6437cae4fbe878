# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Why a Java tool failed, in one line."""

from __future__ import annotations

DOCUMENTATION = r"""
name: java_failure
short_description: First exception and root cause from a Java tool's output
version_added: 0.1.0
description:
  - "Reads the output of a Java command (a Kafka tool such as C(ClusterTool)) and returns
    C(<first exception>, caused by <root cause>), for example
    C(SslAuthenticationException: SSL handshake failed, caused by SunCertPathBuilderException: unable to find valid certification path to requested target)."
  - The first exception says what failed, the last C(Caused by) why (a password, a certificate,
    a keytab). Package names are dropped and each part is cut to 300 characters.
  - Returns an empty string when the output holds no exception (the tool timed out, or failed
    without a Java exception), so the caller can say what else happened.
options:
  _input:
    description: The output, as text or as a list of lines (for example C(stdout_lines + stderr_lines)).
    type: raw
    required: true
"""

EXAMPLES = r"""
- name: Stop with the reason Kafka gave
  ansible.builtin.fail:
    msg: >-
      Kafka refused the login:
      {{ (probe.stdout_lines + probe.stderr_lines) | kafka_dr.mm2.java_failure
         or 'no answer (exit ' ~ probe.rc ~ ')' }}
  when: probe.rc != 0
"""

RETURN = r"""
_value:
  description: C(<first exception>[, caused by <root cause>]), or an empty string.
  type: str
"""

from typing import Sequence, Union

from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.plugin_utils.kafka_tools import java_failure_reason


def java_failure(output: Union[str, Sequence[str], None]) -> str:
    if output is not None and not isinstance(output, (str, list, tuple)):
        raise AnsibleFilterError('java_failure expects text or a list of lines, got %s' % type(output).__name__)
    return java_failure_reason(output)


class FilterModule:
    def filters(self) -> dict:
        return {'java_failure': java_failure}
