"""spark-submit entry point for the MM2 replication validator.

    spark-submit --jars <spark-kafka jars> --py-files mm2_validator.zip \
        mm2_validate.py --source-bootstrap ... --target-bootstrap ...
"""

import sys

from mm2_validator.cli import main

if __name__ == "__main__":
    sys.exit(main())
