# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pure functions over connector configs: parse, normalise, compare, mask, map removed keys."""

from __future__ import annotations

import json
import re
from typing import Any, Collection, Dict, List, Mapping, Optional, Set, Tuple

from ansible_collections.kafka_dr.mm2.plugins.module_utils.connect_values import connect_string

MASK = '********'

# Keys whose values are secrets (matched anywhere in the key, case-insensitive).
_SECRET_KEY_RE = re.compile(
    r'password|passwd|secret|token|credential|jaas\.config|keystore\.key|private\.key|user\.info|api\.?key',
    re.IGNORECASE,
)
# Keys that match the pattern above but name a location or a kind, not a secret.
_NOT_SECRET_SUFFIXES = ('.url', '.location', '.type')
# A value made only of config provider references (${file:/path:key}, ${env:VAR} ...)
# is resolved on the worker, so showing it leaks nothing.
_PLACEHOLDER_ONLY_RE = re.compile(r'^\s*(\$\{[A-Za-z0-9_.-]+:[^}]*\}\s*)+$')
# A quoted option of a JAAS line (password="..."), its escapes kept; and the escapes Kafka's parser reads.
_JAAS_OPTION_RE = re.compile(r'([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*"((?:[^"\\\n\r]|\\.)*)"')
_JAAS_UNESCAPES = {'n': '\n', 'r': '\r', 't': '\t'}

# Removed in Kafka 4.0, with their replacements.
REMOVED_KEYS = {
    'topics.blacklist': 'topics.exclude',
    'groups.blacklist': 'groups.exclude',
    'config.properties.blacklist': 'config.properties.exclude',
}
# The replacements arrived in Kafka 2.8 (KIP-629): MirrorMaker 2 before it reads only the old names.
REPLACEMENTS_SINCE = (2, 8)
MIRROR_CLASS_PREFIX = 'org.apache.kafka.connect.mirror.'

_ENVELOPE_KEYS = {'name', 'config'}


class ConfigError(ValueError):
    """Bad connector config input, reported before anything is sent."""


# ---- input ---------------------------------------------------------------

def load_config_document(raw: Any) -> Tuple[Dict[str, Any], Optional[str]]:
    """Accept a dict or a JSON document, bare or as {"name": ..., "config": {...}}.

    Returns the config map and the name the envelope carried (None when bare).
    """
    document = _parse_json_if_text(raw)
    if not isinstance(document, dict):
        raise ConfigError('config must be a mapping or a JSON object, got %s' % type(document).__name__)
    if not isinstance(document.get('config'), dict):
        return document, None
    extra_keys = sorted(set(document) - _ENVELOPE_KEYS)
    if extra_keys:
        raise ConfigError('config envelope may only hold "name" and "config"; unexpected: %s' % ', '.join(extra_keys))
    envelope_name = document.get('name')
    return document['config'], None if envelope_name is None else str(envelope_name)


def _parse_json_if_text(raw: Any) -> Any:
    if not isinstance(raw, str):
        return raw
    try:
        return json.loads(raw)
    except ValueError as exc:
        raise ConfigError('config is a string but not a valid JSON document: %s' % exc) from None


def check_names_agree(name: str, envelope_name: Optional[str], config: Mapping[str, Any]) -> None:
    """The module's `name` must equal the envelope's and the config's `name` when they are given."""
    for origin, other in (('the JSON envelope', envelope_name), ('config', config.get('name'))):
        if other is not None and str(other) != name:
            raise ConfigError('name "%s" in %s differs from the connector name "%s"' % (other, origin, name))


# ---- normalisation ---------------------------------------------------------

def stringify_value(key: str, value: Any) -> str:
    """Render a value the way Connect stores it: every value is a string."""
    try:
        return connect_string(value)
    except TypeError as exc:
        hint = '; remove the key instead' if value is None else ''
        raise ConfigError('config key "%s" %s%s' % (key, exc, hint)) from None


def is_class_key(key: str) -> bool:
    """Connect parses these as class names and trims them, so surrounding spaces mean nothing."""
    return key == 'connector.class' or key.endswith('.converter') or key.endswith('.class')


def normalise_config(config: Mapping[str, Any], name: str) -> Dict[str, str]:
    """Desired config as Connect stores it: string values, trimmed class names, `name` set."""
    normalised: Dict[str, str] = {}
    for key, value in config.items():
        text = stringify_value(str(key), value)
        normalised[str(key)] = text.strip() if is_class_key(str(key)) else text
    normalised['name'] = name
    return normalised


def normalise_stored(config: Mapping[str, Any]) -> Dict[str, str]:
    """Stored config seen through the same lens, so a stored ' com.Foo' equals 'com.Foo'."""
    return {str(key): (str(value).strip() if is_class_key(str(key)) else str(value)) for key, value in config.items()}


# ---- comparison -------------------------------------------------------------

def diff_configs(current: Mapping[str, str], desired: Mapping[str, str]) -> Dict[str, List[str]]:
    """Whole-config comparison: keys changed, added and removed (each sorted)."""
    return {
        'changed': sorted(key for key in desired if key in current and current[key] != desired[key]),
        'added': sorted(key for key in desired if key not in current),
        'removed': sorted(key for key in current if key not in desired),
    }


def has_differences(differences: Mapping[str, List[str]]) -> bool:
    return any(differences.values())


# ---- secrets ----------------------------------------------------------------

def is_secret_key(key: str) -> bool:
    return bool(_SECRET_KEY_RE.search(key)) and not key.lower().endswith(_NOT_SECRET_SUFFIXES)


