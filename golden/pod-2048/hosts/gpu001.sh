#!/usr/bin/env bash
# RoCE host settings of gpu001 (fabric pod-2048), written by lossless; do not edit.
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
SERVER=gpu001
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

# NVIDIA mlx5: fields of the `mlnx_qos -i IF` report (Mellanox/mlnx-tools), read from stdin.
qos_trust() { sed -n 's/^Priority trust \(state\|mode\): //p'; }
qos_pfc() { awk '$1 == "enabled" { v = $2; for (i = 3; i <= 9; i++) v = v "," $i; print v; exit }'; }
qos_cable_len() { sed -n 's/^Cable len: //p'; }
qos_dscp_prio() {
  awk -v dscp="$1" '$1 ~ /^prio:/ && $2 ~ /^dscp:/ {
    split($1, p, ":"); sub(/^dscp:/, "", $2); n = split($2, d, ",")
    for (i = 1; i <= n; i++) if (d[i] != "" && d[i] + 0 == dscp) { print p[2]; exit }
  }'
}
# The number in "Global tclass=106" (MLNX_OFED traffic_class) or a bare number.
tclass_value() { sed -n 's/^[^0-9]*\([0-9][0-9]*\)$/\1/p'; }

# Interfaces without the ECN sysfs of the DOCA-OFED / MLNX_OFED driver (the upstream, inbox
# mlx5 driver has none): DCQCN stays as the firmware sets it (on for every priority unless
# mlxconfig ROCE_CC_PRIO_MASK_P1/P2 says otherwise).
declare -A NO_ECN=()

# mlnx_qos has the options this script uses (older mlnx-tools lack --trust, --dscp2prio or
# --cable_len): interface, options, looked up in `mlnx_qos --help`.
check_qos_options() {
  local interface=$1 help option
  shift
  command -v mlnx_qos >/dev/null 2>&1 || return 0
  help=$(mlnx_qos --help 2>&1) || true
  for option in "$@"; do
    grep -q -e "$option" <<<"$help" ||
      problem "$interface: mlnx_qos has no $option option (\`mlnx_qos --help\`): install a newer mlnx-tools (DOCA-OFED or MLNX_OFED)"
  done
}

[ "$(id -u)" -eq 0 ] || [ -n "${LOSSLESS_SYSFS:-}" ] || die "run as root"
require_command cma_roce_tos "install mlnx-tools (DOCA-OFED or MLNX_OFED)"
require_command ethtool "install ethtool"
require_command ip "install iproute2"
require_command mlnx_qos "install mlnx-tools (DOCA-OFED or MLNX_OFED)"

# eth0 (ConnectX-7), cabled to leaf01:Ethernet0: checks
if check_interface eth0; then
  check_qos_options eth0 --trust --pfc --cable_len --dscp2prio
  check_tool eth0 "the QoS report" mlnx_qos -i eth0
  if [ -d "$SYS/class/net/eth0/ecn" ]; then
    check_file eth0 "$SYS/class/net/eth0/ecn/roce_np/enable/3" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"
    check_file eth0 "$SYS/class/net/eth0/ecn/roce_rp/enable/3" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"
    check_file eth0 "$SYS/class/net/eth0/ecn/roce_np/cnp_dscp" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"
    check_file eth0 "$SYS/class/net/eth0/ecn/roce_np/cnp_802p_prio" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"
  else
    NO_ECN[eth0]=1
  fi
  check_tool eth0 "the RDMA-CM default ToS" cma_roce_tos -d "${RDMA[eth0]}"
  check_file eth0 "$SYS/class/net/eth0/mtu" "sysfs"
  check_tool eth0 "802.3x pause" ethtool -a eth0
fi

