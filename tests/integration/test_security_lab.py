"""The secured lab: no secret in the clear, least-privilege MirrorMaker 2 rights, ACL sync,
and refused plaintext, anonymous and wrongly authenticated access."""

from __future__ import annotations

import base64
import json
import subprocess
import time
from collections.abc import Iterator

import pytest

from ansible_collections.kafka_dr.mm2.plugins.module_utils.kafka_acls import AclBinding, parse_acl_listing
from tests.integration import ansible_run, lab

SECRET_NAMES = ("store", "connect", "mm2", "validator", "rest")
LAB_HOSTS = (*lab.LAB_BROKERS, *lab.CONNECT_WORKERS)
FLOW_SOURCE_CONNECTOR = "mm2-src-dst-source"
CONFIG_TOPIC = "connect-mm2-lab-configs"
# Role kafka_acls' record of the bindings it created (kafka_acls_state_dir on the cluster's first host).
SOURCE_ACL_RECORD = "/etc/kafka/broker/scram-state/acl-bindings.json"
VERBOSE_SITE_LOG = ansible_run.REPO_ROOT / "build" / "site-vvv.log"
# A host's journal (every field, binary ones too) and syslog files: only the patterns found come out.
# The patterns reach the host on stdin, into a root-only file removed at once.
HOST_LOG_MATCHES = ("umask 077; cat > /root/.itest-patterns; "
                    "{ journalctl --no-pager -o export; cat /var/log/syslog /var/log/messages 2>/dev/null; } "
                    "| grep -a -o -F -f /root/.itest-patterns | sort -u; rm -f /root/.itest-patterns")
# AnsibleModule logs "Invoked with ..." under the identifier ansible-<module name>.
FILE_SET_INVOCATIONS = "journalctl --no-pager -a -o short -t ansible-kafka_dr.mm2.file_set | grep -c 'Invoked with'"


class Secrets(dict):
    """The lab's secrets by name; its repr names them only, so a failing test cannot print them."""

    def __repr__(self) -> str:
        return f"Secrets({sorted(self)})"


@pytest.fixture(scope="module")
def lab_secrets(lab_brokers: tuple[str, str]) -> Secrets:
    secrets = Secrets({name: lab.lab_secret(name) for name in SECRET_NAMES})
    assert all(len(secret) >= 16 for secret in secrets.values())
    return secrets


def leaked(text: str | bytes, secrets: dict[str, str]) -> list[str]:
    """Names of the secrets that appear in the text."""
    data = text.encode() if isinstance(text, str) else text
    return [name for name, secret in secrets.items() if secret.encode() in data]


