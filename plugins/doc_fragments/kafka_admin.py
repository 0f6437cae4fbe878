# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment:
    """Options of the modules that run Kafka's admin tools on the host (see module_utils/kafka_tool.py)."""

    DOCUMENTATION = r'''
options:
  bootstrap_server:
    description:
      - Bootstrap server of the admin connection, for example V(kafka-1:9095).
    type: str
    required: true
  command_config:
    description:
      - Client settings of the admin connection (C(--command-config)), for example the root-only
        C(/etc/kafka/broker/admin-client.properties) that role kafka_dr.mm2.kafka_broker writes for the SSL listener
        with the broker's certificate.
      - Omit it for a PLAINTEXT listener.
    type: path
  kafka_run:
    description:
      - The class runner of role kafka_dr.mm2.kafka_install (C(kafka-run <main class> args...)), which starts a JVM
        on the Kafka distribution's class path.
    type: path
    default: /opt/kafka/kafka-run
  timeout:
    description:
      - Seconds one tool run may take before it is stopped and the module fails.
    type: int
    default: 120
requirements:
  - Java and a Kafka distribution on the host (role kafka_dr.mm2.kafka_install); no Python Kafka client.
notes:
  - Each tool run starts a JVM, which takes seconds; the modules list once and apply their changes in as few runs
    as they can. RV(jvm_runs) says how many they started.
  - "A failing tool is reported with its first exception and the root cause, for example
    C(SecurityDisabledException: No Authorizer is configured)."
'''
