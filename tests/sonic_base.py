"""What a SONiC switch already has before our fragment is applied (for YANG validation).

The rendered config_db.json is a fragment of what lossless owns; on a switch it is merged
into the running CONFIG_DB, which holds the port lanes and the buffer pools and lossy/egress
profiles of the SKU's buffer templates. These are the minimal such objects (SONiC's TH/MLNX
buffers_defaults templates, docs/reference/sonic.md section 4) so the fragment's references resolve.
"""

from __future__ import annotations

import copy
import re
from typing import Any


def port_lanes(name: str, lanes: int) -> str:
    """SONiC names a port after its first SerDes lane: Ethernet8 uses lanes 8, 9, ..."""
    first = int(re.sub(r"\D", "", name) or 0)
    return ",".join(str(first + i) for i in range(lanes))


def merged_with_device(fragment: dict[str, Any], lanes: dict[str, int]) -> dict[str, Any]:
    merged = copy.deepcopy(fragment)
    for port, fields in merged.get("PORT", {}).items():
        fields.setdefault("lanes", port_lanes(port, lanes[port]))
        fields.setdefault("admin_status", "up")
    pools = merged.setdefault("BUFFER_POOL", {})
    pools.setdefault("ingress_lossless_pool", {"type": "ingress", "mode": "dynamic"})
    pools.setdefault(
        "egress_lossless_pool", {"type": "egress", "mode": "static", "size": "15982720"}
    )
    pools.setdefault("egress_lossy_pool", {"type": "egress", "mode": "dynamic", "size": "9243812"})
    profiles = merged.setdefault("BUFFER_PROFILE", {})
    profiles.setdefault(
        "egress_lossless_profile",
        {"pool": "egress_lossless_pool", "size": "1518", "static_th": "15982720"},
    )
    profiles.setdefault(
        "egress_lossy_profile", {"pool": "egress_lossy_pool", "size": "1518", "dynamic_th": "3"}
    )
    return merged