def exec_on(host: str, script: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(["docker", "exec", "-i", host, "sh", "-c", script], input=stdin, capture_output=True,
                          text=True, timeout=600, check=False)


def log_spellings(secrets: dict[str, str]) -> Secrets:
    """Each secret as a module's logged arguments could hold it: as is, in hex, and in base64 at each of
    the three byte offsets it can have in a larger file (the characters its neighbours change left out)."""
    spellings = Secrets()
    for name, secret in secrets.items():
        data = secret.encode()
        spellings.update({f"{name} (clear)": secret, f"{name} (hex)": data.hex(), f"{name} (HEX)": data.hex().upper()})
        for offset in range(3):
            encoded = base64.b64encode(b"\0" * offset + data).decode()
            spellings[f"{name} (base64+{offset})"] = encoded[4 if offset else 0:4 * ((offset + len(data)) // 3)]
    return spellings


# ---- no secret in the clear ---------------------------------------------------------------------

def test_connector_configs_from_the_rest_api_hold_placeholders_only(lab_secrets: dict[str, str]) -> None:
    configs = {name: lab.connector_config(name) for name in lab.connector_names()}
    assert FLOW_SOURCE_CONNECTOR in configs
    assert "${file:" in configs[FLOW_SOURCE_CONNECTOR]["source.cluster.sasl.jaas.config"]
    assert leaked(json.dumps(configs), lab_secrets) == []


def test_the_connect_configs_topic_holds_no_secret(lab_secrets: dict[str, str]) -> None:
    # Connect keeps its configs topic in one partition.
    stored = b"\n".join(key + b"\t" + (value or b"") for key, value in lab.read_partition(lab.TARGET_BROKER, CONFIG_TOPIC))
    assert FLOW_SOURCE_CONNECTOR.encode() in stored and b"${file:" in stored
    assert leaked(stored, lab_secrets) == []


def test_no_process_command_line_holds_a_secret(lab_secrets: dict[str, str]) -> None:
    for host in LAB_HOSTS:
        listing = exec_on(host, "for f in /proc/[0-9]*/cmdline; do tr '\\0' ' ' < \"$f\"; echo; done 2>/dev/null")
        assert "java" in listing.stdout, (host, listing.stderr)
        assert leaked(listing.stdout, lab_secrets) == [], host


def test_no_world_readable_file_holds_a_secret(lab_secrets: dict[str, str]) -> None:
    # The patterns reach each host on stdin, into a root-only file removed at once.
    search = ("umask 077; cat > /root/.itest-patterns; "
              "find / -xdev \\( -path /proc -o -path /sys \\) -prune -o -type f -perm -004 -size -50M -print0 "
              "| xargs -0 -r grep -l -F -f /root/.itest-patterns; rm -f /root/.itest-patterns")
    patterns = "\n".join(lab_secrets.values()) + "\n"
    for host in LAB_HOSTS:
        found = exec_on(host, search, stdin=patterns)
        assert found.stdout.split() == [], (host, found.stdout)
    # The secrets are on the hosts, in files only root and the service group read.
    mm2_path = f"{lab.WORKER_SECRETS_DIR}/mm2.properties"
    mm2_file = exec_on(lab.CONNECT_WORKERS[0], f"stat -c '%a %U:%G' {mm2_path}; cat {mm2_path}")
    assert mm2_file.stdout.startswith("640 root:kafka"), mm2_file.stdout[:40]
    assert lab_secrets["mm2"] in mm2_file.stdout


def test_verbose_site_output_holds_no_secret(lab_secrets: dict[str, str]) -> None:
    """`make integration` deploys with `ansible-playbook -vvv site.yml` into build/site-vvv.log;
    run standalone, the test deploys itself. The validation role's client settings follow."""
    if not VERBOSE_SITE_LOG.exists():
        run = ansible_run.playbook("site.yml", "-vvv", "--skip-tags", "validate", timeout=1800)
        assert run.returncode == 0, run.output[-3000:]
        VERBOSE_SITE_LOG.parent.mkdir(exist_ok=True)
        VERBOSE_SITE_LOG.write_text(run.output)
    site_output = VERBOSE_SITE_LOG.read_text()
    assert "PLAY RECAP" in site_output and "kafka_dr.mm2.kafka_acls" in site_output
    assert leaked(site_output, lab_secrets) == []
    install = ansible_run.playbook("playbooks/validate.yml", "-vvv", "--tags", "replication_check_install")
    assert install.returncode == 0, install.output[-3000:]
    assert "package and client settings (secrets stay in files of root and the verification's group)" in install.output
    assert leaked(install.output, lab_secrets) == []


def test_no_host_log_holds_a_secret(lab_secrets: dict[str, str]) -> None:
    """AnsibleModule logs every module's arguments to the host's journal: file_set's file contents
    (key stores, JAAS files, the MM2 secret files) and a connector's inline secrets must be masked there."""
    spellings = log_spellings(lab_secrets)
    patterns = "\n".join(spellings.values()) + "\n"
    for host in LAB_HOSTS:
        # The journal holds the deployment's module runs, so an empty search proves something.
        invocations = exec_on(host, FILE_SET_INVOCATIONS)
        assert int(invocations.stdout.strip() or 0) > 0, (host, invocations.stderr[-500:])
        found = exec_on(host, HOST_LOG_MATCHES, stdin=patterns)
        assert leaked(found.stdout, spellings) == [], host


# Each exporter the lab runs, as its host reaches it (no authentication on the lab's own network).
EXPORTERS = tuple((host, 9404) for host in LAB_HOSTS) + tuple((host, 9405) for host in lab.CONNECT_WORKERS)
FETCH_METRICS = ("python3 -c 'import sys, urllib.request; "
                 "sys.stdout.write(urllib.request.urlopen(\"http://%s:%d/metrics\", timeout=30).read().decode())'")


def test_no_exporter_serves_a_secret(lab_secrets: dict[str, str]) -> None:
    """The JMX exporters carry the JVMs' MBeans (client configs among them) and the watchdog its settings'
    names: neither may show a secret in any spelling."""
    spellings = log_spellings(lab_secrets)
    for host, port in EXPORTERS:
        served = exec_on(host, FETCH_METRICS % (host, port))
        assert served.returncode == 0 and "# TYPE" in served.stdout, (host, port, served.stderr[-500:])
        assert leaked(served.stdout, spellings) == [], (host, port)


def test_no_report_on_the_controller_holds_a_secret(lab_secrets: dict[str, str]) -> None:
    """What the playbooks leave on the controller: failover, readiness and validation reports, state files."""
    spellings = log_spellings(lab_secrets)
    files = [path for folder in ("reports", "build") for path in (ansible_run.REPO_ROOT / folder).rglob("*")
             if path.is_file() and path.suffix in (".json", ".jsonl", ".txt", ".md", ".html", ".csv")]
    assert files, "no report on the controller to search"
    found = {str(path): leaked(path.read_bytes(), spellings) for path in files}
    assert {path: names for path, names in found.items() if names} == {}


def test_module_diff_masks_an_inline_secret(lab_secrets: dict[str, str]) -> None:
    """A connector config with a literal password (what the guides do): check mode with diff
    shows the key but never the value."""
    config = {
        "connector.class": "org.apache.kafka.connect.mirror.MirrorHeartbeatConnector",
        "source.cluster.alias": "itest-inline", "target.cluster.alias": "dst",
        **lab.client_settings("source.cluster.", lab.SOURCE_BROKER),
        **lab.client_settings("target.cluster.", lab.TARGET_BROKER),
        "target.cluster.sasl.jaas.config": ('org.apache.kafka.common.security.scram.ScramLoginModule required '
                                            'username="mm2" password="{{ lab_mm2_password }}";'),
    }
    result = ansible_run.module(lab.CONNECT_WORKERS[0], "kafka_dr.mm2.connector", {
        "url": [f"https://{lab.CONNECT_WORKERS[0]}:8083"], "url_username": "operator",
        "url_password": "{{ lab_rest_password }}", "ca_path": lab.LAB_CA,
        "name": f"itest-inline-{int(time.time())}", "config": config, "validate": False,
    }, "--check", "--diff")
    assert result.get("changed") is True, result
    assert "target.cluster.sasl.jaas.config" in json.dumps(result["diff"])
    assert leaked(json.dumps(result), lab_secrets) == []


# ---- least privilege and ACL sync ----------------------------------------------------------------

def test_mm2_writes_only_its_heartbeats_on_the_source(lab_brokers: tuple[str, str]) -> None:
    """Read-only on the source but for the heartbeats topic the flow's heartbeat connector writes there.
    Judged on the bindings the deployment owns (role kafka_acls' record), each of them live on the
    cluster: other tests grant User:mm2 more for reverse flows of their own while this one runs."""
    record = subprocess.run(["docker", "exec", lab.SOURCE_BROKER, "cat", SOURCE_ACL_RECORD],
                            capture_output=True, text=True, check=True).stdout
    owned = {AclBinding.from_dict(item) for item in json.loads(record)["bindings"]}
    mm2_owned = {binding for binding in owned if binding.principal == "User:mm2"}
    live = parse_acl_listing(lab.kafka_run(lab.SOURCE_BROKER, lab.ACL_COMMAND, "--bootstrap-server",
                                           lab.bootstrap(lab.SOURCE_BROKER), "--list", "--principal", "User:mm2"))
    assert mm2_owned and mm2_owned <= live, sorted(binding.describe() for binding in mm2_owned - live)
    operations: dict[str, set[str]] = {}
    for binding in mm2_owned:
        assert binding.permission == "ALLOW", binding.describe()
        operations.setdefault(f"{binding.resource_type}:{binding.name}", set()).add(binding.operation)
    assert operations.pop("TOPIC:heartbeats") == {"CREATE", "DESCRIBE", "DESCRIBE_CONFIGS", "WRITE"}, operations
    assert set().union(*operations.values()) == {"READ", "DESCRIBE", "DESCRIBE_CONFIGS"}, operations
    assert "mm2-offset-syncs.src.internal" in lab.topic_names(lab.TARGET_BROKER)
    assert not [topic for topic in lab.topic_names(lab.SOURCE_BROKER) if topic.startswith("mm2-offset-syncs")]


@pytest.fixture
def acl_topic(lab_brokers: tuple[str, str]) -> Iterator[str]:
    topic = f"foo.acl.{int(time.time())}"
    lab.create_topic(lab.SOURCE_BROKER, topic, 1)
    try:
        yield topic
    finally:
        for host, name in ((lab.SOURCE_BROKER, topic), (lab.TARGET_BROKER, f"src.{topic}")):
            lab.kafka_run(host, lab.ACL_COMMAND, "--bootstrap-server", lab.bootstrap(host), "--remove", "--force",
                          "--topic", name)
        lab.delete_mirrored_topics(lab.SOURCE_BROKER, [topic], lab.TARGET_BROKER, [f"src.{topic}"],
                                   FLOW_SOURCE_CONNECTOR)


def test_a_topic_acl_on_the_source_appears_on_the_target(acl_topic: str) -> None:
    lab.change_acl(lab.SOURCE_BROKER, True, "User:itest-reader", ["Read"], "--topic", acl_topic)
    remote = f"src.{acl_topic}"
    lab.wait_until(lambda: "principal=User:itest-reader" in lab.acl_bindings(lab.TARGET_BROKER, "--topic", remote),
                   180, f"the ACL of {acl_topic} on {remote}")
    assert "operation=READ" in lab.acl_bindings(lab.TARGET_BROKER, "--topic", remote)


# ---- refused access -------------------------------------------------------------------------------

def test_rest_api_refuses_anonymous_and_wrong_credentials(lab_brokers: tuple[str, str]) -> None:
    assert lab.connect_rest("GET", "/connectors", anonymous=True)[0] == 401
    assert lab.connect_rest("GET", "/connectors", auth=("operator", "not-the-password"))[0] == 401
    assert lab.connect_rest("GET", "/connectors")[0] == 200


def test_a_connector_overrides_only_the_allowlisted_client_settings(lab_brokers: tuple[str, str]) -> None:
    """A REST user cannot make a connector's clients load code of their choosing (interceptors, callback
    handlers, metric reporters): the workers allow only the overrides MM2's connectors set."""
    config = {"connector.class": "org.apache.kafka.connect.mirror.MirrorHeartbeatConnector", "name": "itest-override",
              "source.cluster.alias": "src", "target.cluster.alias": "dst",
              "source.cluster.bootstrap.servers": "src-kafka-1:9094", "target.cluster.bootstrap.servers": "dst-kafka-1:9094"}

    def errors(overrides: dict[str, str]) -> dict[str, list[str]]:
        status, body = lab.connect_rest("PUT", "/connector-plugins/MirrorHeartbeatConnector/config/validate",
                                        dict(config, **overrides))
        assert status == 200, body
        return {entry["value"]["name"]: entry["value"]["errors"] for entry in body["configs"] if entry["value"]["errors"]}

    refused = errors({"producer.override.interceptor.classes": "org.example.Exfiltrate",
                      "producer.override.metric.reporters": "org.apache.kafka.common.metrics.JmxReporter"})
    assert sorted(refused) == ["producer.override.interceptor.classes", "producer.override.metric.reporters"]
    assert all("'Allowlist' policy does not allow" in message for messages in refused.values() for message in messages)
    assert errors({"producer.override.linger.ms": "5", "producer.override.bootstrap.servers": "dst-kafka-1:9094"}) == {}


def test_no_worker_secret_is_where_connector_placeholders_read(lab_secrets: dict[str, str]) -> None:
    """Connect's config providers serve every connector: they may read the secrets directory only, and no
    file there holds a secret of the worker's own (its Kafka account, its stores, its REST accounts)."""
    worker_secrets = {name: lab_secrets[name] for name in ("connect", "store", "rest")}
    for worker in lab.CONNECT_WORKERS:
        properties = exec_on(worker, "cat /etc/kafka/connect/connect-distributed.properties").stdout
        for provider in ("file", "directory"):
            assert f"config.providers.{provider}.param.allowed.paths={lab.WORKER_SECRETS_DIR}\n" in properties, worker
        listing = exec_on(worker, f"find {lab.WORKER_SECRETS_DIR} -type f -print")
        names = sorted(path.rsplit("/", 1)[-1] for path in listing.stdout.split())
        assert "mm2.properties" in names and not {"worker.properties", "kafka-client.keytab"} & set(names), (worker, names)
        contents = exec_on(worker, f"find {lab.WORKER_SECRETS_DIR} -type f -exec cat {{}} +").stdout
        assert leaked(contents, worker_secrets) == [], worker
        # The worker itself reads them from its properties: no placeholder of its own is left there.
        assert "${file:" not in properties and leaked(properties, {"connect": lab_secrets["connect"]}) == ["connect"], worker


def test_brokers_refuse_plaintext_and_a_wrong_password(lab_brokers: tuple[str, str]) -> None:
    worker = lab.CONNECT_WORKERS[0]
    probe = exec_on(worker, "python3 -c 'import socket; socket.create_connection((\"src-kafka-1\", 9092), 5)'")
    assert probe.returncode != 0 and "refused" in probe.stderr.lower(), probe.stderr[-500:]
    wrong = ("security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\nssl.truststore.type=PEM\n"
             f"ssl.truststore.location={lab.LAB_CA}\n"
             "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
             'username="mm2" password="not-the-password";\n')
    attempt = exec_on(worker, "umask 077; cat > /root/.itest-wrong.properties; "
                              f"{lab.KAFKA_RUN} {lab.TOPIC_COMMAND} --bootstrap-server src-kafka-1:{lab.CLIENT_PORT} "
                              "--command-config /root/.itest-wrong.properties --list; status=$?; "
                              "rm -f /root/.itest-wrong.properties; exit $status", stdin=wrong)
    assert attempt.returncode != 0
    assert "Authentication failed" in attempt.stdout + attempt.stderr, attempt.stderr[-1500:]
