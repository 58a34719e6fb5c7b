#!/bin/sh
# shellcheck disable=SC3045,SC2013 # busybox ash has read -t; the lists are words
# /init of the lab's initramfs (busybox sh): mount, enable the kmem events, take /proc
# and a memory dump (the host stops the VM) before and after the workload, then write the
# capture folder as a tar stream to the second virtio disk and power off.
# The workload's name and options come from the kernel command line:
#   buddyscope.workload=NAME  buddyscope.bufkb=KIB  [buddyscope.probes=NAME,NAME]
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null || mdev -s
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
mount -t debugfs nodev /sys/kernel/debug 2>/dev/null
mount -t tmpfs -o size=90% tmp /tmp
echo "buddyscope-init: $(uname -r) up $(cut -d' ' -f1 /proc/uptime) s"

WORKLOAD=idle
BUFKB=131072
PROBES=
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	buddyscope.workload=*) WORKLOAD=${arg#*=} ;;
	buddyscope.bufkb=*) BUFKB=${arg#*=} ;;
	buddyscope.probes=*) PROBES=$(echo "${arg#*=}" | tr , ' ') ;;
	esac
done

# Modules in load order (dependencies first), decompressed by lab/initramfs.sh.
# The base ones: virtio_blk (the output disk), qemu_fw_cfg (writes VMCOREINFO for the dump).
for m in $(cat /lib/modules/base.order); do
	insmod "/lib/modules/$m.ko" || echo "buddyscope-init: insmod $m failed"
done
sleep 1

CAP=/tmp/capture
mkdir -p "$CAP"
# shellcheck source=lab/capture-lib.sh
. /lib/buddyscope/capture-lib.sh
# shellcheck source=lab/workloads.sh
. /lib/buddyscope/workloads.sh

# The control port: the second serial port, the host's lab/labctl.py on its other end.
CTL=/dev/ttyS1
stty -F "$CTL" raw -echo 115200 2>/dev/null

# Stop here for the host's memory dump: the token on the control port, then wait for
# the host's line "BUDDYSCOPE-CONTINUE NAME" (any other line is ignored).
# The port is held open on fd 3 for the whole run: input that arrives while no one has
# the tty open would be flushed at the next open.
exec 3<>"$CTL"
cap_snapshot_hook() {
	echo "buddyscope-init: snapshot $1: waiting for the host"
	echo "BUDDYSCOPE-STOP $1" >&3
	while read -r tok name <&3; do
		if [ "$tok" = BUDDYSCOPE-CONTINUE ] && [ "$name" = "$1" ]; then
			echo "buddyscope-init: snapshot $1: resumed"
			return 0
		fi
	done
	echo "buddyscope-init: control port closed at $1"
	return 1
}

fail() {
	echo "buddyscope-init: FAILED: $*"
	echo "BUDDYSCOPE-FAILED $*" >&3
	poweroff -f
}

cap_find_tracefs || fail "no tracefs"
cap_meta
echo "$WORKLOAD" >"$CAP/workload.txt"
cap_enable_events
# shellcheck disable=SC2086 # a list of names
cap_enable_probes $PROBES || true # a refused probe is noted in probes.txt; the capture goes on
cap_buffer_size "$BUFKB" $((BUFKB / 2)) $((BUFKB / 4)) 16384
wl_prepare "$WORKLOAD" >>"$CAP/workload.log" 2>&1 || fail "prepare $WORKLOAD"
sync
echo 3 >/proc/sys/vm/drop_caches
read -r -t 3 _ <&3 || true
cap_tracing_on
read -r t0 _ </proc/uptime
cap_point before
wl_run "$WORKLOAD" >>"$CAP/workload.log" 2>&1 || echo "buddyscope-init: workload $WORKLOAD exited $?" >>"$CAP/workload.log"
# Let the workload's exited processes' RCU-deferred frees run before the snapshot, waiting
# without forking (a timed read of the control port: the host sends nothing unasked).
read -r -t 3 _ <&3 || true
cap_point after
cap_tracing_off
read -r t1 _ </proc/uptime
echo "workload_seconds $t0 $t1" >>"$CAP/workload.log"
wl_cleanup "$WORKLOAD" >>"$CAP/workload.log" 2>&1
echo "buddyscope-init: reading the trace"
cap_trace_out
cap_events_off
dmesg >"$CAP/dmesg.txt"
echo "buddyscope-init: writing $(du -sk "$CAP" | cut -f1) KiB to /dev/vda"
tar -cf /dev/vda -C "$CAP" . || fail "tar to /dev/vda"
sync
echo "BUDDYSCOPE-DONE" >&3
echo "buddyscope-init: done"
poweroff -f
