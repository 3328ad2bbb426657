"""Test shim of sonic_py_common.device_info: the switch the validators think they run on.

The real functions read /etc/sonic/sonic_version.yml and the platform; here the test sets
VERSION_INFO (asic_type and build_version, the two keys field_operation_validators reads)
and CHASSIS before calling the validators."""

from __future__ import annotations

VERSION_INFO: dict[str, str] = {"asic_type": "unknown", "build_version": ""}
CHASSIS = False


def get_sonic_version_info() -> dict[str, str]:
    return dict(VERSION_INFO)


def is_chassis() -> bool:
    return CHASSIS