def is_placeholder(value: Any) -> bool:
    return isinstance(value, str) and bool(_PLACEHOLDER_ONLY_RE.match(value))


def is_secret_entry(key: str, value: Any, secret_keys: Collection[str] = ()) -> bool:
    """A value to hide: its key names a secret (or is one of `secret_keys`, which a caller knows to hold
    one), and it is more than config provider references."""
    return (key in secret_keys or is_secret_key(key)) and not is_placeholder(value) and value not in ('', None)


def mask_config(config: Optional[Mapping[str, Any]], secret_keys: Collection[str] = ()) -> Dict[str, Any]:
    """Copy of a config with secret values replaced; placeholders stay visible."""
    if not config:
        return {}
    return {key: (MASK if is_secret_entry(key, value, secret_keys) else value) for key, value in config.items()}


def mask_config_document(raw: Any, secret_keys: Collection[str] = ()) -> Any:
    """The config option as given (a mapping or JSON text, bare or in an envelope) with its secret values
    masked, for a log. A text that is not a JSON object is masked whole: what in it is secret is unknown."""
    if raw is None:
        return None
    try:
        document = _parse_json_if_text(raw)
    except ConfigError:
        return MASK
    if not isinstance(document, Mapping):
        return MASK
    masked = _mask_mapping(document, secret_keys)
    if isinstance(document.get('config'), Mapping):
        masked['config'] = _mask_mapping(document['config'], secret_keys)
    return masked


def _mask_mapping(config: Mapping[Any, Any], secret_keys: Collection[str]) -> Dict[str, Any]:
    # A mapping from YAML may have keys that are not strings yet.
    return mask_config({str(key): value for key, value in config.items()}, secret_keys)


def jaas_unescape(text: str) -> str:
    """A quoted JAAS option value as Kafka's parser reads it (a backslash takes the next character)."""
    return re.sub(r'\\(.)', lambda match: _JAAS_UNESCAPES.get(match.group(1), match.group(1)), text, flags=re.DOTALL)


def jaas_secrets(line: str) -> Set[str]:
    """The secrets inside a JAAS line (password="...", clientSecret="..."), as written and as read,
    so that a message quoting only the password is scrubbed too."""
    found: Set[str] = set()
    for option, quoted in _JAAS_OPTION_RE.findall(line):
        if is_secret_key(option) and quoted and not is_placeholder(quoted):
            found.update({quoted, jaas_unescape(quoted)})
    return found


def secret_values(config: Optional[Mapping[str, Any]], secret_keys: Collection[str] = ()) -> Set[str]:
    """Literal secret values, so the caller can scrub them from any text it outputs."""
    if not config:
        return set()
    values: Set[str] = set()
    for key, value in config.items():
        if is_secret_entry(key, value, secret_keys):
            values.add(str(value))
            values.update(jaas_secrets(str(value)))
    return values


# ---- versions and removed keys -----------------------------------------------

def kafka_version(worker_version: Optional[str]) -> Optional[Tuple[int, int]]:
    """(major, minor) of the Apache Kafka a worker runs, from GET / `version`.

    Confluent Platform reports its own version with a -ccs/-ce suffix; from 7.0
    on its major is the Kafka major plus 4 (7.5 ships Kafka 3.5, 8.0 ships 4.0).
    """
    match = re.match(r'^\s*(\d+)\.(\d+)', worker_version or '')
    if not match:
        return None
    major, minor = int(match.group(1)), int(match.group(2))
    if re.search(r'-(ccs|ce)\b', worker_version or '') and major >= 7:
        major -= 4
    return major, minor


def check_removed_key_conflicts(config: Mapping[str, Any]) -> None:
    """Old and new spelling of the same setting together is ambiguous on any version."""
    both = [old for old, new in REMOVED_KEYS.items() if old in config and new in config]
    if both:
        pairs = ', '.join('%s and %s' % (old, REMOVED_KEYS[old]) for old in both)
        raise ConfigError('config sets both the removed and the current key: %s; keep only the current one' % pairs)


def map_removed_keys(config: Mapping[str, Any], version: Optional[Tuple[int, int]]) -> Tuple[Dict[str, Any], List[str]]:
    """Send the *.blacklist / *.exclude keys under the name the worker's MirrorMaker 2 reads (it ignores
    the other silently): on Kafka >= 4 the removed *.blacklist keys are renamed to *.exclude; on a
    MirrorMaker 2 connector of a worker before 2.8 the *.exclude keys are renamed to *.blacklist.

    Other and unknown versions get the config unchanged. Returns (config, warnings).
    """
    check_removed_key_conflicts(config)
    if version is not None and version < REPLACEMENTS_SINCE and str(config.get('connector.class', '')).strip().startswith(MIRROR_CLASS_PREFIX):
        return _renamed(config, {new: old for old, new in REMOVED_KEYS.items()},
                        'config key %%s arrived in Kafka 2.8; sent as %%s to this %d.%d worker' % version)
    if version is None or version[0] < 4:
        return dict(config), []
    return _renamed(config, REMOVED_KEYS, 'config key %s was removed in Kafka 4.0; sent as %s')


def _renamed(config: Mapping[str, Any], renames: Mapping[str, str], warning: str) -> Tuple[Dict[str, Any], List[str]]:
    mapped: Dict[str, Any] = {}
    warnings: List[str] = []
    for key, value in config.items():
        new_key = renames.get(key)
        if new_key:
            warnings.append(warning % (key, new_key))
        mapped[new_key or key] = value
    return mapped, warnings
