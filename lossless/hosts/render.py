"""`lossless render --hosts`: the host end of every link, per server.

For each server: `<server>.sh`, a shell script that sets its NICs (through each NIC vendor's
tools: lossless/hosts/vendors.py, templates/hosts/); `<server>.nicconfig.yaml`, NVIDIA
nic-configuration-operator resources for its ConnectX/BlueField NICs; `<server>.nccl.env`,
the NCCL/UCX environment that matches the NICs' RoCE class. Plus `collect-host-state.sh`,
which saves a host's state for `lossless lint --host-state`. Models lossless does not render
are listed per model in the result's notes (and as comments in the script).
"""

from __future__ import annotations

import io
import re
import textwrap
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.scalarstring import LiteralScalarString

from lossless.errors import InputError, Problem
from lossless.hosts import nccl_env, nvidia
from lossless.hosts.values import describe, traffic_class
from lossless.hosts.vendors import INTERFACE_NAME, host_vendor
from lossless.plan import FabricPlan, NicPlan
from lossless.system.resources import resource_path
from lossless.text.grammar import first_few
from lossless.vendors.grouping import group
from lossless.vendors.rendering import environment

COLLECTOR = "collect-host-state.sh"
# A server name becomes a file name and a Kubernetes node label value (63 characters, alnum
# at both ends): the name must be usable as both.
SERVER_FILE_NAME = re.compile(r"[A-Za-z0-9]([A-Za-z0-9_.-]{0,61}[A-Za-z0-9])?")


@dataclass
class HostFiles:
    files: dict[str, str] = field(default_factory=dict)  # file name -> text
    notes: list[str] = field(default_factory=list)  # what is not rendered, and why


def problem_at(source: str, message: str) -> Problem:
    """A Problem at a plan source "FILE:LINE:COL"."""
    file, line, column = [*source.rsplit(":", 2), "1", "1"][:3]
    try:
        return Problem(file, int(line), int(column), "", message)
    except ValueError:
        return Problem(source, 1, 1, "", message)


def _names_ok(server: str, nics: list[NicPlan]) -> list[Problem]:
    found = []
    if not SERVER_FILE_NAME.fullmatch(server):
        found.append(
            problem_at(
                nics[0].source,
                f"server name {server!r} cannot be a file name and node label: "
                "letters, digits, '.', '_', '-', at most 63",
            )
        )
    found += [
        problem_at(nic.source, f"{server}:{nic.name}: {nic.name!r} is not a Linux interface name")
        for nic in nics
        if not INTERFACE_NAME.match(nic.name) or nic.name in (".", "..")
    ]
    return found


def _script(
    fabric: FabricPlan, server: str, rendered: list[tuple[NicPlan, ModuleType]], skipped: list[str]
) -> str:
    vendors = list(dict.fromkeys(module for _, module in rendered))
    commands = {name: why for module in vendors for name, why in module.COMMANDS.items()}
    return (
        environment()
        .get_template("hosts/host.sh.j2")
        .render(
            server=server,
            fabric=fabric.name,
            vendors=[{"template": module.TEMPLATE} for module in vendors],
            commands=sorted(commands.items()),
            nics=[
                {"template": module.TEMPLATE, "title": describe(nic), "nic": module.context(nic)}
                for nic, module in rendered
            ],
            not_supported=skipped,
        )
    )


def _environment_file(
    fabric: FabricPlan, server: str, nics: list[NicPlan]
) -> tuple[str | None, list[Problem]]:
    entries, problems = nccl_env.environment(nics)
    if problems:
        return None, [problem_at(nics[0].source, f"{server}: {p}") for p in problems]
    if not entries:
        return None, []
    dscp = next(n.roce_dscp for n in nics if n.roce_dscp is not None)
    text = (
        environment()
        .get_template(nccl_env.TEMPLATE)
        .render(
            server=server,
            fabric=fabric.name,
            dscp=dscp,
            traffic_class=traffic_class(dscp),
            entries=entries,
            notes=nccl_env.notes(nics),
        )
    )
    return text, []


def _operator_file(
    fabric: FabricPlan, server: str, nics: list[NicPlan]
) -> tuple[str | None, list[str]]:
    version = fabric.nic_operator.get("version")  # fabric.nic_operator: release, namespace
    namespace = fabric.nic_operator.get("namespace")
    documents, notes = nvidia.operator_documents(server, nics, version, namespace)
    if not documents:
        return None, notes
    header = nvidia.operator_header(server, documents, nics, version)
    text = (
        environment()
        .get_template("hosts/nicconfig.yaml.j2")
        .render(
            server=server,
            fabric=fabric.name,
            header=[line for text in header for line in textwrap.wrap(text, 98)],
            documents=nvidia.operator_yaml(documents).rstrip("\n"),
        )
    )
    return text, notes


