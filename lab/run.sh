#!/bin/bash
# Boot a fetched kernel in qemu (TCG, 2 vCPUs, 6 GiB), run a workload, write the capture folder:
#   lab/run.sh 7.2.13 hugetlb-2m [--out DIR] [--keep-dumps] [--no-probe]
#     [--probe free_frozen_page_commit] [--probes LIST]
# Workloads: idle hugetlb-2m gigantic gigantic-cma vmalloc fragment thp compaction
# (lab/workloads.sh).
# Default DIR: lab/out/VERSION/WORKLOAD (BUDDYSCOPE_LAB_OUT changes lab/out).
set -euo pipefail
usage() { echo "usage: lab/run.sh VERSION WORKLOAD [--out DIR] [--keep-dumps] [--no-probe] [--probe free_frozen_page_commit] [--probes LIST]" >&2; exit 2; }
[[ $# -ge 2 ]] || usage
VERSION=$1 WORKLOAD=$2; shift 2
LAB=$(cd "$(dirname "$0")" && pwd)
ROOTDIR=$(dirname "$LAB")
CACHE=${BUDDYSCOPE_LAB_CACHE:-$LAB/.cache}
OUT=${BUDDYSCOPE_LAB_OUT:-$LAB/out}/$VERSION/$WORKLOAD
KEEP_DUMPS=
# The kprobes (lab/README.md): on free_frozen_page_commit (the default), the pcp lists' order
# and, by its silence, the frees that went to the buddy; on free_one_page (asked for), those
# frees by a line of their own. Not both by default: kprobes do not nest, and an interrupt's
# free_one_page inside the commit probe's handler is missed (docs/model-decisions.md row 42).
PROBES=free_frozen_page_commit
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) OUT=${2:?--out DIR}; shift 2 ;;
    --keep-dumps) KEEP_DUMPS=1; shift ;;
    --probe) # adds one to the set
      case ${2:-} in
        free_one_page | free_frozen_page_commit)
          [[ ,$PROBES, == *,$2,* ]] || PROBES=${PROBES:+$PROBES,}$2 ;;
        *) echo "run.sh: unknown probe ${2:-} (free_one_page, free_frozen_page_commit)" >&2; exit 2 ;;
      esac
      shift 2 ;;
    --probes) # exactly these (comma-separated; '' none), e.g. --probes free_frozen_page_commit
      PROBES=${2?--probes LIST}
      for p in ${PROBES//,/ }; do
        case $p in
          free_one_page | free_frozen_page_commit) ;;
          *) echo "run.sh: unknown probe $p (free_one_page, free_frozen_page_commit)" >&2; exit 2 ;;
        esac
      done
      shift 2 ;;
    --no-probe) PROBES=; shift ;;
    *) usage ;;
  esac
done
case "$WORKLOAD" in
  idle | hugetlb-2m | gigantic | gigantic-cma | vmalloc | fragment | thp | compaction) ;;
  *) echo "run.sh: unknown workload $WORKLOAD (idle hugetlb-2m gigantic gigantic-cma vmalloc fragment thp compaction)" >&2; exit 2 ;;
esac
KDIR=$CACHE/kernels/$VERSION
[[ -f $KDIR/vmlinux ]] || { echo "run.sh: no $KDIR/vmlinux: run lab/fetch.sh $VERSION" >&2; exit 1; }
QEMU=$(command -v qemu-system-x86_64 || true)
[[ -n $QEMU ]] || { echo "run.sh: qemu-system-x86_64 not found (apt-get install qemu-system-x86)" >&2; exit 1; }
command -v drgn >/dev/null || { echo "run.sh: drgn not found (pip install drgn)" >&2; exit 1; }

# rebuild the initramfs when a lab script is newer
INITRD=$KDIR/initramfs.cpio.gz
if [[ ! -f $INITRD ]] || [[ -n $(find "$LAB" -maxdepth 1 -newer "$INITRD" \( -name '*.sh' -o -name '*.c' \)) ]]; then
  bash "$LAB/initramfs.sh" "$VERSION"
fi

BUFKB=131072
MEM=6G
CMDLINE="console=ttyS0 panic=-1 buddyscope.workload=$WORKLOAD"
case "$WORKLOAD" in
  gigantic-cma) CMDLINE="$CMDLINE hugetlb_cma=2G" ;;
  fragment) BUFKB=262144 ;;
  # 1 GiB: a fill that fragments most of the node stays small enough for a fixture
  compaction) MEM=1G BUFKB=32768 ;;
esac
CMDLINE="$CMDLINE buddyscope.bufkb=$BUFKB"
[[ -z $PROBES ]] || CMDLINE="$CMDLINE buddyscope.probes=$PROBES"

WORK=$CACHE/run/$VERSION-$WORKLOAD
rm -rf "$WORK" "$OUT"
mkdir -p "$WORK" "$OUT"
truncate -s 2G "$WORK/disk.img"

echo "run.sh: booting $VERSION ($WORKLOAD, $MEM): $CMDLINE"
t0=$(date +%s.%N)
"$QEMU" -accel tcg,thread=multi -cpu max -smp 2 -m "$MEM" \
  -kernel "$KDIR/vmlinux" -initrd "$INITRD" -append "$CMDLINE" \
  -display none -no-reboot -nic none -monitor none \
  -chardev file,id=con,path="$OUT/console.log" -serial chardev:con \
  -chardev socket,id=ctl,path="$WORK/ctl.sock",server=on,wait=on -serial chardev:ctl \
  -qmp unix:"$WORK/qmp.sock",server=on,wait=off \
  -device vmcoreinfo \
  -drive file="$WORK/disk.img",format=raw,if=virtio &
QEMUPID=$!
set +e
python3 "$LAB/labctl.py" --ctl "$WORK/ctl.sock" --qmp "$WORK/qmp.sock" --dumps "$WORK" \
  --log "$WORK/labctl.json" --timeout "${BUDDYSCOPE_LAB_TIMEOUT:-5400}"
CRC=$?
if [[ $CRC -ne 0 ]]; then
  kill "$QEMUPID" 2>/dev/null
fi
wait "$QEMUPID"
QRC=$?
set -e
t1=$(date +%s.%N)
if [[ $QRC -ne 0 || $CRC -ne 0 ]]; then
  echo "run.sh: qemu exited $QRC, labctl $CRC; see $OUT/console.log" >&2
  exit 1
fi
tar -xf "$WORK/disk.img" -C "$OUT"

for point in before after; do
  dump=$WORK/$point.elf
  [[ -f $dump ]] || { echo "run.sh: no dump $dump" >&2; exit 1; }
  drgn -q -c "$dump" -s "$KDIR/vmlinux.debug" "$ROOTDIR/tools/drgn/snapshot.py" --node 0 \
    >"$OUT/snapshot-$point.json" 2>"$WORK/drgn-$point.log" || {
    echo "run.sh: drgn failed on $dump:" >&2; cat "$WORK/drgn-$point.log" >&2; exit 1; }
  [[ -n $KEEP_DUMPS ]] || rm -f "$dump"
done

python3 "$LAB/capture.py" finalize "$OUT" --source qemu --version "$VERSION" --workload "$WORKLOAD" \
  --wall-seconds "$(echo "$t1 - $t0" | bc)" --labctl "$WORK/labctl.json"
python3 "$LAB/check.py" "$OUT" || echo "run.sh: check.py found differences (above, and $OUT/check.txt)" >&2
