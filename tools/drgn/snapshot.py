#!/usr/bin/env drgn
"""Write an exact buddyscope snapshot of a node or one zone, from a live kernel or a vmcore, with drgn.

    sudo drgn tools/drgn/snapshot.py --node 0 > node.json                       # live kernel, version 2
    drgn -c vmcore -s vmlinux tools/drgn/snapshot.py --node 0 > node.json       # a dump
    drgn -c vmcore -s vmlinux tools/drgn/snapshot.py --zone Normal > zone.json  # one zone, version 1

``--node N`` writes the version-2 node snapshot (every zone of the node, its pcp state,
watermarks and reserves); ``--zone NAME`` the version-1 one-zone snapshot.

It walks ``zone->free_area[order].free_list[mt]`` (head first), every possible CPU's
``per_cpu_pageset->lists[pindex]`` and the pageblock bitmap, and prints the JSON that a
scenario's ``"init": {"snapshot": ...}`` accepts (see docs/replay.md, "Exact snapshots (drgn)").

The walk is split in two: ``build_snapshot`` turns a plain ``ZoneView`` (lists of pfns and
pageblock bits) into the JSON document and is tested without a kernel
(``python3 -m unittest discover -s tools/drgn``); ``drgn_zone_view`` is the thin drgn
adapter that reads those lists out of the kernel's structures.
"""

import argparse
import json
import sys
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional

# The model keeps MAX_PAGE_ORDER buddies aligned to the zone start.
ALIGN = 1024
PAGEBLOCK_NR_PAGES = 512


@dataclass
class ZoneView:
    """What a snapshot needs from one zone, as plain data."""

    name: str
    start_pfn: int
    spanned_pages: int
    # migratetype_names[], by enum value.
    migratetype_names: List[str]
    # (order, migratetype value) -> pfns, head first; only non-empty lists.
    free_lists: Dict[tuple, List[int]]
    # cpu -> list (by pindex) of pfns, head first.
    pcp: Dict[int, List[List[int]]]
    # Raw pageblock bits of the pageblock holding a pfn (migratetype in the low 3 bits), or
    # None where the pfn's mem_section is absent (no memmap, no pageblock bitmap).
    pageblock_bits: Callable[[int], Optional[int]]
    # The PB_migrate_isolate bit, or None when the kernel keeps isolation in the type.
    isolate_bit: "int | None" = None
    extra: dict = field(default_factory=dict)
    present_pages: int = 0
    managed_pages: int = 0
    # free_area[order].nr_free, by order
    nr_free: List[int] = field(default_factory=list)
    # cpu -> {field: value} of struct per_cpu_pages (the fields that kernel has)
    pcp_state: Dict[int, dict] = field(default_factory=dict)
    watermark: Dict[str, int] = field(default_factory=dict)
    watermark_boost: int = 0
    lowmem_reserve: List[int] = field(default_factory=list)
    nr_reserved_highatomic: int = 0
    vm_stat: Dict[str, int] = field(default_factory=dict)


@dataclass
class NodeView:
    """What a node snapshot needs, as plain data."""

    node: int
    migratetype_names: List[str]
    cpus: int
    zones: List[ZoneView]
    kernel: Optional[str] = None


def pageblock_name(bits: int, names: List[str], isolate_bit) -> str:
    """``get_pfnblock_migratetype``: the isolate bit wins, else the 3-bit type."""
    if isolate_bit is not None and bits & (1 << isolate_bit):
        return "Isolate"
    mt = bits & 7
    return names[mt] if mt < len(names) else "Movable"


