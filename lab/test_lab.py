"""The lab's pure parts without a VM: python3 -m unittest discover -s lab

capture-host.sh runs against a fake tracefs and /proc (BUDDYSCOPE_TRACEFS, BUDDYSCOPE_PROC)
and a fake drgn, so the capture folder's writer (capture-lib.sh, shared with the guest's
/init) and summary (capture.py) are checked end to end."""

import json
import os
import shutil
import subprocess
import tempfile
import unittest

import capture
import check


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)

LAB = os.path.dirname(os.path.abspath(__file__))

TRACE = """# tracer: nop
#
#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION
            init-1       [001] .....    17.578687: mm_page_alloc: page=0000000098992e57 pfn=0x4058 order=2 migratetype=0 gfp_flags=GFP_NOWAIT
            init-1       [000] ...1.    18.200000: tracing_mark_write: buddyscope: proc before
            init-1       [000] .....    18.200001: mm_page_alloc: page=0000000098992e57 pfn=0x4059 order=0 migratetype=1 gfp_flags=GFP_NOWAIT
            init-1       [000] ...1.    18.267068: tracing_mark_write: buddyscope: snapshot before
          <idle>-0       [001] ..s1.    18.300000: mm_page_free: page=0000000087030559 pfn=0x6605 order=0
            init-1       [001] ...1.    18.379228: tracing_mark_write: buddyscope: resumed before
              sh-90      [000] .....    19.000000: mm_page_alloc_zone_locked: page=0000000087030559 pfn=0x6605 order=0 migratetype=1 percpu_refill=1
              sh-90      [000] .....    19.000001: mm_page_pcpu_drain: page=0000000087030559 pfn=0x6605 order=0 migratetype=1
            init-1       [000] ...1.    30.046995: tracing_mark_write: buddyscope: snapshot after
            init-1       [000] ...1.    30.071070: tracing_mark_write: buddyscope: resumed after
"""

STATS = """entries: 1310
overrun: 3
commit overrun: 0
bytes: 39484
oldest event ts:    17.577079
now ts:    30.287645
dropped events: 2
read events: 0
"""

BUDDYINFO = """Node 0, zone      DMA      0      0      0      0      0      0      0      0      1      1      2
Node 0, zone    DMA32      1      0      0      0      0      0      0      0      0      0      1
"""

PAGETYPEINFO = """Page block order: 9
Pages per block:  512

Free pages count per migrate type at order       0      1      2      3      4      5      6      7      8      9     10
Node    0, zone      DMA, type    Unmovable      0      0      0      0      0      0      0      0      0      0      0
Node    0, zone      DMA, type      Movable      0      0      0      0      0      0      0      0      1      1      2
Node    0, zone    DMA32, type    Unmovable      1      0      0      0      0      0      0      0      0      0      0
Node    0, zone    DMA32, type      Movable      0      0      0      0      0      0      0      0      0      0      1

Number of blocks type     Unmovable      Movable  Reclaimable   HighAtomic          CMA      Isolate
Node 0, zone      DMA            1            7            0            0            0            0
Node 0, zone    DMA32            1            2            0            0            0            0
"""


# tracefs kprobe_profile: the event, its hits, its misses (trace_kprobe.c)
KPROBE_PROFILE = """  free_one_page                                            595               0
  free_frozen_page_commit                               691327              12
"""


def snap():
    def zone(name, start, blocks, free_area, nr_free):
        return {"zone": name, "start_pfn": start, "pageblocks": blocks,
                "free_area": free_area, "nr_free": nr_free, "pcp": []}
    return {"version": 2, "migratetype_names": ["Unmovable", "Movable"], "zones": [
        zone("DMA", 1, ["Unmovable"] + ["Movable"] * 7,
             [{"order": 8, "migratetype": "Movable", "pfns": [256]},
              {"order": 9, "migratetype": "Movable", "pfns": [512]},
              {"order": 10, "migratetype": "Movable", "pfns": [1024, 2048]}],
             [0] * 8 + [1, 1, 2]),
        zone("DMA32", 4096, ["Unmovable", "Movable", "Movable", "Absent"],
             [{"order": 0, "migratetype": "Unmovable", "pfns": [4097]},
              {"order": 10, "migratetype": "Movable", "pfns": [5120]}],
             [1] + [0] * 9 + [1]),
    ]}


