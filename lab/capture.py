#!/usr/bin/env python3
"""The capture folder's summary and fixtures (used by lab/run.sh and lab/capture-host.sh).

    python3 lab/capture.py finalize DIR --source qemu|host --workload W [--version V] ...
        writes DIR/capture.json: kernel, command line, workload, event counts, lost events
        (the per-CPU ring buffer stats), events inside each snapshot's window, sizes, times
    python3 lab/capture.py fixture DIR DEST
        copies a capture to DEST with the text files above 64 KiB gzipped (FILE.gz)
    python3 lab/capture.py index ROOT
        writes ROOT/README.md: a line per capture under ROOT/VERSION/WORKLOAD/

The summary's pure parts (parse_trace, parse_stats) are tested by lab/test_lab.py.
"""

import argparse
import gzip
import json
import os
import re
import shutil
import sys

# "<task>-<pid> [cpu] <flags> <timestamp>: <event>: <fields>"; flags are absent with some
# trace_options, so only the timestamp and the event's name are anchored.
EVENT = re.compile(r"\[(\d+)\]\s.*?\s(\d+\.\d+): ([A-Za-z_][A-Za-z_0-9]*): (.*)$")
MARKER = re.compile(r"^buddyscope: (proc|snapshot|resumed) (\S+)")


def parse_trace(lines):
    """Event counts, per-CPU counts and the events between each point's two markers."""
    counts, per_cpu, windows, markers, proc_windows = {}, {}, {}, [], {}
    open_window = open_proc = None
    for n, line in enumerate(lines, 1):
        if line.startswith("#"):
            continue
        m = EVENT.search(line)
        if not m:
            continue
        cpu, ts, name, rest = int(m.group(1)), m.group(2), m.group(3), m.group(4)
        if name == "tracing_mark_write":
            mk = MARKER.match(rest.strip())
            if mk:
                markers.append({"line": n, "timestamp": ts, "cpu": cpu, "text": mk.group(0)})
                kind, point = mk.group(1), mk.group(2)
                open_window = open_proc = None
                if kind == "proc":
                    open_proc = point
                    proc_windows[point] = 0
                elif kind == "snapshot":
                    open_window = point
                    windows[point] = 0
            continue
        counts[name] = counts.get(name, 0) + 1
        per_cpu[cpu] = per_cpu.get(cpu, 0) + 1
        if open_window is not None:
            windows[open_window] += 1
        if open_proc is not None:
            proc_windows[open_proc] += 1
    return {"events": dict(sorted(counts.items())), "total": sum(counts.values()),
            "per_cpu": {str(k): v for k, v in sorted(per_cpu.items())},
            "markers": markers, "events_in_snapshot_window": windows,
            "events_while_reading_proc": proc_windows}


def parse_stats(text):
    """A per_cpu/cpuN/stats file: {"entries": .., "overrun": .., "dropped events": ..}."""
    out = {}
    for line in text.splitlines():
        if ":" not in line:
            continue
        k, v = line.split(":", 1)
        v = v.strip()
        if re.fullmatch(r"\d+", v):
            out[k.strip()] = int(v)
        elif re.fullmatch(r"\d+\.\d+", v):
            out[k.strip()] = float(v)
    return out


def lost_events(stats):
    """Events the ring buffer lost: overwritten (overrun) or dropped when full."""
    return sum(s.get("overrun", 0) + s.get("dropped events", 0) for s in stats.values())


def read(path, default=""):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return default


def open_text(path):
    if os.path.exists(path):
        return open(path, encoding="utf-8", errors="replace")
    if os.path.exists(path + ".gz"):
        return gzip.open(path + ".gz", "rt", encoding="utf-8", errors="replace")
    raise SystemExit(f"capture.py: no {path} (nor {path}.gz)")