# eth1 (ConnectX-7), cabled to leaf05:Ethernet0: checks
if check_interface eth1; then
  check_qos_options eth1 --trust --pfc --cable_len --dscp2prio
  check_tool eth1 "the QoS report" mlnx_qos -i eth1
  if [ -d "$SYS/class/net/eth1/ecn" ]; then
    check_file eth1 "$SYS/class/net/eth1/ecn/roce_np/enable/3" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"
    check_file eth1 "$SYS/class/net/eth1/ecn/roce_rp/enable/3" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"
    check_file eth1 "$SYS/class/net/eth1/ecn/roce_np/cnp_dscp" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"
    check_file eth1 "$SYS/class/net/eth1/ecn/roce_np/cnp_802p_prio" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"
  else
    NO_ECN[eth1]=1
  fi
  check_tool eth1 "the RDMA-CM default ToS" cma_roce_tos -d "${RDMA[eth1]}"
  check_file eth1 "$SYS/class/net/eth1/mtu" "sysfs"
  check_tool eth1 "802.3x pause" ethtool -a eth1
fi

# eth2 (ConnectX-7), cabled to leaf09:Ethernet0: checks
if check_interface eth2; then
  check_qos_options eth2 --trust --pfc --cable_len --dscp2prio
  check_tool eth2 "the QoS report" mlnx_qos -i eth2
  if [ -d "$SYS/class/net/eth2/ecn" ]; then
    check_file eth2 "$SYS/class/net/eth2/ecn/roce_np/enable/3" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"
    check_file eth2 "$SYS/class/net/eth2/ecn/roce_rp/enable/3" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"
    check_file eth2 "$SYS/class/net/eth2/ecn/roce_np/cnp_dscp" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"
    check_file eth2 "$SYS/class/net/eth2/ecn/roce_np/cnp_802p_prio" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"
  else
    NO_ECN[eth2]=1
  fi
  check_tool eth2 "the RDMA-CM default ToS" cma_roce_tos -d "${RDMA[eth2]}"
  check_file eth2 "$SYS/class/net/eth2/mtu" "sysfs"
  check_tool eth2 "802.3x pause" ethtool -a eth2
fi

# eth3 (ConnectX-7), cabled to leaf13:Ethernet0: checks
if check_interface eth3; then
  check_qos_options eth3 --trust --pfc --cable_len --dscp2prio
  check_tool eth3 "the QoS report" mlnx_qos -i eth3
  if [ -d "$SYS/class/net/eth3/ecn" ]; then
    check_file eth3 "$SYS/class/net/eth3/ecn/roce_np/enable/3" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"
    check_file eth3 "$SYS/class/net/eth3/ecn/roce_rp/enable/3" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"
    check_file eth3 "$SYS/class/net/eth3/ecn/roce_np/cnp_dscp" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"
    check_file eth3 "$SYS/class/net/eth3/ecn/roce_np/cnp_802p_prio" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"
  else
    NO_ECN[eth3]=1
  fi
  check_tool eth3 "the RDMA-CM default ToS" cma_roce_tos -d "${RDMA[eth3]}"
  check_file eth3 "$SYS/class/net/eth3/mtu" "sysfs"
  check_tool eth3 "802.3x pause" ethtool -a eth3
fi

# eth4 (ConnectX-7), cabled to leaf17:Ethernet0: checks
if check_interface eth4; then
  check_qos_options eth4 --trust --pfc --cable_len --dscp2prio
  check_tool eth4 "the QoS report" mlnx_qos -i eth4
  if [ -d "$SYS/class/net/eth4/ecn" ]; then
    check_file eth4 "$SYS/class/net/eth4/ecn/roce_np/enable/3" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"
    check_file eth4 "$SYS/class/net/eth4/ecn/roce_rp/enable/3" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"
    check_file eth4 "$SYS/class/net/eth4/ecn/roce_np/cnp_dscp" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"
    check_file eth4 "$SYS/class/net/eth4/ecn/roce_np/cnp_802p_prio" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"
  else
    NO_ECN[eth4]=1
  fi
  check_tool eth4 "the RDMA-CM default ToS" cma_roce_tos -d "${RDMA[eth4]}"
  check_file eth4 "$SYS/class/net/eth4/mtu" "sysfs"
  check_tool eth4 "802.3x pause" ethtool -a eth4
fi

