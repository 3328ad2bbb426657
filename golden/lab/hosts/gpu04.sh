#!/usr/bin/env bash
# RoCE host settings of gpu04 (fabric lab), written by lossless; do not edit.
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
  [ -e "$SYS/class/net/$1" ] || die "no interface $1 on this host (gpu04 expected)"
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

# eth0 (BCM57608), cabled to leaf3:Ethernet1/2: checks
require_interface eth0
RDMA[eth0]=$(rdma_device eth0)

# eth1 (BCM57608), cabled to leaf4:et-0/0/1: checks
require_interface eth1
RDMA[eth1]=$(rdma_device eth1)

# eth0 (BCM57608), cabled to leaf3:Ethernet1/2
if ! bnxt_in_place eth0 "0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off" 26:3; then
  bnxt_setupcc.sh -d "${RDMA[eth0]}" -i eth0 -m 3 -r 3 -s 26 -c 6 -p 48 -u 4 >/dev/null
fi
set_mtu eth0 9000
pause_off eth0

# eth1 (BCM57608), cabled to leaf4:et-0/0/1
if ! bnxt_in_place eth1 "0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off" 26:3; then
  bnxt_setupcc.sh -d "${RDMA[eth1]}" -i eth1 -m 3 -r 3 -s 26 -c 6 -p 48 -u 4 >/dev/null
fi
set_mtu eth1 9000
pause_off eth1

echo "lossless: gpu04: RoCE host settings in place"
