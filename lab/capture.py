#!/usr/bin/env python3
"""The capture folder's summary and fixtures (used by lab/run.sh and lab/capture-host.sh).

    python3 lab/capture.py finalize DIR --source qemu|host --workload W [--version V] ...
        writes DIR/capture.json: kernel, command line, workload, event counts, lost events
        (the per-CPU ring buffer stats), events inside each snapshot's window, sizes, times
    python3 lab/capture.py fixture DIR DEST
        copies a capture to DEST with the text files above 64 KiB gzipped (FILE.gz)
    python3 lab/capture.py index ROOT
        writes ROOT/README.md: a line per capture under ROOT/VERSION/WORKLOAD/
    python3 lab/capture.py predict-table CAPTURE... [--bin PATH] [--kernel K,K...] [--json OUT]
        replays each capture from its before snapshot, cut at the snapshot markers, with
        --expect snapshot-after.json --predict under each profile, and prints the
        workload x profile prediction table with the misses grouped by cause
    python3 lab/capture.py window CAPTURE DEST --lines N-M [--bin PATH]
        a stretch of a long capture as a capture of its own (for the app's "real kernel"
        list and the fixtures): DEST/trace.txt.gz is the trace's header and its lines N..M
        as the kernel wrote them; DEST/snapshot-before.json.gz is the model's state at line N
        (the capture replayed from its before snapshot up to line N, `--format snapshot`),
        so there is no after snapshot and no marker; capture.json says where the window is
    python3 lab/capture.py figures CAPTURE... [--bin PATH] [--json OUT]
        the same replay with the capture's own profile under /usr/bin/time: a line per capture
        with events, lost events, divergences by kind, prediction rates, differences from the
        after snapshot, replay time and peak memory

The pure parts (parse_trace, parse_stats, the predict table's profile_of, replay_row,
predict_table, figures_table, parse_time) are tested by lab/test_lab.py.
"""

import argparse
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

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


def probes(d):
    """probes.txt (capture-lib.sh cap_enable_probes): {"free_one_page": "on" or "refused: …"}."""
    p = os.path.join(d, "probes.txt")
    if not os.path.exists(p):
        return {}
    return dict(line.split(" ", 1) for line in read(p).splitlines() if " " in line)


def parse_kprobe_profile(text):
    """tracefs kprobe_profile (kernel/trace/trace_kprobe.c probes_profile_seq_show: the event's
    name, its hits, its misses): {"free_one_page": {"hits": N, "misses": M}}. A miss is a hit
    while another kprobe's handler ran on that CPU (kprobe_running(): an interrupt inside the
    handler), counted and not traced."""
    out = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) == 3 and f[1].isdigit() and f[2].isdigit():
            out[f[0].rsplit("/", 1)[-1]] = {"hits": int(f[1]), "misses": int(f[2])}
    return out


def kprobe_profile(d):
    """The probes' hits and misses between the two dump points (capture-lib.sh copies
    kprobe_profile at each point, into POINT/kprobe_profile): the replayed window's, since the
    probes also fire before tracing starts and while the trace is read. A capture made before
    the points had it: the whole run's (capture-lib.sh cap_trace_out's copy); {} without one."""
    before = parse_kprobe_profile(read(os.path.join(d, "before", "kprobe_profile")))
    after = parse_kprobe_profile(read(os.path.join(d, "after", "kprobe_profile")))
    if before and after:
        return {name: {k: p[k] - before.get(name, {}).get(k, 0) for k in ("hits", "misses")}
                for name, p in after.items()}
    return parse_kprobe_profile(read(os.path.join(d, "kprobe_profile")))


def kprobe_profile_span(d):
    """What capture.kprobe_profile(d) counts."""
    if all(os.path.exists(os.path.join(d, p, "kprobe_profile")) for p in ("before", "after")):
        return "between the dump points"
    return "the whole run: no kprobe_profile at the dump points"


