"""`lossless render --hosts`: golden output, determinism, shell scripts that shellcheck and
bash accept, an operator resource that fits the NicConfigurationTemplate CRD, NCCL/UCX
variables that match the DSCP, and clear refusals."""

from __future__ import annotations

import shutil
import subprocess

import jsonschema
import pytest
from conftest import INVENTORIES, REPO
from ruamel.yaml import YAML

from lossless.hosts.values import traffic_class

LAB = str(INVENTORIES / "lab.yaml")
POD = str(INVENTORIES / "pod-2048.yaml")
GOLDEN = REPO / "golden"
LAB_HOST_FILES = {
    "collect-host-state.sh",
    *(f"gpu0{i}.{kind}" for i in range(1, 5) for kind in ("sh", "nccl.env")),
    "gpu01.nicconfig.yaml",
    "gpu02.nicconfig.yaml",
    # re-applying after a reboot or driver reload (tests/test_hosts_reapply.py)
    "lossless-roce.service",
    "90-lossless-roce.rules",
    "lossless-roce.daemonset.yaml",
}


@pytest.fixture(scope="module")
def lab_hosts(tmp_path_factory):
    from lossless.cli.main import main

    out = tmp_path_factory.mktemp("hosts")
    assert main(["render", LAB, "-o", str(out), "--hosts"]) == 0
    return out


def test_lab_writes_the_files_of_every_server(lab_hosts):
    assert {p.name for p in lab_hosts.iterdir()} == LAB_HOST_FILES


@pytest.mark.parametrize("name", sorted(LAB_HOST_FILES))
def test_lab_matches_golden(lab_hosts, name):
    assert (lab_hosts / name).read_text() == (GOLDEN / "lab" / "hosts" / name).read_text(), (
        f"{name} differs from golden/lab/hosts: see golden/README.md to regenerate and review"
    )


def test_pod_matches_golden(run, tmp_path):
    result = run("render", POD, "-o", str(tmp_path), "--hosts", "--server", "gpu001")
    assert result.code == 0, result.err
    for path in (GOLDEN / "pod-2048" / "hosts").iterdir():
        assert (tmp_path / path.name).read_text() == path.read_text(), path.name


def test_two_renders_are_byte_identical_and_check_is_clean(run, tmp_path):
    run("render", LAB, "-o", str(tmp_path / "a"), "--hosts")
    run("render", LAB, "-o", str(tmp_path / "b"), "--hosts")
    for name in LAB_HOST_FILES:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert run("render", LAB, "-o", str(tmp_path / "a"), "--hosts", "--check").code == 0
    script = tmp_path / "a" / "gpu01.sh"
    script.write_text(script.read_text().replace("--pfc 0,0,0,1", "--pfc 0,0,0,0", 1))
    drifted = run("render", LAB, "-o", str(tmp_path / "a"), "--hosts", "--check")
    assert drifted.code == 1 and f"drift: {script}" in drifted.out


def _sections(script: str, interface: str) -> str:
    """The apply section of one NIC of a rendered script."""
    body = script.split(f"\n# {interface} (", 2)[2]
    return body.split("\n# ", 1)[0]


def test_nvidia_section_says_the_plan_with_the_standard_tools(lab_hosts):
    section = _sections((lab_hosts / "gpu01.sh").read_text(), "eth0")
    for line in (
        "mlnx_qos -i eth0 --trust dscp",
        "mlnx_qos -i eth0 --pfc 0,0,0,1,0,0,0,0",
        "mlnx_qos -i eth0 --cable_len 2",  # leaf1:Ethernet0 is 2 m away
        "mlnx_qos -i eth0 --dscp2prio set,26,3",
        "mlnx_qos -i eth0 --dscp2prio set,48,6",
        "set_value eth0 ecn/roce_np/enable/3 1",
        "set_value eth0 ecn/roce_rp/enable/3 1",
        "set_value eth0 ecn/roce_np/cnp_dscp 48",
        "set_value eth0 ecn/roce_np/cnp_802p_prio 6",
        'cma_roce_tos -d "${RDMA[eth0]}" -t 106',  # DSCP 26 << 2 | ECT(0)
        "set_mtu eth0 9000",
        "pause_off eth0",
    ):
        assert line in section, line


def test_broadcom_section_runs_bnxt_setupcc_only_when_dcb_differs(lab_hosts):
    section = _sections((lab_hosts / "gpu03.sh").read_text(), "eth1")
    assert 'bnxt_in_place eth1 "0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off" 26:3' in section
    assert 'bnxt_setupcc.sh -d "${RDMA[eth1]}" -i eth1 -m 3 -r 3 -s 26 -c 6 -p 48 -u 4' in section


