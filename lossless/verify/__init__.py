"""`lossless verify`: the running fabric's operational state and counters judged against the
plan (docs/verify.md). collect.py reads each switch's show-command outputs (saved in a folder
or asked live) through its OS's reader into observed.DeviceState, and saves and loads
snapshots; judge.py sets each planned port's state beside its plan, its earlier snapshot and
its link peer; rules.py holds the rules (LL301-LL311) over those views."""
