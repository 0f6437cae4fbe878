#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

# The action plugin plugins/action/mm2_plan.py does the work, on the controller; this file documents it.

from __future__ import annotations

DOCUMENTATION = r'''
---
module: mm2_plan
short_description: Plan MirrorMaker 2 flows into connector configs, and derive what they must produce
version_added: 0.1.0
description:
  - Computes, on the controller, what the MirrorMaker 2 model of the inventory (C(mm2_clusters), C(mm2_flows)) means.
    Nothing is contacted and nothing changes; the role C(kafka_dr.mm2.mirrormaker) deploys and checks what it returns.
  - O(operation=plan) checks every cluster and flow and renders, per flow, the configs of its MirrorSourceConnector,
    MirrorCheckpointConnector and MirrorHeartbeatConnector (every value a string, as Connect stores it; secrets only as
    C(${file:...}) placeholders). Every problem of the model is reported at once and fails the task.
  - The placeholders need a C(FileConfigProvider) named C(file) on the workers that may read the secret files
    (O(config_providers)); without one the plan refuses, naming the settings that need secrets, unless O(inline_secrets)
    puts the values themselves into the configs to deploy (RV(inline_configs)). Then a warning says that Kafka Connect
    keeps them in clear in its config topic, and the task's output is hidden (the registered result keeps everything).
  - A secret written in clear where a reference belongs (a C(password=) of a cluster's C(sasl_jaas_config), a password,
    key or C(basic.auth.user.info) in C(client_config) or in a flow's settings) is refused, naming the cluster or flow,
    the setting and how to refer to the secret instead, unless O(inline_secrets) accepts it (with a warning).
  - O(operation=expect) takes a plan and the topics of each source cluster and returns the topics MM2 must create on
    each cluster (remote topics, checkpoints, offset syncs, heartbeats) and which connectors must have tasks.
  - O(operation=log_append_time) takes the replicated heartbeats topics that O(operation=expect) returned and the output
    of Kafka's C(TopicCommand --describe) for them, and returns those whose C(message.timestamp.type) is not
    C(LogAppendTime) (the replication latency is measured with broker timestamps).
  - O(operation=orphans) takes a plan and the connectors of a Connect cluster (from M(kafka_dr.mm2.connector_info)) and
    returns those the plan's naming marks as its own that no flow asks for any more.
  - O(operation=describe_flow) returns what a check of one flow needs, namely the aliases and bootstrap servers of its clusters,
    a regular expression of the source topics it replicates, its replication policy and separator, and the names and
    place of its checkpoints, offset-syncs and heartbeats topics (the inputs of role C(kafka_dr.mm2.replication_check)).
  - O(operation=failover) takes a plan as well and returns what M(kafka_dr.mm2.mm2_failover) needs for one flow of it, namely the
    connection settings of MM2's own clients on each side (secrets as C(${file:...}) placeholders) and the names of the
    flow's connectors, besides the flow's aliases, topics, naming and checkpoints topic.
  - O(operation=readiness) returns what M(kafka_dr.mm2.mm2_readiness) needs for one flow of a plan, namely what
    O(operation=failover) returns, the flow's offset-syncs topic and where it lives, the group filter its checkpoint
    connector runs with, its C(offset.lag.max), the principals of the applications that consume and produce its
    topics (its C(consumers) and C(producers) options), and the internal topics to check (RV(internal_topics)), MM2's
    and, with O(connect_properties), the Connect cluster's.
  - O(operation=reverse_flow) returns the flow that copies back what a flow's target wrote while it was the primary
    (source and target swapped, same topics, groups and options; the one declared in O(flows) when there is one), for a
    failback under the default replication policy.
  - Topic names follow MM2's DefaultReplicationPolicy and IdentityReplicationPolicy, including the separator
    (C(replication.policy.separator)) in the internal topics' names unless
    C(replication.policy.internal.topic.separator.enabled) is false.
author:
  - kafka_dr.mm2 maintainers (!UNKNOWN)
options:
  operation:
    description: What to compute.
    type: str
    choices: [plan, expect, orphans, describe_flow, failover, readiness, reverse_flow, log_append_time]
    default: plan
  clusters:
    description:
      - Cluster alias -> connection settings (C(bootstrap_servers), C(security_protocol), SASL and TLS options, secret file
        references); docs/mirrormaker.md lists every option. Usually C(mm2_clusters).
      - Required with O(operation=plan), O(operation=describe_flow), O(operation=failover) and O(operation=readiness).
    type: raw
  flows:
    description:
      - The flows, each from one cluster alias (C(source)) to another (C(target)), with their options. Usually C(mm2_flows).
      - Required with O(operation=plan), O(operation=describe_flow), O(operation=failover) and O(operation=readiness).
    type: raw
  flow_defaults:
    description: Flow options every flow inherits, over O(builtin_defaults). Usually C(mm2_flow_defaults).
    type: raw
  builtin_defaults:
    description:
      - Built-in value of every flow option; its keys are the options a flow may set (the role passes
        C(mirrormaker_flow_builtin_defaults)).
      - Required with O(operation=plan). With O(operation=describe_flow), MM2's own defaults apply when omitted.
    type: raw
  connector_prefix:
    description: Prefix of the connector names, C(<prefix><flow name>-source|checkpoint|heartbeat).
    type: str
    default: mm2-
  secrets_dir:
    description: Directory the workers' config providers may read; every secret file a cluster names must be in it.
    type: str
    default: /etc/kafka/connect/secrets
  secret_file_names:
    description: Names of the secret files the caller writes into O(secrets_dir) (names only, never their contents).
    type: list
    elements: str
    default: []
  config_providers:
    description:
      - With O(operation=plan), the config providers the target Connect cluster's workers declare (C(config.providers)
        of their worker properties), each with its C(name), its C(class) and optionally C(allowed_paths), the paths it
        may read (C(config.providers.<name>.param.allowed.paths), a list or one comma-separated string).
      - The placeholders of the configs need a C(org.apache.kafka.common.config.provider.FileConfigProvider) named
        C(file) whose C(allowed_paths), if given, hold every file they read.
      - Omitted, the workers are taken to have the C(file) provider of role C(kafka_dr.mm2.connect_worker); an empty
        list declares none.
    type: raw
  inline_secrets:
    description:
      - With O(operation=plan), put the values of O(secret_values) into the connector configs instead of the
        placeholders that read them (JAAS-escaped inside a JAAS line's quotes, as the provider would resolve them), for
        workers without a C(FileConfigProvider). Kafka Connect stores them in clear in its config topic; the task warns.
      - The configs to deploy are then RV(inline_configs); RV(connectors) keep their placeholders, and each names the
        keys that hold a value in RV(connectors[].secret_keys), for the O(kafka_dr.mm2.connector#module:secret_keys) of
        the module that deploys it.
      - Also accepts secrets the clusters and flows give in clear, which are refused otherwise; RV(connectors) show them
        masked, RV(inline_configs) holds them.
    type: bool
    default: false
  secret_values:
    description:
      - With O(inline_secrets), the secret files' contents, file name -> mapping of key -> value (the role passes
        C(mirrormaker_secret_files)). Ignored otherwise; never returned.
    type: dict
    default: {}
  deploy_host:
    description:
      - The Connect worker the plan is for; flows whose C(connect_cluster) group does not hold it are listed in
        RV(flows_elsewhere) instead of being planned. Defaults to the task's C(inventory_hostname).
    type: str
  play_hosts:
    description:
      - With O(operation=plan), the hosts of the play, which run the flows without C(connect_cluster) (the Connect workers
        role C(kafka_dr.mm2.mirrormaker) deploys through). Defaults to the task's C(ansible_play_hosts_all).
      - A Connect cluster of one worker, these hosts or a C(connect_cluster) group, is a warning of the task; it is not
        highly available.
    type: list
    elements: str
  plan:
    description: A result of O(operation=plan) (its RV(flows), RV(managed_pattern) and RV(desired_names) are read).
      Required with O(operation=expect), O(operation=orphans), O(operation=failover) and O(operation=readiness).
    type: dict
  topics:
    description: With O(operation=expect), the topics of each source cluster, as a mapping of alias to list of topic names.
    type: dict
    default: {}
  timeout_seconds:
    description: With O(operation=expect), seconds to wait for a topic; remote topics get their flow's refresh interval on top.
    type: int
    default: 120
  present:
    description:
      - With O(operation=expect), the topics each cluster holds now (alias to list of names); RV(missing_topics) then
        lists, per cluster given, the expected topics it lacks.
    type: dict
    default: {}
  existing:
    description: With O(operation=orphans), the connectors of the Connect cluster (RV(kafka_dr.mm2.connector_info#module:connectors)).
    type: dict
  flow:
    description:
      - With O(operation=describe_flow), O(operation=failover), O(operation=readiness) and O(operation=reverse_flow), the flow to describe,
        C(<source>-><target>) (for example C(src->dst)), or the
        flow's name when several flows join the same two clusters.
    type: str
  connect_properties:
    description:
      - With O(operation=readiness), the properties of the Connect cluster's workers as role C(kafka_dr.mm2.connect_worker)
        renders them (its C(connect-distributed.properties) as a mapping). Their C(config.storage.topic),
        C(offset.storage.topic), C(status.storage.topic) and C(*.storage.replication.factor) add the Connect cluster's
        internal topics to RV(internal_topics), and their Kafka client settings make RV(connect_client).
    type: dict
    default: {}
  wanted:
    description:
      - With O(operation=log_append_time), the topics that must use LogAppendTime, per cluster alias
        (RV(log_append_time_topics) of O(operation=expect)). Required then.
    type: dict
  described:
    description:
      - With O(operation=log_append_time), the standard output of C(TopicCommand --describe --topic <pattern>) run on
        each cluster alias with RV(log_append_time_patterns) or RV(expected_patterns).
    type: dict
    default: {}
attributes:
  check_mode:
    support: full
    description: Computes the same answer in check mode; it never changes anything.
  diff_mode:
    support: none
    description: Nothing changes, so there is no diff.
  platform:
    support: full
    platforms: all
    description: Runs on the controller only.
notes:
  - An unexpected failure of the plugin itself fails the task with a one-line message; C(-vvv) shows the traceback.
seealso:
  - module: kafka_dr.mm2.connector
  - module: kafka_dr.mm2.connector_info
'''

