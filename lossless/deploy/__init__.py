"""Before a maintenance window: what will change on each switch (offline against backups,
or live through napalm), and a safe push."""
