# shellcheck shell=sh
# The capture folder's writer, shared by the qemu guest's /init (busybox sh) and
# lab/capture-host.sh (a real machine, bash): POSIX sh only.
#
# Layout written under $CAP (lab/README.md, "The capture folder"):
#   uname.txt  cmdline.txt  events.txt  buffer_size_kb.txt  workload.log
#   before/{pagetypeinfo,zoneinfo,buddyinfo,vmstat,meminfo[,kprobe_profile]}  after/...
#   trace.txt  stats/cpuN  markers.txt  [probes.txt  kprobe_profile]
#
# Inputs: CAP (output folder), and for tests BUDDYSCOPE_PROC (default /proc) and
# BUDDYSCOPE_TRACEFS (default: the first of /sys/kernel/tracing, /sys/kernel/debug/tracing
# that has a trace_marker).

CAP_PROC=${BUDDYSCOPE_PROC:-/proc}

# The kmem events the replay reads; compaction's when the kernel has them.
CAP_KMEM_EVENTS="mm_page_alloc mm_page_free mm_page_free_batched mm_page_alloc_zone_locked mm_page_pcpu_drain mm_page_alloc_extfrag"

cap_log() { echo "capture: $*" >&2; }

cap_find_tracefs() {
	if [ -n "${BUDDYSCOPE_TRACEFS:-}" ]; then
		TRACEFS=$BUDDYSCOPE_TRACEFS
	elif [ -e /sys/kernel/tracing/trace_marker ]; then
		TRACEFS=/sys/kernel/tracing
	elif [ -e /sys/kernel/debug/tracing/trace_marker ]; then
		TRACEFS=/sys/kernel/debug/tracing
	else
		cap_log "no tracefs: mount -t tracefs nodev /sys/kernel/tracing (CONFIG_TRACING)"
		return 1
	fi
	[ -e "$TRACEFS/trace_marker" ] || { cap_log "$TRACEFS has no trace_marker"; return 1; }
}

cap_meta() {
	mkdir -p "$CAP" "$CAP/before" "$CAP/after"
	uname -a >"$CAP/uname.txt"
	cat "$CAP_PROC/cmdline" >"$CAP/cmdline.txt"
}

# Enable the events (only those, and clear the buffer); events.txt lists the enabled ones.
cap_enable_events() {
	echo 0 >"$TRACEFS/tracing_on"
	echo 0 >"$TRACEFS/events/enable"
	: >"$CAP/events.txt"
	for ev in $CAP_KMEM_EVENTS; do
		if [ -e "$TRACEFS/events/kmem/$ev/enable" ]; then
			echo 1 >"$TRACEFS/events/kmem/$ev/enable"
			echo "kmem:$ev" >>"$CAP/events.txt"
		else
			cap_log "the kernel has no kmem:$ev event"
		fi
	done
	for d in "$TRACEFS"/events/compaction/mm_compaction_*; do
		[ -e "$d/enable" ] || continue
		echo 1 >"$d/enable"
		echo "compaction:${d##*/}" >>"$CAP/events.txt"
	done
	echo global >"$TRACEFS/trace_clock" 2>/dev/null || true
	: >"$TRACEFS/trace"
}

# Kprobe events (lab/run.sh takes free_one_page unless --no-probe), after cap_enable_events
# (which turns every event off and clears the buffer); events.txt lists them as buddyscope:NAME,
# probes.txt says of each "NAME on" or "NAME refused: WHY" (capture.json's "probes"). A refused
# probe is left out, the others still go on; the return status says whether any was refused.
#   free_one_page: a kprobe on mm/page_alloc.c's free_one_page, the only way a pcp-order free
#   reaches the buddy without the pcp (an isolated pageblock, a failed pcp_spin_trylock; and
#   every free above the pcp orders). No kmem tracepoint fires there, so the trace alone
#   cannot say whether an interrupt's free met the pcp lock held. x86-64 only: the pfn and
#   order are the third and fourth arguments (rdx, ecx), read at the function's entry; the
#   probe needs an out-of-line free_one_page (a static function: checked in kallsyms), every
#   caller calling it (checked on the 6.12.117, 7.2.13 and 7.3.4 vmlinux: lab/README.md).
#   free_frozen_page_commit (free_unref_page_commit on 6.12): a kprobe at the entry of the
#   function that puts a pcp-order page on its pcp list, called with the pcp lock held, so its
#   lines come in the order of the list_add calls. The page pointer (rdx, the third argument)
#   and order (r8d, the fifth); the replay maps the pointer to a pfn from the mm_page_free
#   lines, which print both. The same checks (lab/README.md).
cap_enable_probes() { # NAME...
	refused=0
	for probe in "$@"; do
		why=$(cap_enable_probe "$probe") && echo "$probe on" >>"$CAP/probes.txt" || {
			cap_log "probe $probe refused: $why; going on without it"
			echo "$probe refused: $why" >>"$CAP/probes.txt"
			refused=1
		}
	done
	return $refused
}