def probe_misses(profile):
    """A sentence per probe that missed hits: its silence is then no evidence."""
    return [f"probe {name} missed {p['misses']:,} of {p['hits'] + p['misses']:,} hits: a free "
            f"without its {name} line is not proof (a kprobe hit inside another kprobe's "
            "handler is counted, not traced)"
            for name, p in sorted(profile.items()) if p["misses"]]


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
        "probes": probes(d),
        "kprobe_profile": kprobe_profile(d),
        "kprobe_profile_whole_run": parse_kprobe_profile(read(os.path.join(d, "kprobe_profile"))),
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
    for name, p in sorted(doc["kprobe_profile"].items()):
        print(f"capture.py: probe {name}: {p['hits']:,} hits, {p['misses']:,} missed (between "
              "the dump points, when the capture has them; else the whole run)")
    for line in probe_misses(doc["kprobe_profile"]):
        print(f"capture.py: WARNING: {line}")


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
    rows, windows = [], []
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
            if "window" in c:
                w = c["window"]
                windows.append(f"| `{version}/{workload}` | {c['kernel']} | `{w['capture']}` "
                               f"lines {w['first_line']}-{w['last_line']} | "
                               f"{c['total_events']} | {size // 1024} KiB |")
                continue
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
        if windows:
            f.write("\nWindows of long captures (`python3 lab/capture.py window`): the kernel's "
                    "lines N to M, replayed whole from the model's state at line N "
                    "(`snapshot-before.json`); no markers, no after snapshot.\n\n"
                    "| window | kernel | of | events | size |\n|---|---|---|---|---|\n")
            f.write("\n".join(windows) + "\n")


# The engine's profiles (engine/src/mm/types.rs `Kernel`), oldest first.
PROFILES = ["v6.12", "v6.18", "v6.19", "v7.1", "v7.2", "v7.3"]
BEFORE_MARKER = "buddyscope: snapshot before"
AFTER_MARKER = "buddyscope: snapshot after"


def profile_of(release):
    """The profile of a `uname -r` ("7.2.13+deb14-amd64" -> "v7.2"), or None."""
    m = re.match(r"(\d+)\.(\d+)", release or "")
    if not m:
        return None
    p = f"v{int(m.group(1))}.{int(m.group(2))}"
    return p if p in PROFILES else None


def replay_row(doc, stderr, status):
    """One replay's figures from `buddyscope replay --format json` and its stderr."""
    r, p = doc["replay"], doc["predict"]
    expect = None
    for line in stderr.splitlines():
        if line.startswith("buddyscope: expect: "):
            word = line[len("buddyscope: expect: "):].split(" ", 1)[0]
            expect = int(word) if word.isdigit() else None
    if expect is None:
        expect = 0 if status == 0 else -1  # -1: failed for another reason (see stderr)
    return {
        "kernel": doc.get("kernel"),
        "trace_events": r["trace_events"],
        "divergences": r["divergence_count"],
        "divergences_by_kind": {k["kind"]: k["count"] for k in r.get("divergences_by_kind", [])},
        "allocations": p["allocations"],
        "exact": p["exact"],
        "same_order_and_list": p["same_order_and_list"],
        "misses_by_cause": {c["cause"]: c["count"] for c in p.get("by_cause", [])},
        "expect_differences": expect,
    }


def pct(n, of):
    return 100.0 * n / of if of else 100.0


def predict_table(rows, profiles):
    """Markdown: the workload x profile table (exact % / same order and list %), whether the
    capture's own profile predicts best, then the misses by cause and divergences by kind.
    `rows`: [{"capture", "release", "right", "by_profile": {profile: replay_row}}]."""
    out = ["| capture | " + " | ".join(profiles) + " | own profile best? |",
           "|---|" + "---|" * len(profiles) + "---|"]
    for c in rows:
        cells = []
        for k in profiles:
            f = c["by_profile"].get(k)
            if f is None:
                cells.append("–")
                continue
            cell = (f"{pct(f['exact'], f['allocations']):.1f} / "
                    f"{pct(f['same_order_and_list'], f['allocations']):.1f}")
            if f["expect_differences"] == 0:
                cell += " ="
            if k == c["right"]:
                cell = f"**{cell}**"
            cells.append(cell)
        out.append(f"| `{c['capture']}` | " + " | ".join(cells) + f" | {verdict(c)} |")
    out.append("")
    out.append("Cells: exact % / same order and list % of the trace's `mm_page_alloc` lines; "
               "bold: the capture's own profile; `=`: the replay ends on the after snapshot.")
    out.append("")
    for c in rows:
        out.append(f"`{c['capture']}` ({c['release']}):")
        for k in profiles:
            f = c["by_profile"].get(k)
            if f is None:
                continue
            miss = ", ".join(f"{n} {cause}" for cause, n in f["misses_by_cause"].items()) or "none"
            div = ", ".join(f"{n} {kind}" for kind, n in f["divergences_by_kind"].items()) or "none"
            end = ("ends on the after snapshot" if f["expect_differences"] == 0
                   else f"{f['expect_differences']} differences from the after snapshot"
                   if f["expect_differences"] > 0 else "replay failed")
            out.append(f"- {k}: {f['exact']}/{f['allocations']} exact; misses: {miss}; "
                       f"divergences: {div}; {end}")
        out.append("")
    return "\n".join(out)


