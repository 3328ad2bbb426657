#!/usr/bin/env bash
# Save the RoCE state of this host's NICs for `lossless lint INVENTORY --host-state DIR`.
#
#   collect-host-state.sh [-n SERVER] DIR [INTERFACE ...]
#
# Writes DIR/SERVER/INTERFACE/:
#   mlnx_qos.txt       what `mlnx_qos -i INTERFACE` prints (trust, DSCP map, PFC, cable length)
#   sysfs.txt          PATH:VALUE lines, as `grep -H .` prints them: the interface's mtu and
#                      speed, every DCQCN knob under /sys/class/net/INTERFACE/ecn, the port's
#                      RoCE traffic class (MLNX_OFED tc/1/traffic_class) and the RDMA-CM default
#                      ToS (`cma_roce_tos -d DEV`, which prints it when given no -t)
#   ethtool-pause.txt  what `ethtool -a INTERFACE` prints (802.3x pause)
#   mlxconfig.txt      where mlxconfig (NVIDIA MFT) is installed: what `mlxconfig -d PCI -e q`
#                      prints of the firmware's CNP class and DCBX settings of the interface's
#                      port (CNP_DSCP_Pn CNP_802P_PRIO_Pn LLDP_NB_DCBX_Pn DCBX_WILLING_Pn; n is
#                      2 for PCI function 1 of a dual-port card, else 1); without mlxconfig
#                      the file is left out (and an older one removed)
# SERVER is the name the inventory gives this host (default: the short host name). Without
# INTERFACEs it saves every interface whose RDMA device is driven by mlx5_core. It changes
# nothing on the host; run it as root (mlnx_qos and cma_roce_tos need root).
#
# DIR may be shared (a folder in /tmp): DIR/SERVER and DIR/SERVER/INTERFACE must be folders
# of the user running it, not symlinks, or it stops; each file is written to a new temporary
# file in its folder and renamed over the old one, never through a symlink found there.
set -euo pipefail
umask go-w  # our folders and files: writable by us alone

SYS="${LOSSLESS_SYSFS:-/sys}"  # another root for sysfs and configfs, for tests only

die() { printf 'collect-host-state: %s\n' "$*" >&2; exit 2; }

server=$(hostname -s)
while getopts "n:h" option; do
  case $option in
    n) server=$OPTARG ;;
    h) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) die "usage: collect-host-state.sh [-n SERVER] DIR [INTERFACE ...]" ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || die "usage: collect-host-state.sh [-n SERVER] DIR [INTERFACE ...]"
dir=$1
shift
case $server in
  "" | . | .. | */*) die "not a usable server name: $server" ;;
esac

# Enter folder $1 of the current folder (made if missing), refusing a symlink and a folder
# of another user; entered once by its physical path, so it cannot be swapped afterwards.
enter() {
  local parent
  parent=$(pwd -P)
  [ ! -L "$1" ] || die "$shown/$1 is a symlink; refused"
  [ -e "$1" ] || mkdir -- "./$1" || die "cannot make $shown/$1"
  cd -P -- "./$1" || die "cannot enter $shown/$1"
  [ "$(pwd -P)" = "${parent%/}/$1" ] || die "$shown/$1 was replaced while entering it; refused"
  [ -O . ] || die "$shown/$1 belongs to another user; refused"
  chmod go-w .  # no one else can plant or swap what we write in it
  shown="$shown/$1"
}

# Save stdin as file $1 of the current folder: a new temporary file renamed over it, so a
# symlink or hard link planted there is replaced, never written through.
save() {
  local temporary
  temporary=$(mktemp "./.$1.XXXXXX") || die "cannot write in $shown"
  # chmod: the mode the umask gives, as for a file made by a redirection
  if ! { cat >"$temporary" && chmod '=rw' "$temporary" && mv -f -T -- "$temporary" "./$1"; }; then
    rm -f -- "$temporary"
    die "cannot write $shown/$1"
  fi
}

rdma_devices() {
  local dev
  for dev in "$SYS/class/net/$1/device/infiniband/"*; do
    [ -e "$dev" ] && basename "$dev"
  done
  return 0
}

if [ $# -eq 0 ]; then
  for path in "$SYS/class/net/"*; do
    interface=$(basename "$path")
    driver=$(readlink "$path/device/driver" 2>/dev/null || true)
    if [ "${driver##*/}" = mlx5_core ] && [ -n "$(rdma_devices "$interface")" ]; then
      set -- "$@" "$interface"
    fi
  done
  [ $# -ge 1 ] || die "no mlx5 RDMA interface found; name the interfaces"
fi

# DIR itself is the caller's, like any path given on the command line.
mkdir -p -- "$dir"
case $dir in
  /*) cd -P -- "$dir" ;;
  *) cd -P -- "./$dir" ;;  # not looked up in CDPATH
esac
shown=$dir
enter "$server"

for interface in "$@"; do
  case $interface in
    "" | . | .. | */*) die "not an interface name: $interface" ;;
  esac
  [ -e "$SYS/class/net/$interface" ] || die "no interface $interface"
  (
    enter "$interface"
    { mlnx_qos -i "$interface" 2>&1 || true; } | save mlnx_qos.txt
    { ethtool -a "$interface" 2>&1 || true; } | save ethtool-pause.txt
    pci=""  # the PCI address the interface's device link names (0000:18:00.1)
    if [ -L "$SYS/class/net/$interface/device" ]; then
      pci=$(readlink "$SYS/class/net/$interface/device" || true)
      pci=${pci##*/}
    fi
    if [ -n "$pci" ] && command -v mlxconfig >/dev/null 2>&1; then
      case $pci in
        *.1) port=2 ;;
        *) port=1 ;;
      esac
      {
        mlxconfig -d "$pci" -e q "CNP_DSCP_P$port" "CNP_802P_PRIO_P$port" \
          "LLDP_NB_DCBX_P$port" "DCBX_WILLING_P$port" 2>&1 || true
      } | save mlxconfig.txt
    else
      rm -f -- ./mlxconfig.txt
    fi
    {
      grep -s -H . "$SYS/class/net/$interface/mtu" "$SYS/class/net/$interface/speed" || true
      grep -s -r -H . "$SYS/class/net/$interface/ecn" || true
      for dev in $(rdma_devices "$interface"); do
        grep -s -H . "$SYS/class/infiniband/$dev/tc/1/traffic_class" || true
        if tos=$(cma_roce_tos -d "$dev" 2>/dev/null); then
          printf '%s:%s\n' "$SYS/kernel/config/rdma_cm/$dev/ports/1/default_roce_tos" "$tos"
        fi
      done
    } | save sysfs.txt
    echo "collect-host-state: saved $interface in $shown"
  )
done
