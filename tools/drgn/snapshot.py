#!/usr/bin/env drgn
"""Write an exact buddyscope snapshot of one zone, from a live kernel or a vmcore, with drgn.

    sudo drgn tools/drgn/snapshot.py --zone Normal > snapshot.json              # live kernel
    drgn -c vmcore -s vmlinux tools/drgn/snapshot.py --zone Normal > snapshot.json

It walks ``zone->free_area[order].free_list[mt]`` (head first), every possible CPU's
``per_cpu_pageset->lists[pindex]`` and the pageblock bitmap, and prints the JSON that a
scenario's ``"init": {"snapshot": ...}`` accepts (see the README, "Exact snapshots").

The walk is split in two: ``build_snapshot`` turns a plain ``ZoneView`` (lists of pfns and
pageblock bits) into the JSON document and is tested without a kernel
(``python3 -m unittest discover -s tools/drgn``); ``drgn_zone_view`` is the thin drgn
adapter that reads those lists out of the kernel's structures.
"""

import argparse
import json
import sys
from dataclasses import dataclass, field
from typing import Callable, Dict, List

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
    # Raw pageblock bits of the pageblock holding a pfn (migratetype in the low 3 bits).
    pageblock_bits: Callable[[int], int]
    # The PB_migrate_isolate bit, or None when the kernel keeps isolation in the type.
    isolate_bit: "int | None" = None
    extra: dict = field(default_factory=dict)


def pageblock_name(bits: int, names: List[str], isolate_bit) -> str:
    """``get_pfnblock_migratetype``: the isolate bit wins, else the 3-bit type."""
    if isolate_bit is not None and bits & (1 << isolate_bit):
        return "Isolate"
    mt = bits & 7
    return names[mt] if mt < len(names) else "Movable"


def build_snapshot(view: ZoneView) -> dict:
    """The snapshot document (version 1) of a zone view."""
    start = view.start_pfn - view.start_pfn % ALIGN
    end = view.start_pfn + view.spanned_pages
    pages = end - start
    nblocks = -(-pages // PAGEBLOCK_NR_PAGES)
    pageblocks = []
    for pb in range(nblocks):
        pfn = start + pb * PAGEBLOCK_NR_PAGES
        try:
            bits = view.pageblock_bits(pfn)
        except Exception:  # a hole without a memmap section: memmap_init's default
            bits = 1
        pageblocks.append(pageblock_name(bits, view.migratetype_names, view.isolate_bit))
    free_area = [
        {"order": order, "migratetype": view.migratetype_names[mt], "pfns": list(pfns)}
        for (order, mt), pfns in sorted(view.free_lists.items())
        if pfns
    ]
    pcp = [
        {"cpu": cpu, "pindex": pindex, "pfns": list(pfns)}
        for cpu, lists in sorted(view.pcp.items())
        for pindex, pfns in enumerate(lists)
        if pfns
    ]
    return {
        "version": 1,
        "zone": view.name,
        "start_pfn": start,
        "pages": pages,
        "pageblocks": pageblocks,
        "free_area": free_area,
        "pcp": pcp,
    }


def drgn_zone_view(prog, node: int, zone_name: str) -> ZoneView:
    """Reads a ZoneView out of a running kernel or a vmcore (needs drgn and debug info)."""
    from drgn import cast
    from drgn.helpers.linux.cpumask import for_each_possible_cpu
    from drgn.helpers.linux.list import list_for_each_entry
    from drgn.helpers.linux.mm import page_to_pfn
    from drgn.helpers.linux.percpu import per_cpu_ptr

    try:
        pgdat = prog["node_data"][node]
    except KeyError:
        pgdat = prog["contig_page_data"].address_of_()
    zone = None
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

    names = [
        prog["migratetype_names"][i].string_().decode()
        for i in range(len(prog["migratetype_names"]))
    ]
    free_lists = {}
    for order in range(len(zone.free_area)):
        fa = zone.free_area[order]
        for mt in range(len(fa.free_list)):
            head = fa.free_list[mt].address_of_()
            free_lists[(order, mt)] = [
                page_to_pfn(p).value_()
                for p in list_for_each_entry(page_type, head, member("buddy_list"))
            ]
    pcp = {}
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

    try:
        nr_bits = prog.constant("__NR_PAGEBLOCK_BITS").value_()
    except (KeyError, LookupError):
        nr_bits = 4
    nr_bits = 1 << (nr_bits - 1).bit_length()
    try:
        isolate_bit = prog.constant("PB_migrate_isolate").value_()
    except (KeyError, LookupError):
        isolate_bit = None
    long_bits = 8 * prog.type("unsigned long").size
    ms_type = prog.type("struct mem_section")
    page_size = prog["PAGE_SIZE"].value_() if "PAGE_SIZE" in prog else 4096
    sections_per_root = page_size // ms_type.size
    # x86_64: SECTION_SIZE_BITS 27, PAGE_SHIFT 12 (override with --pfn-section-shift).
    shift = ARGS.pfn_section_shift
    pageblock_order = ARGS.pageblock_order

    def pageblock_bits(pfn):
        nr = pfn >> shift
        ms = prog["mem_section"][nr // sections_per_root][nr % sections_per_root]
        usage = ms.usage
        bitidx = ((pfn & ((1 << shift) - 1)) >> pageblock_order) * nr_bits
        word = cast("unsigned long", usage.pageblock_flags[bitidx // long_bits]).value_()
        return (word >> (bitidx % long_bits)) & ((1 << nr_bits) - 1)

    return ZoneView(
        name=zone_name,
        start_pfn=zone.zone_start_pfn.value_(),
        spanned_pages=zone.spanned_pages.value_(),
        migratetype_names=names,
        free_lists=free_lists,
        pcp=pcp,
        pageblock_bits=pageblock_bits,
        isolate_bit=isolate_bit,
    )


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--zone", default="Normal")
    ap.add_argument("--node", type=int, default=0)
    ap.add_argument("--pfn-section-shift", type=int, default=15)
    ap.add_argument("--pageblock-order", type=int, default=9)
    ap.add_argument("--scenario", action="store_true",
                    help="wrap the snapshot in a whole scenario document")
    return ap.parse_args(argv)


ARGS = None

if __name__ == "__main__":
    ARGS = parse_args(sys.argv[1:])
    snap = build_snapshot(drgn_zone_view(prog, ARGS.node, ARGS.zone))  # noqa: F821 (drgn's)
    doc = snap
    if ARGS.scenario:
        cpus = 1 + max([p["cpu"] for p in snap["pcp"]] + [0])
        doc = {"version": 1, "name": f"snapshot of zone {ARGS.zone}",
               "zone": {"name": ARGS.zone, "cpus": cpus}, "init": {"snapshot": snap}}
    json.dump(doc, sys.stdout)
    sys.stdout.write("\n")
