"""A broken inventory (or config) in the format lint and ci were asked for (issue 30): a
GitHub annotation, a SARIF result, a GitLab Code Quality issue, a JUnit failure at the
problem's FILE:LINE:COL, rule LL000 invalid-input; in --report files too; exit 2 still.

The SARIF document is checked against the constraints the SARIF 2.1.0 schema
(oasis-tcs/sarif-spec, Schemata/sarif-schema-2.1.0.json) puts on what we write, and the
Code Quality report against GitLab's documented fields
(https://docs.gitlab.com/ci/testing/code_quality/, "Implement a custom tool"): both schemas
below are written from those documents, for the properties lossless uses."""

from __future__ import annotations

import json
import shutil
from xml.etree import ElementTree

import jsonschema
import pytest
from conftest import INVENTORIES, REPO

from lossless.errors import Problem
from lossless.lint.report import problems_report

_MESSAGE = {
    "type": "object",
    "properties": {"text": {"type": "string"}},
    "anyOf": [{"required": ["text"]}, {"required": ["id"]}],
}
SARIF_SUBSET = {
    "type": "object",
    "required": ["version", "runs"],
    "additionalProperties": False,
    "properties": {
        "$schema": {"type": "string"},
        "version": {"enum": ["2.1.0"]},
        "runs": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["tool"],
                "properties": {
                    "tool": {
                        "type": "object",
                        "required": ["driver"],
                        "properties": {
                            "driver": {
                                "type": "object",
                                "required": ["name"],
                                "properties": {
                                    "name": {"type": "string"},
                                    "version": {"type": "string"},
                                    "rules": {
                                        "type": "array",
                                        "uniqueItems": True,
                                        "items": {
                                            "type": "object",
                                            "required": ["id"],
                                            "properties": {
                                                "id": {"type": "string"},
                                                "shortDescription": _MESSAGE,
                                                "fullDescription": _MESSAGE,
                                                "defaultConfiguration": {
                                                    "type": "object",
                                                    "properties": {
                                                        "level": {
                                                            "enum": [
                                                                "none",
                                                                "note",
                                                                "warning",
                                                                "error",
                                                            ]
                                                        }
                                                    },
                                                },
                                            },
                                        },
                                    },
                                },
                            }
                        },
                    },
                    "results": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["message"],
                            "properties": {
                                "ruleId": {"type": "string"},
                                "ruleIndex": {"type": "integer", "minimum": -1},
                                "level": {"enum": ["none", "note", "warning", "error"]},
                                "message": _MESSAGE,
                                "locations": {
                                    "type": "array",
                                    "items": {
                                        "type": "object",
                                        "properties": {
                                            "physicalLocation": {
                                                "type": "object",
                                                "properties": {
                                                    "artifactLocation": {
                                                        "type": "object",
                                                        "properties": {"uri": {"type": "string"}},
                                                    },
                                                    "region": {
                                                        "type": "object",
                                                        "properties": {
                                                            "startLine": {
                                                                "type": "integer",
                                                                "minimum": 1,
                                                            },
                                                            "startColumn": {
                                                                "type": "integer",
                                                                "minimum": 1,
                                                            },
                                                        },
                                                    },
                                                },
                                            }
                                        },
                                    },
                                },
                                "partialFingerprints": {
                                    "type": "object",
                                    "additionalProperties": {"type": "string"},
                                },
                            },
                        },
                    },
                },
            },
        },
    },
}
CODE_QUALITY = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["description", "check_name", "fingerprint", "severity", "location"],
        "properties": {
            "description": {"type": "string"},
            "check_name": {"type": "string"},
            "fingerprint": {"type": "string"},
            "severity": {"enum": ["info", "minor", "major", "critical", "blocker"]},
            "location": {
                "type": "object",
                "required": ["path", "lines"],
                "properties": {
                    "path": {"type": "string"},
                    "lines": {
                        "type": "object",
                        "required": ["begin"],
                        "properties": {"begin": {"type": "integer", "minimum": 1}},
                    },
                },
            },
        },
    },
}
MESSAGE = "fabric.policy.mtu: 91000 is greater than the maximum of 9216"