def build_snapshot(view: ZoneView) -> dict:
    """The snapshot document (version 1) of a zone view.

    Version 1 has no absent pageblocks: a pageblock of an absent mem_section is written as
    memmap_init's default for holes (Movable); its pages are in no list, so allocated."""
    start = view.start_pfn - view.start_pfn % ALIGN
    end = view.start_pfn + view.spanned_pages
    pages = end - start
    nblocks = -(-pages // PAGEBLOCK_NR_PAGES)
    pageblocks = []
    for pb in range(nblocks):
        bits = view.pageblock_bits(start + pb * PAGEBLOCK_NR_PAGES)
        if bits is None:
            bits = 1
        pageblocks.append(pageblock_name(bits, view.migratetype_names, view.isolate_bit))
    return {
        "version": 1,
        "zone": view.name,
        "start_pfn": start,
        "pages": pages,
        "pageblocks": pageblocks,
        "free_area": _free_area(view),
        "pcp": _pcp(view),
    }


def _free_area(view: ZoneView) -> list:
    return [
        {"order": order, "migratetype": view.migratetype_names[mt], "pfns": list(pfns)}
        for (order, mt), pfns in sorted(view.free_lists.items())
        if pfns
    ]


def _pcp(view: ZoneView) -> list:
    return [
        {"cpu": cpu, "pindex": pindex, "pfns": list(pfns)}
        for cpu, lists in sorted(view.pcp.items())
        for pindex, pfns in enumerate(lists)
        if pfns
    ]


def build_zone_v2(view: ZoneView) -> dict:
    """One zone of a version-2 node snapshot: pageblocks from start_pfn rounded down to a
    pageblock, "Absent" where the mem_section is absent (those bits are never read)."""
    first = view.start_pfn - view.start_pfn % PAGEBLOCK_NR_PAGES
    end = view.start_pfn + view.spanned_pages
    pageblocks = []
    for pfn in range(first, end, PAGEBLOCK_NR_PAGES):
        bits = view.pageblock_bits(pfn)
        pageblocks.append(
            "Absent" if bits is None
            else pageblock_name(bits, view.migratetype_names, view.isolate_bit))
    z = {
        "zone": view.name,
        "start_pfn": view.start_pfn,
        "spanned_pages": view.spanned_pages,
        "present_pages": view.present_pages,
        "managed_pages": view.managed_pages,
        "pageblocks": pageblocks,
        "free_area": _free_area(view),
        "nr_free": list(view.nr_free),
        "pcp": _pcp(view),
        "pcp_state": [dict({"cpu": cpu}, **st) for cpu, st in sorted(view.pcp_state.items())],
        "watermark": dict(view.watermark),
        "watermark_boost": view.watermark_boost,
        "lowmem_reserve": list(view.lowmem_reserve),
        "nr_reserved_highatomic": view.nr_reserved_highatomic,
    }
    if view.vm_stat:
        z["vm_stat"] = dict(view.vm_stat)
    return z


def build_node_snapshot(node: NodeView) -> dict:
    """The node snapshot document (version 2): every zone with pages, in node_zones order."""
    doc = {"version": 2}
    if node.kernel:
        doc["kernel"] = node.kernel
    doc.update({
        "node": node.node,
        "cma": "CMA" in node.migratetype_names,
        "migratetype_names": list(node.migratetype_names),
        "cpus": node.cpus,
        "zones": [build_zone_v2(z) for z in node.zones if z.spanned_pages > 0],
    })
    return doc


def scenario_of(snap: dict, zone: str, migratetype_names: List[str]) -> dict:
    """A whole scenario around a version-1 snapshot: the CPUs its pcp lists name, and
    zone.cma on a CONFIG_CMA kernel (else its migratetype 4 reads as Isolate)."""
    cpus = 1 + max([p["cpu"] for p in snap["pcp"]] + [0])
    z = {"name": zone, "cpus": cpus}
    if "CMA" in migratetype_names:
        z["cma"] = True
    return {"version": 1, "name": f"snapshot of zone {zone}", "zone": z, "init": {"snapshot": snap}}


def _int(obj) -> int:
    """An integer, an atomic_long_t or an atomic_t as a Python int."""
    # value_() of a struct is a dict: atomic_long_t and atomic_t keep the value in .counter
    if _has(obj, "counter"):
        return obj.counter.value_()
    return obj.value_()


def _has(obj, member: str) -> bool:
    try:
        obj.member_(member)
        return True
    except (LookupError, TypeError):  # no such member, or not a struct at all
        return False


def _constant(prog, name, default):
    try:
        return prog.constant(name).value_()
    except (KeyError, LookupError):
        return default


PCP_FIELDS = ("count", "high", "high_min", "high_max", "batch", "free_count", "flags", "alloc_factor")
WMARKS = (("min", "WMARK_MIN"), ("low", "WMARK_LOW"), ("high", "WMARK_HIGH"))
VM_STATS = ("NR_FREE_PAGES", "NR_FREE_CMA_PAGES")


def drgn_section_reader(prog):
    """pageblock_bits(pfn) for a kernel with SPARSEMEM: None where the pfn's mem_section is
    absent. A qemu ELF dump returns bytes for low addresses, so a NULL root or usage must be
    checked, never followed (present_section() and valid_section(): SECTION_MARKED_PRESENT,
    SECTION_HAS_MEM_MAP)."""
    from drgn import cast

    nr_bits = _constant(prog, "__NR_PAGEBLOCK_BITS", 4)
    nr_bits = 1 << (nr_bits - 1).bit_length()
    long_bits = 8 * prog.type("unsigned long").size
    ms_type = prog.type("struct mem_section")
    page_size = prog["PAGE_SIZE"].value_() if "PAGE_SIZE" in prog else 4096
    shift = ARGS.pfn_section_shift if ARGS else 15
    pageblock_order = ARGS.pageblock_order if ARGS else 9
    mem_section = prog["mem_section"]
    # SPARSEMEM_EXTREME: struct mem_section **mem_section, roots allocated on demand.
    extreme = mem_section.type_.kind.name == "POINTER"
    sections_per_root = page_size // ms_type.size if extreme else 1
    nr_roots = None if extreme else len(mem_section)
    try:
        # sections above it are absent, and their roots may be past the roots' array
        highest = prog["__highest_present_section_nr"].value_()
    except KeyError:
        highest = (1 << (52 - 12 - shift)) - 1
    present_bit = 1 << _constant(prog, "SECTION_MARKED_PRESENT_BIT", 0)
    memmap_bit = 1 << _constant(prog, "SECTION_HAS_MEM_MAP_BIT", 1)
    cache = {}

    def section(nr):
        if nr in cache:
            return cache[nr]
        ms = None
        root_nr = nr // sections_per_root
        if nr <= highest and (nr_roots is None or root_nr < nr_roots):
            if extreme:
                if mem_section.value_() != 0:
                    root = mem_section[root_nr]
                    if root.value_() != 0:
                        ms = root[nr % sections_per_root]
            else:
                ms = mem_section[root_nr][0]
        if ms is not None:
            flags = ms.section_mem_map.value_()
            if (not flags & present_bit or not flags & memmap_bit
                    or ms.usage.value_() == 0):
                ms = None
        cache[nr] = ms
        return ms

    def pageblock_bits(pfn):
        ms = section(pfn >> shift)
        if ms is None:
            return None
        bitidx = ((pfn & ((1 << shift) - 1)) >> pageblock_order) * nr_bits
        word = cast("unsigned long", ms.usage.pageblock_flags[bitidx // long_bits]).value_()
        return (word >> (bitidx % long_bits)) & ((1 << nr_bits) - 1)

    return pageblock_bits


def drgn_migratetype_names(prog) -> List[str]:
    mtn = prog["migratetype_names"]
    return [mtn[i].string_().decode() for i in range(len(mtn))]


def drgn_pgdat(prog, node: int):
    try:
        return prog["node_data"][node]
    except KeyError:
        return prog["contig_page_data"].address_of_()


def drgn_zone_view(prog, node: int, zone_name: str, zone=None, pageblock_bits=None) -> ZoneView:
    """Reads a ZoneView out of a running kernel or a vmcore (needs drgn and debug info)."""
    from drgn.helpers.linux.cpumask import for_each_possible_cpu
    from drgn.helpers.linux.list import list_for_each_entry
    from drgn.helpers.linux.mm import page_to_pfn
    from drgn.helpers.linux.percpu import per_cpu_ptr

    if zone is None:
        pgdat = drgn_pgdat(prog, node)
        for i in range(len(pgdat.node_zones)):
            z = pgdat.node_zones[i]
            if z.name.string_().decode() == zone_name:
                zone = z
        if zone is None:
            raise SystemExit(f"no zone {zone_name!r} in node {node}")
    page_type = prog.type("struct page")
    members = {m.name for m in page_type.members if m.name}

    def member(preferred):
        # 5.19+ names the list members; older kernels use lru (inside an anonymous union).
        return preferred if preferred in members else "lru"

    names = drgn_migratetype_names(prog)
    free_lists = {}
    nr_free = []
    for order in range(len(zone.free_area)):
        fa = zone.free_area[order]
        nr_free.append(_int(fa.nr_free))
        for mt in range(len(fa.free_list)):
            head = fa.free_list[mt].address_of_()
            free_lists[(order, mt)] = [
                page_to_pfn(p).value_()
                for p in list_for_each_entry(page_type, head, member("buddy_list"))
            ]
    pcp = {}
    pcp_state = {}
    for cpu in for_each_possible_cpu(prog):
        p = per_cpu_ptr(zone.per_cpu_pageset, cpu)
        pcp[cpu] = [
            [
                page_to_pfn(pg).value_()
                for pg in list_for_each_entry(
                    page_type, p.lists[i].address_of_(), member("pcp_list")
                )
            ]
            for i in range(len(p.lists))
        ]
        pcp_state[cpu] = {f: _int(p.member_(f)) for f in PCP_FIELDS if _has(p, f)}

    isolate_bit = _constant(prog, "PB_migrate_isolate", None)
    watermark = {k: _int(zone._watermark[_constant(prog, c, i)])
                 for i, (k, c) in enumerate(WMARKS)}
    vm_stat = {}
    for name in VM_STATS:
        idx = _constant(prog, name, None)
        if idx is not None and idx < len(zone.vm_stat):
            vm_stat[name] = _int(zone.vm_stat[idx])
    return ZoneView(
        name=zone.name.string_().decode(),
        start_pfn=zone.zone_start_pfn.value_(),
        spanned_pages=zone.spanned_pages.value_(),
        migratetype_names=names,
        free_lists=free_lists,
        pcp=pcp,
        pageblock_bits=pageblock_bits or drgn_section_reader(prog),
        isolate_bit=isolate_bit,
        present_pages=_int(zone.present_pages),
        managed_pages=_int(zone.managed_pages),
        nr_free=nr_free,
        pcp_state=pcp_state,
        watermark=watermark,
        watermark_boost=_int(zone.watermark_boost) if _has(zone, "watermark_boost") else 0,
        lowmem_reserve=[_int(zone.lowmem_reserve[i]) for i in range(len(zone.lowmem_reserve))],
        nr_reserved_highatomic=_int(zone.nr_reserved_highatomic),
        vm_stat=vm_stat,
    )


def drgn_node_view(prog, node: int) -> NodeView:
    """Every zone with pages of a node, read out of a running kernel or a vmcore."""
    pgdat = drgn_pgdat(prog, node)
    reader = drgn_section_reader(prog)
    zones = []
    for i in range(len(pgdat.node_zones)):
        z = pgdat.node_zones[i]
        if z.spanned_pages.value_() == 0:
            continue
        zones.append(drgn_zone_view(prog, node, None, zone=z, pageblock_bits=reader))
    try:
        kernel = prog["init_uts_ns"].name.release.string_().decode()
    except (KeyError, LookupError):
        kernel = None
    return NodeView(node=node, migratetype_names=drgn_migratetype_names(prog),
                    cpus=prog["nr_cpu_ids"].value_(), zones=zones, kernel=kernel)


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--zone", help="one zone (version 1), e.g. Normal")
    ap.add_argument("--node", type=int, default=None,
                    help="the node (default 0): every zone of it (version 2) unless --zone")
    ap.add_argument("--pfn-section-shift", type=int, default=15)
    ap.add_argument("--pageblock-order", type=int, default=9)
    ap.add_argument("--scenario", action="store_true",
                    help="wrap a --zone snapshot in a whole scenario document")
    a = ap.parse_args(argv)
    if a.scenario and a.zone is None:
        ap.error("--scenario needs --zone (it wraps a version-1 snapshot)")
    return a


ARGS = None

if __name__ == "__main__":
    ARGS = parse_args(sys.argv[1:])
    node = ARGS.node if ARGS.node is not None else 0
    if ARGS.zone is None:
        doc = build_node_snapshot(drgn_node_view(prog, node))  # noqa: F821 (drgn's)
    else:
        view = drgn_zone_view(prog, node, ARGS.zone)  # noqa: F821 (drgn's)
        doc = build_snapshot(view)
        if ARGS.scenario:
            doc = scenario_of(doc, ARGS.zone, view.migratetype_names)
    json.dump(doc, sys.stdout)
    sys.stdout.write("\n")
