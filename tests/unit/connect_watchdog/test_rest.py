# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The restart watchdog's reader of its worker's JMX exporter endpoint over HTTP: basic
authentication, a page it cannot read, a transport error named without credentials."""

from __future__ import annotations

from typing import Tuple

import pytest

from connect_watchdog.rest import ExporterError, ExporterReader
from connect_watchdog.stalls import TaskReading, task_readings

from watchdog_helpers import SCRAPE_PASSWORD, TASK_0, FakeExporter


def test_the_reader_reads_a_page_with_basic_authentication(exporter_server: Tuple[str, type]) -> None:
    url, handler = exporter_server
    page = FakeExporter()
    page.set(TASK_0, 500, 100, 20)
    handler.page = page.page()
    handler.credentials = 'scraper:' + SCRAPE_PASSWORD
    reader = ExporterReader(url, 'scraper', SCRAPE_PASSWORD, timeout=5)
    assert task_readings(reader.read()) == {TASK_0: TaskReading(500, 120)}
    assert handler.accepts == ['text/plain; version=0.0.4']
    with pytest.raises(ExporterError) as refused:
        ExporterReader(url, 'scraper', 'wrong', timeout=5).read()
    assert str(refused.value) == 'GET %s answered HTTP 401' % url


def test_the_reader_rejects_a_page_it_cannot_read(exporter_server: Tuple[str, type]) -> None:
    url, handler = exporter_server
    handler.page = '<html>login</html>\n'
    with pytest.raises(ExporterError, match=r'not the Prometheus text format \(line 1: no metric name'):
        ExporterReader(url, timeout=5).read()
    handler.status = 500
    with pytest.raises(ExporterError, match='answered HTTP 500'):
        ExporterReader(url, timeout=5).read()


def test_the_reader_names_a_transport_error_without_credentials(closed_port_url: str) -> None:
    with pytest.raises(ExporterError) as error:
        ExporterReader(closed_port_url + '/metrics', 'scraper', SCRAPE_PASSWORD, timeout=2).read()
    assert str(error.value) == 'GET %s/metrics failed: ConnectionError' % closed_port_url
    assert SCRAPE_PASSWORD not in str(error.value)
