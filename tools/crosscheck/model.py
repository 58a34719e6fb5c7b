#!/usr/bin/env python3
"""Independent Python model of the buddy allocator described in
/work/shared/design/kernel-model.md (§n below) and the scenario/CLI contract in
/work/shared/design/scenario-format.md ("contract").

Written from those two documents only (the Rust engine sources were not read); alloc_contig_range
(isolation, migration) follows the kernel C instead (v7.1.5 mm/page_isolation.c, mm/page_alloc.c).
Scope: init "boot" only (no /proc import), no `workload` op.

Usage: model.py FILE --format buddyinfo|pagetypeinfo|zoneinfo|trace
"""
import json
import math
import sys
from collections import deque

# ---------------------------------------------------------------- §1.1 constants
MAX_ORDER = 10
PB_ORDER = 9
PB_PAGES = 512
NR_PCP_LISTS = 14            # THP on (§1.8)
BATCH_SCALE_MAX = 5          # CONFIG_PCP_BATCH_SCALE_MAX
HOLD_BUCKETS = 13            # lock holds by pages: 0, 1, 2-3, …, 2048+ (buddyscope::mm::HoldHistogram)
SECTION_SHIFT = 15           # §1.1 SECTION_SIZE_BITS 27 -> 32768 pages

# §1.2 migratetypes
U, M, R, HA = 0, 1, 2, 3
PCPTYPES = 3
FALLBACKS = {U: (R, M), M: (R, U), R: (U, M)}   # §2.7.1

# §7.1 ALLOC_* flags (kernel values)
ALLOC_WMARK_MIN, ALLOC_WMARK_LOW, ALLOC_WMARK_HIGH = 0, 1, 2
ALLOC_WMARK_MASK = 3
ALLOC_NO_WATERMARKS = 0x4
ALLOC_OOM = 0x8
ALLOC_NON_BLOCK = 0x10
ALLOC_MIN_RESERVE = 0x20
ALLOC_CPUSET = 0x40
ALLOC_CMA = 0x80
ALLOC_NOFRAGMENT = 0x100
ALLOC_HIGHATOMIC = 0x200
ALLOC_KSWAPD = 0x800
ALLOC_RESERVES = ALLOC_NON_BLOCK | ALLOC_MIN_RESERVE | ALLOC_HIGHATOMIC | ALLOC_OOM

# §9 gfp bits
G_DMA, G_HIGHMEM, G_DMA32, G_MOVABLE, G_RECLAIMABLE, G_HIGH = 0x1, 0x2, 0x4, 0x8, 0x10, 0x20
G_IO, G_FS, G_ZERO, G_DIRECT_RECLAIM, G_KSWAPD_RECLAIM = 0x40, 0x80, 0x100, 0x400, 0x800
G_WRITE, G_NOWARN, G_RETRY_MAYFAIL, G_NOFAIL, G_NORETRY = 0x1000, 0x2000, 0x4000, 0x8000, 0x10000
G_MEMALLOC, G_COMP, G_NOMEMALLOC, G_HARDWALL, G_THISNODE = 0x20000, 0x40000, 0x80000, 0x100000, 0x200000
G_ACCOUNT, G_ZEROTAGS = 0x400000, 0x800000
G_RECLAIM = G_DIRECT_RECLAIM | G_KSWAPD_RECLAIM
GFP_KERNEL = G_RECLAIM | G_IO | G_FS
GFP_ATOMIC = G_HIGH | G_KSWAPD_RECLAIM
GFP_NOWAIT = G_KSWAPD_RECLAIM | G_NOWARN          # 6.18+
GFP_NOIO = G_RECLAIM
GFP_NOFS = G_RECLAIM | G_IO
GFP_USER = G_RECLAIM | G_IO | G_FS | G_HARDWALL
GFP_HIGHUSER = GFP_USER | G_HIGHMEM
GFP_HIGHUSER_MOVABLE = GFP_HIGHUSER | G_MOVABLE
GFP_TRANSHUGE_LIGHT = (GFP_HIGHUSER_MOVABLE | G_COMP | G_NOMEMALLOC | G_NOWARN) & ~G_RECLAIM
GFP_TRANSHUGE = GFP_TRANSHUGE_LIGHT | G_DIRECT_RECLAIM
GFP_KERNEL_ACCOUNT = GFP_KERNEL | G_ACCOUNT

# §9: greedy decoding table, in the document's order
GFP_NAMES = [
    (GFP_TRANSHUGE, "GFP_TRANSHUGE"), (GFP_TRANSHUGE_LIGHT, "GFP_TRANSHUGE_LIGHT"),
    (GFP_HIGHUSER_MOVABLE, "GFP_HIGHUSER_MOVABLE"), (GFP_HIGHUSER, "GFP_HIGHUSER"),
    (GFP_USER, "GFP_USER"), (GFP_KERNEL_ACCOUNT, "GFP_KERNEL_ACCOUNT"), (GFP_KERNEL, "GFP_KERNEL"),
    (GFP_NOFS, "GFP_NOFS"), (GFP_ATOMIC, "GFP_ATOMIC"), (GFP_NOIO, "GFP_NOIO"),
    (GFP_NOWAIT, "GFP_NOWAIT"), (G_DMA, "GFP_DMA"), (G_DMA32, "GFP_DMA32"),
    (G_RECLAIM, "__GFP_RECLAIM"),
    (G_DMA, "__GFP_DMA"), (G_HIGHMEM, "__GFP_HIGHMEM"), (G_DMA32, "__GFP_DMA32"),
    (G_MOVABLE, "__GFP_MOVABLE"), (G_RECLAIMABLE, "__GFP_RECLAIMABLE"), (G_HIGH, "__GFP_HIGH"),
    (G_IO, "__GFP_IO"), (G_FS, "__GFP_FS"), (G_ZERO, "__GFP_ZERO"),
    (G_DIRECT_RECLAIM, "__GFP_DIRECT_RECLAIM"), (G_KSWAPD_RECLAIM, "__GFP_KSWAPD_RECLAIM"),
    (G_WRITE, "__GFP_WRITE"), (G_NOWARN, "__GFP_NOWARN"), (G_RETRY_MAYFAIL, "__GFP_RETRY_MAYFAIL"),
    (G_NOFAIL, "__GFP_NOFAIL"), (G_NORETRY, "__GFP_NORETRY"), (G_MEMALLOC, "__GFP_MEMALLOC"),
    (G_COMP, "__GFP_COMP"), (G_NOMEMALLOC, "__GFP_NOMEMALLOC"), (G_HARDWALL, "__GFP_HARDWALL"),
    (G_THISNODE, "__GFP_THISNODE"), (G_ACCOUNT, "__GFP_ACCOUNT"), (G_ZEROTAGS, "__GFP_ZEROTAGS"),
]


def gfp_str(g):
    """§9 gfp_flags: 'none' for 0, else greedy table match, leftovers in hex."""
    if g == 0:
        return "none"
    out = []
    for mask, name in GFP_NAMES:
        if mask and (g & mask) == mask:
            out.append(name)
            g &= ~mask
    if g:
        out.append("0x%x" % g)
    return "|".join(out)


def ilog2(n):
    return n.bit_length() - 1


def ctz(x):
    return (x & -x).bit_length() - 1


def fls(x):
    return x.bit_length()


def kclamp(v, lo, hi):
    """§0.1 the kernel's clamp: hi wins when lo > hi."""
    return hi if v >= hi else (lo if v <= lo else v)