EXAMPLES = r'''
- name: Plan the flows of the inventory
  kafka_dr.mm2.mm2_plan:
    clusters: "{{ mm2_clusters }}"
    flows: "{{ mm2_flows }}"
    flow_defaults: "{{ mm2_flow_defaults | default({}) }}"
    builtin_defaults: "{{ mirrormaker_flow_builtin_defaults }}"
    secret_file_names: "{{ mirrormaker_secret_files.keys() | list }}"
  run_once: true
  register: mm2_plan

- name: Deploy the planned connectors
  kafka_dr.mm2.connector:
    url: http://127.0.0.1:8083
    name: "{{ item.name }}"
    # With inline_secrets, the config holding the values, and the keys to mask.
    config: "{{ mm2_plan.inline_configs[item.name] | default(item.config) }}"
    secret_keys: "{{ item.secret_keys }}"
  loop: "{{ mm2_plan.connectors }}"
  loop_control:
    label: "{{ item.name }}"

- name: Topics MM2 must create, given the topics of the sources
  kafka_dr.mm2.mm2_plan:
    operation: expect
    plan: "{{ mm2_plan }}"
    topics:
      src: [foo.orders, foo.payments]
  register: mm2_expected

- name: Connectors of flows that left the inventory
  kafka_dr.mm2.mm2_plan:
    operation: orphans
    plan: "{{ mm2_plan }}"
    existing: "{{ connect_listing.connectors }}"
  register: mm2_orphans

- name: What a check of the flow src -> dst needs
  kafka_dr.mm2.mm2_plan:
    operation: describe_flow
    flow: src->dst
    clusters: "{{ mm2_clusters }}"
    flows: "{{ mm2_flows }}"
    flow_defaults: "{{ mm2_flow_defaults | default({}) }}"
  register: mm2_flow
'''