def test_scripts_are_safe_bash(lab_hosts):
    for script in lab_hosts.glob("*.sh"):
        text = script.read_text()
        assert text.startswith("#!/usr/bin/env bash\n")
        assert "set -euo pipefail" in text
        subprocess.run(["bash", "-n", str(script)], check=True)
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        pytest.skip("shellcheck is not installed (.ci/install installs it)")
    subprocess.run([shellcheck, "-s", "bash", *map(str, lab_hosts.glob("*.sh"))], check=True)


def test_checks_come_before_any_change(lab_hosts):
    script = (lab_hosts / "gpu01.sh").read_text()
    first_change = script.index("\nend_of_checks\n")
    assert script.index("qos=$(read_value") > first_change
    for check in ("check_interface eth1", "check_qos_options eth1", "check_file eth1"):
        assert script.rindex(check) < first_change


def test_nccl_environment_matches_the_dscp(lab_hosts):
    env = dict(
        line.split("=", 1)
        for line in (lab_hosts / "gpu03.nccl.env").read_text().splitlines()
        if line and not line.startswith("#")
    )
    assert env == {"NCCL_IB_TC": str(26 << 2 | 2), "UCX_IB_TRAFFIC_CLASS": str(26 << 2 | 2)}


def test_gid_index_and_another_dscp_reach_the_environment(run, write, tmp_path):
    text = (INVENTORIES / "lab.yaml").read_text()
    text = text.replace("    mtu: 9100\n", "    mtu: 9100\n    host: {gid_index: 3}\n", 1)
    text = text.replace("data: {dscp: 26, priority: 3}", "data: {dscp: 24, priority: 3}")
    result = run("render", str(write(text)), "-o", str(tmp_path), "--hosts")
    assert result.code == 0, result.err
    env = (tmp_path / "gpu01.nccl.env").read_text()
    assert "NCCL_IB_TC=98\n" in env and "UCX_IB_TRAFFIC_CLASS=98\n" in env
    assert "NCCL_IB_GID_INDEX=3\n" in env and "UCX_IB_GID_INDEX=3\n" in env
    assert "--dscp2prio set,24,3" in (tmp_path / "gpu01.sh").read_text()


# NicConfigurationTemplate as its CRD says (Mellanox/nic-configuration-operator
# config/crd/bases/configuration.net.nvidia.com_nicconfigurationtemplates.yaml and
# api/v1alpha1/nicconfigurationtemplate_types.go @ network-operator-v26.4.1), restated for the
# fields lossless writes: unknown fields are refused, as a strict `kubectl apply` does.
def _closed(properties, required=()):
    return {
        "type": "object",
        "properties": properties,
        "required": list(required),
        "additionalProperties": False,
    }


QOS = _closed(
    {
        "trust": {"type": "string"},
        "pfc": {"type": "string", "pattern": "^([01],){7}[01]$"},
        "tos": {"type": "integer"},
    },
    ["pfc", "trust"],
)
NIC_CONFIGURATION_TEMPLATE = _closed(
    {
        "apiVersion": {"const": "configuration.net.nvidia.com/v1alpha1"},
        "kind": {"const": "NicConfigurationTemplate"},
        "metadata": _closed(
            {
                "name": {"type": "string", "pattern": "^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$"},
                "namespace": {"type": "string"},
            },
            ["name"],
        ),
        "spec": _closed(
            {
                "nodeSelector": {"type": "object", "additionalProperties": {"type": "string"}},
                "nicSelector": _closed({"nicType": {"type": "string"}}, ["nicType"]),
                "template": _closed(
                    {
                        "numVfs": {"type": "integer"},
                        "linkType": {"enum": ["Ethernet", "Infiniband"]},
                        "rawNvConfig": {
                            "type": "array",
                            "items": _closed(
                                {"name": {"type": "string"}, "value": {"type": "string"}},
                                ["name", "value"],
                            ),
                        },
                        "roceOptimized": _closed(
                            {"enabled": {"type": "boolean"}, "qos": QOS}, ["enabled"]
                        ),
                    },
                    ["numVfs"],
                ),
            },
            ["nicSelector", "template"],
        ),
    },
    ["apiVersion", "kind", "spec"],
)


def test_operator_resource_fits_the_crd(lab_hosts):
    [document] = list(YAML(typ="safe").load_all((lab_hosts / "gpu01.nicconfig.yaml").read_text()))
    jsonschema.validate(document, NIC_CONFIGURATION_TEMPLATE)
    spec = document["spec"]
    assert spec["nodeSelector"] == {"kubernetes.io/hostname": "gpu01"}
    assert spec["nicSelector"] == {"nicType": "1021"}  # ConnectX-7
    qos = spec["template"]["roceOptimized"]["qos"]
    # cableLen, ecn and pauseFrames are 26.7-candidate fields: not in the released CRDs
    # (tests/test_operator_crds.py checks every release's own CRD)
    assert qos == {"trust": "dscp", "pfc": "0,0,0,1,0,0,0,0", "tos": traffic_class(26)}


