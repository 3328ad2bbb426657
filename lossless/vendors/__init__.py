"""Vendors at the edge: one package per switch OS (sonic, cumulus, eos, nxos, junos), each
turning a DevicePlan into that OS's config and reading one back (vendor.py says what a
package offers; registry.py lists the five). Nothing outside this folder knows a syntax.

Beside the five, what they share: untrusted.py, the one door configs we did not write come
in by; cli_tree.py, the reader of indented CLI configs (EOS, NX-OS); skeleton.py, the empty
device a parsed config starts from; facts.py, the plan facts a config can state;
rendering.py, the jinja2 environment; config_folder.py, finding each device's config in a
folder of backups or renders; impact.py, the words of the OSes' change-impact tables;
remediation.py, hier_config remediation of CLI configs.
"""
