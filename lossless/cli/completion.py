"""`lossless completion SHELL`: a tab-completion script for bash, zsh, fish or tcsh.

shtab (https://github.com/iterative/shtab) writes the script once from the argparse parser,
so pressing TAB never starts Python (argcomplete would run lossless on every TAB) and
nothing in the program's own start-up changes. Commands, options and choices complete;
inventory and config arguments complete file names, output folders directory names.

Two completions know the project's data:
* `--select` / `--ignore`: every rule ID and name, written into the script when it is made
  (the rules are lossless's own, so they change only with lossless); a comma list completes
  its last item.
* `--device`: the device names (or ranges, as `--device` takes them) under `devices:` of the
  inventory named earlier on the command line, read by awk from its first MiB with no
  Python: a few milliseconds, whatever the file; a comma list completes its last item. The
  inventory may be hostile (a pull request checked out for review): only keys that are
  device names by the schema are offered, and each shell handles them as data (bash's
  `compgen -W` would expand `$(...)` in its word list, so the names are matched in a loop). An
  inventory written as a folder, or devices in flow style, complete nothing (tcsh: no
  device completion, it cannot see the other words of the line). bash splits
  `--format=gi` at the `=` (COMP_WORDBREAKS) and shtab's script then completes nothing:
  write the value after a space (fish completes both forms).
Where the syntax comes from: bash `compgen -W -P` (bash manual, "Programmable Completion
Builtins"), zsh `_values -s ,` (zshcompsys(1)), fish `commandline -opc` (fish documentation,
"commandline"), tcsh `complete` word lists (tcsh(1)).
"""

from __future__ import annotations

import argparse
import shlex
import sys

SHELLS = ["bash", "zsh", "fish", "tcsh"]
_FILES = {"inventory", "config", "credentials", "plan_json"}
_FOLDERS = {"configs", "running", "mock", "render"}
_RULE_OPTIONS = {"select", "ignore"}
_INVENTORY_BYTES = 1 << 20  # a device list is near the top; never read a whole huge file

# A device name or range as the inventory schema's `name_or_range` allows it (its
# `(?![.-])` written as a first character that is neither), in POSIX ERE for awk; a test
# holds the two equal. The inventory is hostile (a pull request under review): a key that is
# no device name is not offered.
_NAME_OR_RANGE = (
    r"^([A-Za-z0-9_]|\[[0-9]+:[0-9]+(:[0-9]+)?\])([A-Za-z0-9_.-]|\[[0-9]+:[0-9]+(:[0-9]+)?\])*$"
)
_NAME_MAX = 128

# The keys one level under a top-level `devices:` (block style), as written: names or
# ranges. A key ends at the first ':' followed by a blank or the line's end, so a range
# such as spine[1:2] stays whole.
_AWK_DEVICES = r"""
BEGIN { typed = ENVIRON["LOSSLESS_TYPED"] }  # the start typed (bash): compared, never evaluated
/^devices:[ \t]*(#.*)?$/ { inside = 1; next }
inside && /^[^ \t#]/ { exit }
inside && indent == "" && match($0, /^[ \t]+[^ \t#]/) { indent = RLENGTH - 1 }
inside && indent != "" {
  lead = substr($0, 1, indent); rest = substr($0, indent + 1)
  if (lead ~ /^[ \t]*$/ && rest ~ /^[^ \t#-]/ && match(rest, /^[^ \t]+:([ \t]|$)/)) {
    key = substr(rest, 1, RLENGTH); sub(/:[ \t]*$/, "", key); gsub(/^["']|["']$/, "", key)
    if (key ~ /NAME_OR_RANGE/ && length(key) <= NAME_MAX && (typed == "" || index(key, typed) == 1))
      print key
  }
}
""".replace("NAME_OR_RANGE", _NAME_OR_RANGE).replace("NAME_MAX", str(_NAME_MAX))


def _rule_words() -> list[str]:
    from lossless.lint.catalogue import registered_rules

    rules = registered_rules()
    return [*sorted(rules), *sorted(rule.name for rule in rules.values())]


def _devices_of(file_variable: str, typed: str = "") -> str:
    """Shell text printing the device keys of the inventory in `file_variable` (those
    starting with the text of the shell word `typed`, where given)."""
    return (
        f'head -c {_INVENTORY_BYTES} -- "{file_variable}" 2>/dev/null | '
        f"LOSSLESS_TYPED={typed or chr(34) * 2} LC_ALL=C awk {shlex.quote(_AWK_DEVICES)}"
    )


