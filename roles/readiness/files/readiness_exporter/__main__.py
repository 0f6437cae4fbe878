# -*- coding: utf-8 -*-
# Copyright: contributors to the kafka_dr.mm2 collection
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""`python -m readiness_exporter --config <file>`: the service the role's systemd unit runs."""

from .service import main

raise SystemExit(main())