@pytest.fixture
def broken(tmp_path, monkeypatch):
    """An inventory whose MTU (line 14, column 10) the schema refuses, as bad.yaml here."""
    monkeypatch.chdir(tmp_path)
    text = (INVENTORIES / "lab.yaml").read_text().replace("mtu: 9100", "mtu: 91000")
    (tmp_path / "bad.yaml").write_text(text)
    return "bad.yaml"


@pytest.mark.parametrize("command", ["lint", "ci"])
def test_github_annotations_for_a_broken_inventory(run, broken, command):
    result = run(command, broken, "--format", "github")
    assert result.code == 2
    assert result.out.splitlines() == [
        f"::error file=bad.yaml,line=14,col=10,title=LL000 invalid-input::{MESSAGE}",
        "1 error, 0 warnings",
    ]
    assert f"bad.yaml:14:10: {MESSAGE}" in result.err  # the log keeps the plain line


def test_workflow_command_escaping_of_a_problem():
    problem = Problem("a,b:c%.yaml", 3, 7, "", "100% sure\r\nnot")
    [annotation, _] = problems_report([problem], "github").splitlines()
    assert annotation == (
        "::error file=a%2Cb%3Ac%25.yaml,line=3,col=7,title=LL000 invalid-input::"
        "100%25 sure\\r\\nnot"  # printable first: one line, the newline shown as \n
    )


def test_sarif_for_a_broken_inventory(run, broken):
    result = run("ci", broken, "--format", "sarif")
    assert result.code == 2
    document = json.loads(result.out)
    jsonschema.validate(document, SARIF_SUBSET)
    [sarif_run] = document["runs"]
    [found] = sarif_run["results"]
    assert (found["ruleId"], found["level"], found["message"]["text"]) == (
        "LL000",
        "error",
        MESSAGE,
    )
    assert sarif_run["tool"]["driver"]["rules"][found["ruleIndex"]]["id"] == "LL000"
    location = found["locations"][0]["physicalLocation"]
    assert location == {
        "artifactLocation": {"uri": "bad.yaml"},
        "region": {"startLine": 14, "startColumn": 10},
    }


def test_findings_sarif_still_validates_and_lists_no_input_rule(run, tmp_path):
    path = tmp_path / "lab.yaml"
    path.write_text((INVENTORIES / "lab.yaml").read_text().replace("mtu: 9100", "mtu: 1500"))
    document = json.loads(run("lint", str(path), "--format", "sarif").out)
    jsonschema.validate(document, SARIF_SUBSET)
    assert "LL000" not in {r["id"] for r in document["runs"][0]["tool"]["driver"]["rules"]}


def test_gitlab_code_quality_for_a_broken_inventory(run, broken):
    result = run("lint", broken, "--format", "codeclimate")
    assert result.code == 2
    issues = json.loads(result.out)
    jsonschema.validate(issues, CODE_QUALITY)
    [issue] = issues
    assert issue["check_name"] == "LL000 invalid-input" and issue["severity"] == "major"
    assert issue["location"] == {"path": "bad.yaml", "lines": {"begin": 14}}


def test_json_and_junit_for_a_broken_inventory(run, broken):
    [record] = json.loads(run("lint", broken, "--format", "json").out)
    assert (record["rule"], record["file"], record["line"], record["column"]) == (
        "LL000",
        "bad.yaml",
        14,
        10,
    )
    junit = run("lint", broken, "--format", "junit").out
    root = ElementTree.fromstring(junit.split("\n", 1)[1])
    failure = root.find("testsuite[@name='fabric']/testcase[@name='LL000 invalid-input']/failure")
    assert failure is not None and failure.get("message") == MESSAGE
    assert root.get("failures") == "1"
    # nothing was linted: no rule shows as a passing test, in JUnit or in SARIF's rules
    assert [case.get("name") for case in root.iter("testcase")] == ["LL000 invalid-input"]
    assert root.get("tests") == "1"
    sarif = json.loads(run("lint", broken, "--format", "sarif").out)
    assert [r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]] == ["LL000"]


