#!/bin/bash
# shellcheck disable=SC2012 # ls of apt's own .deb names
# Fetch Debian's build of a kernel VERSION (debug vmlinux, modules), busybox-static and
# qemu-system-x86 into the lab cache, with apt on a private sources list and state directory.
#
#   lab/fetch.sh 7.2.13        # also 6.12.117, 7.3.4
#
# Results (under $BUDDYSCOPE_LAB_CACHE, default lab/.cache):
#   kernels/VERSION/vmlinux        stripped ELF with the PVH note (qemu -kernel)
#   kernels/VERSION/vmlinux.debug  the -dbg package's vmlinux (drgn's debug info)
#   kernels/VERSION/modules/       lib/modules/<release>/ of the image/modules package
#   kernels/VERSION/release        uname -r
#   bin/busybox, qemu/             busybox-static, a private qemu-system-x86 (if it runs here)
set -euo pipefail

VERSION=${1:?usage: lab/fetch.sh VERSION (6.12.117, 7.2.13, 7.3.4)}
LAB=$(cd "$(dirname "$0")" && pwd)
CACHE=${BUDDYSCOPE_LAB_CACHE:-$LAB/.cache}
MIRROR=${BUDDYSCOPE_LAB_MIRROR:-http://deb.debian.org/debian}
mkdir -p "$CACHE"
CACHE=$(cd "$CACHE" && pwd)

case "$VERSION" in
  6.12.*) SUITE=trixie ;;
  7.2.*) SUITE=sid ;;
  7.3.*) SUITE=trixie-backports ;;
  *) echo "fetch.sh: no suite known for kernel $VERSION (6.12.x: trixie, 7.2.x: sid, 7.3.x: trixie-backports)" >&2; exit 2 ;;
esac

APTDIR=$CACHE/apt
mkdir -p "$APTDIR"/{etc/trusted.gpg.d,etc/preferences.d,state/lists/partial,cache/archives/partial,debs}
: >"$APTDIR/state/status"
KEYRING=$APTDIR/keyring.gpg

# Newest keyring first: one fetched into the cache earlier, else the system's.
if [[ ! -s $KEYRING ]]; then
  cat /usr/share/keyrings/debian-archive-keyring.gpg >"$KEYRING"
fi

write_sources() {
  cat >"$APTDIR/etc/sources.list" <<SRC
deb [signed-by=$KEYRING] $MIRROR sid main
deb [signed-by=$KEYRING] $MIRROR trixie main
deb [signed-by=$KEYRING] $MIRROR trixie-backports main
SRC
}

APT_OPTS=(
  -o "Dir::Etc::SourceList=$APTDIR/etc/sources.list"
  -o "Dir::Etc::SourceParts=$APTDIR/etc/sources.list.d"
  -o "Dir::Etc::TrustedParts=$APTDIR/etc/trusted.gpg.d"
  -o "Dir::Etc::Preferences=$APTDIR/etc/preferences"
  -o "Dir::Etc::PreferencesParts=$APTDIR/etc/preferences.d"
  -o "Dir::State=$APTDIR/state"
  -o "Dir::State::status=$APTDIR/state/status"
  -o "Dir::Cache=$APTDIR/cache"
  -o "APT::Architecture=amd64"
  -o "APT::Architectures::=amd64"
  -o "Acquire::Languages=none"
  -o "Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false"
  -o "Acquire::IndexTargets::deb::DEP-11-icons::DefaultEnabled=false"
  -o "Acquire::IndexTargets::deb::DEP-11-icons-hidpi::DefaultEnabled=false"
  -o "Debug::NoLocking=1"
)
mkdir -p "$APTDIR/etc/sources.list.d"
aptp() { apt-get "${APT_OPTS[@]}" "$@"; }
policy() { apt-cache "${APT_OPTS[@]}" "$@"; }