# eth5 (ConnectX-7), cabled to leaf21:Ethernet0: checks
if check_interface eth5; then
  check_qos_options eth5 --trust --pfc --cable_len --dscp2prio
  check_tool eth5 "the QoS report" mlnx_qos -i eth5
  if [ -d "$SYS/class/net/eth5/ecn" ]; then
    check_file eth5 "$SYS/class/net/eth5/ecn/roce_np/enable/3" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"
    check_file eth5 "$SYS/class/net/eth5/ecn/roce_rp/enable/3" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"
    check_file eth5 "$SYS/class/net/eth5/ecn/roce_np/cnp_dscp" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"
    check_file eth5 "$SYS/class/net/eth5/ecn/roce_np/cnp_802p_prio" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"
  else
    NO_ECN[eth5]=1
  fi
  check_tool eth5 "the RDMA-CM default ToS" cma_roce_tos -d "${RDMA[eth5]}"
  check_file eth5 "$SYS/class/net/eth5/mtu" "sysfs"
  check_tool eth5 "802.3x pause" ethtool -a eth5
fi

# eth6 (ConnectX-7), cabled to leaf25:Ethernet0: checks
if check_interface eth6; then
  check_qos_options eth6 --trust --pfc --cable_len --dscp2prio
  check_tool eth6 "the QoS report" mlnx_qos -i eth6
  if [ -d "$SYS/class/net/eth6/ecn" ]; then
    check_file eth6 "$SYS/class/net/eth6/ecn/roce_np/enable/3" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"
    check_file eth6 "$SYS/class/net/eth6/ecn/roce_rp/enable/3" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"
    check_file eth6 "$SYS/class/net/eth6/ecn/roce_np/cnp_dscp" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"
    check_file eth6 "$SYS/class/net/eth6/ecn/roce_np/cnp_802p_prio" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"
  else
    NO_ECN[eth6]=1
  fi
  check_tool eth6 "the RDMA-CM default ToS" cma_roce_tos -d "${RDMA[eth6]}"
  check_file eth6 "$SYS/class/net/eth6/mtu" "sysfs"
  check_tool eth6 "802.3x pause" ethtool -a eth6
fi

# eth7 (ConnectX-7), cabled to leaf29:Ethernet0: checks
if check_interface eth7; then
  check_qos_options eth7 --trust --pfc --cable_len --dscp2prio
  check_tool eth7 "the QoS report" mlnx_qos -i eth7
  if [ -d "$SYS/class/net/eth7/ecn" ]; then
    check_file eth7 "$SYS/class/net/eth7/ecn/roce_np/enable/3" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"
    check_file eth7 "$SYS/class/net/eth7/ecn/roce_rp/enable/3" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"
    check_file eth7 "$SYS/class/net/eth7/ecn/roce_np/cnp_dscp" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"
    check_file eth7 "$SYS/class/net/eth7/ecn/roce_np/cnp_802p_prio" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"
  else
    NO_ECN[eth7]=1
  fi
  check_tool eth7 "the RDMA-CM default ToS" cma_roce_tos -d "${RDMA[eth7]}"
  check_file eth7 "$SYS/class/net/eth7/mtu" "sysfs"
  check_tool eth7 "802.3x pause" ethtool -a eth7
fi
end_of_checks

# eth0 (ConnectX-7), cabled to leaf01:Ethernet0
qos=$(read_value eth0 "the QoS report" mlnx_qos -i eth0)
ensure eth0 trust "$(qos_trust <<<"$qos")" dscp mlnx_qos -i eth0 --trust dscp
ensure eth0 PFC "$(qos_pfc <<<"$qos")" 0,0,0,1,0,0,0,0 mlnx_qos -i eth0 --pfc 0,0,0,1,0,0,0,0
ensure eth0 "cable length" "$(qos_cable_len <<<"$qos")" 3 mlnx_qos -i eth0 --cable_len 3
qos=$(read_value eth0 "the QoS report" mlnx_qos -i eth0)
ensure eth0 "priority of DSCP 26" "$(qos_dscp_prio 26 <<<"$qos")" 3 mlnx_qos -i eth0 --dscp2prio set,26,3
ensure eth0 "priority of DSCP 48" "$(qos_dscp_prio 48 <<<"$qos")" 6 mlnx_qos -i eth0 --dscp2prio set,48,6
if [ -z "${NO_ECN[eth0]:-}" ]; then
  set_value eth0 ecn/roce_np/enable/3 1
  set_value eth0 ecn/roce_rp/enable/3 1
  set_value eth0 ecn/roce_np/cnp_dscp 48
  set_value eth0 ecn/roce_np/cnp_802p_prio 6
