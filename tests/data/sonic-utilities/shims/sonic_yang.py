"""Test shim of sonic_yang: gu_common imports it at module level; the field-operation
validation the tests run does not use it (YANG is checked with lossless.vendors.sonic.yang)."""


class SonicYangException(Exception):
    pass
