#!/usr/bin/env bash
# RoCE host settings of gpu001 (fabric pod-2048), written by lossless; do not edit.
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
  [ -e "$SYS/class/net/$1" ] || die "no interface $1 on this host (gpu001 expected)"
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

# eth0 (ConnectX-7), cabled to leaf01:Ethernet0: checks
require_interface eth0
RDMA[eth0]=$(rdma_device eth0)
require_file "$SYS/class/net/eth0/ecn/roce_np/enable/3" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"

# eth1 (ConnectX-7), cabled to leaf05:Ethernet0: checks
require_interface eth1
RDMA[eth1]=$(rdma_device eth1)
require_file "$SYS/class/net/eth1/ecn/roce_np/enable/3" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"

# eth2 (ConnectX-7), cabled to leaf09:Ethernet0: checks
require_interface eth2
RDMA[eth2]=$(rdma_device eth2)
require_file "$SYS/class/net/eth2/ecn/roce_np/enable/3" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"

# eth3 (ConnectX-7), cabled to leaf13:Ethernet0: checks
require_interface eth3
RDMA[eth3]=$(rdma_device eth3)
require_file "$SYS/class/net/eth3/ecn/roce_np/enable/3" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"

# eth4 (ConnectX-7), cabled to leaf17:Ethernet0: checks
require_interface eth4
RDMA[eth4]=$(rdma_device eth4)
require_file "$SYS/class/net/eth4/ecn/roce_np/enable/3" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"

# eth5 (ConnectX-7), cabled to leaf21:Ethernet0: checks
require_interface eth5
RDMA[eth5]=$(rdma_device eth5)
require_file "$SYS/class/net/eth5/ecn/roce_np/enable/3" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"

# eth6 (ConnectX-7), cabled to leaf25:Ethernet0: checks
require_interface eth6
RDMA[eth6]=$(rdma_device eth6)
require_file "$SYS/class/net/eth6/ecn/roce_np/enable/3" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"

# eth7 (ConnectX-7), cabled to leaf29:Ethernet0: checks
require_interface eth7
RDMA[eth7]=$(rdma_device eth7)
require_file "$SYS/class/net/eth7/ecn/roce_np/enable/3" "ECN sysfs of the DOCA-OFED or MLNX_OFED mlx5 driver"

# eth0 (ConnectX-7), cabled to leaf01:Ethernet0
qos=$(mlnx_qos -i eth0)
[ "$(qos_trust <<<"$qos")" = dscp ] || mlnx_qos -i eth0 --trust dscp >/dev/null
[ "$(qos_pfc <<<"$qos")" = 0,0,0,1,0,0,0,0 ] || mlnx_qos -i eth0 --pfc 0,0,0,1,0,0,0,0 >/dev/null
[ "$(qos_cable_len <<<"$qos")" = 3 ] || mlnx_qos -i eth0 --cable_len 3 >/dev/null
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

# eth1 (ConnectX-7), cabled to leaf05:Ethernet0
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

# eth2 (ConnectX-7), cabled to leaf09:Ethernet0
qos=$(mlnx_qos -i eth2)
[ "$(qos_trust <<<"$qos")" = dscp ] || mlnx_qos -i eth2 --trust dscp >/dev/null
[ "$(qos_pfc <<<"$qos")" = 0,0,0,1,0,0,0,0 ] || mlnx_qos -i eth2 --pfc 0,0,0,1,0,0,0,0 >/dev/null
[ "$(qos_cable_len <<<"$qos")" = 3 ] || mlnx_qos -i eth2 --cable_len 3 >/dev/null
qos=$(mlnx_qos -i eth2)
[ "$(qos_dscp_prio 26 <<<"$qos")" = 3 ] || mlnx_qos -i eth2 --dscp2prio set,26,3 >/dev/null
[ "$(qos_dscp_prio 48 <<<"$qos")" = 6 ] || mlnx_qos -i eth2 --dscp2prio set,48,6 >/dev/null
set_value "$SYS/class/net/eth2/ecn/roce_np/enable/3" 1
set_value "$SYS/class/net/eth2/ecn/roce_rp/enable/3" 1
set_value "$SYS/class/net/eth2/ecn/roce_np/cnp_dscp" 48
set_value "$SYS/class/net/eth2/ecn/roce_np/cnp_802p_prio" 6
cma_roce_tos -d "${RDMA[eth2]}" -t 104 >/dev/null
tclass="$SYS/class/infiniband/${RDMA[eth2]}/tc/1/traffic_class"
if [ -e "$tclass" ] && [ "$(tclass_value <"$tclass")" != 104 ]; then
  echo 104 >"$tclass"
