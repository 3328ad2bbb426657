#!/usr/bin/env python3
"""Fake bnxt_setupcc.sh: -d DEV -i IF -m MODE -r PRIO -s DSCP -c CNP_PRIO -p CNP_DSCP -u 4."""

import getopt
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _fake import changed, save  # noqa: E402

options = dict(getopt.getopt(sys.argv[1:], "d:i:m:r:s:c:p:u:b:")[0])
mode, prio, dscp = int(options["-m"]), int(options["-r"]), options["-s"]
state = {"pfc": [prio] if mode in (1, 3) else [], "dscp_prio": {dscp: prio}}
save("bnxt", options["-i"], state)
changed(f"bnxt_setupcc.sh {' '.join(sys.argv[1:])}")