def verdict(c):
    """Whether the capture's own profile predicts better than every other: more exact
    predictions, or as many and an end state closer to the after snapshot."""
    own = c["by_profile"].get(c["right"])
    if own is None:
        return "no own profile"
    others = [(k, f) for k, f in c["by_profile"].items() if k != c["right"]]
    if not others:
        return "–"

    def rate(f):
        return pct(f["exact"], f["allocations"])

    def off(f):
        return f["expect_differences"] if f["expect_differences"] >= 0 else float("inf")

    def score(f):
        return (rate(f), -off(f))

    k, best = max(others, key=lambda kf: score(kf[1]))
    if score(own) > score(best):
        if rate(own) > rate(best):
            return f"yes (next: {k})"
        return f"yes: as exact, ends closer (next: {k}, {best['expect_differences']} off)"
    if score(own) == score(best):
        return "tie with " + ", ".join(k for k, f in others if score(f) == score(own))
    return f"no: {k} better"


def capture_file(d, name, tmp):
    """DIR/NAME, or DIR/NAME.gz unpacked into tmp."""
    plain = os.path.join(d, name)
    if os.path.exists(plain):
        return plain
    gz = plain + ".gz"
    if not os.path.exists(gz):
        raise SystemExit(f"capture.py: {d}: neither {name} nor {name}.gz")
    t = os.path.join(tmp, name)
    with gzip.open(gz, "rb") as fi, open(t, "wb") as fo:
        shutil.copyfileobj(fi, fo)
    return t


def replay_cmd(binary, trace, before, after, profile=None):
    """The replay of a capture cut at its snapshot markers, predicted and checked against the
    after snapshot; `--no-trace` keeps its memory bounded (counts and capped lists, no
    recorded run) where the CLI has it."""
    cmd = [binary, "replay", trace, "--scenario", before]
    if profile:
        cmd += ["--kernel", profile]
    cmd += ["--from-marker", BEFORE_MARKER, "--to-marker", AFTER_MARKER,
            "--expect", after, "--predict", "--format", "json"]
    if has_no_trace(binary):
        cmd.append("--no-trace")
    return cmd


_NO_TRACE = {}


def has_no_trace(binary):
    if binary not in _NO_TRACE:
        h = subprocess.run([binary, "replay", "--help"], capture_output=True, text=True)
        _NO_TRACE[binary] = "--no-trace" in h.stdout
    return _NO_TRACE[binary]


def predict(a):
    profiles = a.kernel.split(",") if a.kernel else PROFILES
    for k in profiles:
        if k not in PROFILES:
            raise SystemExit(f"capture.py: --kernel {k}: expected one of {', '.join(PROFILES)}")
    if not os.access(a.bin, os.X_OK):
        raise SystemExit(f"capture.py: --bin {a.bin}: not an executable; build it with "
                         "`cargo build --release -p buddyscope-engine --bin buddyscope`")
    rows = []
    for d in a.captures:
        d = d.rstrip("/")
        with open(os.path.join(d, "capture.json")) as f:
            cj = json.load(f)
        name = "/".join(d.split("/")[-2:])
        row = {"capture": name, "release": cj["kernel"], "right": profile_of(cj["kernel"]),
               "by_profile": {}}
        with tempfile.TemporaryDirectory() as tmp:
            trace = capture_file(d, "trace.txt", tmp)
            before = capture_file(d, "snapshot-before.json", tmp)
            after = capture_file(d, "snapshot-after.json", tmp)
            for k in profiles:
                cmd = replay_cmd(a.bin, trace, before, after, k)
                p = subprocess.run(cmd, capture_output=True, text=True)
                try:
                    doc = json.loads(p.stdout)
                except json.JSONDecodeError:
                    raise SystemExit(f"capture.py: {name} --kernel {k}: no JSON "
                                     f"(exit {p.returncode}): {p.stderr.strip()}")
                row["by_profile"][k] = replay_row(doc, p.stderr, p.returncode)
                print(f"capture.py: {name} {k}: done", file=sys.stderr)
        rows.append(row)
    print(predict_table(rows, profiles))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
            f.write("\n")


