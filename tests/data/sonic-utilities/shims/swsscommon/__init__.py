"""Test shim for swsscommon (not the real package). See ../../README.md."""
