"""Test shim of sonic_yang_ext: imported by gu_common at module level, not used here."""
