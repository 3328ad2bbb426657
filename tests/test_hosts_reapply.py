"""`lossless render --hosts` re-applies after a reboot or a driver reload: lossless-roce.service
(systemd), 90-lossless-roce.rules (udev) and lossless-roce.daemonset.yaml (Kubernetes), rendered
beside the scripts: golden, deterministic, and each doing what its header says."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from conftest import INVENTORIES, REPO
from ruamel.yaml import YAML

from lossless.hosts import render
from lossless.hosts.plan import plan_hosts
from lossless.inventory import load_inventory

LAB = str(INVENTORIES / "lab.yaml")
POD = str(INVENTORIES / "pod-2048.yaml")
GOLDEN = REPO / "golden"
NEW_FILES = ("lossless-roce.service", "90-lossless-roce.rules", "lossless-roce.daemonset.yaml")
LAB_SERVERS = ["gpu01", "gpu02", "gpu03", "gpu04"]
RUN = 'RUN+="/usr/bin/systemctl --no-block restart lossless-roce.service"'


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    from lossless.cli.main import main

    out = tmp_path_factory.mktemp("lab")
    assert main(["render", LAB, "-o", str(out), "--hosts"]) == 0
    return out


@pytest.fixture(scope="module")
def pod(tmp_path_factory):
    from lossless.cli.main import main

    out = tmp_path_factory.mktemp("pod")
    assert main(["render", POD, "-o", str(out), "--hosts", "--server", "gpu001"]) == 0
    return out


@pytest.mark.parametrize("name", NEW_FILES)
def test_lab_and_pod_match_golden(lab, pod, name):
    for folder, fabric in ((lab, "lab"), (pod, "pod-2048")):
        golden = GOLDEN / fabric / "hosts" / name
        if fabric == "pod-2048" and name == render.DAEMONSET:
            # the pod's golden is one server (--server gpu001): a DaemonSet of part of a
            # fleet would remove the other servers' pods when applied, so none is written
            assert not (folder / name).exists() and not golden.exists()
            continue
        assert (folder / name).read_bytes() == golden.read_bytes(), (
            f"{name} differs from golden/{fabric}/hosts: see golden/README.md to regenerate"
        )


def test_no_daemonset_for_part_of_the_fleet(run, tmp_path):
    result = run("render", POD, "-o", str(tmp_path), "--hosts", "--server", "gpu001")
    assert result.code == 0
    assert not (tmp_path / render.DAEMONSET).exists()
    assert "written only for the whole fleet" in result.err


def test_two_renders_are_byte_identical(lab):
    files = render.render_hosts(plan_hosts(load_inventory(INVENTORIES / "lab.yaml"))).files
    for name in NEW_FILES:
        assert files[name].encode() == (lab / name).read_bytes()


def _rules(text: str) -> list[dict[str, str]]:
    """The rules of a udev rules file: key and operator -> value, per line."""
    rules = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        pairs = re.findall(r'([A-Z]+)(==|\+=)"([^"]*)"(?:, |$)', line)
        assert ", ".join(f'{k}{op}"{v}"' for k, op, v in pairs) == line, line
        rules.append({k + op: v for k, op, v in pairs})
    return rules


def test_udev_rule_restarts_the_unit_only_for_the_fleets_nic_drivers(lab, pod):
    pod_rules = _rules((pod / "90-lossless-roce.rules").read_text())
    # mlx5 only: its net devices, and its RDMA devices (they can register after the net device)
    assert pod_rules == [
        {"ACTION==": "add", "SUBSYSTEM==": subsystem, "DRIVERS==": "mlx5_core", "RUN+=": RUN[6:-1]}
        for subsystem in ("net", "infiniband")
    ]
    lab_rules = _rules((lab / "90-lossless-roce.rules").read_text())
    assert sorted((r["DRIVERS=="], r["SUBSYSTEM=="]) for r in lab_rules) == [
        ("bnxt_en", "infiniband"),  # the lab's gpu03 and gpu04 have Broadcom NICs
        ("bnxt_en", "net"),
        ("mlx5_core", "infiniband"),
        ("mlx5_core", "net"),
    ]
    assert all(r["ACTION=="] == "add" and r["RUN+="] == RUN[6:-1] for r in lab_rules)


def _unit(text: str) -> dict[str, dict[str, list[str]]]:
    sections: dict[str, dict[str, list[str]]] = {}
    section = None
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            section = sections.setdefault(line.strip("[]"), {})
            continue
        key, value = line.split("=", 1)
        assert section is not None
        section.setdefault(key, []).extend(value.split())
    return sections


def test_unit_is_oneshot_and_runs_before_the_network_is_configured(lab, pod):
    text = (lab / "lossless-roce.service").read_text()
    same = (pod / "lossless-roce.service").read_text().replace("pod-2048", "lab")
    assert text == same  # one unit for every server: only the fabric's name differs
    unit = _unit(text)
    assert unit["Service"]["Type"] == ["oneshot"]
    assert unit["Service"]["RemainAfterExit"] == ["yes"]
    assert unit["Service"]["ExecStart"] == [render.SCRIPT_PATH]
    assert "network-pre.target" in unit["Unit"]["Before"]
    assert "network-pre.target" in unit["Unit"]["Wants"]  # a passive target: pull it in
    assert "sys-kernel-config.mount" in unit["Unit"]["After"]  # cma_roce_tos uses configfs
    assert unit["Unit"]["StartLimitIntervalSec"] == ["0"]  # a restart per device added
    assert unit["Install"]["WantedBy"] == ["multi-user.target"]


def test_systemd_accepts_the_unit(lab, tmp_path):
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed")
    script = tmp_path / "lossless-roce.sh"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o755)
    unit = tmp_path / "lossless-roce.service"  # the script where the unit expects it
    text = (lab / "lossless-roce.service").read_text()
    unit.write_text(text.replace(f"ExecStart={render.SCRIPT_PATH}", f"ExecStart={script}"))
    result = subprocess.run(
        [analyze, "verify", str(unit)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0 and not result.stderr.strip(), result.stderr


def _documents(path) -> list[dict]:
    return list(YAML(typ="safe", pure=True).load_all(path.read_text()))


def test_daemonset_manifest_has_the_required_fields(lab):
    """apps/v1 DaemonSet (Kubernetes API reference, DaemonSetSpec): selector and template are
    required and the template's labels must match the selector; a PodSpec needs containers,
    each with a name; ConfigMap keys match [-._a-zA-Z0-9]+ and its data is at most 1 MiB."""
    documents = _documents(lab / "lossless-roce.daemonset.yaml")
    assert [(d["apiVersion"], d["kind"]) for d in documents] == [
        ("v1", "Namespace"),
        ("v1", "ConfigMap"),
        ("apps/v1", "DaemonSet"),
    ]
    namespace, configmap, daemonset = documents
    assert namespace["metadata"]["name"] == render.NAMESPACE
    assert namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "privileged"
    for document in (configmap, daemonset):
        assert document["metadata"]["namespace"] == render.NAMESPACE
        assert re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", document["metadata"]["name"])
    assert all(re.fullmatch(r"[-._a-zA-Z0-9]+", key) for key in configmap["data"])
    assert sum(len(k) + len(v.encode()) for k, v in configmap["data"].items()) < 1024 * 1024
    spec = daemonset["spec"]
    selector = spec["selector"]["matchLabels"]
    assert selector.items() <= spec["template"]["metadata"]["labels"].items()
    pod = spec["template"]["spec"]
    (container,) = pod["containers"]
    assert container["name"] and container["image"] == render.IMAGE
    assert pod["hostNetwork"] is True and "hostPID" not in pod
    assert container["securityContext"] == {"privileged": True}
    mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
    volumes = {v["name"]: v for v in pod["volumes"]}
    assert volumes[mounts["/sys"]]["hostPath"]["path"] == "/sys"
    assert volumes[mounts["/sys/kernel/config"]]["hostPath"]["path"] == "/sys/kernel/config"
    sources = volumes[mounts["/lossless"]]["projected"]["sources"]
    assert sources == [{"configMap": {"name": configmap["metadata"]["name"]}}]


def test_daemonset_carries_every_script_and_runs_on_those_nodes_only(lab):
    configmap, daemonset = _documents(lab / "lossless-roce.daemonset.yaml")[1:]
    assert sorted(configmap["data"]) == [f"{server}.sh" for server in LAB_SERVERS]
    for key, text in configmap["data"].items():
        assert text == (lab / key).read_text()  # byte for byte, through YAML
    terms = daemonset["spec"]["template"]["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"]
    assert terms == [
        {
            "matchExpressions": [
                {"key": "kubernetes.io/hostname", "operator": "In", "values": LAB_SERVERS}
            ]
        }
    ]


def test_the_pod_runs_its_own_nodes_script(lab, tmp_path):
    daemonset = _documents(lab / "lossless-roce.daemonset.yaml")[2]
    (container,) = daemonset["spec"]["template"]["spec"]["containers"]
    env = {e["name"]: e for e in container["env"]}
    assert env["NODE_NAME"]["valueFrom"] == {"fieldRef": {"fieldPath": "spec.nodeName"}}
    shell, flag, loop = container["command"]
    assert (shell, flag) == ("/bin/bash", "-c")
    for server in LAB_SERVERS:
        (tmp_path / f"{server}.sh").write_text(f"echo ran {server}\n")
    # The mounted ConfigMap folder is tmp_path; sleep ends the loop after its first run.
    body = "sleep() { exit 0; }\n" + loop.replace("/lossless/", f"{tmp_path}/")

    def pod_on(node: str) -> subprocess.CompletedProcess[str]:
        environment = {
            "NODE_NAME": node,
            "INTERVAL": env["INTERVAL"]["value"],
            "PATH": "/usr/bin:/bin",
        }
        return subprocess.run(
            ["bash", "-c", body], env=environment, capture_output=True, text=True, check=True
        )

    assert pod_on("gpu03").stdout == "ran gpu03\n"
    missing = pod_on("gpu99")
    assert missing.stdout == "" and "no script for node gpu99" in missing.stderr
    (tmp_path / "gpu01.sh").write_text("exit 3\n")
    assert "gpu01: the script failed (exit 3)" in pod_on("gpu01").stderr


def test_many_servers_are_split_over_configmaps(monkeypatch):
    monkeypatch.setattr(render, "CONFIGMAP_BYTES", 20_000)  # two lab scripts at most per map
    files = render.render_hosts(plan_hosts(load_inventory(INVENTORIES / "lab.yaml"))).files
    documents = list(YAML(typ="safe", pure=True).load_all(files[render.DAEMONSET]))
    configmaps = [d for d in documents if d["kind"] == "ConfigMap"]
    assert len(configmaps) > 1
    keys = [key for c in configmaps for key in c["data"]]
    assert sorted(keys) == [f"{server}.sh" for server in LAB_SERVERS]
    for c in configmaps:
        assert sum(len(k) + len(v.encode()) for k, v in c["data"].items()) <= 20_000
    pod = documents[-1]["spec"]["template"]["spec"]
    (scripts,) = [v for v in pod["volumes"] if "projected" in v]
    assert [s["configMap"]["name"] for s in scripts["projected"]["sources"]] == [
        c["metadata"]["name"] for c in configmaps
    ]