def mult_frac(x, n, d):
    return (x // d) * n + ((x % d) * n) // d


def chunk_order(pfn, remaining):
    """§5.3 chunk rule (also §3.7 boot chunking)."""
    o = MAX_ORDER if pfn == 0 else min(MAX_ORDER, ctz(pfn))
    return min(o, ilog2(remaining), MAX_ORDER)


def pcp_allowed_order(o):       # §4.1
    return o <= 3 or o == 9


def order_to_pindex(mt, o):     # §4.1
    if o <= 3:
        return 3 * o + mt
    return 12 + (1 if mt == M else 0)


def pindex_to_order(i):
    return i // 3 if i < 12 else 9


class DList:
    """Deque with O(1) unlink of an arbitrary element (§0.1 list ops)."""
    __slots__ = ("nx", "pv", "head", "tail")

    def __init__(self):
        self.nx, self.pv, self.head, self.tail = {}, {}, None, None

    def __len__(self):
        return len(self.nx)

    def push_front(self, x):
        self.nx[x] = self.head
        self.pv[x] = None
        if self.head is None:
            self.tail = x
        else:
            self.pv[self.head] = x
        self.head = x

    def push_back(self, x):
        self.pv[x] = self.tail
        self.nx[x] = None
        if self.tail is None:
            self.head = x
        else:
            self.nx[self.tail] = x
        self.tail = x

    def remove(self, x):
        n, p = self.nx.pop(x), self.pv.pop(x)
        if p is None:
            self.head = n
        else:
            self.nx[p] = n
        if n is None:
            self.tail = p
        else:
            self.pv[n] = p


class PCP:
    """§4.1 struct per_cpu_pages."""

    def __init__(self, batch, high_min, high_max):
        self.count = 0
        self.high = 0              # §3.7 step 4: starts at 0
        self.batch = batch
        self.high_min = high_min
        self.high_max = high_max
        self.prev_free_high_order = False
        self.free_high_batch = True   # PCPF_FREE_HIGH_BATCH set (§1.8)
        self.alloc_factor = 0
        self.free_count = 0
        self.lists = [deque() for _ in range(NR_PCP_LISTS)]


class Rec:
    """A named thing bound by `as` (contract, Names)."""

    def __init__(self, kind):
        self.kind = kind          # 'alloc' | 'contig' | 'vmalloc'
        self.failed = False
        self.pfn = 0
        self.order = 0
        self.nr = 0
        self.split = False
        self.pages = []           # pfns (vmalloc: array order)
        self.array = None         # vmalloc: nested Rec for the page array (> 512 pages)
        self.freed = False
        self.held = set()         # pages still held (refcount > 0, not freed)


# Compatibility knobs that make the model imitate a *known* Rust discrepancy, so that random
# testing can look past it (run_diff.py --compat).  Empty = follow the documents.
#   fcr_freed_ref: free_contig_range by `ref` of an already freed allocation acts on its pfn
#                  range (Rust behaviour) instead of being skipped (contract, "Events and errors").
COMPAT = {}


class ScenarioError(Exception):
    pass


# A node of several zones ("zones"): the per-zone state, swapped in and out of the model's
# attributes when the model works in another zone (the zone the code runs on is `self`).
ZONE_ATTRS = ("zname", "N", "start", "end", "cma", "mode_memory", "ISO", "CMA", "NTYPES",
              "mobility_disabled", "free_lists", "nr_free", "buddy", "NR_FREE_PAGES",
              "NR_FREE_PAGES_BLOCKS", "NR_FREE_CMA", "nr_free_highatomic",
              "nr_reserved_highatomic", "boost", "below_high", "boosted_flag", "nblocks", "pb",
              "refcnt", "lru", "min_free_kbytes", "wmark", "pcps", "lowmem", "iso_blocks",
              "cma_area", "cma_pages")
ZONE_TYPES = {"DMA": 0, "DMA32": 1, "Normal": 2, "Movable": 3}
LOWMEM_RATIO = [256, 256, 32, 0]          # sysctl_lowmem_reserve_ratio


class Model:
    def __init__(self, doc):
        self.doc = doc
        self.kernel = doc.get("kernel", "v7.2")
        self.open_holds = {"zone": None, "pcp": None}
        if self.kernel not in ("v6.18", "v6.19", "v7.1", "v7.2"):
            raise ScenarioError("kernel")
        self.trace = []
        self.undefined = False
        self.cov = {}
        self.highest = 2
        self.cur = 0
        self.acr_cma = False            # alloc_contig_range with ACR_FLAGS_CMA (cma_alloc)
        self.acr_nomem = False
        specs = doc.get("zones") or [doc.get("zone", {})]
        # cma_alloc's area (v7.1.5 mm/cma.c): one bit a page (order_per_bit 0), the first
        # zone.cma_pageblocks of the node (the model has one area)
        area = next((z["cma_pageblocks"] for z in specs if z.get("cma_pageblocks")), None)
        self.cma_base = area["start_pfn"] if area else None
        self.cma_bits = [False] * (area["nr_pages"] if area else 0)
        self.cma_avail = len(self.cma_bits)
        if len(specs) == 1:
            self.zs = None
            self.init_zone(specs[0])
            return
        # A node: one min_free_kbytes split by managed pages, lowmem_reserve, mobility from the
        # node's total (setup_per_zone_wmarks / setup_per_zone_lowmem_reserve / build_all_zonelists).
        sizes = [z.get("pages", 262144) for z in specs]
        total = sum(sizes)
        mfk = next((z["min_free_kbytes"] for z in specs if "min_free_kbytes" in z), None)
        if mfk is None:
            first = kclamp(math.isqrt(4 * total * 16), 128, 262144)
            buf = sum(n - self.node_wmarks(n, total, first)[2] for n in sizes)
            nz = len(sizes)
            rec = min(512 * nz * 2 + 512 * nz * 9, buf // 20)
            mfk = rec * 4 if rec * 4 > first else first
        cma_any = any(z.get("cma", False) for z in specs)
        types = [ZONE_TYPES[z.get("name", "Normal")] for z in specs]
        self.zs = []
        for i, z in enumerate(specs):
            self.init_zone(z)
            self.mobility_disabled = total < (3072 if cma_any else 2560)
            self.min_free_kbytes = mfk
            self.wmark = self.node_wmarks(self.N, total, mfk)
            self.setup_pcp(z.get("pcp", {}))
            low = [0, 0, 0, 0]
            ratio = LOWMEM_RATIO[types[i]]
            acc = 0
            for j in range(types[i] + 1, 4):
                acc += sum(n for n, t in zip(sizes, types) if t == j)
                low[j] = 0 if ratio == 0 else acc // ratio
            self.lowmem = low
            self.boot_reset()
            self.boot()
            self.zs.append({a: getattr(self, a) for a in ZONE_ATTRS})
        self.cur = len(specs) - 1
        self.load_zone(self.cur)

    @staticmethod
    def node_wmarks(n, total, mfk):
        mn = (mfk // 4) * n // total
        delta = max(mn // 4, mult_frac(n, 10, 10000))
        return [mn, mn + delta, mn + 2 * delta, mn + 3 * delta]

    def load_zone(self, i):
        for a, v in self.zs[i].items():
            setattr(self, a, v)
        self.cur = i

    def use_zone(self, i):
        """Work in zone i of the node (page_zone, the zonelist walk)."""
        if self.zs is None or i == self.cur:
            return
        self.zs[self.cur] = {a: getattr(self, a) for a in ZONE_ATTRS}
        self.load_zone(i)

    def nzones(self):
        return 1 if self.zs is None else len(self.zs)

    def zone_of(self, pfn):
        if self.zs is None:
            return 0
        for i, z in enumerate(self.zs):
            zz = self.__dict__ if i == self.cur else z
            if zz["start"] <= pfn < zz["end"]:
                return i
        return self.cur

    def zonelist(self):
        if self.zs is None:
            return [0]
        out = []
        for i in range(len(self.zs) - 1, -1, -1):
            name = self.zname if i == self.cur else self.zs[i]["zname"]
            if ZONE_TYPES[name] <= self.highest:
                out.append(i)
        return out

    def each_zone(self):
        """Visit every zone in pfn order, then return to the one the walk started in."""
        home = self.cur
        for i in range(self.nzones()):
            self.use_zone(i)
            yield i
        self.use_zone(home)

    def init_zone(self, z):
        self.zname = z.get("name", "Normal")
        self.N = z.get("pages", 262144)
        self.start = z.get("start_pfn", 0)
        self.end = self.start + self.N
        self.ncpus = z.get("cpus", 1)
        self.cma = z.get("cma", False)
        self.mode_memory = z.get("rmqueue_mode_memory", True)
        area = z.get("cma_pageblocks")
        # zone.cma_pageblocks: [start, end) of the CMA area, whole pageblocks
        self.cma_area = (area["start_pfn"], area["start_pfn"] + area["nr_pages"]) if area else None
        self.ISO = 5 if self.cma else 4
        self.CMA = 4 if self.cma else None
        self.NTYPES = 6 if self.cma else 5
        # contract "Fixed in v1": mobility grouping off iff zone < 2560 (3072 with cma) pages, §1.8
        self.mobility_disabled = self.N < (3072 if self.cma else 2560)
        self.lowmem = [0, 0, 0, 0]
        self.boot_reset()
        self.setup_watermarks(z.get("min_free_kbytes"))
        self.setup_pcp(z.get("pcp", {}))
        self.boot()

    def boot_reset(self):
        # §1.3 zone state
        self.free_lists = [[DList() for _ in range(self.NTYPES)] for _ in range(MAX_ORDER + 1)]
        self.nr_free = [0] * (MAX_ORDER + 1)
        self.buddy = {}                 # head pfn -> (order, list mt)
        self.NR_FREE_PAGES = 0
        self.NR_FREE_PAGES_BLOCKS = 0
        self.NR_FREE_CMA = 0
        self.nr_free_highatomic = 0
        self.nr_reserved_highatomic = 0
        self.boost = 0
        self.below_high = False
        self.boosted_flag = False
        # §1.4 pageblock types; §3.7 step 1: every pageblock MOVABLE at boot
        self.nblocks = (self.N + PB_PAGES - 1) // PB_PAGES
        self.pb = [M] * self.nblocks
        self.iso_blocks = set()         # pageblocks with PB_migrate_isolate set
        # §1.5 per-page state
        self.refcnt = [0] * self.N
        self.lru = bytearray(self.N)    # §2.7.3 PageLRU approximation
        if not hasattr(self, "owner"):
            self.owner = {}             # pfn -> Rec holding it (absolute pfns: one map per node)
        if not hasattr(self, "extra"):
            self.extra = {}             # pfn -> references get_page took, not yet put (absolute)

    # ------------------------------------------------------------ helpers
    def hit(self, k):
        self.cov[k] = self.cov.get(k, 0) + 1

    def emit(self, s):
        self.trace.append(s)

    @staticmethod
    def page_ptr(pfn):
        return "%016x" % (0xffffea0000000000 + 64 * pfn)

    def get_mt(self, pfn):
        if self.iso_blocks and ((pfn - self.start) >> 9) in self.iso_blocks:
            return self.ISO
        return self.pb[(pfn - self.start) >> 9]

    def set_pageblock_mt(self, pfn, mt):
        """§1.4 set_pageblock_migratetype: UNMOVABLE for every pcp type when grouping is off."""
        if self.mobility_disabled and mt < PCPTYPES:
            mt = U
        self.pb[(pfn - self.start) >> 9] = mt

    def change_pageblock_range(self, pfn, order, mt):
        n = max(1, (1 << order) // PB_PAGES)
        for i in range(n):
            self.set_pageblock_mt(pfn + i * PB_PAGES, mt)

    def mergeable(self, mt):
        return mt < PCPTYPES

    def in_zone(self, pfn):
        return self.start <= pfn < self.end

    # ------------------------------------------------------------ §1.7 primitives
    def account(self, nr, mt):
        if mt == self.ISO:
            return
        self.NR_FREE_PAGES += nr
        if mt == self.CMA:
            self.NR_FREE_CMA += nr
        elif mt == HA:
            self.nr_free_highatomic += nr

    def add_to_free_list(self, pfn, o, mt, tail):
        lst = self.free_lists[o][mt]
        if tail:
            lst.push_back(pfn)
        else:
            lst.push_front(pfn)
        self.nr_free[o] += 1
        if o >= PB_ORDER and mt != self.ISO:
            self.NR_FREE_PAGES_BLOCKS += 1 << o
        self.buddy[pfn] = (o, mt)

    def del_from_free_list(self, pfn, o, mt):
        # unlink from the list it actually sits on (kernel list_del does not care)
        o2, lmt = self.buddy.pop(pfn)
        self.free_lists[o2][lmt].remove(pfn)
        self.nr_free[o] -= 1
        if o >= PB_ORDER and mt != self.ISO:
            self.NR_FREE_PAGES_BLOCKS -= 1 << o

    def del_page_from_free_list(self, pfn, o, mt):
        self.del_from_free_list(pfn, o, mt)
        self.account(-(1 << o), mt)

    def move_to_free_list(self, pfn, o, old, new):
        o2, lmt = self.buddy[pfn]
        self.free_lists[o][lmt].remove(pfn)
        self.free_lists[o][new].push_back(pfn)
        self.buddy[pfn] = (o, new)
        self.account(-(1 << o), old)
        self.account(1 << o, new)
        if o >= PB_ORDER and ((old == self.ISO) != (new == self.ISO)):
            self.NR_FREE_PAGES_BLOCKS += (1 << o) * (1 if old == self.ISO else -1)

    def is_buddy(self, pfn, o):
        b = self.buddy.get(pfn)
        return b is not None and b[0] == o

    # ------------------------------------------------------------ §7.1 watermarks
    def compute_wmarks(self, mfk):
        pages_min = mfk // 4
        mn = pages_min                               # single zone
        delta = max(mn // 4, mult_frac(self.N, 10, 10000))
        return [mn, mn + delta, mn + 2 * delta, mn + 3 * delta]

    def setup_watermarks(self, override):
        if override is not None:
            mfk = override
        else:
            lowmem_kb = 4 * self.N                   # watermarks still 0 (step 1)
            mfk = kclamp(math.isqrt(lowmem_kb * 16), 128, 262144)
            wm2 = self.compute_wmarks(mfk)
            # step 3: THP bump, 5% cap evaluated with step-2 watermarks
            rec = 512 * 1 * 2 + 512 * 1 * 3 * 3
            rec = min(rec, (self.N - wm2[2]) // 20)
            if rec * 4 > mfk:
                mfk = rec * 4
        self.min_free_kbytes = mfk
        self.wmark = self.compute_wmarks(mfk)

    def wmark_pages(self, w):
        return self.wmark[w] + self.boost

    # ------------------------------------------------------------ §4.2 pcp parameters
    def setup_pcp(self, ov):
        b = min(self.N >> 12, 64)
        batch = 1 if b <= 1 else (1 << ilog2(b + b // 2)) - 1
        batch = ov.get("batch", batch)
        low = self.wmark[1]
        high_min = ov.get("high_min", max(low // self.ncpus, 4 * batch))
        high_max = ov.get("high_max", max((self.N // 8) // self.ncpus, 4 * batch))
        self.pcps = [PCP(batch, high_min, high_max) for _ in range(self.ncpus)]

    # ------------------------------------------------------------ §3.7 boot
    def boot(self):
        """memblock_free_all around the CMA area (memblock keeps it reserved), then
        init_cma_reserved_pageblock per pageblock: MIGRATE_CMA, __free_pages(order 9) at the head."""
        cs, ce = self.cma_area or (self.end, self.end)
        for s, e in ((self.start, cs), (ce, self.end)):
            while s < e:
                o = MAX_ORDER if s == 0 else min(MAX_ORDER, ctz(s))
                while s + (1 << o) > e:
                    o -= 1
                self.free_one_page(s, o, to_tail=True)
                s += 1 << o
        self.cma_pages = 0
        for s in range(cs, ce, 1 << PB_ORDER):
            self.set_pageblock_mt(s, self.CMA)
            self.free_one_page(s, PB_ORDER)
            self.cma_pages += 1 << PB_ORDER

    # ------------------------------------------------------------ §3.3/§3.4 buddy free
    def free_one_page(self, pfn, order, to_tail=False):
        """split_large_buddy: never more than one pageblock at a time."""
        end = pfn + (1 << order)
        piece = min(order, PB_ORDER)
        self.lock("zone")
        self.handled(1 << order)
        while pfn < end:
            self.free_one(pfn, piece, self.get_mt(pfn), to_tail)
            pfn += 1 << piece
        self.unlock("zone")

    def free_one(self, pfn, order, mt, to_tail=False):
        """§3.4 __free_one_page."""
        self.account(1 << order, mt)
        buddy_pfn = 0
        while order < MAX_ORDER:
            buddy_pfn = pfn ^ (1 << order)
            if not self.in_zone(buddy_pfn) or not self.is_buddy(buddy_pfn, order):
                break
            buddy_mt = mt
            if order >= PB_ORDER:
                buddy_mt = self.get_mt(buddy_pfn)
                if buddy_mt != mt and (not self.mergeable(mt) or not self.mergeable(buddy_mt)):
                    self.hit("merge_refused_types")
                    break
            self.del_from_free_list(buddy_pfn, order, buddy_mt)
            if buddy_mt != mt:
                self.hit("merge_retype")
                self.change_pageblock_range(buddy_pfn, order, mt)
            pfn = pfn & buddy_pfn
            order += 1
        if not to_tail:
            to_tail = self.buddy_merge_likely(pfn, buddy_pfn, order)
        self.add_to_free_list(pfn, order, mt, to_tail)

    def buddy_merge_likely(self, pfn, buddy_pfn, order):
        if order >= MAX_ORDER - 1:
            return False
        higher = buddy_pfn & pfn
        hb = higher ^ (1 << (order + 1))
        return self.in_zone(hb) and self.is_buddy(hb, order + 1)

    # ------------------------------------------------------------ §2.6
    def rmqueue_smallest(self, order, mt):
        if mt is None:
            return None
        for o in range(order, MAX_ORDER + 1):
            lst = self.free_lists[o][mt]
            if lst.head is not None:
                pfn = lst.head
                self.page_del_and_expand(pfn, order, o, mt)
                self.emit("mm_page_alloc_zone_locked: page=%s pfn=0x%x order=%d migratetype=%d percpu_refill=%d"
                          % (self.page_ptr(pfn), pfn, order, mt,
                             1 if (pcp_allowed_order(order) and mt < PCPTYPES) else 0))
                return pfn
        return None

    def page_del_and_expand(self, pfn, low, high, mt):
        self.del_from_free_list(pfn, high, mt)
        added = self.expand(pfn, low, high, mt)
        self.account(-((1 << high) - added), mt)

    def expand(self, pfn, low, high, mt):
        added = 0
        while high > low:
            high -= 1
            upper = pfn + (1 << high)
            self.add_to_free_list(upper, high, mt, tail=False)
            added += 1 << high
        return added

    # ------------------------------------------------------------ §2.7 fallback
    def should_try_claim_block(self, o, start_mt):
        return (o >= PB_ORDER or o >= PB_ORDER // 2 or start_mt in (U, R)
                or self.mobility_disabled)

    def find_suitable_fallback(self, o, start_mt, claimable):
        if claimable and not self.should_try_claim_block(o, start_mt):
            return -2
        if self.nr_free[o] == 0:
            return -1
        for f in FALLBACKS[start_mt]:
            if len(self.free_lists[o][f]):
                return f
        return -1

    def boost_watermark(self):
        """§7.1 boost_watermark."""
        if 4 * PB_PAGES > self.N:
            return False
        max_boost = mult_frac(self.wmark[2], 15000, 10000)
        if max_boost == 0:
            return False
        max_boost = max(PB_PAGES, max_boost)
        self.boost = min(self.boost + PB_PAGES, max_boost)
        self.hit("boost")
        return True

    def block_bounds(self, pfn):
        bs = pfn & ~(PB_PAGES - 1)
        return bs, bs + PB_PAGES

    def move_freepages_block_walk(self, bs, be, old, new):
        """§2.7.3 __move_freepages_block: ascending walk, push_back each buddy head."""
        p = bs
        moved = 0
        while p < be:
            b = self.buddy.get(p)
            if b is None:
                p += 1
                continue
            self.move_to_free_list(p, b[0], old, new)
            moved += 1 << b[0]
            p += 1 << b[0]
        self.handled(moved)

    def try_to_claim_block(self, pfn, cur, order, start_mt, block_mt, flags):
        """§2.7.3"""
        if cur >= PB_ORDER:
            self.del_page_from_free_list(pfn, cur, block_mt)
            self.change_pageblock_range(pfn, cur, start_mt)
            added = self.expand(pfn, order, cur, start_mt)
            self.account(added, start_mt)
            return pfn
        if self.boost_watermark() and (flags & ALLOC_KSWAPD):
            self.boosted_flag = True
        bs, be = self.block_bounds(pfn)
        if bs < self.start or be > self.end:
            return None
        free = 0
        movable = 0
        p = bs
        while p < be:
            b = self.buddy.get(p)
            if b is not None:
                free += 1 << b[0]
                p += 1 << b[0]
            else:
                if self.lru[p - self.start]:
                    movable += 1
                p += 1
        if start_mt == M:
            alike = movable
        elif block_mt == M:
            alike = PB_PAGES - (free + movable)
        else:
            alike = 0
        if free + alike >= PB_PAGES // 2 or self.mobility_disabled:
            self.hit("claim_partial_ok")
            self.move_freepages_block_walk(bs, be, block_mt, start_mt)
            self.set_pageblock_mt(bs, start_mt)
            return self.rmqueue_smallest(order, start_mt)
        self.hit("claim_partial_refused")
        return None

    def extfrag(self, p, order, cur, start_mt, f):
        self.emit("mm_page_alloc_extfrag: page=%s pfn=0x%x alloc_order=%d fallback_order=%d pageblock_order=%d "
                  "alloc_migratetype=%d fallback_migratetype=%d fragmenting=%d change_ownership=%d"
                  % (self.page_ptr(p), p, order, cur, PB_ORDER, start_mt, f,
                     1 if cur < PB_ORDER else 0, 1 if start_mt == self.get_mt(p) else 0))

    def rmqueue_claim(self, order, start_mt, flags):
        """§2.7.4 top-down."""
        min_order = order
        if order < PB_ORDER and (flags & ALLOC_NOFRAGMENT):
            min_order = PB_ORDER
        for cur in range(MAX_ORDER, min_order - 1, -1):
            f = self.find_suitable_fallback(cur, start_mt, True)
            if f == -1:
                continue
            if f == -2:
                break
            pfn = self.free_lists[cur][f].head
            p = self.try_to_claim_block(pfn, cur, order, start_mt, f, flags)
            if p is not None:
                self.extfrag(p, order, cur, start_mt, f)
                return p
        return None

    def rmqueue_steal(self, order, start_mt):
        """§2.7.5 bottom-up."""
        for cur in range(order, MAX_ORDER + 1):
            f = self.find_suitable_fallback(cur, start_mt, False)
            if f == -1:
                continue
            pfn = self.free_lists[cur][f].head
            self.hit("steal")
            self.page_del_and_expand(pfn, order, cur, f)
            self.extfrag(pfn, order, cur, start_mt, f)
            return pfn
        return None

    # ------------------------------------------------------------ §2.5 __rmqueue with mode
    NORMAL, CMAMODE, CLAIM, STEAL = 0, 1, 2, 3

    def rmqueue_(self, order, mt, flags, mode):
        """mode is a 1-element list (in/out)."""
        if self.cma and (flags & ALLOC_CMA) and self.NR_FREE_CMA > self.NR_FREE_PAGES // 2:
            p = self.rmqueue_smallest(order, self.CMA)
            if p is not None:
                self.hit("cma_balance")
                return p
        m = mode[0]
        if m <= self.NORMAL:
            p = self.rmqueue_smallest(order, mt)
            if p is not None:
                return p
        if m <= self.CMAMODE:
            if (flags & ALLOC_CMA) and self.cma:
                p = self.rmqueue_smallest(order, self.CMA)
                if p is not None:
                    self.hit("cma_fallback")
                    mode[0] = self.CMAMODE
                    return p
        if m <= self.CLAIM:
            p = self.rmqueue_claim(order, mt, flags)
            if p is not None:
                mode[0] = self.NORMAL
                return p
        if m <= self.STEAL:
            if not (flags & ALLOC_NOFRAGMENT):
                p = self.rmqueue_steal(order, mt)
                if p is not None:
                    mode[0] = self.STEAL
                    return p
        return None

    def rmqueue_bulk(self, order, count, lst, mt, flags):
        """§2.8"""
        mode = [self.NORMAL]
        i = 0
        self.lock("zone")             # one zone->lock hold for the whole refill
        while i < count:
            if not self.mode_memory:
                mode = [self.NORMAL]      # contract: rmqueue_mode_memory false
            p = self.rmqueue_(order, mt, flags, mode)
            if p is None:
                break
            lst.append(p)
            i += 1
        self.handled(i << order)
        self.unlock("zone")
        return i

    # ------------------------------------------------------------ §4.4 pcp alloc
    def nr_pcp_alloc(self, pcp, order):
        base = pcp.batch
        high = pcp.high = kclamp(pcp.high, pcp.high_min, pcp.high_max)
        if high < base:
            return 1
        b = (base << pcp.alloc_factor) if order == 0 else base
        if pcp.high_min != pcp.high_max and not self.below_high:
            high = pcp.high = min(high + b, pcp.high_max)
        if order == 0:
            max_nr = max(high - pcp.count - base, base)
            if b <= max_nr and pcp.alloc_factor < BATCH_SCALE_MAX:
                pcp.alloc_factor += 1
            b = min(b, max_nr)
        if b > 1:
            b = max(b >> order, 2)
        return b

    def rmqueue_pcplist_inner(self, pcp, order, mt, flags):
        """__rmqueue_pcplist"""
        lst = pcp.lists[order_to_pindex(mt, order)]
        if not lst:
            n = self.nr_pcp_alloc(pcp, order)
            # v7.1.5 __rmqueue_pcplist: no refill for ALLOC_HIGHATOMIC; v6.19 still refills
            if (flags & ALLOC_HIGHATOMIC) and self.kernel in ("v7.1", "v7.2"):
                return None        # §2.9: 7.x does not refill for ALLOC_HIGHATOMIC
            got = self.rmqueue_bulk(order, n, lst, mt, flags)
            pcp.count += got << order
            if not lst:
                return None
        p = lst.popleft()
        pcp.count -= 1 << order
        self.handled(1 << order)
        return p

    def rmqueue_pcplist(self, cpu, order, mt, flags):
        pcp = self.pcps[cpu]
        self.lock("pcp")
        pcp.free_count >>= 1
        p = self.rmqueue_pcplist_inner(pcp, order, mt, flags)
        self.unlock("pcp")
        return p

    # ------------------------------------------------------------ §2.3/§2.4
    def rmqueue_buddy(self, order, flags, mt):
        p = None
        self.lock("zone")
        if flags & ALLOC_HIGHATOMIC:
            p = self.rmqueue_smallest(order, HA)
            if p is not None:
                self.hit("highatomic_first")
        if p is None:
            mode = [self.NORMAL]
            p = self.rmqueue_(order, mt, flags, mode)
            if p is None and (flags & (ALLOC_OOM | ALLOC_NON_BLOCK)):
                p = self.rmqueue_smallest(order, HA)
                if p is not None:
                    self.hit("highatomic_last_resort")
            if p is None:
                self.unlock("zone")
                return None
        self.handled(1 << order)
        self.unlock("zone")
        if (flags & ALLOC_HIGHATOMIC) and self.kernel in ("v7.1", "v7.2"):
            self.reserve_highatomic(p, order)
        return p

    def rmqueue(self, cpu, order, flags, mt):
        p = None
        if pcp_allowed_order(order):
            p = self.rmqueue_pcplist(cpu, order, mt, flags)
            if p is None:
                self.hit("pcp_miss_to_buddy")
        if p is None:
            p = self.rmqueue_buddy(order, flags, mt)
        # §7.2 boost reset policy (b)
        if (flags & ALLOC_KSWAPD) and self.boosted_flag:
            self.boosted_flag = False
            self.hit("boost_reset")
            self.boost = 0
        return p

    # ------------------------------------------------------------ §2.9 highatomic
    def reserve_highatomic(self, pfn, order):
        if self.N // 100 < PB_PAGES:
            return
        mx = ((self.N // 100) + PB_PAGES - 1) // PB_PAGES * PB_PAGES
        if self.nr_reserved_highatomic >= mx:
            return
        self.lock("zone")           # its own spin_lock_irqsave(&zone->lock) (v6.19 :3445)
        self.reserve_highatomic_locked(pfn, order)
        self.unlock("zone")

    def reserve_highatomic_locked(self, pfn, order):
        mt = self.get_mt(pfn)
        if not self.mergeable(mt):
            return
        self.hit("highatomic_reserve")
        if order < PB_ORDER:
            bs, be = self.block_bounds(pfn)
            if bs < self.start or be > self.end:
                return
            self.move_freepages_block_walk(bs, be, mt, HA)
            self.set_pageblock_mt(bs, HA)
            self.nr_reserved_highatomic += PB_PAGES
        else:
            self.change_pageblock_range(pfn, order, HA)
            self.nr_reserved_highatomic += 1 << order

    # ------------------------------------------------------------ §7.1 checks
    def wmark_ok(self, order, mark, flags, free):
        unusable = (1 << order) - 1
        if not (flags & ALLOC_RESERVES):
            unusable += self.nr_free_highatomic
        if self.cma and not (flags & ALLOC_CMA):
            unusable += self.NR_FREE_CMA
        free -= unusable
        m = mark
        if flags & ALLOC_RESERVES:
            if flags & ALLOC_MIN_RESERVE:
                m -= m // 2
                if flags & ALLOC_NON_BLOCK:
                    m -= m // 4
            if flags & ALLOC_OOM:
                m -= m // 2
        if free <= m + self.lowmem[min(self.highest, 3)]:
            return False
        if order == 0:
            return True
        for o in range(order, MAX_ORDER + 1):
            if self.nr_free[o] == 0:
                continue
            for mt in range(PCPTYPES):
                if len(self.free_lists[o][mt]):
                    return True
            if self.cma and (flags & ALLOC_CMA) and len(self.free_lists[o][self.CMA]):
                return True
            if (flags & (ALLOC_HIGHATOMIC | ALLOC_OOM)) and len(self.free_lists[o][HA]):
                return True
        return False

    def unusable_free(self, order, flags):
        u = (1 << order) - 1
        if not (flags & ALLOC_RESERVES):
            u += self.nr_free_highatomic
        if self.cma and not (flags & ALLOC_CMA):
            u += self.NR_FREE_CMA
        return u

    def wmark_fast(self, order, mark, flags):
        free = self.NR_FREE_PAGES
        if order == 0:
            usable = free - min(free, self.unusable_free(0, flags))
            if usable > mark + self.lowmem[min(self.highest, 3)]:
                return True
        if self.wmark_ok(order, mark, flags, free):
            return True
        if (order == 0 and (flags & ALLOC_MIN_RESERVE) and self.boost
                and (flags & ALLOC_WMARK_MASK) == ALLOC_WMARK_MIN):
            return self.wmark_ok(order, self.wmark[0], flags, free)
        return False

    # ------------------------------------------------------------ §2.2
    def get_page_from_freelist(self, cpu, order, flags, mt):
        while True:
            no_fallback = bool(flags & ALLOC_NOFRAGMENT)
            for zi in self.zonelist():
                self.use_zone(zi)
                p = self.gpff_zone(cpu, order, flags, mt)
                if p is not None:
                    return p
            if no_fallback:
                flags &= ~ALLOC_NOFRAGMENT
                continue
            return None

    def gpff_zone(self, cpu, order, flags, mt):
        if True:
            ok = False
            if not self.below_high:
                if self.wmark_fast(order, self.wmark_pages(2), flags):
                    ok = True
                else:
                    self.hit("below_high_set")
                    self.below_high = True
            if not ok:
                mark = self.wmark_pages(flags & ALLOC_WMARK_MASK)
                if self.wmark_fast(order, mark, flags):
                    ok = True
                elif flags & ALLOC_NO_WATERMARKS:
                    ok = True
            if ok:
                p = self.rmqueue(cpu, order, flags, mt)
                if p is not None:
                    if (flags & ALLOC_HIGHATOMIC) and self.kernel in ("v6.18", "v6.19"):
                        self.reserve_highatomic(p, order)   # §2.9 ≤ 6.19 location
                    return p
            return None

    def gfp_migratetype(self, gfp):
        if self.mobility_disabled:
            return U
        if gfp & G_MOVABLE:
            return M
        if gfp & G_RECLAIMABLE:
            return R
        return U

    def slowpath_attempts(self, gfp, order, mt, flags):
        """§7.2 table."""
        if self.kernel in ("v6.18", "v6.19"):   # v6.19 __alloc_pages_slowpath == v6.18's
            if order > 3 and (gfp & G_NORETRY):
                return 1
            return 2
        n = 1
        can_reclaim = bool(gfp & G_DIRECT_RECLAIM)
        if not (flags & ALLOC_CPUSET):
            n += 1
        compact_first = (can_reclaim and (gfp & G_IO) and (order > 3 or (order > 0 and mt != M))
                         and not ((gfp & G_NORETRY) and (gfp & G_THISNODE)))
        if compact_first:
            n += 1
        return n

    def reaches_direct_reclaim(self, gfp, order, mt):
        """__alloc_pages_slowpath reaches __alloc_pages_direct_reclaim: may reclaim, and is not one
        of the requests that give up after their skipped compaction."""
        if not (gfp & G_DIRECT_RECLAIM):
            return False
        costly = order > 3
        if self.kernel in ("v6.18", "v6.19"):
            return not (costly and (gfp & G_NORETRY))
        compact_first = bool(gfp & G_IO) and (costly or (order > 0 and mt != M))
        return not (compact_first and (gfp & G_NORETRY) and (gfp & G_THISNODE))

    def unreserve_highatomic(self, ac_mt):
        """for_each_zone_zonelist: the first zone that gives a pageblock back."""
        for zi in self.zonelist():
            self.use_zone(zi)
            before = self.nr_reserved_highatomic
            self.unreserve_highatomic_zone(ac_mt)
            if self.nr_reserved_highatomic != before:
                return

    def unreserve_highatomic_zone(self, ac_mt):
        """unreserve_highatomic_pageblock(ac, force=false): keep at least one pageblock."""
        if self.nr_reserved_highatomic <= PB_PAGES:
            return
        self.lock("zone")
        self.unreserve_highatomic_locked(ac_mt)
        self.unlock("zone")

    def unreserve_highatomic_locked(self, ac_mt):
        for o in range(0, MAX_ORDER + 1):
            pfn = self.free_lists[o][HA].head
            if pfn is None:
                continue
            self.hit("unreserve_highatomic")
            size = min(max(PB_PAGES, 1 << o), self.nr_reserved_highatomic)
            self.nr_reserved_highatomic -= size
            if o < PB_ORDER:
                bs, be = self.block_bounds(pfn)
                self.move_freepages_block_walk(bs, be, HA, ac_mt)
                self.set_pageblock_mt(bs, ac_mt)
            else:
                self.move_to_free_list(pfn, o, HA, ac_mt)
                self.handled(1 << o)
                self.change_pageblock_range(pfn, o, ac_mt)
            return

    def alloc_pages(self, cpu, gfp, order):
        """§2.1 __alloc_frozen_pages + §7.2 slow path. Returns pfn or None; emits mm_page_alloc."""
        mt = self.gfp_migratetype(gfp)
        # gfp_zone: the highest zone type the request may use
        if gfp & 0x1:
            self.highest = 0
        elif gfp & 0x4:
            self.highest = 1
        elif (gfp & G_MOVABLE) and (gfp & 0x2):
            self.highest = 3
        else:
            self.highest = 2
        zl = self.zonelist()
        if not zl:
            self.emit("mm_page_alloc: page=0000000000000000 pfn=0x0 order=%d migratetype=%d gfp_flags=%s"
                      % (order, mt, gfp_str(gfp)))
            return None
        self.use_zone(zl[0])                           # the preferred zone
        flags = ALLOC_WMARK_LOW
        if self.cma and mt == M:
            flags |= ALLOC_CMA
        if self.zname == "Normal":                     # §2.1 step 3: only ZONE_NORMAL
            flags |= ALLOC_NOFRAGMENT                  # nofragment_first_pass
        if gfp & G_KSWAPD_RECLAIM:
            flags |= ALLOC_KSWAPD
        p = self.get_page_from_freelist(cpu, order, flags, mt)
        if p is None:
            sf = ALLOC_WMARK_MIN | ALLOC_CPUSET
            if gfp & G_HIGH:
                sf |= ALLOC_MIN_RESERVE
            if gfp & G_KSWAPD_RECLAIM:
                sf |= ALLOC_KSWAPD
            if not (gfp & G_DIRECT_RECLAIM):
                if not (gfp & G_NOMEMALLOC):
                    sf |= ALLOC_NON_BLOCK
                    if order > 0 and (sf & ALLOC_MIN_RESERVE):
                        sf |= ALLOC_HIGHATOMIC
                if sf & ALLOC_MIN_RESERVE:
                    sf &= ~ALLOC_CPUSET
            if self.cma and mt == M:
                sf |= ALLOC_CMA
            for _ in range(self.slowpath_attempts(gfp, order, mt, sf)):
                p = self.get_page_from_freelist(cpu, order, sf, mt)
                if p is not None:
                    self.hit("slowpath_ok")
                    break
            if p is None and self.reaches_direct_reclaim(gfp, order, mt):
                # __alloc_pages_direct_reclaim (C: v6.18.2 and v7.1.5): reclaim itself is not
                # modelled; one retry, then unreserve one highatomic block, drain every pcp, retry.
                p = self.get_page_from_freelist(cpu, order, sf, mt)
                if p is None:
                    self.unreserve_highatomic(mt)
                    self.drain_all()
                    p = self.get_page_from_freelist(cpu, order, sf, mt)
                    if p is not None:
                        self.hit("reclaim_drain_ok")
        if p is None:
            self.hit("alloc_fail")
            self.emit("mm_page_alloc: page=0000000000000000 pfn=0x0 order=%d migratetype=%d gfp_flags=%s"
                      % (order, mt, gfp_str(gfp)))
            return None
        self.mark_allocated(p, order, gfp)
        self.emit("mm_page_alloc: page=%s pfn=0x%x order=%d migratetype=%d gfp_flags=%s"
                  % (self.page_ptr(p), p, order, mt, gfp_str(gfp)))
        return p

    def mark_allocated(self, p, order, gfp):
        i = p - self.start
        self.refcnt[i] = 1
        for k in range(1, 1 << order):
            self.refcnt[i + k] = 0
        if (gfp & G_MOVABLE) and not (gfp & G_RECLAIMABLE):
            # contract: PageLRU = pages allocated as MOVABLE
            for k in range(1 << order):
                self.lru[i + k] = 1

    # ------------------------------------------------------------ §3 freeing
    def prepare(self, pfn, order, prepared=False):
        """§3.5 __free_pages_prepare: the trace, page state reset."""
        if not prepared:
            self.emit("mm_page_free: page=%s pfn=0x%x order=%d" % (self.page_ptr(pfn), pfn, order))
        i = pfn - self.start
        for k in range(1 << order):
            self.lru[i + k] = 0
            self.refcnt[i + k] = 0
            r = self.owner.pop(pfn + k, None)
            if r is not None:
                r.held.discard(pfn + k)
        return True

    def free_frozen_pages(self, cpu, pfn, order, prepared=False):
        """§3.2 __free_frozen_pages."""
        if not pcp_allowed_order(order):
            self.prepare(pfn, order, prepared)
            self.free_one_page(pfn, order)
            return
        self.prepare(pfn, order, prepared)
        mt = self.get_mt(pfn)
        if mt >= PCPTYPES:
            if mt == self.ISO:
                self.free_one_page(pfn, order)
                return
            mt = M
        self.lock("pcp")
        self.free_frozen_page_commit(self.pcps[cpu], pfn, mt, order)
        self.unlock("pcp")

    def free_pages(self, cpu, pfn, order):
        """§3.1 ___free_pages: the owner's reference; a get_page reference may remain."""
        self.use_zone(self.zone_of(pfn))               # page_zone()
        i = pfn - self.start
        self.refcnt[i] -= 1
        if self.refcnt[i] == 0:
            self.free_frozen_pages(cpu, pfn, order)
        elif order == 0:
            self.hit("held_page_owner_free")
            self.release(pfn)
        else:
            for k in range(order - 1, -1, -1):
                self.free_frozen_pages(cpu, pfn + (1 << k), k)

    def release(self, pfn):
        """The owner dropped its reference but someone else still holds the page: it is no
        longer the allocation's; the last put_page frees it."""
        r = self.owner.pop(pfn, None)
        if r is not None:
            r.held.discard(pfn)
        self.lru[pfn - self.start] = 0      # no longer on an LRU: has_unmovable_pages refuses it

    # ------------------------------------------------------------ §4.5
    def free_frozen_page_commit(self, pcp, pfn, mt, order):
        pcp.alloc_factor >>= 1
        pindex = order_to_pindex(mt, order)
        pcp.lists[pindex].appendleft(pfn)
        pcp.count += 1 << order
        self.handled(1 << order)
        batch = pcp.batch
        free_high = False
        if 1 <= order <= 3:
            free_high = (pcp.free_count >= batch + pcp.high_min // 2
                         and pcp.prev_free_high_order
                         and (not pcp.free_high_batch or pcp.count >= batch))
            pcp.prev_free_high_order = True
        else:
            pcp.prev_free_high_order = False
        if pcp.free_count < (batch << BATCH_SCALE_MAX):
            pcp.free_count += 1 << order
        high = self.nr_pcp_high(pcp, batch, free_high)
        if pcp.count < high:
            return
        to_free = self.nr_pcp_free(pcp, batch, high, free_high)
        self.hit("pcp_drain_on_free")
        if self.kernel == "v6.18":
            self.free_pcppages_bulk(pcp, to_free, pindex)          # §4.9 one call
        else:
            while to_free > 0 and pcp.count > 0:                   # §4.9 batch chunks
                chunk = min(to_free, batch)
                self.free_pcppages_bulk(pcp, chunk, pindex)
                to_free -= chunk
                if to_free > 0 and pcp.count > 0:      # pcp_spin_unlock + pcp_spin_trylock
                    self.unlock("pcp")
                    self.lock("pcp")
        if self.below_high and self.wmark_ok(0, self.wmark_pages(2), 0, self.NR_FREE_PAGES):
            self.hit("below_high_clear")
            self.below_high = False

    def nr_pcp_high(self, pcp, batch, free_high):
        high = pcp.high = kclamp(pcp.high, pcp.high_min, pcp.high_max)
        if high == 0:
            return 0
        if free_high:
            self.hit("free_high")
            pcp.high = max(high - (batch << BATCH_SCALE_MAX), pcp.high_min)
            return 0
        if pcp.high_min == pcp.high_max:
            return high
        if self.below_high:
            self.hit("nr_pcp_high_below_high")
            pcp.high = max(high - max(pcp.free_count, batch), pcp.high_min)
            return max(pcp.count, pcp.high_min)
        if pcp.count >= high:
            need = pcp.free_count + batch
            if pcp.high < need:
                pcp.high = kclamp(need, pcp.high_min, pcp.high_max)
        return high

    def nr_pcp_free(self, pcp, batch, high, free_high):
        if free_high:
            return min(pcp.count, batch << BATCH_SCALE_MAX)
        if high < batch:
            return 1
        return kclamp(pcp.free_count, batch, high - batch)

    # ------------------------------------------------------------ §4.6
    def free_pcppages_bulk(self, pcp, count, pindex):
        count = min(pcp.count, count)
        i = pindex - 1
        self.lock("zone")
        while count > 0:
            while True:
                i = (i + 1) % NR_PCP_LISTS
                if pcp.lists[i]:
                    break
            o = pindex_to_order(i)
            lst = pcp.lists[i]
            while True:
                p = lst.pop()
                mt = self.get_mt(p)
                count -= 1 << o
                pcp.count -= 1 << o
                self.handled(1 << o)
                self.free_one(p, o, mt)
                self.emit("mm_page_pcpu_drain: page=%s pfn=0x%x order=%d migratetype=%d"
                          % (self.page_ptr(p), p, o, mt))
                if count <= 0 or not lst:
                    break
        self.unlock("zone")

    # ------------------------------------------------------------ §4.7
    def drain_pages_zone(self, cpu):
        pcp = self.pcps[cpu]
        if pcp.count:
            self.hit("drain_op_nonempty")
        while True:                 # do { pcp lock; count = pcp->count; … ; unlock } while (count)
            self.lock("pcp")
            count = pcp.count
            if count:
                to_drain = min(count, pcp.batch << BATCH_SCALE_MAX)
                self.free_pcppages_bulk(pcp, to_drain, 0)
                count -= to_drain   # the local: a high-order overshoot leaves it > 0, one more lock
            self.unlock("pcp")
            if count <= 0:
                break

    def decay_pcp_high(self, pcp):
        """§4.7 decay_pcp_high (vmstat worker, one tick): ≤ 6.18 one bulk free, 6.19+ batch chunks."""
        if pcp.high > pcp.high_min:
            pcp.high = max(pcp.count - (pcp.batch << BATCH_SCALE_MAX), pcp.high - (pcp.high >> 3), pcp.high_min)
        to_drain = pcp.count - pcp.high
        if to_drain > 0:
            self.hit("decay_drain")
        if self.kernel == "v6.18":
            if to_drain > 0:
                self.lock("pcp")
                self.free_pcppages_bulk(pcp, to_drain, 0)
                self.unlock("pcp")
        else:
            while to_drain > 0:
                chunk = min(to_drain, pcp.batch)
                self.lock("pcp")
                self.free_pcppages_bulk(pcp, chunk, 0)
                self.unlock("pcp")
                to_drain -= chunk

    def drain_all(self):
        if self.zs is not None:
            # __drain_all_pages(NULL): per CPU with pages in any zone, drain_pages: every zone.
            home = self.cur
            for c in range(self.ncpus):
                if any((self.pcps if i == self.cur else self.zs[i]["pcps"])[c].count
                       for i in range(len(self.zs))):
                    for _ in self.each_zone():
                        self.drain_pages_zone(c)
            self.use_zone(home)
            return
        for c in range(self.ncpus):
            if self.pcps[c].count != 0:
                self.drain_pages_zone(c)

    # ------------------------------------------------------------ §5 contig frees
    def free_page(self, cpu, pfn):
        """__free_page = ___free_pages(page, 0)."""
        self.free_pages(cpu, pfn, 0)

    def free_contig_per_page(self, cpu, pfn, n, frozen):
        """§5.1 old behaviour."""
        for p in range(pfn, pfn + n):
            if frozen:
                self.refcnt[p - self.start] = 0
                self.free_frozen_pages(cpu, p, 0)
            else:
                self.free_page(cpu, p)

    def free_contig_common(self, cpu, pfn, n, frozen):
        """§5.2 __free_contig_range_common."""
        start = None
        for p in range(pfn, pfn + n):
            i = p - self.start
            if frozen:
                ok = True
                self.refcnt[i] = 0
            else:
                self.refcnt[i] -= 1
                ok = self.refcnt[i] == 0
                if not ok:
                    self.hit("held_page_splits_run")
                    self.release(p)
            if ok:
                ok = self.prepare(p, 0)
            if not ok:
                if start is not None:
                    self.free_prepared_contig_range(cpu, start, p - start)
                    start = None
                continue
            if start is not None and (p >> SECTION_SHIFT) != (start >> SECTION_SHIFT):
                self.free_prepared_contig_range(cpu, start, p - start)
                start = p
            elif start is None:
                start = p
        if start is not None:
            self.free_prepared_contig_range(cpu, start, pfn + n - start)

    def free_prepared_contig_range(self, cpu, p, n):
        while n > 0:
            o = chunk_order(p, n)
            self.free_frozen_pages(cpu, p, o, prepared=True)
            p += 1 << o
            n -= 1 << o

    # ------------------------------------------------------------ alloc_contig_range (C)
    # Written from v7.1.5 mm/page_isolation.c and mm/page_alloc.c (v6.18.2 the same steps):
    # start_isolate_page_range, __move_freepages_block_isolate, split_large_buddy,
    # __alloc_contig_migrate_range, find_large_buddy, alloc_contig_frozen_range_noprof,
    # unset_migratetype_isolate, undo_isolate_page_range.
    def buddy_containing(self, pfn):
        for o in range(MAX_ORDER + 1):
            h = pfn & ~((1 << o) - 1)
            b = self.buddy.get(h)
            if b is not None and b[0] >= o and h + (1 << b[0]) > pfn:
                return h
        return None

    def pcp_block_containing(self, pfn):
        for pcp in self.pcps:
            for i, lst in enumerate(pcp.lists):
                o = pindex_to_order(i)
                h = pfn & ~((1 << o) - 1)
                if h in lst:
                    return h, o
        return None

    def free_extent(self, p):
        """End of the free (buddy or pcp) block holding p, or None if p is in use."""
        h = self.buddy_containing(p)
        if h is not None:
            return h + (1 << self.buddy[h][0])
        b = self.pcp_block_containing(p)
        if b is not None:
            return b[0] + (1 << b[1])
        return None

    def in_use(self, p):
        """(head, nr pages, lru) of the allocation holding in-use page p."""
        r = self.owner.get(p)
        if r is not None and r.kind == "alloc" and not r.split and r.order > 0:
            k = r.pages.index(p) if p in r.pages else 0
            head = p - k
            return head, 1 << r.order, bool(self.lru[head - self.start])
        return p, 1, bool(self.lru[p - self.start])

    def pb_idx(self, pfn):
        return (pfn - self.start) >> 9

    def isolated(self, pfn):
        return self.pb_idx(pfn) in self.iso_blocks

    def find_large_buddy(self, s):
        order = ctz(s) if s else MAX_ORDER
        pfn = s
        while pfn not in self.buddy:
            order += 1
            if order > MAX_ORDER:
                return s
            pfn &= ~((1 << order) - 1)
        return pfn if pfn + (1 << self.buddy[pfn][0]) > s else s

    def move_freepages_block_isolate(self, bs, isolate):
        b = self.find_large_buddy(bs)
        if b in self.buddy and self.buddy[b][0] > PB_ORDER:
            o = self.buddy[b][0]
            self.del_page_from_free_list(b, o, self.get_mt(b))
            if isolate:
                self.iso_blocks.add(self.pb_idx(bs))
            else:
                self.iso_blocks.discard(self.pb_idx(bs))
            self.hit("isolate_split_large_buddy")
            self.handled(1 << o)
            piece = min(o, PB_ORDER)           # split_large_buddy, under the caller's zone lock
            p = b
            while p < b + (1 << o):
                self.free_one(p, piece, self.get_mt(p))
                p += 1 << piece
            return
        base = self.pb[self.pb_idx(bs)]
        if isolate:
            self.move_freepages_block_walk(bs, bs + PB_PAGES, base, self.ISO)
            self.iso_blocks.add(self.pb_idx(bs))
        else:
            self.move_freepages_block_walk(bs, bs + PB_PAGES, self.ISO, base)
            self.iso_blocks.discard(self.pb_idx(bs))

    def has_unmovable(self, s, e):
        if self.cma and self.pb[self.pb_idx(s)] == self.CMA:
            return not self.acr_cma     # PB_ISOLATE_MODE_CMA_ALLOC: CMA blocks are movable
        p = s
        while p < e:
            end = self.free_extent(p)
            if end is not None:
                p = end
                continue
            head, nr, lru = self.in_use(p)
            if not lru:
                return True
            p = head + nr
        return False

    def set_migratetype_isolate(self, bs, cs, ce):
        self.lock("zone")
        ok = self.set_migratetype_isolate_locked(bs, cs, ce)
        self.unlock("zone")
        return ok

    def set_migratetype_isolate_locked(self, bs, cs, ce):
        if self.isolated(bs) or bs + PB_PAGES > self.end:
            return False
        if self.has_unmovable(max(cs, bs), min(ce, bs + PB_PAGES)):
            self.hit("isolate_unmovable")
            return False
        self.move_freepages_block_isolate(bs, True)
        return True

    def unset_migratetype_isolate(self, bs):
        if not self.isolated(bs):       # undo_isolate_page_range skips it: no lock taken
            return
        self.lock("zone")
        self.unset_migratetype_isolate_locked(bs)
        self.unlock("zone")

    def unset_migratetype_isolate_locked(self, bs):
        if not self.isolated(bs):
            return
        b = self.buddy.get(bs)
        if b is not None and PB_ORDER <= b[0] < MAX_ORDER:
            o = b[0]
            bud = bs ^ (1 << o)
            if self.in_zone(bud) and self.is_buddy(bud, o) and not self.isolated(bud):
                self.hit("unisolate_merge")
                self.del_from_free_list(bs, o, self.ISO)
                self.handled(1 << o)
                self.iso_blocks.discard(self.pb_idx(bs))
                self.free_one(bs, o, self.get_mt(bs), to_tail=True)
                return
        self.move_freepages_block_isolate(bs, False)

    def undo_isolate(self, s, e):
        bs = s & ~(PB_PAGES - 1)
        while bs < e:
            self.unset_migratetype_isolate(bs)
            bs += PB_PAGES

    def isolate_single(self, boundary, before, skip):
        ipb = boundary - PB_PAGES if before else boundary
        scan = max(ipb & ~((1 << MAX_ORDER) - 1), self.start)
        if not skip and not self.set_migratetype_isolate(ipb, ipb, ipb + PB_PAGES):
            return False
        if (before and boundary >= self.end) or (not before and boundary <= self.start):
            return True
        p = scan
        while p < boundary:
            end = self.free_extent(p)
            if end is not None:
                p = end
                continue
            head, nr, _ = self.in_use(p)
            if nr > 1 and head + nr > boundary:
                self.hit("isolate_straddle")
                if not skip:
                    self.unset_migratetype_isolate(ipb)
                return False
            p = head + nr
        return True

    def start_isolate(self, s, e):
        i_start = s & ~(PB_PAGES - 1)
        i_end = (e + PB_PAGES - 1) & ~(PB_PAGES - 1)
        if not self.isolate_single(i_start, False, False):
            return False
        if not self.isolate_single(i_end, True, i_start == i_end - PB_PAGES):
            self.unset_migratetype_isolate(i_start)
            return False
        p = i_start + PB_PAGES
        while p < i_end - PB_PAGES:
            if not self.set_migratetype_isolate(p, s, e):
                self.undo_isolate(i_start, p)
                self.unset_migratetype_isolate(i_end - PB_PAGES)
                return False
            p += PB_PAGES
        return True

    def migrate_range(self, cpu, s, e):
        """__alloc_contig_migrate_range: batches of >= 32 pages of LRU blocks. On a node of
        several zones the target comes from the node's zonelist (alloc_migration_target), maybe
        another zone; the source is freed in the range's zone."""
        rz = self.cur
        try:
            return self._migrate_range(cpu, s, e, rz)
        finally:
            self.use_zone(rz)

    def _migrate_range(self, cpu, s, e, rz):
        p = s
        while p < e:
            self.use_zone(rz)
            batch, pages = [], 0
            while p < e and pages < 32:
                end = self.free_extent(p)
                if end is not None:
                    p = end
                    continue
                head, nr, lru = self.in_use(p)
                # a folio with a get_page reference is pinned: never isolated for migration
                if lru and self.refcnt[head - self.start] == 1:
                    batch.append((head, nr))
                    pages += nr
                p = head + nr
            if not batch:
                return True
            targets = []
            for head, nr in batch:
                order = ilog2(nr)
                gfp = GFP_KERNEL | G_MOVABLE | G_RETRY_MAYFAIL
                if order > 0:
                    gfp = (gfp & ~G_RECLAIM) | GFP_TRANSHUGE | G_COMP
                t = self.alloc_pages(cpu, gfp, order)
                if t is None:
                    self.hit("migrate_nomem")
                    self.acr_nomem = True
                    break
                if self.cur != rz:
                    self.hit("migrated_to_other_zone")
                targets.append(t)
            for (head, nr), t in zip(batch, targets):
                self.hit("migrated")
                r = self.owner.get(head)
                self.free_pages(cpu, head, ilog2(nr))     # clears the owner of the old pages
                if r is not None:
                    for k in range(nr):
                        i = r.pages.index(head + k)
                        # a page of r freed before may sit where t + k is: no longer r's
                        r.pages = [-1 if (q == t + k and j != i) else q for j, q in enumerate(r.pages)]
                        r.pages[i] = t + k
                        r.held.add(t + k)
                        self.owner[t + k] = r
                    if r.pfn == head:
                        r.pfn = t
            if len(targets) < len(batch):
                return False
        return True

    def alloc_contig_range(self, cpu, pfn, n):
        s, e = pfn, pfn + n
        self.acr_nomem = False
        ok = self.start_isolate(s, e)
        if ok:
            self.drain_all()
            ok = self.migrate_range(cpu, s, e)
        if ok:
            outer = self.find_large_buddy(s)
            p = outer
            while p < e:                      # test_pages_isolated
                b = self.buddy.get(p)
                if b is None or b[1] != self.ISO:
                    ok = False
                    break
                p += 1 << b[0]
        if ok:
            p = outer
            self.lock("zone")
            while p < e:                      # isolate_freepages_range
                o = self.buddy[p][0]
                self.del_from_free_list(p, o, self.ISO)
                self.handled(1 << o)
                p += 1 << o
            self.unlock("zone")
            outer_end = p
            for q in range(s, e):
                self.refcnt[q - self.start] = 1
            for a, b in ((outer, s), (e, outer_end)):
                if b > a:
                    if self.kernel == "v7.2":
                        self.free_contig_common(cpu, a, b - a, True)
                    else:
                        self.free_contig_per_page(cpu, a, b - a, True)
        self.undo_isolate(s, e)
        return ok

    # ------------------------------------------------------------ cma_alloc / cma_release (C)
    @staticmethod
    def find_zero_area(bits, start, nr, mask, offset):
        """bitmap_find_next_zero_area_off (lib/bitmap.c)."""
        size = len(bits)
        while True:
            i = start
            while i < size and bits[i]:
                i += 1
            i = ((i + offset + mask) & ~mask) - offset
            end = i + nr
            if end > size:
                return end
            j = next((k for k in range(i, end) if bits[k]), None)
            if j is None:
                return i
            start = j + 1

    def cma_alloc(self, cpu, count, align):
        """cma_range_alloc (v7.1.5 mm/cma.c:784): first fit, -EBUSY retry past the range."""
        size = len(self.cma_bits)
        mask = (1 << align) - 1
        offset = self.cma_base & mask
        if count > size:
            return None
        start = 0
        while True:
            if count > self.cma_avail:
                return None
            no = self.find_zero_area(self.cma_bits, start, count, mask, offset)
            if no >= size:
                return None
            for k in range(no, no + count):
                self.cma_bits[k] = True
            self.cma_avail -= count
            pfn = self.cma_base + no
            self.use_zone(self.zone_of(pfn))
            self.acr_cma = True
            ok = self.alloc_contig_range(cpu, pfn, count)
            self.acr_cma = False
            if ok:
                return pfn
            for k in range(no, no + count):
                self.cma_bits[k] = False
            self.cma_avail += count
            if self.acr_nomem:
                return None
            self.hit("cma_busy_retry")
            start = no + mask + 1

    def alloc_pages_bulk(self, cpu, gfp, nr, out):
        """§6.4 (array slice empty: populated = 0)."""
        if nr == 0:
            return 0
        mt = self.gfp_migratetype(gfp)
        if nr == 1:
            return self._bulk_single(cpu, gfp, out)
        flags = ALLOC_WMARK_LOW
        if self.cma and mt == M:
            flags |= ALLOC_CMA
        # the first zone of the zonelist whose free pages pass low + nr gives the whole batch
        # (v7.1.5 alloc_pages_bulk_noprof: for_next_zone_zonelist_nodemask ... break)
        self.highest = 0 if gfp & 0x1 else 1 if gfp & 0x4 else 3 if (gfp & G_MOVABLE and gfp & 0x2) else 2
        for zi in self.zonelist():
            self.use_zone(zi)
            if self.wmark_fast(0, self.wmark_pages(1) + nr, flags):
                if zi != self.zonelist()[0]:
                    self.hit("bulk_lower_zone")
                break
        else:
            self.hit("bulk_gate_fail")
            return self._bulk_single(cpu, gfp, out)
        pcp = self.pcps[cpu]
        got = 0
        self.lock("pcp")
        while got < nr:
            p = self.rmqueue_pcplist_inner(pcp, 0, mt, flags)
            if p is None:
                if got == 0:
                    self.hit("bulk_single_after_empty")
                    self.unlock("pcp")
                    return self._bulk_single(cpu, gfp, out)
                break
            self.mark_allocated(p, 0, gfp)
            out.append(p)
            got += 1
        self.unlock("pcp")
        return got

    def _bulk_single(self, cpu, gfp, out):
        p = self.alloc_pages(cpu, gfp, 0)
        if p is None:
            return 0
        out.append(p)
        return 1

    def vm_area_alloc_pages(self, cpu, gfp, n, strategy):
        pages = []
        allocated = 0
        if strategy == "large_order":          # §6.3
            max_attempt = MAX_ORDER
            remaining = n
            large = ilog2(remaining)
            large_gfp = gfp & ~G_DIRECT_RECLAIM   # gfp already has NOWARN (vmalloc_gfp_adjust)
            large = min(max_attempt, large)
            while large > 0 and remaining > 0:
                p = self.alloc_pages(cpu, large_gfp, large)
                if p is None:
                    self.hit("vmalloc_large_stepdown")
                    max_attempt = large - 1
                    large = large - 1
                    continue
                # split_page
                self.use_zone(self.zone_of(p))
                for k in range(1 << large):
                    self.refcnt[p - self.start + k] = 1
                pages.extend(range(p, p + (1 << large)))
                allocated += 1 << large
                remaining = n - allocated
                large = min(max_attempt, ilog2(remaining)) if remaining > 0 else 0
        # §6.2 bulk for order 0 in requests of <= 100
        while allocated < n:
            req = min(100, n - allocated)
            got = self.alloc_pages_bulk(cpu, gfp, req, pages)
            allocated += got
            if got != req:
                break
        while allocated < n:
            p = self.alloc_pages(cpu, gfp, 0)
            if p is None:
                break
            pages.append(p)
            allocated += 1
        return pages

    def vmalloc(self, cpu, npages, strategy, nested=False):
        """contract vmalloc + §6.1. Returns (Rec, ok)."""
        rec = Rec("vmalloc")
        gfp = GFP_KERNEL | G_HIGHMEM | G_NOWARN
        if nested:
            gfp |= G_ZERO
        if npages > 512:
            arr, ok = self.vmalloc(cpu, (8 * npages + 4095) // 4096, strategy, nested=True)
            if not ok:
                return rec, False
            rec.array = arr
        rec.pages = self.vm_area_alloc_pages(cpu, gfp, npages, strategy)
        for p in rec.pages:
            self.owner[p] = rec
        rec.held = set(rec.pages)
        if len(rec.pages) < npages:
            self.hit("vmalloc_fail")
            self.emit("# vmalloc: failed (%d of %d pages)" % (len(rec.pages), npages))
            self.vfree_area(cpu, rec, self.profile_vfree())
            return rec, False
        return rec, True

    def profile_vfree(self):
        return "chunked" if self.kernel == "v7.2" else "per_page"

    def vfree_area(self, cpu, rec, method):
        """contract vfree: data pages in array order, then the array."""
        if len(rec.held) != len(rec.pages):
            # contract: after free_contig_range by pfn freed some of its pages, vfree is undefined
            self.undefined = True
        pages = []
        for p in rec.pages:
            self.use_zone(self.zone_of(p))       # page_zone(): an area may span zones
            if self.refcnt[p - self.start] == 1 and p in rec.held:
                pages.append(p)
        if method == "per_page":
            for p in pages:
                self.free_page(cpu, p)
        else:
            i = 0
            while i < len(pages):
                j = i + 1
                # a run also ends where page_zone changes (docs/model-decisions.md)
                while (j < len(pages) and pages[j] == pages[j - 1] + 1
                       and self.zone_of(pages[j]) == self.zone_of(pages[i])):
                    j += 1
                self.use_zone(self.zone_of(pages[i]))
                self.free_contig_common(cpu, pages[i], j - i, frozen=False)
                i = j
        rec.freed = True
        if rec.array is not None:
            self.vfree_area(cpu, rec.array, method)

    # ------------------------------------------------------------ ops
    def run(self):
        self.scopes = [{}]
        self.holds = {"zone": [0, 0, 0, [0] * HOLD_BUCKETS], "pcp": [0, 0, 0, [0] * HOLD_BUCKETS]}
        self.run_ops(self.doc.get("ops", []), "ops")

    # ------------------------------------------------------------ lock holds (pages per hold)
    # Counted at the kernel's spin_lock/spin_unlock of zone->lock and pcp_spin_trylock/unlock:
    # the pages taken from, given to or moved between the free lists (zone), put on or taken
    # off the pcp lists (pcp), under each lock held at the time.
    def lock(self, k):
        self.open_holds[k] = 0

    def unlock(self, k):
        n = self.open_holds[k]
        self.open_holds[k] = None
        if n is None or not hasattr(self, "holds"):
            return                  # boot: not the scenario's
        h = self.holds[k]
        h[0] += 1
        h[1] += n
        h[2] = max(h[2], n)
        h[3][min(n.bit_length(), HOLD_BUCKETS - 1)] += 1

    def handled(self, n):
        for k in ("zone", "pcp"):
            if self.open_holds[k] is not None:
                self.open_holds[k] += n

    def lock_holds_text(self):
        return "".join("%s holds %d pages %d max %d buckets %s\n" % (k, h[0], h[1], h[2], h[3])
                       for k, h in sorted(self.holds.items()))

    def lookup(self, name):
        for s in reversed(self.scopes):
            if name in s:
                return s[name]
        raise ScenarioError("unknown ref %s" % name)

    def run_ops(self, ops, path):
        for idx, op in enumerate(ops):
            if "note" in op:
                self.emit("# note: %s" % op["note"])
            self.run_op(op, "%s[%d]" % (path, idx))
            if self.zs is not None:
                self.use_zone(len(self.zs) - 1)         # every op ends in the highest zone

    def bind(self, op, rec):
        if "as" in op:
            self.scopes[-1][op["as"]] = rec

    def profile_fcr(self):
        return "chunked" if self.kernel == "v7.2" else "per_page"

    def held_pages(self, rec):
        # in the allocation's page order: a migrated page is freed where it lives now
        return [p for p in rec.pages if p in rec.held]

    def own_range(self, rec, pfn, n):
        """`rec` (alloc_contig_range, cma_alloc) holds the n pages at pfn, each with its refcount."""
        rec.pfn, rec.nr = pfn, n
        rec.pages = list(range(pfn, pfn + n))
        rec.held = set(rec.pages)
        rec.split = True
        for q in rec.pages:
            self.owner[q] = rec

    def run_op(self, op, path):
        kind = op["op"]
        cpu = op.get("cpu", 0)
        if kind == "alloc":
            order = op["order"]
            mtn = op.get("mt", "unmovable")
            if op.get("highatomic", False):
                gfp = GFP_ATOMIC | {"unmovable": 0, "movable": G_MOVABLE, "reclaimable": G_RECLAIMABLE}[mtn]
            else:
                gfp = {"unmovable": GFP_KERNEL, "movable": GFP_HIGHUSER_MOVABLE,
                       "reclaimable": GFP_KERNEL | G_RECLAIMABLE}[mtn]
            gfp |= {"DMA": 0x1, "DMA32": 0x4}.get(op.get("zone"), 0)   # __GFP_DMA / __GFP_DMA32
            rec = Rec("alloc")
            rec.order = order
            p = self.alloc_pages(cpu, gfp, order)
            if p is None:
                rec.failed = True
                self.emit("# alloc failed")
            else:
                rec.pfn = p
                rec.pages = list(range(p, p + (1 << order)))
                rec.held = set(rec.pages)
                for q in rec.pages:
                    self.owner[q] = rec
            self.bind(op, rec)
        elif kind == "split":
            rec = self.lookup(op["ref"])
            if rec.failed or not rec.held:
                self.emit("# warning: split skipped")
                return
            if rec.order > 0 and not rec.split:
                rec.split = True
                self.use_zone(self.zone_of(rec.pfn))
                for q in rec.pages[1:]:
                    self.refcnt[q - self.start] = 1
        elif kind == "free":
            rec = self.lookup(op["ref"])
            if rec.failed or not rec.held:
                self.emit("# warning: free skipped")
                return
            if "page" in op:
                k = op["page"]
                if rec.kind == "alloc" and rec.order > 0 and not rec.split:
                    self.emit("# warning: refused")
                    return
                if k < 0 or k >= len(rec.pages) or rec.pages[k] not in rec.held:
                    self.emit("# warning: refused")
                    return
                self.free_page(cpu, rec.pages[k])
                return
            if rec.kind == "alloc" and not rec.split:
                if len(rec.held) != len(rec.pages):
                    self.undefined = True     # head/tails freed by pfn: not specified
                self.free_pages(cpu, rec.pfn, rec.order)
            else:
                for q in self.held_pages(rec):
                    self.free_page(cpu, q)
        elif kind == "alloc_contig_range":
            rec = Rec("contig")
            pfn, n = op["pfn"], op["nr_pages"]
            self.use_zone(self.zone_of(pfn))
            if self.alloc_contig_range(cpu, pfn, n):
                self.own_range(rec, pfn, n)
            else:
                rec.failed = True
                self.emit("# alloc_contig_range failed")
            self.bind(op, rec)
        elif kind == "free_contig_range":
            method = op.get("method", self.profile_fcr())
            frozen = op.get("frozen", False)
            if "ref" in op:
                rec = self.lookup(op["ref"])
                if rec.failed or (not rec.held and not COMPAT.get("fcr_freed_ref")):
                    # contract: a ref to a failed or already freed allocation is skipped
                    self.emit("# warning: skipped")
                    return
                if rec.kind == "alloc" and rec.order > 0 and not rec.split:
                    self.emit("# warning: refused")
                    return
                pfn, n = rec.pages[0], len(rec.pages)
                if rec.pages != list(range(pfn, pfn + n)) or \
                        len({self.zone_of(q) for q in rec.pages}) > 1:
                    # alloc_contig_range migrated some of its pages: no longer one range
                    self.emit("# warning: refused (migrated)")
                    return
            else:
                pfn, n = op["pfn"], op["nr_pages"]
            self.use_zone(self.zone_of(pfn))
            # allocated pages only: refcount 0 is free or a tail; a page only get_page
            # references hold (its allocation freed it) is not the caller's to free
            if any(self.refcnt[q - self.start] <= self.extra.get(q, 0) for q in range(pfn, pfn + n)):
                self.emit("# warning: refused (refcount)")
                return
            if frozen and any(self.extra.get(q, 0) for q in range(pfn, pfn + n)):
                self.undefined = True     # a frozen page has refcount 0: nobody can hold it
            if method == "per_page":
                self.free_contig_per_page(cpu, pfn, n, frozen)
            else:
                self.free_contig_common(cpu, pfn, n, frozen)
        elif kind == "cma_alloc":
            rec = Rec("cma")
            n = op["nr_pages"]
            pfn = self.cma_alloc(cpu, n, op.get("align", 0))
            if pfn is not None:
                self.hit("cma_alloc")
                self.own_range(rec, pfn, n)
            else:
                rec.failed = True
                self.hit("cma_alloc_failed")
                self.emit("# cma_alloc failed")
            self.bind(op, rec)
        elif kind == "cma_release":
            rec = self.lookup(op["ref"])
            if rec.failed or not rec.held:
                self.emit("# warning: cma_release skipped")
                return
            pfn, n = rec.pfn, rec.nr
            if len(rec.held) != n:
                # some pages were freed by pfn: releasing them again would free them twice
                self.emit("# warning: cma_release refused")
                return
            self.use_zone(self.zone_of(pfn))
            self.hit("cma_release")
            if self.kernel in ("v7.1", "v7.2"):
                # put_page_testzero on every page, then free_contig_frozen_range
                if self.kernel == "v7.2":
                    self.free_contig_common(cpu, pfn, n, True)
                else:
                    self.free_contig_per_page(cpu, pfn, n, True)
            else:
                self.free_contig_per_page(cpu, pfn, n, False)   # free_contig_range
            for k in range(pfn - self.cma_base, pfn - self.cma_base + n):
                self.cma_bits[k] = False
            self.cma_avail += n
        elif kind == "vmalloc":
            strategy = op.get("strategy", "bulk" if self.kernel == "v6.18" else "large_order")
            rec, ok = self.vmalloc(cpu, op["pages"], strategy)
            if not ok:
                rec.failed = True
            self.bind(op, rec)
        elif kind == "vfree":
            rec = self.lookup(op["ref"])
            if rec.failed or rec.freed:
                self.emit("# warning: vfree skipped")
                return
            self.vfree_area(cpu, rec, op.get("method", self.profile_vfree()))
        elif kind == "drain":
            c = op.get("cpu", 0)
            if c == "all":
                self.drain_all()
            else:
                for _ in self.each_zone():             # drain_pages(cpu): every zone
                    self.drain_pages_zone(c)
        elif kind == "tick":
            c = op.get("cpu", "all")
            for cc in (range(self.ncpus) if c == "all" else [c]):
                for _ in self.each_zone():             # refresh_cpu_vm_stats: every zone
                    self.decay_pcp_high(self.pcps[cc])
        elif kind in ("get_page", "put_page"):
            # transient references: only pages with their own refcount
            rec = self.lookup(op["ref"])
            k = op["page"]
            if rec.failed or (rec.kind == "alloc" and rec.order > 0 and not rec.split) \
                    or k >= len(rec.pages):
                self.emit("# warning: refused")
                return
            p = rec.pages[k]
            self.use_zone(self.zone_of(p))           # page_zone()
            i = p - self.start
            if kind == "get_page":
                if p not in rec.held or self.refcnt[i] >= 255:
                    self.emit("# warning: refused")
                    return
                self.refcnt[i] += 1
                self.extra[p] = self.extra.get(p, 0) + 1
                self.hit("get_page")
            else:
                if not self.extra.get(p, 0):
                    self.emit("# warning: refused")
                    return
                self.extra[p] -= 1
                self.refcnt[i] -= 1
                if self.refcnt[i] == 0:
                    self.hit("put_page_frees")
                    self.free_frozen_pages(cpu, p, 0)     # put_page → __folio_put
        elif kind == "repeat":
            for _ in range(op["times"]):
                self.scopes.append({})
                self.run_ops(op["ops"], path + ".ops")
                self.scopes.pop()
        else:
            raise ScenarioError("unsupported op %s" % kind)

    # ------------------------------------------------------------ §8 outputs
    def type_names(self):
        n = ["Unmovable", "Movable", "Reclaimable", "HighAtomic"]
        if self.cma:
            n.append("CMA")
        n.append("Isolate")
        return n

    def buddyinfo(self):
        return "".join(self.buddyinfo_zone() for _ in self.each_zone())

    def buddyinfo_zone(self):
        s = "Node 0, zone %8s " % self.zname
        s += "".join("%6d " % self.nr_free[o] for o in range(MAX_ORDER + 1))
        return s + "\n"

    def pagetypeinfo(self):
        out = ["Page block order: %d\n" % PB_ORDER, "Pages per block:  %d\n" % PB_PAGES, "\n"]
        out.append("%-43s " % "Free pages count per migrate type at order"
                   + "".join("%6d " % o for o in range(MAX_ORDER + 1)) + "\n")
        for _ in self.each_zone():
            for mt, name in enumerate(self.type_names()):
                line = "Node %4d, zone %8s, type %12s " % (0, self.zname, name)
                for o in range(MAX_ORDER + 1):
                    c = len(self.free_lists[o][mt])
                    if c >= 100000:
                        line += ">%6d " % 100000
                    else:
                        line += "%6d " % c
                out.append(line + "\n")
        out.append("\n%-23s" % "Number of blocks type " + "".join("%12s " % n for n in self.type_names()) + "\n")
        for _ in self.each_zone():
            counts = [0] * self.NTYPES
            for t in self.pb:
                counts[t] += 1
            out.append("Node %d, zone %8s " % (0, self.zname) + "".join("%12d " % c for c in counts) + "\n")
        return "".join(out)

    def zoneinfo(self):
        return "".join(self.zoneinfo_zone() for _ in self.each_zone())

    def zoneinfo_zone(self):
        L = []
        a = L.append
        a("Node 0, zone %8s" % self.zname)
        a("  pages free     %d" % self.NR_FREE_PAGES)
        a("        boost    %d" % self.boost)
        a("        min      %d" % (self.wmark[0] + self.boost))
        a("        low      %d" % (self.wmark[1] + self.boost))
        a("        high     %d" % (self.wmark[2] + self.boost))
        a("        promo    %d" % (self.wmark[3] + self.boost))
        a("        spanned  %d" % self.N)
        a("        present  %d" % self.N)
        a("        managed  %d" % self.N)
        a("        cma      %d" % self.cma_pages)
        r = self.lowmem
        a("        protection: (%d, %d, %d, %d, %d)" % (r[0], r[1], r[2], r[3], r[3]))
        a("      nr_free_pages %d" % self.NR_FREE_PAGES)
        a("      nr_free_pages_blocks %d" % self.NR_FREE_PAGES_BLOCKS)
        for n in ("nr_zone_inactive_anon", "nr_zone_active_anon", "nr_zone_inactive_file",
                  "nr_zone_active_file", "nr_zone_unevictable", "nr_zone_write_pending"):
            a("      %s 0" % n)
        a("      nr_mlock     0")
        a("      nr_zspages   0")
        a("      nr_free_cma  %d" % self.NR_FREE_CMA)
        a("  pagesets")
        thr = min(125, 2 * fls(self.ncpus) * (1 + fls(self.N >> 15)))
        for c, pcp in enumerate(self.pcps):
            a("    cpu: %d" % c)
            a("              count:    %d" % pcp.count)
            a("              high:     %d" % pcp.high)
            a("              batch:    %d" % pcp.batch)
            a("              high_min: %d" % pcp.high_min)
            a("              high_max: %d" % pcp.high_max)
            a("  vm stats threshold: %d" % thr)
        a("  node_unreclaimable:  0")
        a("  start_pfn:           %d" % self.start)
        if self.kernel != "v6.18":
            a("  reserved_highatomic: %d" % self.nr_reserved_highatomic)
            a("  free_highatomic:     %d" % self.nr_free_highatomic)
        return "\n".join(L) + "\n"

    def trace_text(self):
        return "".join(s + "\n" for s in self.trace)


def run_file(path):
    with open(path) as f:
        doc = json.load(f)
    if doc.get("init", "boot") != "boot":
        raise ScenarioError("only init boot is supported")
    m = Model(doc)
    m.run()
    return m


def main(argv):
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["run"])
    ap.add_argument("file")
    ap.add_argument("--format", default="buddyinfo")
    a = ap.parse_args(argv)
    m = run_file(a.file)
    out = {"buddyinfo": m.buddyinfo, "pagetypeinfo": m.pagetypeinfo,
           "zoneinfo": m.zoneinfo, "trace": m.trace_text}[a.format]()
    sys.stdout.write(out)


if __name__ == "__main__":
    main(sys.argv[1:])
