"""Render device plans through the vendor templates; write files atomically; detect drift."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from lossless.model import Device
from lossless.plan import DevicePlan, FabricPlan
from lossless.resources import resource_path
from lossless.vendors import vendor_for


@cache
def environment() -> Environment:
    """The one jinja2 Environment of a run: templates load and compile once."""
    return Environment(
        loader=FileSystemLoader(str(resource_path("templates"))),
        undefined=StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def file_name(device: DevicePlan | Device) -> str:
    return f"{device.name}.{vendor_for(device.os).EXTENSION}"


def render_device(device: DevicePlan, fabric: FabricPlan) -> str:
    vendor = vendor_for(device.os)
    template = environment().get_template(vendor.TEMPLATE)
    text = template.render(**vendor.context(device, fabric))
    return text if text.endswith("\n") else text + "\n"


def render_fabric(fabric: FabricPlan) -> dict[str, str]:
    """File name -> text for every device of the plan, in device order."""
    return {file_name(d): render_device(d, fabric) for d in fabric.devices.values()}


@dataclass
class WriteReport:
    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)


def write_atomically(folder: Path, files: dict[str, str]) -> WriteReport:
    """Write every file through a temporary file and a rename, only when its text changed.

    All texts are rendered before this is called, so a failed render writes nothing.
    """
    folder.mkdir(parents=True, exist_ok=True)
    report = WriteReport()
    for name, text in files.items():
        target = folder / name
        if target.is_file() and target.read_text() == text:
            report.unchanged.append(name)
            continue
        handle, temporary = tempfile.mkstemp(prefix=f".{name}.", dir=folder)
        try:
            with os.fdopen(handle, "w", newline="") as stream:
                stream.write(text)
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        report.written.append(name)
    return report
