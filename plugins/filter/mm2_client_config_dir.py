# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where role mirrormaker keeps the client settings of its topic checks, for one connector prefix."""

from __future__ import annotations

DOCUMENTATION = r"""
name: mm2_client_config_dir
short_description: The directory of a connector prefix's client settings for the topic checks
version_added: 0.4.0
description:
  - Deployments under other connector prefixes on the same workers keep, and prune, only their own files, so each
    prefix has a directory of its own below the client settings directory, named after the prefix with every
    character other than C(A-Z), C(a-z), C(0-9), C(.), C(_) and C(-) replaced by C(_).
  - Without a prefix the files lie in the client settings directory itself.
  - Trailing slashes of the directory are dropped.
options:
  _input:
    description: The client settings directory (C(mirrormaker_client_config_dir)).
    type: str
    required: true
  prefix:
    description: The connector prefix (C(mirrormaker_connector_prefix)); empty for none.
    type: str
    required: true
"""

EXAMPLES = r"""
- name: Show where the topic checks read their client settings
  ansible.builtin.debug:
    msg: "{{ ('/etc/kafka-dr/mm2-clients/' | kafka_dr.mm2.mm2_client_config_dir('prod/a')).path }}"
    # /etc/kafka-dr/mm2-clients/prod_a
"""

RETURN = r"""
_value:
  description: The directory and whether it is one of the prefix's own.
  type: dict
  contains:
    path:
      description: The directory of the client settings files.
      type: str
    subdir:
      description: The directory is the prefix's own, below the client settings directory.
      type: bool
"""

import re
from typing import Any, Dict

UNSAFE = re.compile('[^A-Za-z0-9._-]')


def mm2_client_config_dir(config_dir: Any, prefix: Any) -> Dict[str, Any]:
    base = re.sub('/+$', '', str(config_dir))
    path = base + ('/' + UNSAFE.sub('_', str(prefix)) if prefix else '')
    return {'path': path, 'subdir': path != base}


class FilterModule:
    def filters(self) -> dict:
        return {'mm2_client_config_dir': mm2_client_config_dir}