def render_hosts(fabric: FabricPlan, servers: list[str] | None = None) -> HostFiles:
    """Every selected server's files; InputError (nothing rendered) if a NIC's settings cannot
    be said with its vendor's tools or a name cannot be a file name."""
    result = HostFiles()
    problems: list[Problem] = []
    unsupported: dict[str, tuple[str, list[str]]] = {}  # model -> (reason, NICs)
    scripts: dict[str, str] = {}  # server -> its script
    vendors: list[ModuleType] = []  # the NIC vendors of every script
    for server, nics in group(fabric.planned_nics().values(), lambda n: n.server).items():
        if servers and server not in servers:
            continue
        problems += _names_ok(server, nics)
        rendered: list[tuple[NicPlan, ModuleType]] = []
        skipped: list[str] = []
        for nic in nics:
            module = host_vendor(nic.model)
            if isinstance(module, str):
                unsupported.setdefault(nic.model or "(no model)", (module, []))[1].append(
                    f"{server}:{nic.name}"
                )
                skipped.append(f"{describe(nic)}: not supported by lossless: {module}")
                continue
            problems += [
                problem_at(nic.source, f"{server}:{nic.name} ({module.NAME}): {message}")
                for message in module.problems(nic)
            ]
            rendered.append((nic, module))
        if problems:
            continue
        if rendered:
            scripts[server] = _script(fabric, server, rendered, skipped)
            result.files[f"{server}.sh"] = scripts[server]
            vendors = list(dict.fromkeys([*vendors, *(module for _, module in rendered)]))
        env_text, env_problems = _environment_file(fabric, server, nics)
        problems += env_problems
        if env_text:
            result.files[f"{server}.nccl.env"] = env_text
        nvidia_nics = [nic for nic, module in rendered if module is nvidia]
        if nvidia_nics:
            operator_text, notes = _operator_file(fabric, server, nvidia_nics)
            result.notes += notes
            if operator_text:
                result.files[f"{server}.nicconfig.yaml"] = operator_text
    if problems:
        raise InputError(problems)
    for model, (reason, where) in unsupported.items():
        result.notes.insert(0, f"not supported: {model} ({first_few(where, 4)}): {reason}")
    if result.files:
        result.files[COLLECTOR] = resource_path("templates", "hosts", COLLECTOR).read_text()
    if scripts:
        result.files.update(_reapply_files(fabric, scripts, vendors, whole=not servers))
        if servers:
            result.notes.append(
                f"{DAEMONSET} is written only for the whole fleet (without --server): "
                "applied for some servers, it would remove the others' scripts and pods"
            )
    return result


# Re-applying after a reboot or a driver reload (the settings live in the running driver): a
# systemd unit and a udev rule for every server, and a DaemonSet for Kubernetes clusters.
SCRIPT_PATH = "/usr/local/sbin/lossless-roce.sh"  # where the unit expects the server's script
SERVICE = "lossless-roce.service"
RULES = "90-lossless-roce.rules"  # after 80-net-setup-link.rules has named the interface
DAEMONSET = "lossless-roce.daemonset.yaml"
NAMESPACE = "lossless-roce"
# NVIDIA's DOCA full runtime image: the base image of Mellanox/nic-configuration-operator's
# nic-configuration-daemon (Dockerfile.nic-configuration-daemon), which runs mlnx_qos in it.
IMAGE = "nvcr.io/nvidia/doca/doca:3.1.0-full-rt-host"
INTERVAL = 300  # seconds between the DaemonSet's runs
CONFIGMAP_BYTES = 900_000  # of a ConfigMap's data; the API server takes at most 1 MiB
# The PCI driver of each NIC vendor's devices (udev DRIVERS=="...").
DRIVERS = {"hosts/nvidia.sh.j2": "mlx5_core", "hosts/broadcom.sh.j2": "bnxt_en"}


def _reapply_files(
    fabric: FabricPlan, scripts: dict[str, str], vendors: list[ModuleType], whole: bool
) -> dict[str, str]:
    """lossless-roce.service, its udev rule and, for the `whole` fleet only (a DaemonSet of
    some servers would remove the others' pods when applied), the DaemonSet."""
    templates = environment()
    common = {"fabric": fabric.name, "script": SCRIPT_PATH, "rules": RULES}
    drivers = [
        {"name": module.NAME, "driver": DRIVERS[module.TEMPLATE]}
        for module in sorted(vendors, key=lambda m: DRIVERS[m.TEMPLATE])
    ]
    files = {
        SERVICE: templates.get_template("hosts/lossless-roce.service.j2").render(**common),
        RULES: templates.get_template("hosts/90-lossless-roce.rules.j2").render(
            drivers=drivers, **common
        ),
    }
    if whole:
        files[DAEMONSET] = _daemonset(fabric, scripts, vendors)
    return files


