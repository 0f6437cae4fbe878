"""`make bench` (`python -m bench`) runs outside pytest: it gets here the import path that
pytest.ini gives the tests (.collections, the checkout as ansible_collections.kafka_dr.mm2), so
the lab helpers import the collection's modules as they do under pytest."""

import sys
from pathlib import Path

_COLLECTIONS = str(Path(__file__).resolve().parents[1] / ".collections")
if _COLLECTIONS not in sys.path:
    sys.path.append(_COLLECTIONS)
