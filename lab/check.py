#!/usr/bin/env python3
"""Check a capture's drgn node snapshots against /proc read at the same point.

    python3 lab/check.py lab/out/7.2.13/idle

For each point (before, after): every zone's free-list lengths by order and migratetype
(snapshot-POINT.json) against POINT/pagetypeinfo, nr_free by order against POINT/buddyinfo,
and the pageblock counts by migratetype against pagetypeinfo's "Number of blocks type".
/proc is read just before the point's trace marker and the snapshot just after it, so a
difference can only come from the events in the snapshot window (capture.json says how many).
Then each kprobe's hits and misses (kprobe_profile, when the capture took probes): a probe
that missed hits is a warning. Writes DIR/check.txt and exits 1 when anything differs or a
probe missed hits.
"""

import json
import os
import re
import sys

import capture


def parse_buddyinfo(text):
    """{zone: [count by order]}"""
    out = {}
    for line in text.splitlines():
        m = re.match(r"Node\s+(\d+),\s+zone\s+(\S+)\s+(.*)$", line)
        if m:
            out[m.group(2)] = [int(x) for x in m.group(3).split()]
    return out


def parse_pagetypeinfo(text):
    """({(zone, type): [count by order]}, {zone: {type: pageblocks}}); a count the kernel
    capped (">100000") is kept as the string."""
    free, blocks = {}, {}
    header = None
    for line in text.splitlines():
        m = re.match(r"Node\s+(\d+),\s+zone\s+(\S+),\s+type\s+(\S+)\s+(.*)$", line)
        if m:
            free[(m.group(2), m.group(3))] = [
                int(x) if x.isdigit() else x for x in m.group(4).split()]
            continue
        if line.startswith("Number of blocks type"):
            header = line.split()[4:]
            continue
        m = re.match(r"Node\s+(\d+),\s+zone\s+(\S+)\s+([\d\s]+)$", line)
        if m and header:
            blocks[m.group(2)] = dict(zip(header, (int(x) for x in m.group(3).split())))
    return free, blocks


def snapshot_counts(snap):
    """From a version-2 snapshot: ({(zone, type): [count by order]}, {zone: nr_free},
    {zone: {type: pageblocks}})."""
    free, nr_free, blocks = {}, {}, {}
    for z in snap["zones"]:
        name = z["zone"]
        orders = len(z["nr_free"])
        for mt in snap["migratetype_names"]:
            free[(name, mt)] = [0] * orders
        for fl in z["free_area"]:
            free[(name, fl["migratetype"])][fl["order"]] += len(fl["pfns"])
        nr_free[name] = z["nr_free"]
        b = {}
        for t in z["pageblocks"]:
            if t != "Absent":
                b[t] = b.get(t, 0) + 1
        blocks[name] = b
    return free, nr_free, blocks


def compare(point, snap, buddyinfo_text, pagetypeinfo_text):
    """Lines describing every difference (empty: equal), and a count of what was compared."""
    diffs, compared = [], 0
    sfree, snr, sblocks = snapshot_counts(snap)
    pfree, pblocks = parse_pagetypeinfo(pagetypeinfo_text)
    bi = parse_buddyinfo(buddyinfo_text)
    for (zone, mt), counts in sorted(pfree.items()):
        got = sfree.get((zone, mt))
        if got is None:
            diffs.append(f"{point}: zone {zone} type {mt}: in pagetypeinfo, not in the snapshot")
            continue
        for order, want in enumerate(counts):
            compared += 1
            if isinstance(want, str):  # ">100000": the kernel stopped counting
                if got[order] < 100000:
                    diffs.append(f"{point}: {zone}/{mt}/order {order}: /proc {want}, snapshot {got[order]}")
            elif got[order] != want:
                diffs.append(f"{point}: {zone}/{mt}/order {order}: /proc {want}, snapshot {got[order]}")
    for zone, counts in sorted(bi.items()):
        got = snr.get(zone)
        if got is None:
            diffs.append(f"{point}: zone {zone}: in buddyinfo, not in the snapshot")
            continue
        for order, want in enumerate(counts):
            compared += 1
            if got[order] != want:
                diffs.append(f"{point}: {zone} nr_free order {order}: buddyinfo {want}, snapshot {got[order]}")
    for zone, types in sorted(pblocks.items()):
        got = sblocks.get(zone, {})
        for mt, want in types.items():
            compared += 1
            if got.get(mt, 0) != want:
                diffs.append(f"{point}: {zone} pageblocks {mt}: pagetypeinfo {want}, snapshot {got.get(mt, 0)}")
    return diffs, compared


def read(path):
    with open(path) as f:
        return f.read()


def main(argv):
    if len(argv) != 1:
        raise SystemExit("usage: lab/check.py CAPTURE_DIR")
    d = argv[0]
    lines, bad = [], False
    window = {}
    cj = os.path.join(d, "capture.json")
    if os.path.exists(cj):
        with open(cj) as f:
            c = json.load(f)
        for key in ("events_while_reading_proc", "events_in_snapshot_window"):
            for p, n in c.get(key, {}).items():
                window[p] = window.get(p, 0) + n
    for point in ("before", "after"):
        sp = os.path.join(d, f"snapshot-{point}.json")
        if not os.path.exists(sp):
            lines.append(f"{point}: no snapshot-{point}.json (no drgn snapshot at this point)")
            continue
        with open(sp) as f:
            snap = json.load(f)
        diffs, compared = compare(point, snap, read(os.path.join(d, point, "buddyinfo")),
                                  read(os.path.join(d, point, "pagetypeinfo")))
        free = sum(len(fl["pfns"]) << fl["order"] for z in snap["zones"] for fl in z["free_area"])
        pcp = sum(len(p["pfns"]) for z in snap["zones"] for p in z["pcp"])
        zones = ", ".join(z["zone"] for z in snap["zones"])
        if diffs:
            bad = True
            why = ""
            if window.get(point):
                why = (f"; {window[point]} events ran between the /proc read and the snapshot "
                       f"(between the 'proc {point}' and 'resumed {point}' markers)")
            lines.append(f"{point}: {len(diffs)} of {compared} counts differ ({zones}){why}:")
            lines += ["  " + x for x in diffs]
        else:
            lines.append(f"{point}: equal: {compared} counts (free lists by zone, type and order; "
                         f"nr_free; pageblocks) of zones {zones}; {free} free pages in the buddy, "
                         f"{pcp} on pcp lists")
    # The probes' hits and misses (capture-lib.sh saves kprobe_profile): a probe that missed
    # hits leaves frees without their line, so its silence proves nothing.
    prof = capture.kprobe_profile(d)
    for name, p in sorted(prof.items()):
        lines.append(f"probe {name}: {p['hits']} hits, {p['misses']} missed "
                     f"({capture.kprobe_profile_span(d)})")
    for line in capture.probe_misses(prof):
        bad = True
        lines.append(f"WARNING: {line}")
    probes = capture.probes(d)
    if "on" in probes.values() and not prof:
        lines.append("probes: no kprobe_profile saved: their misses are unknown")
    for name, why in sorted(probes.items()):
        if why != "on":
            lines.append(f"probe {name} {why}: the capture went on without it")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(d, "check.txt"), "w") as f:
        f.write(text)
    sys.stdout.write(text)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