def _configmaps(scripts: dict[str, str]) -> list[dict[str, str]]:
    """The scripts (server -> text) as ConfigMap data, each at most CONFIGMAP_BYTES."""
    chunks: list[dict[str, str]] = [{}]
    size = 0
    for server in sorted(scripts):
        key, text = f"{server}.sh", scripts[server]
        grows = len(key) + len(text.encode())
        if chunks[-1] and size + grows > CONFIGMAP_BYTES:
            chunks.append({})
            size = 0
        chunks[-1][key] = text
        size += grows
    return chunks


def _daemonset(fabric: FabricPlan, scripts: dict[str, str], vendors: list[ModuleType]) -> str:
    def labels() -> dict[str, str]:  # a new dict each time: YAML would alias a shared one
        return {
            "app.kubernetes.io/name": "lossless-roce",
            "app.kubernetes.io/managed-by": "lossless",
        }

    chunks = _configmaps(scripts)
    names = [f"lossless-roce-scripts-{i}" for i in range(1, len(chunks) + 1)]
    documents: list[dict[str, Any]] = [
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {
                "name": NAMESPACE,
                "labels": {**labels(), "pod-security.kubernetes.io/enforce": "privileged"},
            },
        }
    ]
    documents += [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": NAMESPACE, "labels": labels()},
            "data": {key: LiteralScalarString(text) for key, text in chunk.items()},
        }
        for name, chunk in zip(names, chunks, strict=True)
    ]
    loop = textwrap.dedent(
        """\
        script="/lossless/$NODE_NAME.sh"
        while true; do
          if [ -f "$script" ]; then
            bash "$script" || echo "lossless: $NODE_NAME: the script failed (exit $?)" >&2
          else
            echo "lossless: no script for node $NODE_NAME in the ConfigMaps" >&2
          fi
          sleep "$INTERVAL"
        done
        """
    )
    pod = {
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {
                                    "key": "kubernetes.io/hostname",
                                    "operator": "In",
                                    "values": sorted(scripts),
                                }
                            ]
                        }
                    ]
                }
            }
        },
        "hostNetwork": True,
        "dnsPolicy": "ClusterFirstWithHostNet",
        "tolerations": [{"operator": "Exists"}],
        "terminationGracePeriodSeconds": 10,
        "containers": [
            {
                "name": "lossless-roce",
                "image": IMAGE,
                "command": ["/bin/bash", "-c", LiteralScalarString(loop)],
                "env": [
                    {
                        "name": "NODE_NAME",
                        "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}},
                    },
                    {"name": "INTERVAL", "value": str(INTERVAL)},
                ],
                "securityContext": {"privileged": True},
                "resources": {"requests": {"cpu": "10m", "memory": "32Mi"}},
                "volumeMounts": [
                    {"name": "scripts", "mountPath": "/lossless", "readOnly": True},
                    {"name": "sys", "mountPath": "/sys"},
                    {"name": "configfs", "mountPath": "/sys/kernel/config"},
                ],
            }
        ],
        "volumes": [
            {
                "name": "scripts",
                "projected": {"sources": [{"configMap": {"name": name}} for name in names]},
            },
            {"name": "sys", "hostPath": {"path": "/sys", "type": "Directory"}},
            {"name": "configfs", "hostPath": {"path": "/sys/kernel/config", "type": "Directory"}},
        ],
    }
    documents.append(
        {
            "apiVersion": "apps/v1",
            "kind": "DaemonSet",
            "metadata": {"name": "lossless-roce", "namespace": NAMESPACE, "labels": labels()},
            "spec": {
                "selector": {"matchLabels": {"app.kubernetes.io/name": "lossless-roce"}},
                "template": {"metadata": {"labels": labels()}, "spec": pod},
            },
        }
    )
    commands = sorted({name for module in vendors for name in module.COMMANDS})
    servers = sorted(scripts)
    shown = first_few(servers, 4)
    return (
        environment()
        .get_template("hosts/reapply-daemonset.yaml.j2")
        .render(
            fabric=fabric.name,
            configmaps=names,
            interval=INTERVAL,
            servers=servers,
            shown=shown,
            namespace=NAMESPACE,
            image=IMAGE,
            commands=commands,
            image_lacks=[name for name in commands if name not in nvidia.COMMANDS],
            documents=_yaml(documents).rstrip("\n"),
        )
    )


def _yaml(documents: list[dict[str, Any]]) -> str:
    """The documents as one YAML stream, keys in the order given, scripts as literal blocks."""
    yaml = YAML(typ="rt", pure=True)
    yaml.default_flow_style = False
    yaml.width = 200
    yaml.indent(mapping=2, sequence=4, offset=2)
    stream = io.StringIO()
    yaml.dump_all(documents, stream)
    return stream.getvalue()