else
  echo "lossless: eth0: ECN/DCQCN not settable on this driver (no ECN sysfs: inbox mlx5): firmware defaults, DCQCN on by default"
fi
tos=$(read_value eth0 "the RDMA-CM default ToS" cma_roce_tos -d "${RDMA[eth0]}")
ensure eth0 "RDMA-CM default ToS" "$tos" 106 cma_roce_tos -d "${RDMA[eth0]}" -t 106
tclass="$SYS/class/infiniband/${RDMA[eth0]}/tc/1/traffic_class"
if [ -e "$tclass" ]; then
  ensure eth0 "port traffic class" "$(tclass_value <"$tclass")" 106 write_file "$tclass" 106
fi
set_mtu eth0 9000
pause_off eth0

# eth1 (ConnectX-7), cabled to leaf05:Ethernet0
qos=$(read_value eth1 "the QoS report" mlnx_qos -i eth1)
ensure eth1 trust "$(qos_trust <<<"$qos")" dscp mlnx_qos -i eth1 --trust dscp
ensure eth1 PFC "$(qos_pfc <<<"$qos")" 0,0,0,1,0,0,0,0 mlnx_qos -i eth1 --pfc 0,0,0,1,0,0,0,0
ensure eth1 "cable length" "$(qos_cable_len <<<"$qos")" 3 mlnx_qos -i eth1 --cable_len 3
qos=$(read_value eth1 "the QoS report" mlnx_qos -i eth1)
ensure eth1 "priority of DSCP 26" "$(qos_dscp_prio 26 <<<"$qos")" 3 mlnx_qos -i eth1 --dscp2prio set,26,3
ensure eth1 "priority of DSCP 48" "$(qos_dscp_prio 48 <<<"$qos")" 6 mlnx_qos -i eth1 --dscp2prio set,48,6
if [ -z "${NO_ECN[eth1]:-}" ]; then
  set_value eth1 ecn/roce_np/enable/3 1
  set_value eth1 ecn/roce_rp/enable/3 1
  set_value eth1 ecn/roce_np/cnp_dscp 48
  set_value eth1 ecn/roce_np/cnp_802p_prio 6
else
  echo "lossless: eth1: ECN/DCQCN not settable on this driver (no ECN sysfs: inbox mlx5): firmware defaults, DCQCN on by default"
fi
tos=$(read_value eth1 "the RDMA-CM default ToS" cma_roce_tos -d "${RDMA[eth1]}")
ensure eth1 "RDMA-CM default ToS" "$tos" 106 cma_roce_tos -d "${RDMA[eth1]}" -t 106
tclass="$SYS/class/infiniband/${RDMA[eth1]}/tc/1/traffic_class"
if [ -e "$tclass" ]; then
  ensure eth1 "port traffic class" "$(tclass_value <"$tclass")" 106 write_file "$tclass" 106
fi
set_mtu eth1 9000
pause_off eth1

# eth2 (ConnectX-7), cabled to leaf09:Ethernet0
qos=$(read_value eth2 "the QoS report" mlnx_qos -i eth2)
ensure eth2 trust "$(qos_trust <<<"$qos")" dscp mlnx_qos -i eth2 --trust dscp
ensure eth2 PFC "$(qos_pfc <<<"$qos")" 0,0,0,1,0,0,0,0 mlnx_qos -i eth2 --pfc 0,0,0,1,0,0,0,0
ensure eth2 "cable length" "$(qos_cable_len <<<"$qos")" 3 mlnx_qos -i eth2 --cable_len 3
qos=$(read_value eth2 "the QoS report" mlnx_qos -i eth2)
ensure eth2 "priority of DSCP 26" "$(qos_dscp_prio 26 <<<"$qos")" 3 mlnx_qos -i eth2 --dscp2prio set,26,3
ensure eth2 "priority of DSCP 48" "$(qos_dscp_prio 48 <<<"$qos")" 6 mlnx_qos -i eth2 --dscp2prio set,48,6
if [ -z "${NO_ECN[eth2]:-}" ]; then
  set_value eth2 ecn/roce_np/enable/3 1
  set_value eth2 ecn/roce_rp/enable/3 1
  set_value eth2 ecn/roce_np/cnp_dscp 48
  set_value eth2 ecn/roce_np/cnp_802p_prio 6
