# shellcheck shell=sh disable=SC2013 # module names are words
# The lab's workloads (busybox sh, sourced by the guest's /init). wl_prepare runs before
# the "before" snapshot (settings the workload needs), wl_run between the snapshots,
# wl_cleanup after the "after" snapshot (tracing is off then).

HP=/sys/kernel/mm/hugepages

wl_prepare() {
	case "$1" in
	idle | hugetlb-2m | gigantic | gigantic-cma | fragment | vmalloc) ;;
	thp)
		echo always >/sys/kernel/mm/transparent_hugepage/enabled
		echo always >/sys/kernel/mm/transparent_hugepage/defrag
		;;
	compaction)
		# The fragmenting fill runs before the "before" snapshot (untraced, so the trace holds
		# the compaction only): 64 KiB files in a tmpfs up to 85 % of MemFree, all but every
		# 16th deleted, so every pageblock of the fill keeps a few movable pages.
		echo always >/sys/kernel/mm/transparent_hugepage/enabled
		echo always >/sys/kernel/mm/transparent_hugepage/defrag
		free_kb=$(awk '/^MemFree:/ {print $2}' /proc/meminfo)
		mkdir -p /tmp/holes
		/bin/labload holes /tmp/holes $((free_kb * 90 / 100 / 1024)) 64 16
		;;
	*)
		echo "unknown workload $1 (idle hugetlb-2m gigantic gigantic-cma vmalloc fragment thp compaction)"
		return 1
		;;
	esac
}

wl_hugetlb() { # SIZE_KB COUNT
	echo "$2" >"$HP/hugepages-$1kB/nr_hugepages"
	echo "nr_hugepages($1 kB) = $(cat "$HP/hugepages-$1kB/nr_hugepages") of $2"
	echo 0 >"$HP/hugepages-$1kB/nr_hugepages"
	echo "nr_hugepages($1 kB) = $(cat "$HP/hugepages-$1kB/nr_hugepages") after freeing"
}

wl_run() {
	case "$1" in
	idle) sleep 10 ;;
	hugetlb-2m) wl_hugetlb 2048 200 ;;
	gigantic | gigantic-cma) wl_hugetlb 1048576 1 ;;
	thp) /bin/labload thp 1024 ;;
	vmalloc)
		for m in $(cat /lib/modules/vmalloc.order); do
			insmod "/lib/modules/$m.ko" && echo "loaded $m"
		done
		grep -E '^(xfs|btrfs|f2fs) ' /proc/modules
		for m in $(sed -n '1!G;h;$p' /lib/modules/vmalloc.order); do
			rmmod "$m" && echo "unloaded $m"
		done
		;;
	fragment)
		# page cache: files of 4 MiB in a tmpfs until ~60% of MemFree is used
		free_kb=$(awk '/^MemFree:/ {print $2}' /proc/meminfo)
		n=$((free_kb * 6 / 10 / 4096))
		mkdir -p /tmp/fill
		i=0
		while [ $i -lt $n ]; do
			dd if=/dev/zero of=/tmp/fill/f$i bs=1M count=4 2>/dev/null
			i=$((i + 1))
		done
		echo "filled $n files of 4 MiB"
		# free every third file: holes of movable pages across the zone
		i=0
		while [ $i -lt $n ]; do
			rm -f /tmp/fill/f$i
			i=$((i + 3))
		done
		echo "freed a third"
		# unmovable allocations into those holes: pipe buffers and socket memory, churned
		/bin/labload churn 4 2000 64
		/bin/labload sockets 1000 128
		/bin/labload pipes 3000 64
		echo "churned pipes and sockets"
		;;
	compaction)
		# THP faults under fragmentation (direct compaction: defrag=always), then the whole
		# node compacted (compact_node for every zone).
		/bin/labload thp 128
		echo 1 >/proc/sys/vm/compact_memory
		echo "compacted"
		grep -E '^compact_' /proc/vmstat
		;;
	*) return 1 ;;
	esac
}

wl_cleanup() {
	case "$1" in
	fragment) rm -rf /tmp/fill ;;
	compaction) rm -rf /tmp/holes ;;
	esac
}