class Summary(unittest.TestCase):
    def test_parse_trace(self):
        t = capture.parse_trace(TRACE.splitlines())
        self.assertEqual(t["events"], {"mm_page_alloc": 2, "mm_page_alloc_zone_locked": 1,
                                       "mm_page_free": 1, "mm_page_pcpu_drain": 1})
        self.assertEqual(t["total"], 5)
        self.assertEqual(t["events_in_snapshot_window"], {"before": 1, "after": 0})
        self.assertEqual(t["events_while_reading_proc"], {"before": 1})
        self.assertEqual([m["line"] for m in t["markers"]], [5, 7, 9, 12, 13])
        self.assertEqual(t["per_cpu"], {"0": 3, "1": 2})

    def test_lost_events(self):
        s = capture.parse_stats(STATS)
        self.assertEqual((s["overrun"], s["dropped events"], s["entries"]), (3, 2, 1310))
        self.assertEqual(capture.lost_events({"cpu0": s, "cpu1": {"overrun": 1}}), 6)


class Check(unittest.TestCase):
    def test_equal(self):
        diffs, compared = check.compare("before", snap(), BUDDYINFO, PAGETYPEINFO)
        self.assertEqual(diffs, [])
        self.assertGreater(compared, 40)

    def test_difference_is_named(self):
        s = snap()
        s["zones"][1]["free_area"][0]["pfns"].append(4099)
        diffs, _ = check.compare("after", s, BUDDYINFO, PAGETYPEINFO)
        self.assertEqual(diffs, ["after: DMA32/Unmovable/order 0: /proc 1, snapshot 2"])

    def test_capped_count(self):
        free, _ = check.parse_pagetypeinfo(
            "Node    0, zone   Normal, type      Movable >100000      3\n")
        self.assertEqual(free[("Normal", "Movable")], [">100000", 3])


def replay_json(exact, same, allocations=10, kinds=(), causes=()):
    return {"kernel": "v7.2",
            "replay": {"trace_events": 40, "divergence_count": sum(n for _, n in kinds),
                       "divergences_by_kind": [{"kind": k, "count": n} for k, n in kinds]},
            "predict": {"allocations": allocations, "exact": exact, "same_order_and_list": same,
                        "by_cause": [{"cause": c, "count": n, "kernel_fn": "f", "explain": "e"}
                                     for c, n in causes]}}


class PredictTable(unittest.TestCase):
    def test_profile_of(self):
        self.assertEqual(capture.profile_of("6.12.117+deb13-amd64"), "v6.12")
        self.assertEqual(capture.profile_of("7.3.4+deb13-amd64"), "v7.3")
        self.assertEqual(capture.profile_of("7.2.13+deb14-amd64"), "v7.2")
        self.assertIsNone(capture.profile_of("5.10.0-30-amd64"))
        self.assertIsNone(capture.profile_of(""))

    def test_replay_row_reads_expect_and_groups(self):
        doc = replay_json(7, 9, kinds=[("free_of_free", 3)], causes=[("pcp_order", 2),
                                                                     ("other", 1)])
        r = capture.replay_row(doc, "x\nbuddyscope: expect: 4 differences from b.json\n", 1)
        self.assertEqual((r["exact"], r["same_order_and_list"], r["allocations"]), (7, 9, 10))
        self.assertEqual(r["expect_differences"], 4)
        self.assertEqual(r["divergences_by_kind"], {"free_of_free": 3})
        self.assertEqual(r["misses_by_cause"], {"pcp_order": 2, "other": 1})
        self.assertEqual(capture.replay_row(doc, "", 0)["expect_differences"], 0)
        self.assertEqual(capture.replay_row(doc, "error", 2)["expect_differences"], -1)

    def test_table_marks_the_own_profile_and_says_which_is_best(self):
        def row(right, figures):
            return {"capture": "7.2.13/idle", "release": "7.2.13+deb14-amd64", "right": right,
                    "by_profile": {k: capture.replay_row(replay_json(e, e), "", 0 if e == 10 else 1)
                                   for k, e in figures.items()}}
        t = capture.predict_table([row("v7.2", {"v7.1": 8, "v7.2": 10})], ["v7.1", "v7.2"])
        self.assertIn("| `7.2.13/idle` | 80.0 / 80.0 | **100.0 / 100.0 =** | yes (next: v7.1) |",
                      t)
        self.assertIn("- v7.1: 8/10 exact; misses: none; divergences: none; replay failed", t)
        self.assertIn("no: v7.1 better", capture.verdict(row("v7.2", {"v7.1": 9, "v7.2": 8})))
        self.assertEqual(capture.verdict(row("v7.2", {"v7.1": 8, "v7.2": 8})), "tie with v7.1")
        self.assertEqual(capture.verdict(row(None, {"v7.1": 8})), "no own profile")
        # As exact, but only the own profile ends on the after snapshot.
        c = row("v7.2", {"v7.1": 8, "v7.2": 8})
        c["by_profile"]["v7.1"]["expect_differences"] = 2
        c["by_profile"]["v7.2"]["expect_differences"] = 0
        self.assertEqual(capture.verdict(c), "yes: as exact, ends closer (next: v7.1, 2 off)")