def parse_time(text):
    """`/usr/bin/time -f "%e %M"`'s last line: (wall seconds, peak RSS in KiB)."""
    for line in reversed(text.strip().splitlines()):
        m = re.fullmatch(r"(\d+(?:\.\d+)?) (\d+)", line.strip())
        if m:
            return float(m.group(1)), int(m.group(2))
    return None, None


def figures_table(rows):
    """Markdown: a line per capture replayed with its own profile."""
    out = ["| capture | events | lost | divergences by kind | exact | same order+list | "
           "diffs from after | time | peak RSS |",
           "|---|---|---|---|---|---|---|---|---|"]
    for c in rows:
        f = c["figures"]
        div = ", ".join(f"{k} {n:,}" for k, n in f["divergences_by_kind"].items()) or "none"
        diffs = f["expect_differences"] if f["expect_differences"] >= 0 else "failed"
        out.append(
            f"| `{c['capture']}` | {f['trace_events']:,} | {c['lost']:,} | {div} | "
            f"{f['exact']:,}/{f['allocations']:,} {pct(f['exact'], f['allocations']):.2f} % | "
            f"{pct(f['same_order_and_list'], f['allocations']):.2f} % | {diffs} | "
            f"{c['seconds']:.1f} s | {c['rss_kib'] / 1024:,.0f} MiB |")
    probed = [c for c in rows if c.get("kprobe_profile")]
    if probed:
        out.append("")
    for c in probed:
        prof = c["kprobe_profile"]
        out.append(f"`{c['capture']}` probes: " + ", ".join(
            f"{name} {p['hits']:,} hits, {p['misses']:,} missed" for name, p in sorted(prof.items())))
        out += [f"  WARNING: {line}" for line in probe_misses(prof)]
    return "\n".join(out)


def figures(a):
    if not os.access(a.bin, os.X_OK):
        raise SystemExit(f"capture.py: --bin {a.bin}: not an executable")
    rows = []
    for d in a.captures:
        d = d.rstrip("/")
        with open(os.path.join(d, "capture.json")) as f:
            cj = json.load(f)
        name = "/".join(d.split("/")[-2:])
        with tempfile.TemporaryDirectory() as tmp:
            trace = capture_file(d, "trace.txt", tmp)
            before = capture_file(d, "snapshot-before.json", tmp)
            after = capture_file(d, "snapshot-after.json", tmp)
            timing = os.path.join(tmp, "time")
            cmd = (["/usr/bin/time", "-f", "%e %M", "-o", timing]
                   + replay_cmd(a.bin, trace, before, after))
            p = subprocess.run(cmd, capture_output=True, text=True)
            try:
                doc = json.loads(p.stdout)
            except json.JSONDecodeError:
                raise SystemExit(f"capture.py: {name}: no JSON (exit {p.returncode}): "
                                 f"{p.stderr.strip()[-2000:]}")
            seconds, rss = parse_time(read(timing))
        rows.append({"capture": name, "release": cj["kernel"], "lost": cj.get("lost_events", 0),
                     "kprobe_profile": cj.get("kprobe_profile") or kprobe_profile(d),
                     "seconds": seconds, "rss_kib": rss,
                     "figures": replay_row(doc, p.stderr, p.returncode)})
        print(f"capture.py: {name}: done", file=sys.stderr)
    print(figures_table(rows))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
            f.write("\n")


