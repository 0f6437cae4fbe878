"""Offline stand-in for the pip bootstrap script that ansible-test downloads.

ansible-test creates one virtual environment per sanity test and fetches a
get-pip script from a host this machine cannot reach. This does the same job
with the standard library's ensurepip and then installs the requested pins
(pip, setuptools, wheel) from the package index.
"""

import ensurepip
import os
import subprocess
import sys

GET_PIP_ONLY_FLAGS = {"--no-setuptools", "--no-wheel"}

requested = [arg for arg in sys.argv[1:] if arg not in GET_PIP_ONLY_FLAGS]
# ensurepip points PIP_CONFIG_FILE at /dev/null in this process; the install
# below must see the machine's pip configuration (index, CA bundle) again.
environment = dict(os.environ)
ensurepip.bootstrap(upgrade=True)
subprocess.check_call([sys.executable, "-m", "pip", "install", "-q", *requested], env=environment)