cap_enable_probe() { # NAME; prints why it was refused
	case "$1" in
	free_one_page)
		[ "$(uname -m)" = x86_64 ] || { echo "x86-64 only"; return 1; }
		grep -q ' free_one_page$' "$CAP_PROC/kallsyms" ||
			{ echo "no out-of-line free_one_page in kallsyms"; return 1; }
		echo 'p:buddyscope/free_one_page free_one_page pfn=%dx:x64 order=%cx:u32' \
			>>"$TRACEFS/kprobe_events" 2>/dev/null || { echo "kprobe_events refused it"; return 1; }
		echo 1 >"$TRACEFS/events/buddyscope/free_one_page/enable"
		echo "buddyscope:free_one_page" >>"$CAP/events.txt"
		;;
	free_frozen_page_commit)
		# 6.12's name of the same function: free_unref_page_commit
		[ "$(uname -m)" = x86_64 ] || { echo "x86-64 only"; return 1; }
		sym=
		for s in free_frozen_page_commit free_unref_page_commit; do
			grep -q " $s\$" "$CAP_PROC/kallsyms" && { sym=$s; break; }
		done
		[ -n "$sym" ] || { echo "no out-of-line free_frozen_page_commit or free_unref_page_commit in kallsyms"; return 1; }
		echo "p:buddyscope/$sym $sym page=%dx:x64 order=%r8:u32" \
			>>"$TRACEFS/kprobe_events" 2>/dev/null || { echo "kprobe_events refused it"; return 1; }
		echo 1 >"$TRACEFS/events/buddyscope/$sym/enable"
		echo "buddyscope:$sym" >>"$CAP/events.txt"
		;;
	*) echo "unknown probe"; return 1 ;;
	esac
}

# Per-CPU ring buffer size: the largest of the sizes given (KiB) that the kernel accepts.
cap_buffer_size() {
	for kb in "$@"; do
		if echo "$kb" >"$TRACEFS/buffer_size_kb" 2>/dev/null; then
			break
		fi
		cap_log "buffer_size_kb $kb refused"
	done
	cat "$TRACEFS/buffer_size_kb" >"$CAP/buffer_size_kb.txt"
}

cap_tracing_on() { echo 1 >"$TRACEFS/tracing_on"; }
cap_tracing_off() { echo 0 >"$TRACEFS/tracing_on"; }

# Copy a file with shell builtins only: a process forked here would exit just before the
# snapshot, and its RCU-deferred frees would land between the marker and the VM's stop.
cap_copy() { # SRC DST
	while IFS= read -r line || [ -n "$line" ]; do
		printf '%s\n' "$line"
	done <"$1" >"$2"
}

cap_proc() { # DIR (created by cap_meta)
	for f in buddyinfo pagetypeinfo zoneinfo vmstat meminfo; do
		cap_copy "$CAP_PROC/$f" "$CAP/$1/$f"
	done
	# the probes' hits and misses so far: the difference between the two points is the
	# traced window's (the probes also fire before tracing starts and while the trace is read)
	if [ -s "$CAP/probes.txt" ] && [ -e "$TRACEFS/kprobe_profile" ]; then
		cap_copy "$TRACEFS/kprobe_profile" "$CAP/$1/kprobe_profile"
	fi
}

cap_marker() { # TEXT
	echo "buddyscope: $*" >"$TRACEFS/trace_marker"
	echo "buddyscope: $*" >>"$CAP/markers.txt"
}

# A dump point: a marker, /proc as it is, the marker the trace is cut at, the snapshot
# (the caller's cap_snapshot_hook: the qemu guest stops for a memory dump, a real machine
# runs drgn on /proc/kcore), then a last marker. Events between "proc" and "snapshot"
# happened while /proc was read, those between "snapshot" and "resumed" while the
# snapshot was taken (capture.json counts both).
cap_point() { # NAME
	cap_marker "proc $1"
	cap_proc "$1"
	cap_marker "snapshot $1"
	cap_snapshot_hook "$1"
	cap_marker "resumed $1"
}

# The trace as text, each CPU's ring buffer statistics (overrun = lost events), and with
# kprobes, kprobe_profile: each probe's hits and misses. A kprobe that fires while another
# kprobe's handler runs on the same CPU (an interrupt inside the handler) is not traced, only
# counted missed (kernel/kprobes.c, arch/x86/kernel/kprobes/ftrace.c: kprobe_running() ->
# kprobes_inc_nmissed_count), so a probe's silence proves nothing when it missed hits.
cap_trace_out() {
	cat "$TRACEFS/trace" >"$CAP/trace.txt"
	if [ -s "$CAP/probes.txt" ] && [ -e "$TRACEFS/kprobe_profile" ]; then
		cat "$TRACEFS/kprobe_profile" >"$CAP/kprobe_profile"
	fi
	mkdir -p "$CAP/stats"
	for d in "$TRACEFS"/per_cpu/cpu*; do
		[ -e "$d/stats" ] || continue
		cat "$d/stats" >"$CAP/stats/${d##*/}"
	done
}

# Leave the machine's tracing as a real machine had it before: events off.
cap_events_off() {
	echo 0 >"$TRACEFS/events/enable"
	for ev in $(sed -n 's|^p:buddyscope/\([^ ]*\) .*|\1|p' "$TRACEFS/kprobe_events" 2>/dev/null); do
		echo "-:buddyscope/$ev" >>"$TRACEFS/kprobe_events"
	done
}