else
  echo "lossless: eth2: ECN/DCQCN not settable on this driver (no ECN sysfs: inbox mlx5): firmware defaults, DCQCN on by default"
fi
tos=$(read_value eth2 "the RDMA-CM default ToS" cma_roce_tos -d "${RDMA[eth2]}")
ensure eth2 "RDMA-CM default ToS" "$tos" 106 cma_roce_tos -d "${RDMA[eth2]}" -t 106
tclass="$SYS/class/infiniband/${RDMA[eth2]}/tc/1/traffic_class"
if [ -e "$tclass" ]; then
  ensure eth2 "port traffic class" "$(tclass_value <"$tclass")" 106 write_file "$tclass" 106
fi
set_mtu eth2 9000
pause_off eth2

# eth3 (ConnectX-7), cabled to leaf13:Ethernet0
qos=$(read_value eth3 "the QoS report" mlnx_qos -i eth3)
ensure eth3 trust "$(qos_trust <<<"$qos")" dscp mlnx_qos -i eth3 --trust dscp
ensure eth3 PFC "$(qos_pfc <<<"$qos")" 0,0,0,1,0,0,0,0 mlnx_qos -i eth3 --pfc 0,0,0,1,0,0,0,0
ensure eth3 "cable length" "$(qos_cable_len <<<"$qos")" 3 mlnx_qos -i eth3 --cable_len 3
qos=$(read_value eth3 "the QoS report" mlnx_qos -i eth3)
ensure eth3 "priority of DSCP 26" "$(qos_dscp_prio 26 <<<"$qos")" 3 mlnx_qos -i eth3 --dscp2prio set,26,3
ensure eth3 "priority of DSCP 48" "$(qos_dscp_prio 48 <<<"$qos")" 6 mlnx_qos -i eth3 --dscp2prio set,48,6
if [ -z "${NO_ECN[eth3]:-}" ]; then
  set_value eth3 ecn/roce_np/enable/3 1
  set_value eth3 ecn/roce_rp/enable/3 1
  set_value eth3 ecn/roce_np/cnp_dscp 48
  set_value eth3 ecn/roce_np/cnp_802p_prio 6
else
  echo "lossless: eth3: ECN/DCQCN not settable on this driver (no ECN sysfs: inbox mlx5): firmware defaults, DCQCN on by default"
fi
tos=$(read_value eth3 "the RDMA-CM default ToS" cma_roce_tos -d "${RDMA[eth3]}")
ensure eth3 "RDMA-CM default ToS" "$tos" 106 cma_roce_tos -d "${RDMA[eth3]}" -t 106
tclass="$SYS/class/infiniband/${RDMA[eth3]}/tc/1/traffic_class"
if [ -e "$tclass" ]; then
  ensure eth3 "port traffic class" "$(tclass_value <"$tclass")" 106 write_file "$tclass" 106
fi
set_mtu eth3 9000
pause_off eth3

