#!/usr/bin/env bash
# RoCE host settings of gpu01 (fabric lab), written by lossless; do not edit.
# Each NIC gets what its switch port expects: trust, PFC, the RoCE and CNP classes, DCQCN,
# MTU. Run as root after every boot (the settings do not survive a reboot). The script first
# checks every NIC and tool, changing nothing unless all are there, then changes only the
# settings that differ, so running it again changes nothing.
set -euo pipefail

SYS="${LOSSLESS_SYSFS:-/sys}"  # another root for sysfs and configfs, for tests only
declare -A RDMA=()  # interface -> RDMA device

die() { printf 'lossless: %s\n' "$*" >&2; exit 1; }

require_command() {
  command -v "$1" >/dev/null 2>&1 || die "$1 not found: $2"
}

require_interface() {
  [ -e "$SYS/class/net/$1" ] || die "no interface $1 on this host (gpu01 expected)"
}

require_file() {
  [ -e "$1" ] || die "$1 is missing: $2"
}

# The RDMA device of an interface, from sysfs.
rdma_device() {
  local dev
  for dev in "$SYS/class/net/$1/device/infiniband/"*; do
    if [ -e "$dev" ]; then
      basename "$dev"
      return 0
    fi
  done
  die "$1 has no RDMA device (RoCE driver not loaded?)"
}

# Write a sysfs value only when it differs.
set_value() {
  [ "$(cat "$1")" = "$2" ] || printf '%s\n' "$2" >"$1"
}

set_mtu() {
  [ "$(cat "$SYS/class/net/$1/mtu")" = "$2" ] || ip link set dev "$1" mtu "$2"
}

# 802.3x link pause off (never together with PFC).
pause_off() {
  if ethtool -a "$1" | grep -E '^(RX|TX):[[:space:]]+on' >/dev/null; then
    ethtool -A "$1" rx off tx off
  fi
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
# The number in "Global tclass=104" (MLNX_OFED traffic_class) or a bare number.
tclass_value() { sed -n 's/^[^0-9]*\([0-9][0-9]*\)$/\1/p'; }

[ "$(id -u)" -eq 0 ] || [ -n "${LOSSLESS_SYSFS:-}" ] || die "run as root"
require_command cma_roce_tos "install mlnx-tools (DOCA-OFED or MLNX_OFED)"
require_command ethtool "install ethtool"
require_command ip "install iproute2"
require_command mlnx_qos "install mlnx-tools (DOCA-OFED or MLNX_OFED)"

# eth0 (ConnectX-7), cabled to leaf1:Ethernet0: checks
require_interface eth0
RDMA[eth0]=$(rdma_device eth0)
require_file "$SYS/class/net/eth0/ecn/roce_np/enable/3" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"

# eth1 (ConnectX-7), cabled to leaf2:swp1: checks
require_interface eth1
RDMA[eth1]=$(rdma_device eth1)
require_file "$SYS/class/net/eth1/ecn/roce_np/enable/3" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"

# eth0 (ConnectX-7), cabled to leaf1:Ethernet0
qos=$(mlnx_qos -i eth0)
[ "$(qos_trust <<<"$qos")" = dscp ] || mlnx_qos -i eth0 --trust dscp >/dev/null
[ "$(qos_pfc <<<"$qos")" = 0,0,0,1,0,0,0,0 ] || mlnx_qos -i eth0 --pfc 0,0,0,1,0,0,0,0 >/dev/null
[ "$(qos_cable_len <<<"$qos")" = 2 ] || mlnx_qos -i eth0 --cable_len 2 >/dev/null
qos=$(mlnx_qos -i eth0)
[ "$(qos_dscp_prio 26 <<<"$qos")" = 3 ] || mlnx_qos -i eth0 --dscp2prio set,26,3 >/dev/null
[ "$(qos_dscp_prio 48 <<<"$qos")" = 6 ] || mlnx_qos -i eth0 --dscp2prio set,48,6 >/dev/null
set_value "$SYS/class/net/eth0/ecn/roce_np/enable/3" 1
set_value "$SYS/class/net/eth0/ecn/roce_rp/enable/3" 1
set_value "$SYS/class/net/eth0/ecn/roce_np/cnp_dscp" 48
set_value "$SYS/class/net/eth0/ecn/roce_np/cnp_802p_prio" 6
cma_roce_tos -d "${RDMA[eth0]}" -t 104 >/dev/null
tclass="$SYS/class/infiniband/${RDMA[eth0]}/tc/1/traffic_class"
if [ -e "$tclass" ] && [ "$(tclass_value <"$tclass")" != 104 ]; then
  echo 104 >"$tclass"
fi
set_mtu eth0 9000
pause_off eth0

# eth1 (ConnectX-7), cabled to leaf2:swp1
qos=$(mlnx_qos -i eth1)
[ "$(qos_trust <<<"$qos")" = dscp ] || mlnx_qos -i eth1 --trust dscp >/dev/null
[ "$(qos_pfc <<<"$qos")" = 0,0,0,1,0,0,0,0 ] || mlnx_qos -i eth1 --pfc 0,0,0,1,0,0,0,0 >/dev/null
[ "$(qos_cable_len <<<"$qos")" = 3 ] || mlnx_qos -i eth1 --cable_len 3 >/dev/null
qos=$(mlnx_qos -i eth1)
[ "$(qos_dscp_prio 26 <<<"$qos")" = 3 ] || mlnx_qos -i eth1 --dscp2prio set,26,3 >/dev/null
[ "$(qos_dscp_prio 48 <<<"$qos")" = 6 ] || mlnx_qos -i eth1 --dscp2prio set,48,6 >/dev/null
set_value "$SYS/class/net/eth1/ecn/roce_np/enable/3" 1
set_value "$SYS/class/net/eth1/ecn/roce_rp/enable/3" 1
set_value "$SYS/class/net/eth1/ecn/roce_np/cnp_dscp" 48
set_value "$SYS/class/net/eth1/ecn/roce_np/cnp_802p_prio" 6
cma_roce_tos -d "${RDMA[eth1]}" -t 104 >/dev/null
tclass="$SYS/class/infiniband/${RDMA[eth1]}/tc/1/traffic_class"
if [ -e "$tclass" ] && [ "$(tclass_value <"$tclass")" != 104 ]; then
  echo 104 >"$tclass"
fi
set_mtu eth1 9000
pause_off eth1

echo "lossless: gpu01: RoCE host settings in place"
