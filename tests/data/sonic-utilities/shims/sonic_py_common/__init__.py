"""Test shim for sonic-py-common (not the real package): only what the vendored
generic_config_updater modules import. See ../../README.md."""
