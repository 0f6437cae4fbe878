"""to_properties renders what java.util.Properties reads back."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafka_dr.mm2.plugins.filter.properties import to_properties


def test_sorted_lines_and_java_value_spelling() -> None:
    rendered = to_properties({"b.key": 5, "a.key": True, "c.key": ["x", "y"], "d.key": False})
    assert rendered == "a.key=true\nb.key=5\nc.key=x,y\nd.key=false\n"


def test_none_removes_a_key() -> None:
    assert to_properties({"keep": "1", "drop": None}) == "keep=1\n"


def test_separators_in_keys_and_leading_value_characters_are_escaped() -> None:
    rendered = to_properties({"a=b:c d": " lead", "path": "C:\\dir", "eq": "=x", "multi": "one\ntwo"})
    assert "a\\=b\\:c\\ d=\\ lead\n" in rendered
    assert "path=C:\\\\dir\n" in rendered
    assert "eq=\\=x\n" in rendered
    assert "multi=one\\ntwo\n" in rendered


def test_jaas_value_keeps_inner_equals_and_quotes() -> None:
    jaas = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="u" password="${file:/s:p}";'
    assert to_properties({"sasl.jaas.config": jaas}) == f"sasl.jaas.config={jaas}\n"


def test_non_ascii_is_unicode_escaped() -> None:
    assert to_properties({"client.id": "caf\u00e9"}) == "client.id=caf\\u00e9\n"


def test_rejects_non_mapping() -> None:
    with pytest.raises(AnsibleFilterError):
        to_properties(["a=b"])  # type: ignore[arg-type]