def test_text_keeps_the_problems_on_stderr_alone(run, broken):
    result = run("lint", broken)
    assert result.code == 2 and result.out == ""
    assert result.err == f"bad.yaml:14:10: {MESSAGE}\n1 problem\n"


def test_report_files_and_output_file_get_the_problems(run, broken, tmp_path):
    result = run(
        "ci", broken, "--format", "github", "--output-file", "annotations.txt",
        "--report", "sarif:out/lossless.sarif", "--report", "codeclimate:quality.json",
        "--plan-json", "plan.json", "--render", "configs",
    )  # fmt: skip
    assert result.code == 2 and result.out == ""
    assert (tmp_path / "annotations.txt").read_text().startswith("::error file=bad.yaml,line=14")
    sarif = json.loads((tmp_path / "out" / "lossless.sarif").read_text())
    jsonschema.validate(sarif, SARIF_SUBSET)
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["LL000"]
    jsonschema.validate(json.loads((tmp_path / "quality.json").read_text()), CODE_QUALITY)
    assert not (tmp_path / "plan.json").exists() and not (tmp_path / "configs").exists()


def test_a_config_that_does_not_parse_is_annotated_at_the_config(run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copytree(REPO / "golden" / "lab", tmp_path / "configs")
    (tmp_path / "configs" / "spine1.cfg").write_text("set system host-name spine1\n")  # Junos
    result = run("ci", str(INVENTORIES / "lab.yaml"), "--configs", "configs", "--format", "github")
    assert result.code == 2
    annotations = [line for line in result.out.splitlines() if line.startswith("::error ")]
    assert annotations and all("title=LL000 invalid-input::" in line for line in annotations)
    assert any("file=configs/spine1.cfg" in line for line in annotations)


def test_the_input_rule_cannot_be_selected(run, broken):
    result = run("lint", "--select", "LL000", str(INVENTORIES / "lab.yaml"))
    assert result.code == 2 and "no rule 'LL000'" in result.err


def test_every_config_that_does_not_parse_is_annotated_in_one_run(run, tmp_path, monkeypatch):
    """Two broken configs: both annotated at once, as `validate` lists every problem."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(REPO / "golden" / "lab", tmp_path / "configs")
    (tmp_path / "configs" / "leaf1.json").write_text("garbage {\n")
    (tmp_path / "configs" / "spine1.cfg").write_text("set system host-name spine1\n")
    result = run(
        "lint", str(INVENTORIES / "lab.yaml"), "--configs", "configs", "--format", "github"
    )
    assert result.code == 2
    annotated = {line.split(",", 1)[0] for line in result.out.splitlines() if line.startswith("::")}
    assert {"::error file=configs/leaf1.json", "::error file=configs/spine1.cfg"} <= annotated


def test_sarif_paths_are_relative_to_the_repository_root(run, tmp_path, monkeypatch):
    """Code scanning places a result by its repository-relative path: the same wherever in
    the repository lossless ran, `..` collapsed."""
    repo = tmp_path / "fabric"
    (repo / ".git").mkdir(parents=True)
    (repo / "inventory").mkdir()
    target = repo / "inventory" / "lab.yaml"
    target.write_text((INVENTORIES / "lab.yaml").read_text().replace("mtu: 9100", "mtu: 1500"))

    def uris(folder, path: str) -> set[str]:
        monkeypatch.chdir(folder)
        document = json.loads(run("lint", path, "--format", "sarif").out)
        found = document["runs"][0]["results"]
        assert found
        return {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in found}

    assert uris(repo / "inventory", "lab.yaml") == {"inventory/lab.yaml"}
    assert uris(repo, "inventory/../inventory/lab.yaml") == {"inventory/lab.yaml"}
    assert uris(repo / "inventory", str(target)) == {"inventory/lab.yaml"}
