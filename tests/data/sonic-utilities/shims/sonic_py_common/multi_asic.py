"""Test shim of sonic_py_common.multi_asic: the default (single-ASIC) namespace."""

DEFAULT_NAMESPACE = ""