class Figures(unittest.TestCase):
    def test_parse_time_reads_the_last_line(self):
        self.assertEqual(capture.parse_time("Command exited with non-zero status 1\n18.83 1146880\n"),
                         (18.83, 1146880))
        self.assertEqual(capture.parse_time("nothing"), (None, None))

    def test_figures_table_has_a_line_per_capture(self):
        row = {"capture": "6.12.117/vmalloc", "lost": 0, "seconds": 1.44, "rss_kib": 174080,
               "figures": capture.replay_row(replay_json(2205, 2224, allocations=2226,
                                                         kinds=[("free_of_free", 3)]), "", 0)}
        t = capture.figures_table([row])
        self.assertIn("| `6.12.117/vmalloc` | 40 | 0 | free_of_free 3 | 2,205/2,226 99.06 % | "
                      "99.91 % | 0 | 1.4 s | 170 MiB |", t)


class Window(unittest.TestCase):
    def test_window_lines(self):
        self.assertEqual(capture.window_lines("3520000-3540000"), (3520000, 3540000))
        self.assertEqual(capture.window_lines("3,520,000-3,540,000"), (3520000, 3540000))
        for bad in ("0-5", "9-3", "12", "a-b"):
            with self.assertRaises(SystemExit) as e:
                capture.window_lines(bad)
            self.assertIn("expected N-M", str(e.exception))


