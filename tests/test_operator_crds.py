"""The NicConfigurationTemplates `lossless render --hosts` writes fit the CRD of the operator
release they are written for (tests/data/nic-configuration-operator/<tag>/, upstream's CRDs
unchanged), set the firmware CNP class to the plan's, and say what they cannot set."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import DATA, REPO
from ruamel.yaml import YAML

from lossless.hosts import nvidia

CRDS = DATA / "nic-configuration-operator"
INVENTORIES = REPO / "inventories"
GOLDEN = sorted((REPO / "golden").glob("*/hosts/*.nicconfig.yaml"))
CRD_FILE = "configuration.net.nvidia.com_nicconfigurationtemplates.yaml"


def _structural(node: Any) -> Any:
    """A CRD's openAPIV3Schema as JSON Schema: x-kubernetes-* extensions dropped (the CEL
    rules are checked by the API server, not here), and an object with `properties` closed
    (additionalProperties false): the API server refuses unknown fields under strict field
    validation (`kubectl apply` since 1.27) and prunes them otherwise."""
    if isinstance(node, list):
        return [_structural(item) for item in node]
    if not isinstance(node, dict):
        return node
    schema = {
        key: _structural(value)
        for key, value in node.items()
        if not key.startswith("x-kubernetes-") and key != "description"
    }
    if schema.get("type") == "object" and "properties" in schema:
        schema.setdefault("additionalProperties", False)
    return schema


def _schema(tag: str) -> dict[str, Any]:
    crd = YAML(typ="safe").load((CRDS / tag / CRD_FILE).read_text())
    [version] = [v for v in crd["spec"]["versions"] if v["name"] == "v1alpha1"]
    schema = _structural(version["schema"]["openAPIV3Schema"])
    # metadata is ObjectMeta, which the CRD leaves open: check what lossless writes
    schema["properties"]["metadata"] = {
        "type": "object",
        "required": ["name", "namespace"],
        "properties": {
            "name": {"type": "string", "pattern": r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$"},
            "namespace": {"type": "string", "pattern": r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},
        },
    }
    schema["required"] = ["apiVersion", "kind", "metadata", "spec"]
    return schema


def _documents(text: str) -> list[dict[str, Any]]:
    return [d for d in YAML(typ="safe").load_all(text) if d is not None]


RELEASES = sorted(nvidia.OPERATOR_RELEASES.items())


def test_every_release_has_its_crd_vendored():
    for _, release in RELEASES:
        assert (CRDS / release.tag / CRD_FILE).is_file(), release.tag
        assert release.commit in (CRDS / "README.md").read_text()
    assert (CRDS / "LICENSE").read_text().lstrip().startswith("Apache License")
    assert (
        max(nvidia.OPERATOR_RELEASES, key=lambda v: tuple(int(p) for p in v[1:].split(".")))
        == nvidia.DEFAULT_OPERATOR_VERSION
    )


def test_the_schema_lists_the_releases_lossless_knows():
    import json

    schema = json.loads((REPO / "schemas" / "inventory.schema.json").read_text())
    setting = schema["$defs"]["fabric"]["properties"]["nic_operator"]["properties"]
    assert sorted(setting["version"]["enum"]) == sorted(nvidia.OPERATOR_RELEASES)


def test_the_closed_schema_refuses_fields_a_release_lacks():
    schema = _schema(nvidia.OPERATOR_RELEASES["v26.4"].tag)
    [document] = _documents((REPO / "golden/lab/hosts/gpu01.nicconfig.yaml").read_text())
    wrong = copy.deepcopy(document)
    wrong["spec"]["template"]["roceOptimized"]["qos"]["cableLen"] = 3  # 26.7 candidates only
    with pytest.raises(jsonschema.ValidationError, match="cableLen"):
        jsonschema.validate(wrong, schema)


@pytest.mark.parametrize("golden", GOLDEN, ids=[f"{p.parts[-3]}/{p.name}" for p in GOLDEN])
def test_golden_fits_the_default_release(golden):
    release = nvidia.OPERATOR_RELEASES[nvidia.DEFAULT_OPERATOR_VERSION]
    documents = _documents(golden.read_text())
    assert documents
    for document in documents:
        jsonschema.validate(document, _schema(release.tag))
    assert f"Mellanox/nic-configuration-operator {release.tag}" in golden.read_text()


def _with_operator(text: str, setting: str) -> str:
    return re.sub(r"^fabric:\n", f"fabric:\n  nic_operator: {setting}\n", text, count=1, flags=re.M)


@pytest.mark.parametrize(("version", "release"), RELEASES, ids=[v for v, _ in RELEASES])
@pytest.mark.parametrize("inventory", ["lab.yaml", "pod-2048.yaml"])
def test_render_fits_each_release(run, write, tmp_path, version, release, inventory):
    text = _with_operator((INVENTORIES / inventory).read_text(), f'{{version: "{version}"}}')
    assert text.count("nic_operator") == 1
    server = ["--server", "gpu001"] if inventory == "pod-2048.yaml" else []
    result = run("render", str(write(text)), "-o", str(tmp_path), "--hosts", *server)
    assert result.code == 0, result.err
    files = sorted(tmp_path.glob("*.nicconfig.yaml"))
    assert files
    for path in files:
        content = path.read_text()
        assert f"Mellanox/nic-configuration-operator {release.tag}" in content
        for document in _documents(content):
            jsonschema.validate(document, _schema(release.tag))
            qos = document["spec"]["template"]["roceOptimized"]["qos"]
            assert set(qos) <= release.qos_fields
        missing = {"cableLen", "ecn", "pauseFrames"} - release.qos_fields
        if missing:  # never claimed as set: listed as the script's
            header = content.split("\napiVersion:")[0]
            assert "Not set by this operator release: cable length" in " ".join(
                line.lstrip("# ") for line in header.splitlines()
            )
            assert "(the script sets them)" in " ".join(header.split("#"))


def _lab(run, write, tmp_path, text=None):
    text = text or (INVENTORIES / "lab.yaml").read_text()
    result = run("render", str(write(text)), "-o", str(tmp_path), "--hosts")
    assert result.code == 0, result.err
    return _documents((tmp_path / "gpu01.nicconfig.yaml").read_text())


def _flat(path: Path) -> str:
    return " ".join(line.lstrip("# ") for line in path.read_text().splitlines())


def test_cnp_class_in_raw_nv_config_is_the_plans(run, write, tmp_path):
    text = (INVENTORIES / "lab.yaml").read_text()
    assert "cnp: {dscp: 48, priority: 6}" in text
    text = text.replace("cnp: {dscp: 48, priority: 6}", "cnp: {dscp: 46, priority: 5}")
    [document] = _lab(run, write, tmp_path, text)
    raw = {p["name"]: p["value"] for p in document["spec"]["template"]["rawNvConfig"]}
    # the names roceOptimized writes 4 and 6 to (pkg/consts/consts.go CnpDscpParamBase,
    # Cnp802pPrioParamBase); rawNvConfig is applied after it (configvalidation.go)
    assert raw == {
        "CNP_DSCP_P1": "46",
        "CNP_DSCP_P2": "46",
        "CNP_802P_PRIO_P1": "5",
        "CNP_802P_PRIO_P2": "5",
    }
    assert "CNP_DSCP_P1/P2=46 and CNP_802P_PRIO_P1/P2=5" in _flat(tmp_path / "gpu01.nicconfig.yaml")


def test_namespace_defaults_to_nvidias_and_can_be_set(run, write, tmp_path):
    [document] = _lab(run, write, tmp_path / "a")
    assert document["metadata"]["namespace"] == "nvidia-network-operator"
    text = _with_operator((INVENTORIES / "lab.yaml").read_text(), "{namespace: network-operator}")
    [document] = _lab(run, write, tmp_path / "b", text)
    assert document["metadata"]["namespace"] == "network-operator"


def test_num_vfs_is_required_so_zero_is_rendered_with_a_warning(run, write, tmp_path):
    # numVfs cannot be left out: every release's CRD requires it
    for _, release in RELEASES:
        template = _schema(release.tag)["properties"]["spec"]["properties"]["template"]
        assert "numVfs" in template["required"], release.tag
    [document] = _lab(run, write, tmp_path / "a")
    assert document["spec"]["template"]["numVfs"] == 0
    assert "WARNING numVfs: 0." in _flat(tmp_path / "a" / "gpu01.nicconfig.yaml")
    text = (INVENTORIES / "lab.yaml").read_text()
    before = 'nics: {"eth[0:1]": {speed: 400G, model: ConnectX-7, mtu: 9000}}'
    assert before in text
    text = text.replace(before, before.replace("mtu: 9000", "mtu: 9000, sriov_vfs: 8"))
    [document] = _lab(run, write, tmp_path / "b", text)
    assert document["spec"]["template"]["numVfs"] == 8
    flat = _flat(tmp_path / "b" / "gpu01.nicconfig.yaml")
    assert "WARNING numVfs" not in flat and "numVfs 8 (host sriov_vfs)" in flat


def test_one_template_per_node_and_nic_type(run, write, tmp_path):
    _lab(run, write, tmp_path)
    selectors = []
    for path in sorted(tmp_path.glob("*.nicconfig.yaml")):
        for document in _documents(path.read_text()):
            spec = document["spec"]
            assert spec["nodeSelector"] == {"kubernetes.io/hostname": path.name.split(".")[0]}
            selectors.append(
                (spec["nodeSelector"]["kubernetes.io/hostname"], spec["nicSelector"]["nicType"])
            )
    assert len(selectors) == len(set(selectors))


def test_unknown_operator_version_is_refused_at_its_line(run, write, tmp_path):
    text = _with_operator((INVENTORIES / "lab.yaml").read_text(), '{version: "v26.7"}')
    path = write(text)
    result = run("render", str(path), "-o", str(tmp_path), "--hosts")
    assert result.code == 2
    line = text.splitlines().index('  nic_operator: {version: "v26.7"}') + 1
    assert f"{path}:{line}:" in result.err or f"{Path(path).name}:{line}:" in result.err
    assert not list(tmp_path.glob("*.nicconfig.yaml"))
