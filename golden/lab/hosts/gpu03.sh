#!/usr/bin/env bash
# RoCE host settings of gpu03 (fabric lab), written by lossless; do not edit.
# Each NIC gets what its switch port expects: trust, PFC, the RoCE and CNP classes, DCQCN,
# MTU. Run as root after every boot (the settings do not survive a reboot).
#
# First it checks every NIC and tool (interfaces, RDMA devices, sysfs files, tools and the
# options they need, each tool answering for each NIC) and changes nothing unless all are
# there: every problem found is printed, then "nothing changed". Then it reads each setting
# and changes only those that differ, printing one line per change. A change that fails
# stops the script with the NIC, the step, the tool's own words and the list of what was
# already changed. The last line says whether anything changed, for Ansible's changed_when:
# "lossless: changed N settings" or "lossless: nothing to change".
set -euo pipefail

SYS="${LOSSLESS_SYSFS:-/sys}"  # another root for sysfs and configfs, for tests only
SERVER=gpu03
declare -A RDMA=()  # interface -> RDMA device
PROBLEMS=()  # what the checks found, every NIC
CHANGED=()  # "interface: setting" of each change made


die() { printf 'lossless: %s\n' "$*" >&2; exit 1; }

# Print lines as "lossless: " messages, every line after the first indented (tool output).
report() { sed '1s/^/lossless: /; 2,$s/^/lossless:     /'; }

# A problem found by the checks: a message, and optionally a tool's own words.
problem() {
  PROBLEMS+=("$(printf '%s\n' "$1" "${2:-}" | sed '/^$/d')")
}

require_command() {
  command -v "$1" >/dev/null 2>&1 || problem "$1 not found: $2"
}

# Interface $1 and its RDMA device (into RDMA[$1]); 1 when either is missing.
check_interface() {
  local dev
  if [ ! -e "$SYS/class/net/$1" ]; then
    problem "no interface $1 on this host ($SERVER expected)"
    return 1
  fi
  for dev in "$SYS/class/net/$1/device/infiniband/"*; do
    if [ -e "$dev" ]; then
      RDMA[$1]=$(basename "$dev")
      return 0
    fi
  done
  problem "$1: no RDMA device (RoCE driver not loaded?)"
  return 1
}

# A file the script reads or writes: interface, path, what provides it.
check_file() {
  [ -e "$2" ] || problem "$1: $2 is missing: $3"
}

# A tool answers for this NIC: interface, what it reads, command (skipped if not installed).
check_tool() {
  local interface=$1 what=$2 output
  shift 2
  command -v "$1" >/dev/null 2>&1 || return 0
  if ! output=$("$@" 2>&1); then
    problem "$interface: cannot read $what ($*):" "$output"
  fi
}

