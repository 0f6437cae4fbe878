"""Allows ``python -m mm2_validator ...``."""

import sys

from mm2_validator.cli import main

sys.exit(main())
