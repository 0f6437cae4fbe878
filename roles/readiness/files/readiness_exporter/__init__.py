# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The DR readiness exporter: the readiness check of module mm2_readiness, run again every interval
on one host, its figures served as Prometheus metrics (docs/readiness.md, "Metrics and alerts").

The decisions live in the collection's module_utils (mm2_readiness, mm2_readiness_exporter), which
role readiness ships next to this package as `ansible_collections.kafka_dr.mm2.plugins.module_utils`
(tasks/exporter.yml), so the exporter and the module run one copy of the code.
"""
