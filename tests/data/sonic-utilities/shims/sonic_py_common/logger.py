"""Test shim of sonic_py_common.logger: gu_common subclasses Logger at import time."""

from __future__ import annotations


class Logger:
    LOG_PRIORITY_ERROR = 3
    LOG_PRIORITY_NOTICE = 5
    LOG_PRIORITY_INFO = 6
    LOG_PRIORITY_DEBUG = 7

    def __init__(self, log_identifier=None, **_kwargs):
        self.log_identifier = log_identifier

    def set_min_log_priority_debug(self):
        pass

    def log(self, priority, msg, also_print_to_console=False):
        pass