# eth4 (ConnectX-7), cabled to leaf17:Ethernet0
qos=$(read_value eth4 "the QoS report" mlnx_qos -i eth4)
ensure eth4 trust "$(qos_trust <<<"$qos")" dscp mlnx_qos -i eth4 --trust dscp
ensure eth4 PFC "$(qos_pfc <<<"$qos")" 0,0,0,1,0,0,0,0 mlnx_qos -i eth4 --pfc 0,0,0,1,0,0,0,0
ensure eth4 "cable length" "$(qos_cable_len <<<"$qos")" 3 mlnx_qos -i eth4 --cable_len 3
qos=$(read_value eth4 "the QoS report" mlnx_qos -i eth4)
ensure eth4 "priority of DSCP 26" "$(qos_dscp_prio 26 <<<"$qos")" 3 mlnx_qos -i eth4 --dscp2prio set,26,3
ensure eth4 "priority of DSCP 48" "$(qos_dscp_prio 48 <<<"$qos")" 6 mlnx_qos -i eth4 --dscp2prio set,48,6
if [ -z "${NO_ECN[eth4]:-}" ]; then
  set_value eth4 ecn/roce_np/enable/3 1
  set_value eth4 ecn/roce_rp/enable/3 1
  set_value eth4 ecn/roce_np/cnp_dscp 48
  set_value eth4 ecn/roce_np/cnp_802p_prio 6
else
  echo "lossless: eth4: ECN/DCQCN not settable on this driver (no ECN sysfs: inbox mlx5): firmware defaults, DCQCN on by default"
fi
tos=$(read_value eth4 "the RDMA-CM default ToS" cma_roce_tos -d "${RDMA[eth4]}")
ensure eth4 "RDMA-CM default ToS" "$tos" 106 cma_roce_tos -d "${RDMA[eth4]}" -t 106
tclass="$SYS/class/infiniband/${RDMA[eth4]}/tc/1/traffic_class"
if [ -e "$tclass" ]; then
  ensure eth4 "port traffic class" "$(tclass_value <"$tclass")" 106 write_file "$tclass" 106
fi
set_mtu eth4 9000
pause_off eth4

# eth5 (ConnectX-7), cabled to leaf21:Ethernet0
qos=$(read_value eth5 "the QoS report" mlnx_qos -i eth5)
ensure eth5 trust "$(qos_trust <<<"$qos")" dscp mlnx_qos -i eth5 --trust dscp
ensure eth5 PFC "$(qos_pfc <<<"$qos")" 0,0,0,1,0,0,0,0 mlnx_qos -i eth5 --pfc 0,0,0,1,0,0,0,0
ensure eth5 "cable length" "$(qos_cable_len <<<"$qos")" 3 mlnx_qos -i eth5 --cable_len 3
qos=$(read_value eth5 "the QoS report" mlnx_qos -i eth5)
ensure eth5 "priority of DSCP 26" "$(qos_dscp_prio 26 <<<"$qos")" 3 mlnx_qos -i eth5 --dscp2prio set,26,3
ensure eth5 "priority of DSCP 48" "$(qos_dscp_prio 48 <<<"$qos")" 6 mlnx_qos -i eth5 --dscp2prio set,48,6
if [ -z "${NO_ECN[eth5]:-}" ]; then
  set_value eth5 ecn/roce_np/enable/3 1
  set_value eth5 ecn/roce_rp/enable/3 1
  set_value eth5 ecn/roce_np/cnp_dscp 48
  set_value eth5 ecn/roce_np/cnp_802p_prio 6
else
  echo "lossless: eth5: ECN/DCQCN not settable on this driver (no ECN sysfs: inbox mlx5): firmware defaults, DCQCN on by default"
fi
tos=$(read_value eth5 "the RDMA-CM default ToS" cma_roce_tos -d "${RDMA[eth5]}")
ensure eth5 "RDMA-CM default ToS" "$tos" 106 cma_roce_tos -d "${RDMA[eth5]}" -t 106
tclass="$SYS/class/infiniband/${RDMA[eth5]}/tc/1/traffic_class"
if [ -e "$tclass" ]; then
  ensure eth5 "port traffic class" "$(tclass_value <"$tclass")" 106 write_file "$tclass" 106
fi
set_mtu eth5 9000
pause_off eth5

