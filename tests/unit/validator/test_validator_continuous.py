"""Continuous verification's services in process: the unit's ExecStopPost hook and the exporter
(no Spark, no systemd)."""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request

import pytest

from mm2_validator import continuous
from mm2_validator.incremental import KINDS
from mm2_validator.shared import mm2_verification


def test_the_metrics_know_every_finding_kind_of_an_increment():
    assert set(mm2_verification.FINDING_KINDS) == set(KINDS)


def test_the_hook_counts_a_killed_run_and_keeps_the_report(tmp_path):
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / "latest.json").write_text(json.dumps({"incremental": {"run": 7}}))
    args = continuous.build_parser().parse_args(
        ["after-run", "--flow", "src-dst", "--dir", str(tmp_path), "--interval", "60", "--reports", str(reports), "--keep", "2"]
    )
    assert continuous.after_run(args, {"EXIT_CODE": "exited", "EXIT_STATUS": "1", "SERVICE_RESULT": "success"}) == 0
    assert continuous.after_run(args, {"EXIT_CODE": "killed", "EXIT_STATUS": "TERM", "SERVICE_RESULT": "signal"}) == 0
    assert [p.name for p in reports.iterdir()] == ["increment-00000007.json"]
    text = (tmp_path / "src-dst.runs.prom").read_text()
    assert 'kafka_dr_verification_failures_total{flow="src-dst"} 1' in text
    assert 'kafka_dr_verification_last_exit_status{flow="src-dst"} 143' in text


def test_the_exporter_serves_the_files_on_metrics_only(tmp_path):
    mm2_verification.after_run(str(tmp_path), "src-dst", 2, 60, 1.0)
    server = continuous.serve(str(tmp_path), "127.0.0.1", 0)
    try:
        base = "http://127.0.0.1:%d" % server.server_address[1]
        with urllib.request.urlopen(base + "/metrics", timeout=5) as answer:
            assert answer.headers["Content-Type"].startswith("text/plain; version=0.0.4")
            body = answer.read().decode()
        assert 'kafka_dr_verification_consecutive_failures{flow="src-dst"} 1' in body
        assert "kafka_dr_verification_exporter_file_errors_total 0" in body
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(base + "/other", timeout=5)
        assert missing.value.code == 404
    finally:
        server.shutdown()
        server.server_close()


def test_a_port_taken_is_refused_with_its_number(tmp_path, caplog):
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen(1)
    try:
        port = holder.getsockname()[1]
        args = continuous.build_parser().parse_args(["serve", "--dir", str(tmp_path), "--address", "127.0.0.1", "--port", str(port)])
        assert continuous.run_exporter(args) == 2
        assert "cannot listen on 127.0.0.1:%d" % port in caplog.text
    finally:
        holder.close()
