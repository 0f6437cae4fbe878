"""The collection's rule modules the validator uses: MM2 topic naming, MM2's internal record
formats, Java properties files, the continuous verification's metrics.

They live in the collection's plugins/module_utils, where the modules and controller plugins
import them too. The replication_check role ships those very files into ``_shared/`` of this
package, so they travel with it (in the spark-submit zip as well); run from a checkout, the
package imports them from the collection.
"""

from __future__ import annotations

import importlib.util

# Module names in plugins/module_utils; the role's ship list and a unit test read this tuple.
SHARED_MODULES = ("java_properties", "mm2_naming", "mm2_records", "mm2_verification")

if importlib.util.find_spec("mm2_validator._shared") is not None:
    from mm2_validator._shared import java_properties, mm2_naming, mm2_records, mm2_verification
else:
    from ansible_collections.kafka_dr.mm2.plugins.module_utils import java_properties, mm2_naming, mm2_records, mm2_verification

__all__ = ["SHARED_MODULES", "java_properties", "mm2_naming", "mm2_records", "mm2_verification"]