def finalize(a):
    d = a.dir
    with open_text(os.path.join(d, "trace.txt")) as f:
        trace = parse_trace(f)
    stats = {}
    sd = os.path.join(d, "stats")
    if os.path.isdir(sd):
        for name in sorted(os.listdir(sd)):
            stats[name] = parse_stats(read(os.path.join(sd, name)))
    uname = read(os.path.join(d, "uname.txt")).strip()
    kernel = uname.split()[2] if len(uname.split()) > 2 else None
    doc = {
        "kernel": kernel,
        "version": a.version,
        "uname": uname,
        "cmdline": read(os.path.join(d, "cmdline.txt")).strip(),
        "workload": a.workload,
        "source": a.source,
        "events_enabled": read(os.path.join(d, "events.txt")).split(),
        "buffer_size_kb": read(os.path.join(d, "buffer_size_kb.txt")).strip(),
        "events": trace["events"],
        "total_events": trace["total"],
        "events_per_cpu": trace["per_cpu"],
        "lost_events": lost_events(stats),
        "ring_buffer_stats": stats,
        "markers": trace["markers"],
        "events_in_snapshot_window": trace["events_in_snapshot_window"],
        "events_while_reading_proc": trace["events_while_reading_proc"],
        "snapshots": sorted(f for f in os.listdir(d) if f.startswith("snapshot-")),
    }
    times = {}
    if a.wall_seconds is not None:
        times["wall_seconds"] = round(a.wall_seconds, 1)
    for line in read(os.path.join(d, "workload.log")).splitlines():
        if line.startswith("workload_seconds "):
            t0, t1 = map(float, line.split()[1:3])
            times["guest_uptime_at_before"] = t0
            times["workload_seconds"] = round(t1 - t0, 2)
    if a.labctl and os.path.exists(a.labctl):
        with open(a.labctl) as f:
            lc = json.load(f)
        times["dumps"] = [{"name": p["name"], "at_seconds": round(p["at"], 1),
                           "dump_seconds": round(p["dump_seconds"], 1),
                           "dump_mib": p["bytes"] >> 20} for p in lc.get("points", [])]
    doc["times"] = times
    doc["files"] = {f: os.path.getsize(os.path.join(d, f))
                    for f in sorted(os.listdir(d)) if os.path.isfile(os.path.join(d, f))}
    with open(os.path.join(d, "capture.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"capture.py: {d}: {doc['total_events']} events, {doc['lost_events']} lost, "
          f"window {doc['events_in_snapshot_window']}, {times}")


def fixture(a):
    src, dst = a.dir, a.dest
    if os.path.exists(dst):
        shutil.rmtree(dst)
    for root, _, files in os.walk(src):
        rel = os.path.relpath(root, src)
        os.makedirs(os.path.join(dst, rel), exist_ok=True)
        for name in files:
            if name == "console.log" or name == "dmesg.txt":
                continue  # boot logs: not replay input
            s = os.path.join(root, name)
            t = os.path.join(dst, rel, name)
            if os.path.getsize(s) > 65536 and not name.endswith(".gz"):
                with open(s, "rb") as fi, gzip.GzipFile(t + ".gz", "wb", 9, mtime=0) as fo:
                    shutil.copyfileobj(fi, fo)
            else:
                shutil.copyfile(s, t)
    total = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(dst) for f in fs)
    print(f"capture.py: {dst}: {total} bytes")


def index(a):
    rows = []
    for version in sorted(os.listdir(a.dir)):
        vd = os.path.join(a.dir, version)
        if not os.path.isdir(vd):
            continue
        for workload in sorted(os.listdir(vd)):
            cj = os.path.join(vd, workload, "capture.json")
            if not os.path.exists(cj):
                continue
            with open(cj) as f:
                c = json.load(f)
            size = sum(os.path.getsize(os.path.join(r, x))
                       for r, _, fs in os.walk(os.path.join(vd, workload)) for x in fs)
            check = read(os.path.join(vd, workload, "check.txt")).splitlines()
            check = "; ".join(x for x in check if not x.startswith("  "))
            rows.append(f"| `{version}/{workload}` | {c['kernel']} | `{c['cmdline']}` | "
                        f"{c['total_events']} | {c['lost_events']} | "
                        f"{c['events_in_snapshot_window']} | {size // 1024} KiB | {check} |")
    with open(os.path.join(a.dir, "README.md"), "w") as f:
        f.write("# Kernel lab captures\n\n"
                "Made by `lab/run.sh VERSION WORKLOAD` (lab/README.md describes the folder); "
                "copied with `python3 lab/capture.py fixture` (text above 64 KiB gzipped). "
                "Each trace is cut at its `buddyscope: snapshot before` / `snapshot after` "
                "markers (line numbers in capture.json); `snapshot-*.json` are drgn node "
                "snapshots (version 2) of the VM stopped at those markers.\n\n"
                "| capture | kernel | command line | events | lost | events in the snapshot windows | size | check.py |\n"
                "|---|---|---|---|---|---|---|---|\n")
        f.write("\n".join(rows) + "\n")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("finalize")
    f.add_argument("dir")
    f.add_argument("--source", choices=["qemu", "host"], required=True)
    f.add_argument("--workload", required=True)
    f.add_argument("--version")
    f.add_argument("--wall-seconds", type=float)
    f.add_argument("--labctl")
    x = sub.add_parser("fixture")
    x.add_argument("dir")
    x.add_argument("dest")
    i = sub.add_parser("index")
    i.add_argument("dir")
    a = ap.parse_args(argv)
    {"finalize": finalize, "fixture": fixture, "index": index}[a.cmd](a)


if __name__ == "__main__":
    main(sys.argv[1:])
