"""Rewrite (or, with --check, verify) the generated blocks of the Markdown docs.

Two kinds of block, each between marker comments, so the text around them stays hand-written:

- ``<!-- BEGIN ARGUMENT SPECS ... -->`` .. ``<!-- END ARGUMENT SPECS -->`` in roles/<role>/README.md:
  the variable table of meta/argument_specs.yml, Ansible doc markup turned into Markdown. A role
  whose README lacks the block gets it appended (a new role gets a README).
- ``<!-- BEGIN INCLUDE <path> -->`` .. ``<!-- END INCLUDE -->`` in any doc: the file at <path>
  (relative to the checkout) quoted verbatim, e.g. the lab's MirrorMaker 2 model in docs/mirrormaker.md.

Usage: python scripts/gen_docs.py [--check]
--check writes nothing, names every stale block and exits 1 when there is one.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any, Callable

import yaml

ROOT = Path(__file__).resolve().parent.parent
COMMAND = "python scripts/gen_docs.py"

SPECS_BEGIN = f"<!-- BEGIN ARGUMENT SPECS: generated from meta/argument_specs.yml by {COMMAND} -->"
SPECS_END = "<!-- END ARGUMENT SPECS -->"
SPECS_BLOCK = re.compile(r"<!-- BEGIN ARGUMENT SPECS[^>]*-->\n(?P<body>.*?)<!-- END ARGUMENT SPECS -->", re.S)
INCLUDE_BLOCK = re.compile(r"<!-- BEGIN INCLUDE (?P<path>\S+) -->\n(?P<body>.*?)<!-- END INCLUDE -->", re.S)
FENCE_LANGUAGES = {".yml": "yaml", ".yaml": "yaml", ".json": "json", ".py": "python", ".properties": "properties"}
# Defaults longer than this are left to defaults/main.yml rather than widen the table.
MAX_DEFAULT_WIDTH = 60
_MISSING = object()

# Ansible doc markup (the forms ansible-doc understands). Semantic markup (O, V, RV, E, P)
# may escape ")" and "\" with a backslash; the older forms end at the first ")".
_MARKUP = re.compile(
    r"\b(?:(?P<sem>RV|[OVEP])\((?P<sem_arg>(?:[^\\)]|\\.)+)\)"
    r"|(?P<pair>[LR])\((?P<label>[^),]+),\s*(?P<target>[^)]+)\)"
    r"|(?P<simple>[CIBMU])\((?P<arg>[^)]+)\)"
    r"|(?P<rule>HORIZONTALLINE)\b)"
)


def code(text: str) -> str:
    """A Markdown code span that survives backticks and table cells."""
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    escaped = text.replace("|", "\\|")
    return f"{fence}{pad}{escaped}{pad}{fence}"


def _plain(text: str) -> str:
    """Text outside markup: keep Markdown from reading *, <...> or | as syntax."""
    return text.replace("|", "\\|").replace("*", "\\*").replace("<", "&lt;")


def _markup(match: re.Match[str]) -> str:
    if match["sem"]:
        value = re.sub(r"\\(.)", r"\1", match["sem_arg"])
        return code(value.split("#", 1)[0] if match["sem"] == "P" else value)
    if match["pair"]:
        label = _plain(match["label"].strip())
        return f"[{label}]({match['target'].strip()})" if match["pair"] == "L" else label
    if match["rule"]:
        return " "
    kind, arg = match["simple"], match["arg"]
    if kind == "I":
        return f"*{_plain(arg)}*"
    if kind == "B":
        return f"**{_plain(arg)}**"
    if kind == "U":
        return f"<{arg}>"
    return code(arg)  # C (a literal) and M (a module name)


def markup_to_markdown(text: str) -> str:
    """One line of Markdown from Ansible doc markup, safe inside a table cell."""
    out: list[str] = []
    position = 0
    for match in _MARKUP.finditer(text):
        out.append(_plain(text[position:match.start()]))
        out.append(_markup(match))
        position = match.end()
    out.append(_plain(text[position:]))
    return " ".join("".join(out).split())


def _description(option: dict[str, Any]) -> str:
    description = option.get("description", "")
    text = " ".join(description) if isinstance(description, list) else str(description)
    rendered = markup_to_markdown(text)
    if option.get("choices"):
        rendered += " One of: " + ", ".join(code(str(choice)) for choice in option["choices"]) + "."
    return rendered


def _default(option: dict[str, Any], fallback: Any) -> str:
    """The spec's default, else the literal (or short Jinja) value of defaults/main.yml."""
    if option.get("required"):
        return "required"
    if "default" in option:
        value = option["default"]
    elif fallback is not _MISSING:
        value = fallback
    else:
        return ""
    shown = value if isinstance(value, str) else json.dumps(value)
    if "\n" in shown.strip() or len(shown) > MAX_DEFAULT_WIDTH:
        return f"see {code('defaults/main.yml')}"
    return code(shown) if shown else code('""')


def _type(option: dict[str, Any]) -> str:
    kind = option.get("type", "str")
    return f"{kind} of {option['elements']}" if option.get("elements") else kind