update() {
  write_sources
  local stamp=$APTDIR/state/updated
  if [[ -f $stamp && -z $(find "$stamp" -mmin +360) ]]; then return 0; fi
  if ! aptp -q update 2>&1 | tee "$APTDIR/update.log"; then
    return 1
  fi
  if grep -q 'NO_PUBKEY\|not signed\|is not signed\|EXPKEYSIG' "$APTDIR/update.log"; then
    return 1
  fi
  touch "$stamp"
}

if ! update; then
  # The system's keyring may predate the keys sid is signed with: fetch the newest
  # debian-archive-keyring from trixie (signed with keys the system has) and retry.
  echo "fetch.sh: signature check failed with the system keyring; fetching debian-archive-keyring" >&2
  (cd "$APTDIR/debs" && { aptp -q download debian-archive-keyring/sid || aptp -q download debian-archive-keyring; })
  deb=$(ls -t "$APTDIR"/debs/debian-archive-keyring_*.deb | head -1)
  tmp=$(mktemp -d)
  dpkg-deb -x "$deb" "$tmp"
  cat "$tmp"/usr/share/keyrings/debian-archive-*.gpg >"$KEYRING"
  [[ -f $tmp/usr/share/keyrings/debian-archive-keyring.gpg ]] && cp "$tmp/usr/share/keyrings/debian-archive-keyring.gpg" "$KEYRING"
  rm -rf "$tmp"
  rm -f "$APTDIR/state/updated"
  update
fi

# newest version of a package in a suite (the archive may carry a newer +debN)
candidate() { # pkg suite
  policy madison "$1" 2>/dev/null | awk -v s="$2" -F' *[|] *' '$3 ~ "(^| )"s"/" {print $2; exit}'
}
download() { # pkg suite -> path of the .deb
  local pkg=$1 suite=$2 ver
  ver=$(candidate "$pkg" "$suite")
  if [[ -z $ver ]]; then echo "fetch.sh: package $pkg not found in $suite" >&2; return 1; fi
  local f
  f=$(ls "$APTDIR"/debs/"${pkg}"_"${ver//:/%3a}"_*.deb 2>/dev/null | head -1 || true)
  if [[ -z $f ]]; then
    (cd "$APTDIR/debs" && aptp -q download "$pkg=$ver" >&2)
    f=$(ls "$APTDIR"/debs/"${pkg}"_"${ver//:/%3a}"_*.deb | head -1)
  fi
  echo "$f"
}
# first package of a list that exists in the suite
first_pkg() { # suite pkg...
  local suite=$1; shift
  for p in "$@"; do
    if [[ -n $(candidate "$p" "$suite") ]]; then echo "$p"; return 0; fi
  done
  echo "fetch.sh: none of $* in $suite" >&2
  return 1
}

# The release (uname -r) is VERSION+debN-amd64; find the +debN the suite has.
find_release() {
  local n
  for n in 14 13 12; do
    local r="$VERSION+deb$n-amd64"
    if [[ -n $(candidate "linux-image-$r-dbg" "$SUITE") ]]; then echo "$r"; return 0; fi
  done
  echo "fetch.sh: no linux-image-$VERSION+debN-amd64-dbg in $SUITE" >&2
  policy search "linux-image-$VERSION" >&2 || true
  return 1
}

KDIR=$CACHE/kernels/$VERSION
mkdir -p "$KDIR"
RELEASE=$(find_release)
echo "$RELEASE" >"$KDIR/release"
echo "fetch.sh: kernel $RELEASE from $SUITE"

IMG_PKG=$(first_pkg "$SUITE" "linux-binary-$RELEASE" "linux-image-$RELEASE-unsigned" "linux-image-$RELEASE")
DBG_PKG=linux-image-$RELEASE-dbg
MOD_PKG=$(first_pkg "$SUITE" "linux-modules-$RELEASE" "$IMG_PKG")

