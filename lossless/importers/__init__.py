"""Inventories imported from a source of truth (NetBox, Nautobot)."""
