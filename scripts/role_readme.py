"""Print a role's variable table from its meta/argument_specs.yml (keeps READMEs in step).

Usage: python scripts/role_readme.py roles/<name>
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml


def variable_rows(spec: dict) -> list[str]:
    rows = ["| Variable | Type | Default | Description |", "| --- | --- | --- | --- |"]
    for name, option in spec["options"].items():
        default = option.get("default", "(derived, see defaults/main.yml)")
        description = option["description"]
        if isinstance(description, list):
            description = " ".join(description)
        choices = option.get("choices")
        if choices:
            description += " One of: " + ", ".join(f"`{choice}`" for choice in choices) + "."
        rows.append(f"| `{name}` | {option['type']} | `{default}` | {description} |")
    return rows


def main(role_dir: str) -> None:
    spec = yaml.safe_load((Path(role_dir) / "meta" / "argument_specs.yml").read_text())["argument_specs"]["main"]
    print("\n".join(variable_rows(spec)))


if __name__ == "__main__":
    main(sys.argv[1])