fi
set_mtu eth2 9000
pause_off eth2

# eth3 (ConnectX-7), cabled to leaf13:Ethernet0
qos=$(mlnx_qos -i eth3)
[ "$(qos_trust <<<"$qos")" = dscp ] || mlnx_qos -i eth3 --trust dscp >/dev/null
[ "$(qos_pfc <<<"$qos")" = 0,0,0,1,0,0,0,0 ] || mlnx_qos -i eth3 --pfc 0,0,0,1,0,0,0,0 >/dev/null
[ "$(qos_cable_len <<<"$qos")" = 3 ] || mlnx_qos -i eth3 --cable_len 3 >/dev/null
qos=$(mlnx_qos -i eth3)
[ "$(qos_dscp_prio 26 <<<"$qos")" = 3 ] || mlnx_qos -i eth3 --dscp2prio set,26,3 >/dev/null
[ "$(qos_dscp_prio 48 <<<"$qos")" = 6 ] || mlnx_qos -i eth3 --dscp2prio set,48,6 >/dev/null
set_value "$SYS/class/net/eth3/ecn/roce_np/enable/3" 1
set_value "$SYS/class/net/eth3/ecn/roce_rp/enable/3" 1
set_value "$SYS/class/net/eth3/ecn/roce_np/cnp_dscp" 48
set_value "$SYS/class/net/eth3/ecn/roce_np/cnp_802p_prio" 6
cma_roce_tos -d "${RDMA[eth3]}" -t 104 >/dev/null
tclass="$SYS/class/infiniband/${RDMA[eth3]}/tc/1/traffic_class"
if [ -e "$tclass" ] && [ "$(tclass_value <"$tclass")" != 104 ]; then
  echo 104 >"$tclass"
fi
set_mtu eth3 9000
pause_off eth3

# eth4 (ConnectX-7), cabled to leaf17:Ethernet0
qos=$(mlnx_qos -i eth4)
[ "$(qos_trust <<<"$qos")" = dscp ] || mlnx_qos -i eth4 --trust dscp >/dev/null
[ "$(qos_pfc <<<"$qos")" = 0,0,0,1,0,0,0,0 ] || mlnx_qos -i eth4 --pfc 0,0,0,1,0,0,0,0 >/dev/null
[ "$(qos_cable_len <<<"$qos")" = 3 ] || mlnx_qos -i eth4 --cable_len 3 >/dev/null
qos=$(mlnx_qos -i eth4)
[ "$(qos_dscp_prio 26 <<<"$qos")" = 3 ] || mlnx_qos -i eth4 --dscp2prio set,26,3 >/dev/null
[ "$(qos_dscp_prio 48 <<<"$qos")" = 6 ] || mlnx_qos -i eth4 --dscp2prio set,48,6 >/dev/null
set_value "$SYS/class/net/eth4/ecn/roce_np/enable/3" 1
set_value "$SYS/class/net/eth4/ecn/roce_rp/enable/3" 1
set_value "$SYS/class/net/eth4/ecn/roce_np/cnp_dscp" 48
set_value "$SYS/class/net/eth4/ecn/roce_np/cnp_802p_prio" 6
cma_roce_tos -d "${RDMA[eth4]}" -t 104 >/dev/null
tclass="$SYS/class/infiniband/${RDMA[eth4]}/tc/1/traffic_class"
if [ -e "$tclass" ] && [ "$(tclass_value <"$tclass")" != 104 ]; then
  echo 104 >"$tclass"
fi
set_mtu eth4 9000
pause_off eth4