def option_rows(options: dict[str, dict[str, Any]], defaults: dict[str, Any], prefix: str = "") -> list[str]:
    """Table rows of options, with their suboptions as parent[].child or parent.child."""
    rows: list[str] = []
    for name, option in options.items():
        fallback = defaults.get(name, _MISSING) if not prefix else _MISSING
        rows.append(f"| {code(prefix + name)} | {_type(option)} | {_default(option, fallback)} | {_description(option)} |")
        if option.get("options"):
            nested = f"{prefix}{name}[]." if option.get("type") == "list" else f"{prefix}{name}."
            rows += option_rows(option["options"], {}, nested)
    return rows


def argument_specs_table(role_dir: Path) -> str:
    """The generated body of a role README: one table per entry point."""
    specs = yaml.safe_load((role_dir / "meta" / "argument_specs.yml").read_text())["argument_specs"]
    defaults_file = role_dir / "defaults" / "main.yml"
    defaults = (yaml.safe_load(defaults_file.read_text()) or {}) if defaults_file.exists() else {}
    parts: list[str] = []
    for entry_point, spec in specs.items():
        if entry_point != "main" and spec is specs.get("main"):
            # A YAML alias of main: the same checks, run on their own before anything changes.
            parts.append(f"### Entry point {code(entry_point)}\n\nThe options of {code('main')}, checked with the role's "
                         "other input rules before the play changes anything.\n")
            continue
        if len(specs) > 1:
            parts.append(f"### Entry point {code(entry_point)}\n\n{markup_to_markdown(spec.get('short_description', ''))}\n")
        header = ["| Variable | Type | Default | Description |", "| --- | --- | --- | --- |"]
        parts.append("\n".join(header + option_rows(spec.get("options", {}), defaults)) + "\n")
    return "\n".join(parts)


def included_file(path: str, root: Path) -> str:
    """A file of the checkout as a fenced code block."""
    source = root / path
    if not source.is_file():
        raise FileNotFoundError(f"an INCLUDE block names {path}, which is not a file of the checkout")
    text = source.read_text()
    newline = "" if text.endswith("\n") else "\n"
    return f"```{FENCE_LANGUAGES.get(source.suffix, '')}\n{text}{newline}```\n"


def _replace(pattern: re.Pattern[str], text: str, render: Callable[[re.Match[str]], str],
             begin: Callable[[re.Match[str]], str], end: str) -> tuple[str, list[re.Match[str]]]:
    """Rewrite every block of a kind; also return the blocks that changed."""
    stale: list[re.Match[str]] = []

    def rewrite(match: re.Match[str]) -> str:
        body = f"\n{render(match)}\n"  # blank lines keep the markers out of the table or fence
        if body != match["body"]:
            stale.append(match)
        return f"{begin(match)}\n{body}{end}"

    return pattern.sub(rewrite, text), stale


def _readme_title(role_dir: Path) -> str:
    """The start of a new role's README: its name and short description."""
    main = yaml.safe_load((role_dir / "meta" / "argument_specs.yml").read_text())["argument_specs"].get("main", {})
    return f"# Role `kafka_dr.mm2.{role_dir.name}`\n\n{markup_to_markdown(main.get('short_description', ''))}\n"


def render_doc(path: Path, text: str, root: Path = ROOT) -> tuple[str, list[str]]:
    """A doc with its blocks regenerated, and what was stale in it."""
    stale: list[str] = []
    if path.name == "README.md" and (path.parent / "meta" / "argument_specs.yml").is_file():
        table = argument_specs_table(path.parent)
        if not SPECS_BLOCK.search(text):
            stale.append("no ARGUMENT SPECS block (the generator appends one)")
            text = (text or _readme_title(path.parent)).rstrip() + f"\n\n## Variables\n\n{SPECS_BEGIN}\n\n{table}\n{SPECS_END}\n"
        text, changed = _replace(SPECS_BLOCK, text, lambda _match: table, lambda _match: SPECS_BEGIN, SPECS_END)
        if changed:
            stale.append(f"the variable table differs from {path.parent.name}/meta/argument_specs.yml")
    text, changed = _replace(INCLUDE_BLOCK, text, lambda match: included_file(match["path"], root),
                             lambda match: f"<!-- BEGIN INCLUDE {match['path']} -->", "<!-- END INCLUDE -->")
    stale += [f"the quoted copy differs from {match['path']}" for match in changed]
    return text, stale


def doc_paths(root: Path = ROOT) -> list[Path]:
    """Every doc that may hold generated blocks: role READMEs (present or due) and the guides."""
    roles = [spec.parent.parent / "README.md" for spec in sorted(root.glob("roles/*/meta/argument_specs.yml"))]
    return roles + [root / "README.md"] + sorted(root.glob("docs/**/*.md"))


def stale_docs(root: Path = ROOT, write: bool = False) -> list[str]:
    """One message per stale block (or missing README); rewrites the docs when write is set."""
    problems: list[str] = []
    for path in doc_paths(root):
        current = path.read_text() if path.exists() else ""
        rendered, stale = render_doc(path, current, root)
        if rendered == current:
            continue
        where = path.relative_to(root)
        problems += [f"{where}: {what}" for what in stale] or [f"{where}: generated blocks differ"]
        if write:
            path.write_text(rendered)
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a generated block is stale")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout (default: the one holding this script)")
    args = parser.parse_args(argv)
    problems = stale_docs(args.root, write=not args.check)
    if not args.check:
        for path in dict.fromkeys(problem.split(":", 1)[0] for problem in problems):
            print(f"rewrote {path}")
        return 0
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"Regenerate with: {COMMAND}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