def test_unsupported_models_are_named_per_model(run, write, tmp_path):
    text = (INVENTORIES / "lab.yaml").read_text().replace("model: BCM57608", "model: Pollara 400")
    result = run("render", str(write(text)), "-o", str(tmp_path), "--hosts")
    assert result.code == 0
    [note] = [line for line in result.err.splitlines() if "not supported" in line]
    assert note.startswith("lossless: not supported: Pollara 400 (gpu03:eth0, gpu03:eth1,")
    assert "AMD Pensando" in note
    assert not (tmp_path / "gpu03.sh").exists()
    assert (tmp_path / "gpu03.nccl.env").exists()  # NCCL's traffic class is not a NIC tool


def test_a_server_with_a_supported_and_an_unsupported_nic(run, write, tmp_path):
    text = (INVENTORIES / "lab.yaml").read_text()
    text = text.replace(
        'nics: {"eth[0:1]": {speed: 400G, model: BCM57608, mtu: 9000}}',
        "nics: {eth0: {speed: 400G, model: BCM57608}, eth1: {speed: 400G, model: E810}}",
    )
    result = run("render", str(write(text)), "-o", str(tmp_path), "--hosts")
    assert result.code == 0, result.err
    script = (tmp_path / "gpu03.sh").read_text()
    assert "# eth1 (E810), cabled to leaf4:et-0/0/0: not supported by lossless: Intel" in script
    assert "bnxt_setupcc.sh" in script and "eth1 -m" not in script


@pytest.mark.parametrize(
    "old, new, message",
    [
        (
            "{speed: 400G, model: BCM57608, mtu: 9000}",
            "{speed: 400G, model: BCM57608, dcqcn: {ai_rate_mbps: 5}}",
            "DCQCN parameters ai_rate_mbps: not set by bnxt_setupcc.sh",
        ),
        (
            "{speed: 400G, model: BCM57608, mtu: 9000}",
            "{speed: 400G, model: BCM57608, trust: pcp}",
            "trust pcp: bnxt_setupcc.sh sets DSCP-based PFC only",
        ),
        (
            'nics: {"eth[0:1]": {speed: 400G, model: ConnectX-7, mtu: 9000}}',
            "nics: {eth0: {speed: 400G, model: ConnectX-7}, "
            "eth1: {speed: 400G, model: ConnectX-7, roce: {data: {dscp: 24}}}}",
            "NCCL_IB_TC takes one traffic class",
        ),
    ],
)
def test_settings_a_tool_cannot_say_are_bad_input(run, write, tmp_path, old, new, message):
    path = write((INVENTORIES / "lab.yaml").read_text().replace(old, new))
    result = run("render", str(path), "-o", str(tmp_path / "out"), "--hosts")
    assert result.code == 2
    assert message in result.err and f"{path}:9" in result.err, result.err
    assert not (tmp_path / "out").exists()  # nothing half-written


def test_server_names_become_file_names_safely(run, write, tmp_path):
    text = (INVENTORIES / "lab.yaml").read_text().replace("gpu[03:04]:", "gpu[03:04].-:")
    text = text.replace('b: "gpu[03:04]:eth0"', 'b: "gpu[03:04].-:eth0"').replace(
        'b: "gpu[03:04]:eth1"', 'b: "gpu[03:04].-:eth1"'
    )
    result = run("render", str(write(text)), "-o", str(tmp_path / "out"), "--hosts")
    assert result.code == 2 and "cannot be a file name" in result.err, result.err
    assert not (tmp_path / "out").exists()


def test_usage_errors(run, tmp_path):
    assert run("render", LAB, "-o", str(tmp_path), "--server", "gpu01").code == 2
    assert run("render", LAB, "-o", str(tmp_path), "--hosts", "--device", "leaf1").code == 2
    wrong = run("render", LAB, "-o", str(tmp_path), "--hosts", "--server", "gpu1")
    assert wrong.code == 2 and 'did you mean "gpu01"' in wrong.err


def test_what_the_operator_cannot_say_is_a_note_not_a_resource(run, write, tmp_path):
    text = (INVENTORIES / "lab.yaml").read_text()
    text = text.replace(
        'nics: {"eth[0:1]": {speed: 400G, model: ConnectX-7, mtu: 9000}}',
        "nics: {eth0: {speed: 400G, model: ConnectX-7}, "
        "eth1: {speed: 400G, model: ConnectX-7, sriov_vfs: 4}}",
    )
    result = run("render", str(write(text)), "-o", str(tmp_path), "--hosts")
    assert result.code == 0, result.err
    assert "gpu01: NICs eth0, eth1 differ in settings a NicConfigurationTemplate" in result.err
    assert not (tmp_path / "gpu01.nicconfig.yaml").exists()
    assert (tmp_path / "gpu01.sh").exists()  # the script says it all