def _bash_preamble(rules: str) -> str:
    return f"""
_lossless_inventory_word() {{  # the first word of the line naming a YAML file
  local word
  for word in "${{COMP_WORDS[@]:1:COMP_CWORD-1}}"; do
    case "$word" in -*) ;; *.yaml|*.yml) [ -f "$word" ] && {{ printf '%s' "$word"; return; }};;
    esac
  done
}}
_lossless_rules() {{
  local head=""
  [[ "$1" == *,* ]] && head="${{1%,*}},"
  compgen -P "$head" -W "{rules}" -- "${{1##*,}}"
}}
_lossless_devices() {{
  local file
  file="$(_lossless_inventory_word)"
  [ -n "$file" ] || return 0
  local head=""
  [[ "$1" == *,* ]] && head="${{1%,*}},"  # --device takes a comma list, as --select does
  # each name is printed as data (compgen -W would expand it: $(...), `...`); awk keeps
  # those starting with what was typed
  local name
  while IFS= read -r name; do
    printf '%s\n' "$head$name"
  done < <({_devices_of("$file", '"${1##*,}"')})
  return 0
}}
"""


def _zsh_preamble(rules: str) -> str:
    return f"""
_lossless_rules() {{
  _values -s , 'rule' {rules}
}}
_lossless_devices() {{
  local word file
  for word in "${{(@)words[2,CURRENT-1]}}"; do
    case "$word" in -*) ;; *.yaml|*.yml) [[ -f "$word" ]] && {{ file="$word"; break }};;
    esac
  done
  [[ -n "$file" ]] || return 1
  local -a names
  names=(${{(f)"$({_devices_of("$file")})"}})
  compadd -a names
}}
"""


def _fish_preamble(rules: str) -> str:
    return f"""
function __lossless_rules
  set -l token (commandline -ct)
  set -l head (string replace -r '[^,]*$' '' -- $token)
  for word in {rules}
    echo $head$word
  end
end
function __lossless_devices
  for word in (commandline -opc)[2..-1]
    if string match -qr '^[^-].*\\.ya?ml$' -- $word; and test -f $word
      set -l file $word
      {_devices_of("$file")}
      return
    end
  end
end
"""


def _custom(rules: list[str]) -> tuple[dict, dict]:
    """shtab `complete` values for the rule and device options."""
    words = " ".join(rules)
    preamble = {
        "bash": _bash_preamble(words),
        "zsh": _zsh_preamble(words),
        "fish": _fish_preamble(words),
    }
    rule = {
        "bash": "_lossless_rules",
        "zsh": "_lossless_rules",
        "fish": "(__lossless_rules)",
        "tcsh": f"({words})",
        "preamble": preamble,
    }
    device = {
        "bash": "_lossless_devices",
        "zsh": "_lossless_devices",
        "fish": "(__lossless_devices)",
        "tcsh": "",
        "preamble": preamble,
    }
    return rule, device


def _mark(parser: argparse.ArgumentParser, shtab, rule: dict, device: dict) -> None:
    for action in parser._actions:  # argparse keeps no public list of them
        if isinstance(action, argparse._SubParsersAction):
            for sub in set(action.choices.values()):
                _mark(sub, shtab, rule, device)
        elif action.dest in _FILES:
            action.complete = shtab.FILE  # type: ignore[attr-defined]
        elif action.dest in _FOLDERS or (action.dest == "output" and "render" in parser.prog):
            action.complete = shtab.DIRECTORY  # type: ignore[attr-defined]
        elif action.dest == "output":
            action.complete = shtab.FILE  # type: ignore[attr-defined]
        elif action.dest in _RULE_OPTIONS:
            action.complete = rule  # type: ignore[attr-defined]
        elif action.dest == "device":
            action.complete = device  # type: ignore[attr-defined]


def completion_command(args: argparse.Namespace) -> int:
    import shtab

    from lossless.cli.parser import build_parser

    parser = build_parser()
    rule, device = _custom(_rule_words())
    _mark(parser, shtab, rule, device)
    sys.stdout.write(shtab.complete(parser, shell=args.shell))
    return 0
