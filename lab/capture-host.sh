#!/bin/bash
# Capture your own machine (as root, no qemu): enable the kmem events, read /proc, take a
# drgn node snapshot of the running kernel (/proc/kcore) when drgn and the kernel's debug
# info are there, run COMMAND, read /proc and snapshot again, and write the lab's capture
# folder (the same writer as the qemu guest: lab/capture-lib.sh, lab/capture.py).
#
#   sudo lab/capture-host.sh [--out DIR] [--bufkb KIB] [--no-drgn] [--no-probe | --probes LIST]
#     -- COMMAND [ARG...]
#   sudo lab/capture-host.sh -- sh -c 'echo 200 > /proc/sys/vm/nr_hugepages; echo 0 > /proc/sys/vm/nr_hugepages'
#
# Default DIR: ./capture-$(uname -r)-YYYYmmdd-HHMMSS. The machine keeps running while drgn
# walks the lists, so on a busy machine a live snapshot is not one instant (check.py shows
# how far it is from /proc). The pcp commit kprobe goes on as in the qemu lab (lab/run.sh,
# lab/README.md "The pcp commit probe"), so the replay knows which frees reached a pcp list;
# --probes takes a comma-separated list (free_one_page, free_frozen_page_commit; '' none), a
# probe the kernel refuses is noted in probes.txt and the capture goes on. Environment (for tests): BUDDYSCOPE_TRACEFS, BUDDYSCOPE_PROC,
# BUDDYSCOPE_DRGN (the drgn command).
set -euo pipefail
LAB=$(cd "$(dirname "$0")" && pwd)
ROOTDIR=$(dirname "$LAB")
usage() { echo "usage: lab/capture-host.sh [--out DIR] [--bufkb KIB] [--no-drgn] [--no-probe | --probes LIST] -- COMMAND [ARG...]" >&2; exit 2; }
OUTDIR='' BUFKB=262144 DRGN_ON=1 PROBES=free_frozen_page_commit
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) OUTDIR=${2:?}; shift 2 ;;
    --bufkb) BUFKB=${2:?}; shift 2 ;;
    --no-drgn) DRGN_ON=; shift ;;
    --no-probe) PROBES=; shift ;;
    --probes)
      PROBES=${2?--probes LIST}
      for p in ${PROBES//,/ }; do
        case "$p" in
          free_one_page | free_frozen_page_commit) ;;
          *) echo "capture-host.sh: unknown probe $p (free_one_page, free_frozen_page_commit)" >&2; exit 2 ;;
        esac
      done
      shift 2 ;;
    --) shift; break ;;
    -*) usage ;;
    *) break ;;
  esac
done
[[ $# -ge 1 ]] || usage
if [[ $(id -u) -ne 0 && -z ${BUDDYSCOPE_TRACEFS:-} ]]; then
  echo "capture-host.sh: run as root (tracefs and /proc/kcore need it)" >&2
  exit 1
fi
CAP=${OUTDIR:-$PWD/capture-$(uname -r)-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$CAP"
CAP=$(cd "$CAP" && pwd)
export CAP
# shellcheck source=lab/capture-lib.sh
. "$LAB/capture-lib.sh"

DRGN=${BUDDYSCOPE_DRGN:-drgn}
if [[ -n $DRGN_ON ]] && ! command -v "${DRGN%% *}" >/dev/null; then
  echo "capture-host.sh: no drgn (pip install drgn): the capture has /proc and the trace, no snapshots" >&2
  DRGN_ON=
fi
cap_snapshot_hook() {
  [[ -n $DRGN_ON ]] || return 0
  # shellcheck disable=SC2086 # BUDDYSCOPE_DRGN may carry arguments
  if ! $DRGN -q "$ROOTDIR/tools/drgn/snapshot.py" --node 0 >"$CAP/snapshot-$1.json" 2>"$CAP/drgn-$1.log"; then
    echo "capture-host.sh: drgn failed at $1 (debug info? see $CAP/drgn-$1.log); no snapshots" >&2
    rm -f "$CAP/snapshot-$1.json"
    DRGN_ON=
  fi
}

cap_find_tracefs
OLD_BUFKB=$(cat "$TRACEFS/buffer_size_kb")
OLD_ON=$(cat "$TRACEFS/tracing_on")
restore() {
  cap_tracing_off
  cap_events_off
  echo "$OLD_BUFKB" >"$TRACEFS/buffer_size_kb" 2>/dev/null || true
  echo "$OLD_ON" >"$TRACEFS/tracing_on"
}
trap restore EXIT
cap_meta
echo "$*" >"$CAP/workload.txt"
cap_enable_events
# shellcheck disable=SC2086 # one word per probe
cap_enable_probes ${PROBES//,/ } || true # a refused probe is noted in probes.txt; the capture goes on
cap_buffer_size "$BUFKB" $((BUFKB / 2)) $((BUFKB / 4)) 16384
t0=$(date +%s.%N)
cap_tracing_on
cap_point before
set +e
"$@" >"$CAP/workload.log" 2>&1
rc=$?
set -e
echo "exit $rc" >>"$CAP/workload.log"
cap_point after
cap_tracing_off
t1=$(date +%s.%N)
cap_trace_out
restore
trap - EXIT
python3 "$LAB/capture.py" finalize "$CAP" --source host --workload "$*" \
  --wall-seconds "$(python3 -c "print($t1 - $t0)")"
if ls "$CAP"/snapshot-*.json >/dev/null 2>&1; then
  python3 "$LAB/check.py" "$CAP" || true
fi
echo "capture-host.sh: $CAP"