# Stop before any change if the checks found a problem.
end_of_checks() {
  local line
  [ ${#PROBLEMS[@]} -gt 0 ] || return 0
  for line in "${PROBLEMS[@]}"; do
    printf '%s\n' "$line" | report >&2
  done
  die "$SERVER: nothing changed: ${#PROBLEMS[@]} problem(s) found by the checks"
}

# A step failed: the NIC, the step, the command and its own words, what was already changed.
failed() {
  {
    printf '%s: %s failed (%s):\n%s\n' "$1" "$2" "$3" "$4" | sed '/^$/d' | report
    if [ ${#CHANGED[@]} -eq 0 ]; then
      echo "lossless: nothing was changed before this step"
    else
      echo "lossless: changed before this step (${#CHANGED[@]}):"
      printf 'lossless:     %s\n' "${CHANGED[@]}"
    fi
    echo "lossless: $SERVER: stopped; the steps after this one were not run"
  } >&2
  exit 1
}

# A command's output, or stop the script: interface, what is read, command. Call it as
# var=$(read_value ...): its exit in the command substitution stops the script (set -e).
read_value() {
  local interface=$1 what=$2 output
  shift 2
  if ! output=$("$@" 2>&1); then
    failed "$interface" "reading $what" "$*" "$output"
  fi
  printf '%s\n' "$output"
}

# Make one change: interface, what it sets (for the report), command; stop if it fails.
change() {
  local interface=$1 setting=$2 output
  shift 2
  if ! output=$("$@" 2>&1); then
    failed "$interface" "$setting" "$*" "$output"
  fi
  CHANGED+=("$interface: $setting")
  echo "lossless: $interface: $setting"
}

# Change one setting if it differs: interface, setting, current value, wanted value, command.
ensure() {
  [ "$3" != "$4" ] || return 0
  local interface=$1 setting="$2 $4 (was ${3:-unset})"
  shift 4
  change "$interface" "$setting" "$@"
}

write_file() { printf '%s\n' "$2" >"$1"; }

# A sysfs value: interface, file under $SYS/class/net/INTERFACE/, wanted value.
set_value() {
  local file="$SYS/class/net/$1/$2" now
  now=$(read_value "$1" "$2" cat "$file")
  ensure "$1" "$2" "$now" "$3" write_file "$file" "$3"
}

set_mtu() {
  local now
  now=$(read_value "$1" mtu cat "$SYS/class/net/$1/mtu")
  ensure "$1" mtu "$now" "$2" ip link set dev "$1" mtu "$2"
}

# 802.3x link pause off (never together with PFC).
pause_off() {
  local pause now=off
  pause=$(read_value "$1" "802.3x pause" ethtool -a "$1")
  if grep -E '^(RX|TX):[[:space:]]+on' >/dev/null <<<"$pause"; then
    now=on
  fi
  ensure "$1" "802.3x pause" "$now" off ethtool -A "$1" rx off tx off
}

# Broadcom bnxt_re: PFC and the DSCP map are in place when iproute2's dcb reports them.
bnxt_in_place() {
  [ "$(dcb pfc show dev "$1" prio-pfc | tr -s ' ' | sed 's/ *$//')" = "prio-pfc $2" ] &&
    dcb -N app show dev "$1" dscp-prio | grep -E "(^| )$3( |$)" >/dev/null
}

[ "$(id -u)" -eq 0 ] || [ -n "${LOSSLESS_SYSFS:-}" ] || die "run as root"
require_command bnxt_setupcc.sh "install Broadcom's bnxt_re driver package (it ships the script)"
require_command dcb "install iproute2 (the dcb tool)"
require_command ethtool "install ethtool"
require_command ip "install iproute2"

# eth0 (BCM57608), cabled to leaf3:Ethernet1/1: checks
if check_interface eth0; then
  check_tool eth0 "PFC" dcb pfc show dev eth0 prio-pfc
  check_tool eth0 "the DSCP map" dcb -N app show dev eth0 dscp-prio
  check_file eth0 "$SYS/class/net/eth0/mtu" "sysfs"
  check_tool eth0 "802.3x pause" ethtool -a eth0
fi

# eth1 (BCM57608), cabled to leaf4:et-0/0/0: checks
if check_interface eth1; then
  check_tool eth1 "PFC" dcb pfc show dev eth1 prio-pfc
  check_tool eth1 "the DSCP map" dcb -N app show dev eth1 dscp-prio
  check_file eth1 "$SYS/class/net/eth1/mtu" "sysfs"
  check_tool eth1 "802.3x pause" ethtool -a eth1
fi
end_of_checks

# eth0 (BCM57608), cabled to leaf3:Ethernet1/1
if ! bnxt_in_place eth0 "0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off" 26:3; then
  change eth0 "PFC, DSCP map and DCQCN by bnxt_setupcc.sh -m 3" bnxt_setupcc.sh -d "${RDMA[eth0]}" -i eth0 -m 3 -r 3 -s 26 -c 6 -p 48 -u 4
fi
set_mtu eth0 9000
pause_off eth0

# eth1 (BCM57608), cabled to leaf4:et-0/0/0
if ! bnxt_in_place eth1 "0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off" 26:3; then
  change eth1 "PFC, DSCP map and DCQCN by bnxt_setupcc.sh -m 3" bnxt_setupcc.sh -d "${RDMA[eth1]}" -i eth1 -m 3 -r 3 -s 26 -c 6 -p 48 -u 4
fi
set_mtu eth1 9000
pause_off eth1

echo "lossless: $SERVER: RoCE host settings in place"

if [ ${#CHANGED[@]} -eq 0 ]; then
  echo "lossless: nothing to change"
else
  echo "lossless: changed ${#CHANGED[@]} settings"
fi