def window_lines(spec):
    """`N-M` (1-based, inclusive, as the replay names lines): (N, M)."""
    m = re.fullmatch(r"(\d+)-(\d+)", spec.replace(",", "").replace("_", ""))
    if not m or not 0 < int(m.group(1)) <= int(m.group(2)):
        raise SystemExit(f"capture.py window: --lines {spec}: expected N-M with 0 < N <= M "
                         "(the trace's line numbers, as the replay names them)")
    return int(m.group(1)), int(m.group(2))


def window(a):
    first, last = window_lines(a.lines)
    if not os.access(a.bin, os.X_OK):
        raise SystemExit(f"capture.py: --bin {a.bin}: not an executable; build it with "
                         "`cargo build --release -p buddyscope-engine --bin buddyscope`")
    src = a.capture.rstrip("/")
    with open(os.path.join(src, "capture.json")) as f:
        cj = json.load(f)
    name = "/".join(src.split("/")[-2:])
    os.makedirs(a.dest, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        trace = capture_file(src, "trace.txt", tmp)
        before = capture_file(src, "snapshot-before.json", tmp)
        header, upto, lines = [], os.path.join(tmp, "upto.txt"), []
        with open(trace, errors="replace") as fi, open(upto, "w") as fo:
            for n, line in enumerate(fi, 1):
                if n < first:
                    fo.write(line)
                    if line.startswith("#") and not lines:
                        header.append(line)
                elif n <= last:
                    lines.append(line)
                else:
                    break
        if len(lines) != last - first + 1:
            raise SystemExit(f"capture.py window: {name}: the trace ends before line {last}")
        if any(BEFORE_MARKER in l or AFTER_MARKER in l for l in lines):
            raise SystemExit(f"capture.py window: {name}: lines {first}-{last} hold a snapshot "
                             "marker: a window lies between the before and after snapshots")
        cmd = [a.bin, "replay", upto, "--scenario", before, "--from-marker", BEFORE_MARKER,
               "--format", "snapshot"]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            raise SystemExit(f"capture.py window: {' '.join(cmd)}: exit {p.returncode}: "
                             f"{p.stderr.strip()[-2000:]}")
        with gzip.open(os.path.join(a.dest, "snapshot-before.json.gz"), "wt") as fo:
            fo.write(p.stdout)
    text = "".join(header + lines)
    with gzip.open(os.path.join(a.dest, "trace.txt.gz"), "wt") as fo:
        fo.write(text)
    summary = parse_trace(text.splitlines())
    doc = {k: cj[k] for k in ("kernel", "version", "uname", "cmdline", "workload", "source",
                              "events_enabled") if k in cj}
    doc.update({
        "window": {"capture": name, "first_line": first, "last_line": last,
                   "start": "the model's state at line %d: the capture replayed from its "
                            "before snapshot up to there (buddyscope replay --format snapshot)"
                            % first},
        "events": summary["events"],
        "total_events": summary["total"],
        "events_per_cpu": summary["per_cpu"],
        "lost_events": cj.get("lost_events", 0),
        "markers": [],
        "snapshots": ["snapshot-before.json"],
    })
    with open(os.path.join(a.dest, "capture.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"capture.py: {a.dest}: lines {first}-{last} of {name}, "
          f"{summary['total']:,} events", file=sys.stderr)


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
    t = sub.add_parser("predict-table")
    t.add_argument("captures", nargs="+", metavar="CAPTURE")
    t.add_argument("--bin", default=os.path.join(
        os.environ.get("CARGO_TARGET_DIR", "target"), "release", "buddyscope"))
    t.add_argument("--kernel", help="profiles, comma-separated (default: all)")
    t.add_argument("--json", help="also write the figures to this file")
    w = sub.add_parser("window")
    w.add_argument("capture")
    w.add_argument("dest")
    w.add_argument("--lines", required=True, help="N-M: the trace's lines N to M")
    w.add_argument("--bin", default=t.get_default("bin"))
    g = sub.add_parser("figures")
    g.add_argument("captures", nargs="+", metavar="CAPTURE")
    g.add_argument("--bin", default=t.get_default("bin"))
    g.add_argument("--json", help="also write the figures to this file")
    a = ap.parse_args(argv)
    {"finalize": finalize, "fixture": fixture, "index": index,
     "predict-table": predict, "figures": figures, "window": window}[a.cmd](a)


if __name__ == "__main__":
    main(sys.argv[1:])