# eth5 (ConnectX-7), cabled to leaf21:Ethernet0
qos=$(mlnx_qos -i eth5)
[ "$(qos_trust <<<"$qos")" = dscp ] || mlnx_qos -i eth5 --trust dscp >/dev/null
[ "$(qos_pfc <<<"$qos")" = 0,0,0,1,0,0,0,0 ] || mlnx_qos -i eth5 --pfc 0,0,0,1,0,0,0,0 >/dev/null
[ "$(qos_cable_len <<<"$qos")" = 3 ] || mlnx_qos -i eth5 --cable_len 3 >/dev/null
qos=$(mlnx_qos -i eth5)
[ "$(qos_dscp_prio 26 <<<"$qos")" = 3 ] || mlnx_qos -i eth5 --dscp2prio set,26,3 >/dev/null
[ "$(qos_dscp_prio 48 <<<"$qos")" = 6 ] || mlnx_qos -i eth5 --dscp2prio set,48,6 >/dev/null
set_value "$SYS/class/net/eth5/ecn/roce_np/enable/3" 1
set_value "$SYS/class/net/eth5/ecn/roce_rp/enable/3" 1
set_value "$SYS/class/net/eth5/ecn/roce_np/cnp_dscp" 48
set_value "$SYS/class/net/eth5/ecn/roce_np/cnp_802p_prio" 6
cma_roce_tos -d "${RDMA[eth5]}" -t 104 >/dev/null
tclass="$SYS/class/infiniband/${RDMA[eth5]}/tc/1/traffic_class"
if [ -e "$tclass" ] && [ "$(tclass_value <"$tclass")" != 104 ]; then
  echo 104 >"$tclass"
fi
set_mtu eth5 9000
pause_off eth5

# eth6 (ConnectX-7), cabled to leaf25:Ethernet0
qos=$(mlnx_qos -i eth6)
[ "$(qos_trust <<<"$qos")" = dscp ] || mlnx_qos -i eth6 --trust dscp >/dev/null
[ "$(qos_pfc <<<"$qos")" = 0,0,0,1,0,0,0,0 ] || mlnx_qos -i eth6 --pfc 0,0,0,1,0,0,0,0 >/dev/null
[ "$(qos_cable_len <<<"$qos")" = 3 ] || mlnx_qos -i eth6 --cable_len 3 >/dev/null
qos=$(mlnx_qos -i eth6)
[ "$(qos_dscp_prio 26 <<<"$qos")" = 3 ] || mlnx_qos -i eth6 --dscp2prio set,26,3 >/dev/null
[ "$(qos_dscp_prio 48 <<<"$qos")" = 6 ] || mlnx_qos -i eth6 --dscp2prio set,48,6 >/dev/null
set_value "$SYS/class/net/eth6/ecn/roce_np/enable/3" 1
set_value "$SYS/class/net/eth6/ecn/roce_rp/enable/3" 1
set_value "$SYS/class/net/eth6/ecn/roce_np/cnp_dscp" 48
set_value "$SYS/class/net/eth6/ecn/roce_np/cnp_802p_prio" 6
cma_roce_tos -d "${RDMA[eth6]}" -t 104 >/dev/null
tclass="$SYS/class/infiniband/${RDMA[eth6]}/tc/1/traffic_class"
if [ -e "$tclass" ] && [ "$(tclass_value <"$tclass")" != 104 ]; then
  echo 104 >"$tclass"
fi
set_mtu eth6 9000
pause_off eth6

# eth7 (ConnectX-7), cabled to leaf29:Ethernet0
qos=$(mlnx_qos -i eth7)
[ "$(qos_trust <<<"$qos")" = dscp ] || mlnx_qos -i eth7 --trust dscp >/dev/null
[ "$(qos_pfc <<<"$qos")" = 0,0,0,1,0,0,0,0 ] || mlnx_qos -i eth7 --pfc 0,0,0,1,0,0,0,0 >/dev/null
[ "$(qos_cable_len <<<"$qos")" = 3 ] || mlnx_qos -i eth7 --cable_len 3 >/dev/null
qos=$(mlnx_qos -i eth7)
[ "$(qos_dscp_prio 26 <<<"$qos")" = 3 ] || mlnx_qos -i eth7 --dscp2prio set,26,3 >/dev/null
[ "$(qos_dscp_prio 48 <<<"$qos")" = 6 ] || mlnx_qos -i eth7 --dscp2prio set,48,6 >/dev/null
set_value "$SYS/class/net/eth7/ecn/roce_np/enable/3" 1
set_value "$SYS/class/net/eth7/ecn/roce_rp/enable/3" 1
set_value "$SYS/class/net/eth7/ecn/roce_np/cnp_dscp" 48
set_value "$SYS/class/net/eth7/ecn/roce_np/cnp_802p_prio" 6
cma_roce_tos -d "${RDMA[eth7]}" -t 104 >/dev/null
tclass="$SYS/class/infiniband/${RDMA[eth7]}/tc/1/traffic_class"
if [ -e "$tclass" ] && [ "$(tclass_value <"$tclass")" != 104 ]; then
  echo 104 >"$tclass"
fi
set_mtu eth7 9000
pause_off eth7

echo "lossless: gpu001: RoCE host settings in place"
