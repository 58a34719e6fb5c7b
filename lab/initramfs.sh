#!/bin/bash
# Build the lab's busybox initramfs for a kernel VERSION fetched by lab/fetch.sh:
#   lab/initramfs.sh 7.2.13      -> $CACHE/kernels/7.2.13/initramfs.cpio.gz
# It holds busybox, /init (lab/guest-init.sh), the capture writer (lab/capture-lib.sh),
# the workloads (lab/workloads.sh), labload (lab/workload.c, gcc -static) and decompressed
# modules with their dependencies: virtio_blk and qemu_fw_cfg at boot, xfs, btrfs and
# f2fs for the vmalloc workload.
set -euo pipefail
VERSION=${1:?usage: lab/initramfs.sh VERSION}
LAB=$(cd "$(dirname "$0")" && pwd)
CACHE=${BUDDYSCOPE_LAB_CACHE:-$LAB/.cache}
KDIR=$CACHE/kernels/$VERSION
[[ -d $KDIR/modules ]] || { echo "initramfs.sh: run lab/fetch.sh $VERSION first" >&2; exit 1; }
BUSYBOX=$CACHE/bin/busybox
[[ -x $BUSYBOX ]] || { echo "initramfs.sh: no $BUSYBOX: run lab/fetch.sh $VERSION first" >&2; exit 1; }

BASE_MODULES=(virtio_blk qemu_fw_cfg)
VMALLOC_MODULES=(xfs btrfs f2fs)

ROOT=$(mktemp -d)
trap 'rm -rf "$ROOT"' EXIT
mkdir -p "$ROOT"/{bin,sbin,dev,proc,sys,tmp,lib/modules,lib/buddyscope}
cp "$BUSYBOX" "$ROOT/bin/busybox"
for applet in $("$BUSYBOX" --list); do
  [[ $applet == busybox ]] || ln -s busybox "$ROOT/bin/$applet"
done
install -m 755 "$LAB/guest-init.sh" "$ROOT/init"
cp "$LAB/capture-lib.sh" "$LAB/workloads.sh" "$ROOT/lib/buddyscope/"
gcc -O2 -static -Wall -o "$ROOT/bin/labload" "$LAB/workload.c"

# name -> path of the module (names compare with - and _ alike, as modprobe does)
declare -A MODPATH
while IFS= read -r f; do
  n=${f##*/}; n=${n%%.ko*}; MODPATH[${n//-/_}]=$f
done < <(find "$KDIR/modules" -name '*.ko' -o -name '*.ko.xz' -o -name '*.ko.zst' -o -name '*.ko.gz')

ko_bytes() { # path -> the ELF
  case "$1" in
    *.xz) xz -dc "$1" ;; *.zst) zstd -dc "$1" ;; *.gz) gzip -dc "$1" ;; *) cat "$1" ;;
  esac
}
declare -A SEEN
order_of() { # name -> names in load order (dependencies first), each once
  local n=${1//-/_}
  [[ -n ${SEEN[$n]:-} ]] && return 0
  local f=${MODPATH[$n]:-}
  if [[ -z $f ]]; then echo "initramfs.sh: module $n not found (built in?)" >&2; SEEN[$n]=1; return 0; fi
  local deps
  deps=$(ko_bytes "$f" | tr '\0' '\n' | grep -a '^depends=' | head -1 | cut -d= -f2)
  local d
  for d in ${deps//,/ }; do order_of "$d"; done
  SEEN[$n]=1
  ko_bytes "$f" >"$ROOT/lib/modules/$n.ko"
  echo "$n"
}
for m in "${BASE_MODULES[@]}"; do order_of "$m"; done >"$ROOT/lib/modules/base.order"
for m in "${VMALLOC_MODULES[@]}"; do order_of "$m"; done >"$ROOT/lib/modules/vmalloc.order"
echo "initramfs.sh: modules: $(tr '\n' ' ' <"$ROOT/lib/modules/base.order")| vmalloc: $(tr '\n' ' ' <"$ROOT/lib/modules/vmalloc.order")"

(cd "$ROOT" && find . | LC_ALL=C sort | "$BUSYBOX" cpio -o -H newc 2>/dev/null) | gzip -1 >"$KDIR/initramfs.cpio.gz.part"
mv "$KDIR/initramfs.cpio.gz.part" "$KDIR/initramfs.cpio.gz"
echo "initramfs.sh: $KDIR/initramfs.cpio.gz ($(du -h "$KDIR/initramfs.cpio.gz" | cut -f1))"
