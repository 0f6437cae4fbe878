# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Restarts the FAILED connectors and tasks of one Kafka Connect worker, with a growing backoff.

Plain Connect never restarts failed work by itself. This watchdog runs as a small service
next to each worker (role connect_worker, tasks/auto_restart.yml) and polls
GET /connectors?expand=status through the collection's ConnectClient. It acts only on the
connector instances and tasks whose `worker_id` is its own worker's (host:port, as Connect
reports it), so the watchdogs of N workers never restart the same thing twice:

- a FAILED connector instance: POST /connectors/<n>/restart?includeTasks=true&onlyFailed=true
  (Connect restarts the failed tasks of that connector with it);
- a FAILED task: POST /connectors/<n>/tasks/<id>/restart.

Connectors that are PAUSED or STOPPED are left alone, tasks included. Restart n of one
connector instance or task follows restart n-1 after min(n*n + n, 60) minutes: 0, 2, 6, 12,
20, 30, 42, 56, then hourly; the count starts again once it has run longer than its next
delay. With `max_restarts` it stays FAILED after that many restarts (logged once, gauge
kafka_dr_connect_restart_cap_reached). The counts survive a restart of the watchdog in a
JSON state file; metrics are served in the Prometheus text format.

With `stall_seconds` it also restarts a MirrorSourceConnector task that is RUNNING but copies
nothing: it reads its worker's JMX exporter endpoint at each poll, and a task whose
source-record-write-total did not move for a whole window while its consumer's records-lag
stayed above 0 (or grew) gets POST /connectors/<n>/tasks/<id>/restart, through the same
backoff and cap. That history is kept in memory only (docs/auto_restart.md, "Stalled tasks").

The modules, by concern:

- decisions: what to restart and when (the backoff, the counter resets, the cap);
- stalls: which RUNNING tasks copy nothing, from the exporter's page;
- state: what survives a restart of the watchdog (the JSON state file);
- metrics: the Prometheus text it serves;
- log_lines: its log lines, secrets masked;
- config: the settings file the role writes;
- rest: the worker's REST API and exporter endpoint;
- watchdog: one poll, the I/O around the pure decisions;
- service: the entry point (arguments, signals, the metrics server, the poll loop);
- shared: the collection's module_utils files it uses.

On a worker it runs as `python3 -m connect_watchdog --config <file>` from the directory the
role installs it in (PYTHONPATH).
"""