# eth6 (ConnectX-7), cabled to leaf25:Ethernet0
qos=$(read_value eth6 "the QoS report" mlnx_qos -i eth6)
ensure eth6 trust "$(qos_trust <<<"$qos")" dscp mlnx_qos -i eth6 --trust dscp
ensure eth6 PFC "$(qos_pfc <<<"$qos")" 0,0,0,1,0,0,0,0 mlnx_qos -i eth6 --pfc 0,0,0,1,0,0,0,0
ensure eth6 "cable length" "$(qos_cable_len <<<"$qos")" 3 mlnx_qos -i eth6 --cable_len 3
qos=$(read_value eth6 "the QoS report" mlnx_qos -i eth6)
ensure eth6 "priority of DSCP 26" "$(qos_dscp_prio 26 <<<"$qos")" 3 mlnx_qos -i eth6 --dscp2prio set,26,3
ensure eth6 "priority of DSCP 48" "$(qos_dscp_prio 48 <<<"$qos")" 6 mlnx_qos -i eth6 --dscp2prio set,48,6
if [ -z "${NO_ECN[eth6]:-}" ]; then
  set_value eth6 ecn/roce_np/enable/3 1
  set_value eth6 ecn/roce_rp/enable/3 1
  set_value eth6 ecn/roce_np/cnp_dscp 48
  set_value eth6 ecn/roce_np/cnp_802p_prio 6
else
  echo "lossless: eth6: ECN/DCQCN not settable on this driver (no ECN sysfs: inbox mlx5): firmware defaults, DCQCN on by default"
fi
tos=$(read_value eth6 "the RDMA-CM default ToS" cma_roce_tos -d "${RDMA[eth6]}")
ensure eth6 "RDMA-CM default ToS" "$tos" 106 cma_roce_tos -d "${RDMA[eth6]}" -t 106
tclass="$SYS/class/infiniband/${RDMA[eth6]}/tc/1/traffic_class"
if [ -e "$tclass" ]; then
  ensure eth6 "port traffic class" "$(tclass_value <"$tclass")" 106 write_file "$tclass" 106
fi
set_mtu eth6 9000
pause_off eth6

# eth7 (ConnectX-7), cabled to leaf29:Ethernet0
qos=$(read_value eth7 "the QoS report" mlnx_qos -i eth7)
ensure eth7 trust "$(qos_trust <<<"$qos")" dscp mlnx_qos -i eth7 --trust dscp
ensure eth7 PFC "$(qos_pfc <<<"$qos")" 0,0,0,1,0,0,0,0 mlnx_qos -i eth7 --pfc 0,0,0,1,0,0,0,0
ensure eth7 "cable length" "$(qos_cable_len <<<"$qos")" 3 mlnx_qos -i eth7 --cable_len 3
qos=$(read_value eth7 "the QoS report" mlnx_qos -i eth7)
ensure eth7 "priority of DSCP 26" "$(qos_dscp_prio 26 <<<"$qos")" 3 mlnx_qos -i eth7 --dscp2prio set,26,3
ensure eth7 "priority of DSCP 48" "$(qos_dscp_prio 48 <<<"$qos")" 6 mlnx_qos -i eth7 --dscp2prio set,48,6
if [ -z "${NO_ECN[eth7]:-}" ]; then
  set_value eth7 ecn/roce_np/enable/3 1
  set_value eth7 ecn/roce_rp/enable/3 1
  set_value eth7 ecn/roce_np/cnp_dscp 48
  set_value eth7 ecn/roce_np/cnp_802p_prio 6
else
  echo "lossless: eth7: ECN/DCQCN not settable on this driver (no ECN sysfs: inbox mlx5): firmware defaults, DCQCN on by default"
fi
tos=$(read_value eth7 "the RDMA-CM default ToS" cma_roce_tos -d "${RDMA[eth7]}")
ensure eth7 "RDMA-CM default ToS" "$tos" 106 cma_roce_tos -d "${RDMA[eth7]}" -t 106
tclass="$SYS/class/infiniband/${RDMA[eth7]}/tc/1/traffic_class"
if [ -e "$tclass" ]; then
  ensure eth7 "port traffic class" "$(tclass_value <"$tclass")" 106 write_file "$tclass" 106
fi
set_mtu eth7 9000
pause_off eth7

echo "lossless: $SERVER: RoCE host settings in place"

if [ ${#CHANGED[@]} -eq 0 ]; then
  echo "lossless: nothing to change"
else
  echo "lossless: changed ${#CHANGED[@]} settings"
fi
