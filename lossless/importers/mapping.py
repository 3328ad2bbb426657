"""The mapping file of `lossless import netbox|nautobot`: what NetBox or Nautobot cannot say.

NetBox holds the devices, their interfaces, speeds, MTUs and the cables with their lengths;
it does not hold the fabric's RoCE policy, the ASIC inside a device type, which OS a platform
is rendered as, or our tier of a device role. The mapping says those, and nothing else:

    fabric:            the inventory's fabric: (name, description, policy, cable_types)
    roles:             the inventory's roles: (policy per tier)
    port_profiles:     the inventory's port_profiles:
    device_roles:      NetBox role slug -> leaf | spine | super-spine | server
    platforms:         NetBox platform slug -> sonic | cumulus | eos | nxos | junos
    device_types:      NetBox device type slug -> {asic, platform, gearbox_delay_ns} or {nic_model}
    port_profile_rules: [{role, peer_role, speed, profile}], the first match names a port's profile
    tags:              NetBox tag slug -> {policy: ...} merged into the device's policy

It is checked against schemas/netbox-mapping.schema.json, whose policy parts refer to the
inventory schema's own definitions (one definition of a policy, not two).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from referencing import Registry, Resource

from lossless.asics import catalogue
from lossless.errors import InputError, Problem
from lossless.inventory.schema import InventoryValidator, suggest
from lossless.inventory.yamlsource import Document, load_yaml
from lossless.system.resources import resource_path

MAPPING_SCHEMA = "netbox-mapping.schema.json"


@dataclass(frozen=True)
class DeviceType:
    asic: str | None = None
    platform: str | None = None
    gearbox_delay_ns: float | None = None
    nic_model: str | None = None


@dataclass(frozen=True)
class ProfileRule:
    profile: str
    role: str | None = None
    peer_role: str | None = None
    speed: str | None = None


@dataclass
class Mapping:
    file: str
    fabric: dict[str, Any]
    roles: dict[str, Any]
    port_profiles: dict[str, Any]
    device_roles: dict[str, str]
    platforms: dict[str, str]
    device_types: dict[str, DeviceType]
    profile_rules: list[ProfileRule] = field(default_factory=list)
    tags: dict[str, dict[str, Any]] = field(default_factory=dict)


@cache
def mapping_validator() -> Any:
    """The mapping schema, with the inventory schema registered for its `$ref`s."""
    inventory = json.loads(resource_path("schemas", "inventory.schema.json").read_text())
    schema = json.loads(resource_path("schemas", MAPPING_SCHEMA).read_text())
    registry: Registry[Any] = Registry().with_resource(
        inventory["$id"], Resource.from_contents(inventory)
    )
    return InventoryValidator(schema, registry=registry)


def mapping_problems(document: Document) -> list[Problem]:
    """Every way the document breaks the schema, located at its node (an unknown key at
    the key itself)."""
    problems = []
    for error in mapping_validator().iter_errors(document.data):
        path = tuple(error.absolute_path)
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            known = set(error.schema.get("properties", {}))
            problems += [
                document.problem(
                    (*path, key), f"unknown key {key!r}{suggest(key, known)}", key=True
                )
                for key in error.instance
                if key not in known
            ]
        else:
            problems.append(document.problem(path, error.message))
    return problems


def load_mapping(path: str | Path) -> Mapping:
    """Read and validate the mapping file; InputError naming file, line and column."""
    document = load_yaml(path)
    problems = mapping_problems(document)
    if problems:
        raise InputError(problems)
    data = document.data
    rules = data.get("port_profile_rules", [])
    problems = _unknown_profiles(document, rules, data.get("port_profiles", {}))
    problems += _unknown_asics(document, data["device_types"])
    if problems:
        raise InputError(problems)
    return Mapping(
        file=str(path),
        fabric=data["fabric"],
        roles=data.get("roles", {}),
        port_profiles=data.get("port_profiles", {}),
        device_roles=data["device_roles"],
        platforms=data["platforms"],
        device_types={key: DeviceType(**value) for key, value in data["device_types"].items()},
        profile_rules=[ProfileRule(**rule) for rule in rules],
        tags={key: value["policy"] for key, value in data.get("tags", {}).items()},
    )


def _unknown_asics(document: Document, device_types: dict[str, Any]) -> list[Problem]:
    """Each device type's ASIC is one of the catalogue's (the imported inventory has no
    asics: section of its own)."""
    known = catalogue()
    return [
        document.problem(
            ("device_types", name, "asic"),
            f"unknown ASIC {kind['asic']!r}{suggest(kind['asic'], known)}",
        )
        for name, kind in device_types.items()
        if "asic" in kind and kind["asic"] not in known
    ]


def _unknown_profiles(
    document: Document, rules: list[dict[str, Any]], profiles: dict[str, Any]
) -> list[Problem]:
    return [
        document.problem(
            ("port_profile_rules", index, "profile"),
            f"profile {rule['profile']!r} is not in port_profiles",
        )
        for index, rule in enumerate(rules)
        if rule["profile"] not in profiles
    ]