# image + modules: the vmlinuz and lib/modules tree
if [[ ! -f $KDIR/vmlinuz || ! -d $KDIR/modules ]]; then
  tmp=$KDIR/extract
  rm -rf "$tmp"; mkdir -p "$tmp"
  for pkg in $(printf '%s\n' "$IMG_PKG" "$MOD_PKG" | sort -u); do
    deb=$(download "$pkg" "$SUITE")
    dpkg-deb -x "$deb" "$tmp"
  done
  # classic layout (boot/vmlinuz-R, lib/modules/R) or the newer one (usr/lib/modules/R/vmlinuz)
  mods=$tmp/lib/modules/$RELEASE
  [[ -d $mods ]] || mods=$tmp/usr/lib/modules/$RELEASE
  if [[ -f $tmp/boot/vmlinuz-$RELEASE ]]; then cp "$tmp/boot/vmlinuz-$RELEASE" "$KDIR/vmlinuz"; else cp "$mods/vmlinuz" "$KDIR/vmlinuz"; fi
  for c in "$tmp/boot/config-$RELEASE" "$mods/config"; do [[ -f $c ]] && cp "$c" "$KDIR/config"; done
  rm -rf "$KDIR/modules"
  mv "$mods" "$KDIR/modules"
  rm -rf "$tmp"
fi

# debug vmlinux: extract only that one file from the 1.2 GB package
if [[ ! -f $KDIR/vmlinux.debug ]]; then
  deb=$(download "$DBG_PKG" "$SUITE")
  # one pass: the 7.x layout (usr/lib/debug/lib/modules/R/vmlinux) or 6.12's (usr/lib/debug/boot/vmlinux-R);
  # tar reports the pattern that matched nothing, so only the output's size decides
  dpkg-deb --fsys-tarfile "$deb" | tar -xO --wildcards "*/lib/modules/$RELEASE/vmlinux" "*/boot/vmlinux-$RELEASE" \
    >"$KDIR/vmlinux.debug.part" 2>/dev/null || true
  [[ -s $KDIR/vmlinux.debug.part ]] || { echo "fetch.sh: no vmlinux in $deb" >&2; exit 1; }
  mv "$KDIR/vmlinux.debug.part" "$KDIR/vmlinux.debug"
  if [[ -z ${BUDDYSCOPE_LAB_KEEP_DEBS:-} ]]; then rm -f "$deb"; fi
fi

# bootable ELF: the debug vmlinux without its debug sections keeps the PVH ELF note
if [[ ! -f $KDIR/vmlinux ]]; then
  objcopy --strip-debug "$KDIR/vmlinux.debug" "$KDIR/vmlinux.part"
  mv "$KDIR/vmlinux.part" "$KDIR/vmlinux"
fi
if ! readelf -n "$KDIR/vmlinux" | grep -q 'Xen.*0x00000012\|XEN_ELFNOTE_PHYS32_ENTRY\|Unknown note type: (0x00000012)'; then
  echo "fetch.sh: warning: $KDIR/vmlinux has no PVH entry note (XEN_ELFNOTE_PHYS32_ENTRY)" >&2
fi

# busybox-static: the static binary only
if [[ ! -x $CACHE/bin/busybox ]]; then
  mkdir -p "$CACHE/bin"
  deb=$(download busybox-static trixie)
  tmp=$(mktemp -d)
  dpkg-deb -x "$deb" "$tmp"
  cp "$tmp/usr/bin/busybox" "$CACHE/bin/busybox" 2>/dev/null || cp "$tmp/bin/busybox" "$CACHE/bin/busybox"
  chmod 755 "$CACHE/bin/busybox"
  rm -rf "$tmp"
fi

# qemu: the system's if installed, else a private copy if it runs on this machine
if ! command -v qemu-system-x86_64 >/dev/null && [[ ! -x $CACHE/qemu/usr/bin/qemu-system-x86_64 ]]; then
  echo "fetch.sh: qemu-system-x86_64 missing: install it with 'apt-get install qemu-system-x86' (the system's apt)" >&2
fi
echo "fetch.sh: done: $KDIR ($(du -sh "$KDIR" | cut -f1))"