RETURN = r'''
errors:
  description: Every problem of the model (O(operation=plan), O(operation=describe_flow)); the task fails when there is one.
  returned: plan, describe_flow
  type: list
  elements: str
  sample: ['flow #1 (src -> src): source and target are the same cluster "src"; a flow replicates between two clusters']
flows:
  description: The flows the O(deploy_host) runs, each with its name, C(source), C(target), C(connect_cluster) and C(connectors).
  returned: plan
  type: list
  elements: dict
connectors:
  description: Connectors to deploy, in deploy order (source, checkpoint, heartbeat of each flow).
  returned: plan
  type: list
  elements: dict
  contains:
    name:
      description: Connector name.
      type: str
      sample: mm2-src-dst-source
    kind:
      description: C(source), C(checkpoint) or C(heartbeat).
      type: str
    flow:
      description: Name of the flow.
      type: str
    config:
      description: The connector config, every value a string, secrets as placeholders (see RV(inline_configs)).
      type: dict
    secret_keys:
      description:
        - The keys whose values RV(inline_configs) fills with secrets (with O(inline_secrets)); empty otherwise.
      type: list
      elements: str
    secret_files:
      description: Paths of the files the config to deploy reads on the workers (its placeholders, keytabs).
      type: list
      elements: str
    secret_file_names:
      description: The same files relative to O(secrets_dir).
      type: list
      elements: str
desired_names:
  description: Names of RV(connectors).
  returned: plan
  type: list
  elements: str
managed_pattern:
  description: Regular expression of the connector names this naming produces (what pruning may consider).
  returned: plan
  type: str
  sample: ^mm2\-.+-(source|checkpoint|heartbeat)$
clusters:
  description: Per alias used by the planned flows, C(bootstrap_servers), C(endpoints) and C(client_properties) for Kafka's tools.
  returned: plan
  type: dict
endpoints:
  description: Every bootstrap C(host) and C(port) of those clusters, with its C(alias).
  returned: plan
  type: list
  elements: dict
broker_probes:
  description:
    - For each of those clusters, the options of M(kafka_dr.mm2.kafka_broker_versions) that ask its brokers for their
      release, C(alias), C(bootstrap), C(security_protocol) and, over TLS, C(ssl_check_hostname), the trust store
      (C(ssl_truststore_location), C(ssl_truststore_type), C(ssl_truststore_password) as its C(${file:...})
      placeholder) and a PEM key store as C(ssl_certfile).
  returned: plan
  type: list
  elements: dict
source_aliases:
  description: Aliases of the source clusters of the planned flows.
  returned: plan
  type: list
  elements: str
secret_files:
  description: Every secret file the configs to deploy read, and those the role's own Kafka tools read with RV(clusters).
  returned: plan
  type: list
  elements: str
inline_configs:
  description:
    - With O(inline_secrets), connector name -> the config to deploy instead of its RV(connectors[].config), the secret
      values put in. Empty without O(inline_secrets) or when no config reads a secret.
  returned: plan
  type: dict
store_files:
  description:
    - The key and trust stores to install from the controller (C(ssl_truststore_src), C(ssl_keystore_src) of
      O(clusters)), each with C(alias), C(kind) (C(truststore) or C(keystore)), C(src) and C(dest).
  returned: plan
  type: list
  elements: dict
flows_elsewhere:
  description: Flows of other Connect clusters (C(connect_cluster)), left to the plays of those clusters.
  returned: plan
  type: list
  elements: str
connect_clusters:
  description: The Connect clusters that run RV(flows); one of a single worker is a warning of the task (not highly available).
  returned: plan
  type: list
  elements: dict
  contains:
    name:
      description: The C(connect_cluster) group, or V(null) for the hosts of the play.
      type: str
    workers:
      description: Its hosts, V(null) when the play's hosts are not known.
      type: list
      elements: str
    flows:
      description: Names of its flows.
      type: list
      elements: str
missing_topics:
  description: With O(present), the expected topics each of those clusters lacks.
  returned: expect
  type: dict
  sample: {dst: [src.orders]}
expected_topics:
  description: Alias -> topics MM2 must create there.
  returned: expect
  type: dict
  sample: {"dst": ["src.checkpoints.internal", "src.foo.orders", "src.heartbeats"], "src": ["heartbeats", "mm2-offset-syncs.dst.internal"]}
expected_patterns:
  description:
    - Alias -> one regular expression of its RV(expected_topics), for C(TopicCommand --describe --topic), which shows
      those topics with their configs (parsed by filter P(kafka_dr.mm2.topic_names#filter) and O(described)).
  returned: expect
  type: dict
  sample: {"dst": "src\\.checkpoints\\.internal|src\\.foo\\.orders|src\\.heartbeats"}
timeouts:
  description: Alias -> seconds to wait for its topics.
  returned: expect
  type: dict
min_tasks:
  description: Connector -> tasks it must run (a checkpoint connector without groups runs none).
  returned: expect
  type: dict
unverified_flows:
  description: Flows whose topics cannot be predicted (custom replication policy or topic filter).
  returned: expect
  type: list
  elements: str
log_append_time_topics:
  description:
    - Alias -> the replicated heartbeats topics (C(<source><separator>heartbeats)) MM2 must create there; they need
      C(message.timestamp.type=LogAppendTime) for the replication latency to be measured.
  returned: expect
  type: dict
  sample: {"dst": ["src.heartbeats"]}
log_append_time_patterns:
  description: Alias -> one regular expression of its RV(log_append_time_topics), for C(TopicCommand --describe --topic).
  returned: expect
  type: dict
  sample: {"dst": "src\\.heartbeats"}
to_alter:
  description: The topics described with a timestamp type other than LogAppendTime, each with C(alias) and C(topic).
  returned: log_append_time
  type: list
  elements: dict
absent:
  description: Alias -> wanted topics the description does not show (not created yet, or not visible to the account).
  returned: log_append_time
  type: dict
orphans:
  description: Connectors to delete when pruning.
  returned: orphans
  type: list
  elements: str
name:
  description: Name of the described flow.
  returned: describe_flow, failover, readiness
  type: str
source_alias:
  description: Alias of the flow's source cluster.
  returned: describe_flow, failover, readiness
  type: str
target_alias:
  description: Alias of the flow's target cluster.
  returned: describe_flow, failover, readiness
  type: str
source_bootstrap:
  description: Bootstrap servers of the source cluster, comma-separated.
  returned: describe_flow
  type: str
target_bootstrap:
  description: Bootstrap servers of the target cluster, comma-separated.
  returned: describe_flow
  type: str
topics_regex:
  description:
    - One regular expression, matched against whole topic names, of the source topics the flow replicates (its topics minus
      its excludes, internal topics and, under the default policy, topics that came from the target).
  returned: describe_flow, failover, readiness
  type: str
replication_policy:
  description: C(default) or C(identity).
  returned: describe_flow, failover, readiness
  type: str
separator:
  description: The flow's replication.policy.separator.
  returned: describe_flow, failover, readiness
  type: str
checkpoints_topic:
  description: The checkpoints topic on the target.
  returned: describe_flow, failover, readiness
  type: str
  sample: src.checkpoints.internal
offset_syncs_location:
  description: C(source) or C(target), the cluster that holds the offset-syncs topic.
  returned: describe_flow, readiness
  type: str
offset_syncs_topic:
  description: The offset-syncs topic, named after the cluster it does not live on.
  returned: describe_flow, readiness
  type: str
  sample: mm2-offset-syncs.dst.internal
offset_syncs_bootstrap:
  description: Bootstrap servers of the cluster holding the offset-syncs topic.
  returned: describe_flow
  type: str
heartbeats_topic:
  description: Name of the heartbeats topic the flow's heartbeat connector writes (on the cluster RV(heartbeats_alias)).
  returned: describe_flow
  type: str
  sample: heartbeats
heartbeats_location:
  description: C(source) or C(target), the flow's C(heartbeats_topic_location).
  returned: describe_flow
  type: str
  sample: source
heartbeats_alias:
  description: Alias of the cluster holding the heartbeats topic the flow's heartbeat connector writes.
  returned: describe_flow
  type: str
  sample: src
remote_heartbeats_topic:
  description: Where the source's heartbeats land on the target (prefixed under both policies).
  returned: describe_flow
  type: str
  sample: src.heartbeats
exactly_once:
  description: The flow's source connector runs with exactly-once support (its C(exactly_once), or
    C(exactly.once.support=required) in its source C(extra_config)); else MM2 delivers at least once.
  returned: describe_flow
  type: bool
  sample: false
source_client:
  description: Connection settings of MM2's client of the source cluster (its C(source.cluster.*) settings).
  returned: failover, readiness
  type: dict
target_client:
  description: Connection settings of MM2's client of the target cluster (its C(target.cluster.*) settings).
  returned: failover, readiness
  type: dict
flow_connectors:
  description: The names of the flow's connectors.
  returned: failover, readiness
  type: list
  elements: str
groups:
  description: The regular expressions of the groups the flow's checkpoint connector translates (its C(groups)).
  returned: readiness
  type: list
  elements: str
groups_exclude:
  description: Its C(groups.exclude), MM2's default (C(console-consumer-.*), C(connect-.*), C(__.*)) when the flow sets none.
  returned: readiness
  type: list
  elements: str
offset_lag_max:
  description: The source connector's C(offset.lag.max).
  returned: readiness
  type: int
consumers:
  description: The flow's C(consumers), each as C(principal) and C(groups).
  returned: readiness
  type: list
  elements: dict
producers:
  description: The flow's C(producers), each as C(principal) and C(transactional_ids).
  returned: readiness
  type: list
  elements: dict
internal_topics:
  description:
    - The internal topics M(kafka_dr.mm2.mm2_readiness) checks, each with C(name), C(side) (C(source), C(target) or
      C(connect), the Connect cluster's Kafka), C(kind) (C(config), C(offset), C(status), C(checkpoints), C(offset-syncs),
      C(heartbeats)), C(compacted) (must be C(cleanup.policy=compact)), C(replication_factor) (as configured, V(-1) for the
      broker's default) and C(setting) (what configures it).
    - The Connect cluster's topics only with O(connect_properties).
  returned: readiness
  type: list
  elements: dict
  sample: [{"name": "src.checkpoints.internal", "side": "target", "kind": "checkpoints", "compacted": true,
            "replication_factor": -1, "setting": "checkpoints.topic.replication.factor"}]
connect_client:
  description:
    - The Kafka client settings of the Connect cluster's workers (C(bootstrap.servers), C(security.*), C(sasl.*), C(ssl.*);
      secrets as the C(${file:...}) placeholders of their properties), empty without O(connect_properties).
  returned: readiness
  type: dict
reverse_flow:
  description: The reverse flow, as a flow of O(flows).
  returned: reverse_flow
  type: dict
declared:
  description: The reverse flow is declared in O(flows) (else it was derived from the flow).
  returned: reverse_flow
  type: bool
reference:
  description: The reverse flow as C(<source>-><target>).
  returned: reverse_flow
  type: str
'''
