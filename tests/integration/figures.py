"""Figures of the drill suites outside `make test`: one JSON line per drill, printed (pytest -s)
and appended to the suite's build/<suite>-figures.jsonl."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def record(figures_file: Path, label: str, run_id: str, name: str, **values: Any) -> None:
    line = json.dumps(dict(drill=name, run=run_id, **values), sort_keys=True)
    print(f"\n{label} {line}")
    figures_file.parent.mkdir(exist_ok=True)
    with figures_file.open("a", encoding="utf-8") as appended:
        appended.write(line + "\n")
