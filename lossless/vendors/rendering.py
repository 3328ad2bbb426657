"""Render device plans through their OS's template: one jinja2 environment for the run
(StrictUndefined, no autoescape: configs are not HTML), the file each device's config goes to."""

from __future__ import annotations

import hashlib
import shlex
from collections.abc import Callable
from functools import cache
from typing import NamedTuple

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from lossless.errors import InputError
from lossless.model import Device
from lossless.plan import DevicePlan, FabricPlan
from lossless.system.files import read_config
from lossless.system.resources import resource_path
from lossless.text import json_text
from lossless.vendors.registry import vendor_for


@cache
def environment() -> Environment:
    """The one jinja2 Environment of a run: templates load and compile once."""
    env = Environment(
        loader=FileSystemLoader(str(resource_path("templates"))),
        undefined=StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["json_tables"] = lambda tables: json_text.dumps_tables(tables, 4)
    env.filters["shell_quote"] = shlex.quote  # one word of a shell script, whatever it holds
    return env


def file_name(device: DevicePlan | Device) -> str:
    return f"{device.name}.{vendor_for(device.os).extension}"


def render_device(device: DevicePlan, fabric: FabricPlan) -> str:
    vendor = vendor_for(device.os)
    template = environment().get_template(vendor.template)
    text = template.render(**vendor.context(device, fabric))
    return text if text.endswith("\n") else text + "\n"


def render_fabric(fabric: FabricPlan) -> dict[str, str]:
    """File name -> text for every device of the plan, in device order."""
    names, text_of = device_files(fabric)
    return {name: text_of(index) for index, name in enumerate(names)}


class RenderedFile(NamedTuple):
    """A file found to hold a device's render, byte for byte: where, and its text's digest."""

    path: str
    digest: bytes


def digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def render_notes(fabric: FabricPlan) -> list[str]:
    """What rendering each device chose that its operator must hear (Vendor.render_note)."""
    notes = (vendor_for(d.os).render_note(d) for d in fabric.devices.values())
    return [note for note in notes if note]


def device_files(
    fabric: FabricPlan, rendered: dict[str, RenderedFile] | None = None
) -> tuple[list[str], Callable[[int], str]]:
    """Every device's file name, in device order, and how to render the i-th: a text made
    where it is needed (a worker process on a large fabric, see write_rendered). A device in
    `rendered` takes the text of that file, read again, if its digest is still the
    render's (reading is a tenth of rendering), else it is rendered."""
    devices = list(fabric.devices.values())
    known = rendered or {}

    def text_of(index: int) -> str:
        device = devices[index]
        found = known.get(device.name)
        if found is not None:
            try:
                text = read_config(found.path)
            except InputError:  # changed since (gone, grown past the cap): rendered
                text = ""
            if digest(text) == found.digest:
                return text
        return render_device(device, fabric)

    return [file_name(d) for d in devices], text_of
