"""Changes from a running config to the intended one, limited to what lossless owns.

CLI OSes (EOS, NX-OS, Junos) go through hier_config: both configs become trees, the running
tree is cut down to the lossless-owned part (sections the intended config has, whole QoS
domains the vendor module names, owned lines of our interfaces), and hier_config computes the
remediation. Unrelated running config is never in scope, so it is never proposed for removal.
"""

from __future__ import annotations

from collections.abc import Callable

from hier_config import Platform, get_hconfig


def cli_remediation(
    platform: Platform,
    running: str,
    intended: str,
    owns_section: Callable[[str], bool],
    owns_interface_line: Callable[[str], bool],
    interface_prefix: str = "interface ",
) -> list[str]:
    """Remediation lines (hierarchical text, indented) taking running to intended."""
    running_tree = get_hconfig(platform, running)
    intended_tree = get_hconfig(platform, intended)
    intended_sections = {child.text for child in intended_tree.children}
    scoped = get_hconfig(platform, "")
    for child in running_tree.children:
        text = child.text
        if text.startswith(interface_prefix):
            if text in intended_sections:
                section = scoped.add_child(text)
                for line in child.children:
                    if owns_interface_line(line.text):
                        section.add_deep_copy_of(line)
        elif text in intended_sections or owns_section(text):
            scoped.add_deep_copy_of(child)
    remediation = scoped.config_to_get_to(intended_tree)
    return ["  " * (node.depth() - 1) + node.text for node in remediation.all_children_sorted()]


def set_line_remediation(
    platform: Platform, running: str, intended: str, owns: Callable[[str], bool]
) -> list[str]:
    """For OSes hier_config flattens into `set` statements (Junos): owned statements only."""
    running_tree = get_hconfig(platform, running)
    intended_tree = get_hconfig(platform, intended)
    scoped_text = "\n".join(c.text for c in running_tree.children if owns(c.text))
    scoped = get_hconfig(platform, scoped_text)
    return [node.text for node in scoped.config_to_get_to(intended_tree).all_children_sorted()]