class CaptureHost(unittest.TestCase):
    """capture-host.sh on a fake tracefs root, a fake /proc and a fake drgn."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        t = self.tracefs = os.path.join(self.tmp, "tracing")
        for ev in ["mm_page_alloc", "mm_page_free", "mm_page_free_batched",
                   "mm_page_alloc_zone_locked", "mm_page_pcpu_drain"]:
            os.makedirs(os.path.join(t, "events/kmem", ev))
            write(os.path.join(t, "events/kmem", ev, "enable"), "0\n")
        os.makedirs(os.path.join(t, "events/compaction/mm_compaction_begin"))
        write(os.path.join(t, "events/compaction/mm_compaction_begin/enable"), "0\n")
        for f, v in [("trace_marker", ""), ("tracing_on", "0\n"), ("buffer_size_kb", "1408\n"),
                     ("events/enable", "0\n"), ("trace_clock", "[local] global\n")]:
            write(os.path.join(t, f), v)
        write(os.path.join(t, "trace"), "# stale\n")
        for cpu in (0, 1):
            os.makedirs(os.path.join(t, f"per_cpu/cpu{cpu}"))
            write(os.path.join(t, f"per_cpu/cpu{cpu}/stats"), STATS)
        p = self.proc = os.path.join(self.tmp, "proc")
        os.makedirs(p)
        for f, v in [("buddyinfo", BUDDYINFO), ("pagetypeinfo", PAGETYPEINFO),
                     ("zoneinfo", "Node 0, zone DMA\n"), ("vmstat", "nr_free_pages 3\n"),
                     ("meminfo", "MemFree: 12 kB\n"), ("cmdline", "BOOT_IMAGE=/vmlinuz ro\n")]:
            write(os.path.join(p, f), v)
        # a drgn that prints a node snapshot equal to the fake /proc
        self.drgn = os.path.join(self.tmp, "fake-drgn")
        with open(self.drgn, "w") as f:
            f.write("#!/bin/sh\ncat %s\n" % os.path.join(self.tmp, "snap.json"))
        os.chmod(self.drgn, 0o755)
        write(os.path.join(self.tmp, "snap.json"), json.dumps(snap()))

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def run_capture(self, *cmd, drgn=True, opts=()):
        out = os.path.join(self.tmp, "cap")
        env = dict(os.environ, BUDDYSCOPE_TRACEFS=self.tracefs, BUDDYSCOPE_PROC=self.proc)
        if drgn:
            env["BUDDYSCOPE_DRGN"] = self.drgn
        args = ["bash", os.path.join(LAB, "capture-host.sh"), "--out", out, "--bufkb", "4096",
                *opts]
        if not drgn:
            args.append("--no-drgn")
        r = subprocess.run(args + ["--", *cmd], env=env, capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        return out

    def kprobe_tracefs(self, kallsyms):
        write(os.path.join(self.proc, "kallsyms"), kallsyms)
        for ev in ("free_one_page", "free_frozen_page_commit", "free_unref_page_commit"):
            os.makedirs(os.path.join(self.tracefs, "events/buddyscope", ev))
            write(os.path.join(self.tracefs, "events/buddyscope", ev, "enable"), "0\n")
        write(os.path.join(self.tracefs, "kprobe_events"), "")
        write(os.path.join(self.tracefs, "kprobe_profile"),
              "  free_frozen_page_commit       10       0\n")

    def test_pcp_commit_probe_by_default(self):
        if os.uname().machine != "x86_64":
            self.skipTest("the probe reads x86-64 registers")
        self.kprobe_tracefs("ffffffff81757700 t free_frozen_page_commit\n")
        out = self.run_capture("true", drgn=False)
        self.assertEqual(capture.probes(out), {"free_frozen_page_commit": "on"})
        self.assertIn("buddyscope:free_frozen_page_commit",
                      read(os.path.join(out, "events.txt")).split())
        self.assertTrue(os.path.exists(os.path.join(out, "after/kprobe_profile")))
        # the machine is left without the capture's kprobe
        self.assertEqual(read(os.path.join(self.tracefs, "kprobe_events")),
                         "p:buddyscope/free_frozen_page_commit free_frozen_page_commit "
                         "page=%dx:x64 order=%r8:u32\n-:buddyscope/free_frozen_page_commit\n")

    def test_probes_chosen_or_none(self):
        if os.uname().machine != "x86_64":
            self.skipTest("the probe reads x86-64 registers")
        self.kprobe_tracefs("ffffffff813ab3c0 t free_one_page\n"
                            "ffffffff81757700 t free_unref_page_commit\n")
        out = self.run_capture("true", drgn=False, opts=["--probes", "free_one_page"])
        self.assertEqual(capture.probes(out), {"free_one_page": "on"})
        shutil.rmtree(out)
        out = self.run_capture("true", drgn=False, opts=["--no-probe"])
        self.assertEqual(capture.probes(out), {})
        self.assertNotIn("buddyscope:", read(os.path.join(out, "events.txt")))
        r = subprocess.run(["bash", os.path.join(LAB, "capture-host.sh"), "--probes", "kfree",
                            "--", "true"], capture_output=True, text=True,
                           env=dict(os.environ, BUDDYSCOPE_TRACEFS=self.tracefs))
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown probe kfree (free_one_page, free_frozen_page_commit)", r.stderr)

    def test_a_refused_probe_leaves_the_capture_going(self):
        # no kallsyms entry: the commit function is inlined in this kernel
        out = self.run_capture("true", drgn=False)
        self.assertTrue(capture.probes(out)["free_frozen_page_commit"].startswith("refused: "))
        self.assertTrue(os.path.exists(os.path.join(out, "capture.json")))
        # check.py says so, and does not ask for the refused probe's misses
        write(os.path.join(out, "snapshot-before.json"), json.dumps(snap()))
        write(os.path.join(out, "snapshot-after.json"), json.dumps(snap()))
        self.assertEqual(check.main([out]), 0)
        text = read(os.path.join(out, "check.txt"))
        self.assertIn("probe free_frozen_page_commit refused: ", text)
        self.assertIn(": the capture went on without it\n", text)
        self.assertNotIn("no kprobe_profile saved", text)

    def test_capture_folder(self):
        # capture-host.sh clears the trace when it enables the events: the workload "runs" it
        src = os.path.join(self.tmp, "trace.src")
        write(src, TRACE)
        out = self.run_capture("sh", "-c", f"cat {src} > {self.tracefs}/trace; echo workload ran")
        for f in ["uname.txt", "cmdline.txt", "events.txt", "trace.txt", "stats/cpu0",
                  "stats/cpu1", "before/pagetypeinfo", "after/buddyinfo", "before/zoneinfo",
                  "after/vmstat", "snapshot-before.json", "snapshot-after.json",
                  "capture.json", "check.txt", "workload.log"]:
            self.assertTrue(os.path.exists(os.path.join(out, f)), f)
        c = json.loads(read(os.path.join(out, "capture.json")))
        self.assertEqual(c["source"], "host")
        self.assertTrue(c["workload"].startswith("sh -c cat "))
        self.assertEqual(c["cmdline"], "BOOT_IMAGE=/vmlinuz ro")
        self.assertEqual(c["lost_events"], 10)
        self.assertEqual(c["total_events"], 5)
        self.assertIn("kmem:mm_page_alloc", c["events_enabled"])
        self.assertNotIn("kmem:mm_page_alloc_extfrag", c["events_enabled"])  # not in this kernel
        self.assertIn("compaction:mm_compaction_begin", c["events_enabled"])
        self.assertIn("workload ran", read(os.path.join(out, "workload.log")))
        self.assertEqual(read(os.path.join(self.tracefs, "trace_marker")),
                         "buddyscope: resumed after\n")  # a file here: the last write
        markers = read(os.path.join(out, "markers.txt")).splitlines()
        self.assertEqual(markers, ["buddyscope: proc before", "buddyscope: snapshot before",
                                   "buddyscope: resumed before", "buddyscope: proc after",
                                   "buddyscope: snapshot after", "buddyscope: resumed after"])
        self.assertTrue(read(os.path.join(out, "check.txt")).startswith("before: equal"))
        # the machine's tracing is left as it was
        t = self.tracefs
        self.assertEqual(read(os.path.join(t, "events/kmem/mm_page_alloc/enable")).strip(), "1")
        self.assertEqual(read(os.path.join(t, "events/enable")).strip(), "0")
        self.assertEqual(read(os.path.join(t, "buffer_size_kb")).strip(), "1408")
        self.assertEqual(read(os.path.join(t, "tracing_on")).strip(), "0")

    def test_without_drgn(self):
        out = self.run_capture("true", drgn=False)
        self.assertFalse(os.path.exists(os.path.join(out, "snapshot-before.json")))
        self.assertEqual(json.loads(read(os.path.join(out, "capture.json")))["snapshots"], [])


class Probes(unittest.TestCase):
    """capture-lib.sh's cap_enable_probes (lab/run.sh --probe) on a fake tracefs and /proc."""

    def run_probe(self, kallsyms, probes="free_one_page"):
        if os.uname().machine != "x86_64":
            self.skipTest("the free_one_page probe reads x86-64 registers")
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        t = os.path.join(tmp, "tracing")
        for ev in ("free_one_page", "free_frozen_page_commit", "free_unref_page_commit"):
            os.makedirs(os.path.join(t, "events/buddyscope", ev))
            write(os.path.join(t, "events/buddyscope", ev, "enable"), "0\n")
        write(os.path.join(t, "kprobe_events"), "")
        p = os.path.join(tmp, "proc")
        os.makedirs(p)
        write(os.path.join(p, "kallsyms"), kallsyms)
        cap = os.path.join(tmp, "cap")
        os.makedirs(cap)
        write(os.path.join(cap, "events.txt"), "kmem:mm_page_free\n")
        script = (f". {LAB}/capture-lib.sh; TRACEFS={t}; CAP={cap}; "
                  f"cap_enable_probes {probes}")
        r = subprocess.run(["sh", "-c", script], env=dict(os.environ, BUDDYSCOPE_PROC=p),
                           capture_output=True, text=True)
        return r, t, cap

    def test_free_one_page_probe(self):
        r, t, cap = self.run_probe("ffffffff813aad50 t __free_one_page\n"
                                   "ffffffff813ab3c0 t free_one_page\n")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(read(os.path.join(t, "kprobe_events")),
                         "p:buddyscope/free_one_page free_one_page pfn=%dx:x64 order=%cx:u32\n")
        self.assertEqual(read(os.path.join(t, "events/buddyscope/free_one_page/enable")), "1\n")
        self.assertEqual(read(os.path.join(cap, "events.txt")).split(),
                         ["kmem:mm_page_free", "buddyscope:free_one_page"])
        self.assertEqual(read(os.path.join(cap, "probes.txt")), "free_one_page on\n")
        self.assertEqual(capture.probes(cap), {"free_one_page": "on"})

    def test_no_probe_on_an_inlined_free_one_page(self):
        r, t, cap = self.run_probe("ffffffff813aad50 t __free_one_page\n")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("no out-of-line free_one_page", r.stderr)
        self.assertEqual(read(os.path.join(t, "kprobe_events")), "")
        self.assertEqual(read(os.path.join(cap, "events.txt")).split(), ["kmem:mm_page_free"])
        # capture.json says why the capture went on without it
        self.assertEqual(capture.probes(cap),
                         {"free_one_page": "refused: no out-of-line free_one_page in kallsyms"})

    def test_pcp_commit_probe(self):
        # 7.x: free_frozen_page_commit; 6.12: the same function as free_unref_page_commit
        for sym in ("free_frozen_page_commit", "free_unref_page_commit"):
            r, t, cap = self.run_probe("ffffffff813ab3c0 t free_one_page\n"
                                       f"ffffffff81757700 t {sym}\n"
                                       f"ffffffff8122a999 t {sym}.cold\n",
                                       "free_one_page free_frozen_page_commit")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(read(os.path.join(t, "kprobe_events")),
                             "p:buddyscope/free_one_page free_one_page pfn=%dx:x64 order=%cx:u32\n"
                             f"p:buddyscope/{sym} {sym} page=%dx:x64 order=%r8:u32\n")
            self.assertEqual(read(os.path.join(t, "events/buddyscope", sym, "enable")), "1\n")
            self.assertEqual(read(os.path.join(cap, "events.txt")).split(),
                             ["kmem:mm_page_free", "buddyscope:free_one_page", f"buddyscope:{sym}"])
            self.assertEqual(capture.probes(cap),
                             {"free_one_page": "on", "free_frozen_page_commit": "on"})

    def test_no_pcp_commit_probe_when_inlined(self):
        r, t, cap = self.run_probe("ffffffff813ab3c0 t free_one_page\n",
                                   "free_one_page free_frozen_page_commit")
        self.assertNotEqual(r.returncode, 0)
        self.assertEqual(read(os.path.join(t, "kprobe_events")),
                         "p:buddyscope/free_one_page free_one_page pfn=%dx:x64 order=%cx:u32\n")
        self.assertEqual(capture.probes(cap)["free_frozen_page_commit"],
                         "refused: no out-of-line free_frozen_page_commit or free_unref_page_commit"
                         " in kallsyms")

    def test_kprobe_profile_is_saved_with_the_trace(self):
        # cap_trace_out copies kprobe_profile (hits, misses) when the capture took probes
        r, t, cap = self.run_probe("ffffffff81757700 t free_frozen_page_commit\n",
                                   "free_frozen_page_commit")
        self.assertEqual(r.returncode, 0, r.stderr)
        write(os.path.join(t, "trace"), "# tracer: nop\n")
        write(os.path.join(t, "kprobe_profile"), KPROBE_PROFILE)
        r = subprocess.run(["sh", "-c", f". {LAB}/capture-lib.sh; TRACEFS={t}; CAP={cap}; "
                            "cap_trace_out"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(read(os.path.join(cap, "kprobe_profile")), KPROBE_PROFILE)
        self.assertEqual(capture.kprobe_profile(cap),
                         {"free_one_page": {"hits": 595, "misses": 0},
                          "free_frozen_page_commit": {"hits": 691327, "misses": 12}})

    def test_kprobe_profile_at_the_dump_points(self):
        # cap_proc copies kprobe_profile at each point: the window's counts are the difference
        r, t, cap = self.run_probe("ffffffff81757700 t free_frozen_page_commit\n",
                                   "free_frozen_page_commit")
        self.assertEqual(r.returncode, 0, r.stderr)
        proc = os.path.join(os.path.dirname(cap), "proc")
        for f in ("buddyinfo", "pagetypeinfo", "zoneinfo", "vmstat", "meminfo"):
            write(os.path.join(proc, f), "x\n")
        for point, profile in (("before", "  free_frozen_page_commit     1000     4\n"),
                               ("after", "  free_frozen_page_commit   700000    10\n")):
            os.makedirs(os.path.join(cap, point))
            write(os.path.join(t, "kprobe_profile"), profile)
            subprocess.run(["sh", "-c", f". {LAB}/capture-lib.sh; TRACEFS={t}; CAP={cap}; "
                            f"cap_proc {point}"], env=dict(os.environ, BUDDYSCOPE_PROC=proc),
                           check=True)
            self.assertEqual(read(os.path.join(cap, point, "kprobe_profile")), profile)
        write(os.path.join(cap, "kprobe_profile"), "  free_frozen_page_commit  3700000  30\n")
        self.assertEqual(capture.kprobe_profile(cap),
                         {"free_frozen_page_commit": {"hits": 699000, "misses": 6}})
        self.assertEqual(capture.kprobe_profile_span(cap), "between the dump points")

    def test_no_kprobe_profile_without_probes(self):
        r, t, cap = self.run_probe("", "")
        write(os.path.join(t, "trace"), "# tracer: nop\n")
        write(os.path.join(t, "kprobe_profile"), "")
        subprocess.run(["sh", "-c", f". {LAB}/capture-lib.sh; TRACEFS={t}; CAP={cap}; "
                        "cap_trace_out"], check=True)
        self.assertFalse(os.path.exists(os.path.join(cap, "kprobe_profile")))
        self.assertEqual(capture.kprobe_profile(cap), {})

    def test_misses_are_said_plainly(self):
        prof = capture.parse_kprobe_profile(KPROBE_PROFILE)
        self.assertEqual(capture.probe_misses(prof),
                         ["probe free_frozen_page_commit missed 12 of 691,339 hits: a free without"
                          " its free_frozen_page_commit line is not proof (a kprobe hit inside "
                          "another kprobe's handler is counted, not traced)"])
        self.assertEqual(capture.probe_misses({"free_one_page": {"hits": 5, "misses": 0}}), [])
        # check.py names every probe's counts and fails on a miss
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        for point in ("before", "after"):
            os.makedirs(os.path.join(tmp, point))
            write(os.path.join(tmp, point, "buddyinfo"), BUDDYINFO)
            write(os.path.join(tmp, point, "pagetypeinfo"), PAGETYPEINFO)
            write(os.path.join(tmp, f"snapshot-{point}.json"), json.dumps(snap()))
        write(os.path.join(tmp, "probes.txt"), "free_one_page on\n")
        self.assertEqual(check.main([tmp]), 0)
        self.assertIn("probes: no kprobe_profile saved", read(os.path.join(tmp, "check.txt")))
        write(os.path.join(tmp, "kprobe_profile"), KPROBE_PROFILE)
        self.assertEqual(check.main([tmp]), 1)
        text = read(os.path.join(tmp, "check.txt"))
        self.assertIn("probe free_one_page: 595 hits, 0 missed (the whole run: no kprobe_profile"
                      " at the dump points)\n", text)
        self.assertIn("WARNING: probe free_frozen_page_commit missed 12 of 691,339 hits", text)
        # and so do the figures
        row = {"capture": "7.2.13/fragment", "lost": 0, "seconds": 1.0, "rss_kib": 1024,
               "kprobe_profile": prof,
               "figures": capture.replay_row(replay_json(5, 5), "", 0)}
        t = capture.figures_table([row])
        self.assertIn("`7.2.13/fragment` probes: free_frozen_page_commit 691,327 hits, 12 missed, "
                      "free_one_page 595 hits, 0 missed", t)
        self.assertIn("  WARNING: probe free_frozen_page_commit missed 12", t)

    def test_no_probes_file_is_no_probe(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        self.assertEqual(capture.probes(tmp), {})


class Scripts(unittest.TestCase):
    def test_bash_n(self):
        for f in sorted(os.listdir(LAB)):
            if f.endswith(".sh"):
                r = subprocess.run(["bash", "-n", os.path.join(LAB, f)], capture_output=True, text=True)
                self.assertEqual(r.returncode, 0, f + ": " + r.stderr)

    def test_shellcheck(self):
        if not shutil.which("shellcheck"):
            self.skipTest("shellcheck not installed")
        for f in sorted(os.listdir(LAB)):
            if f.endswith(".sh"):
                r = subprocess.run(["shellcheck", "-x", os.path.join(LAB, f)], cwd=os.path.dirname(LAB),
                                   capture_output=True, text=True)
                self.assertEqual(r.returncode, 0, f + ": " + r.stdout)


if __name__ == "__main__":
    unittest.main()
