# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment:
    """Attributes of the modules that only look at a host and change nothing."""

    READ_ONLY = r'''
attributes:
  check_mode:
    description: Reads only, in check mode as in a normal run.
    support: full
  diff_mode:
    description: Nothing to show.
    support: none
'''
