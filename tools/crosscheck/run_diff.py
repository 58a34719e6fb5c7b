#!/usr/bin/env python3
"""Differential tester: buddyscope (Rust) vs model.py (Python, from the design documents).

For every scenario (the built-in engine/scenarios/*.json except the `workload` one, then seeded
random ones) it runs `buddyscope run FILE --format F` for F in buddyinfo, pagetypeinfo, zoneinfo,
trace and the Python model, and compares byte for byte (trace: lines starting with `#` removed,
as the contract says).  Every discrepancy is shrunk by greedy op removal and written to OUTDIR.

    python3 tools/crosscheck/run_diff.py [--count N] [--seed S] [--out DIR] [--bin PATH]
"""
import argparse
import copy
import json
import os
import random
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import model  # noqa: E402

COVERAGE = {}   # branch -> number of scenarios that hit it (model.Model.cov)
FORMATS = ["buddyinfo", "pagetypeinfo", "zoneinfo", "trace", "lock_holds"]


def lock_holds_text(holds):
    """The CLI json's run-wide `lock_holds` as model.Model.lock_holds_text prints it."""
    return "".join("%s holds %d pages %d max %d buckets %s\n"
                   % (k, holds[k]["holds"], holds[k]["pages"], holds[k]["max"], holds[k]["buckets"])
                   for k in sorted(holds))


def strip_comments(text):
    return "".join(l for l in text.splitlines(True) if not l.startswith("#"))


def run_rust(binary, path):
    outs = {}
    for f in FORMATS:
        cli = "json" if f == "lock_holds" else f
        r = subprocess.run([binary, "run", path, "--format", cli], capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            return None, r.stderr.strip()[:300]
        if f == "lock_holds":
            outs[f] = lock_holds_text(json.loads(r.stdout)["lock_holds"])
        else:
            outs[f] = strip_comments(r.stdout) if f == "trace" else r.stdout
    return outs, None


def run_py(doc):
    try:
        m = model.Model(copy.deepcopy(doc))
        m.run()
    except Exception as e:  # noqa: BLE001
        return None, "%s: %s" % (type(e).__name__, e)
    if m.undefined:
        return "undefined", None
    for k, v in m.cov.items():
        COVERAGE[k] = COVERAGE.get(k, 0) + (1 if v else 0)
    return {"buddyinfo": m.buddyinfo(), "pagetypeinfo": m.pagetypeinfo(),
            "zoneinfo": m.zoneinfo(), "trace": strip_comments(m.trace_text()),
            "lock_holds": m.lock_holds_text()}, None


def first_diff(a, b):
    la, lb = a.splitlines(), b.splitlines()
    for i in range(max(len(la), len(lb))):
        x = la[i] if i < len(la) else "<EOF>"
        y = lb[i] if i < len(lb) else "<EOF>"
        if x != y:
            return i + 1, x, y
    return None


def compare(binary, doc, tmpdir):
    """Returns (status, detail): status 'same', 'diff', 'rust_error', 'py_error'."""
    path = os.path.join(tmpdir, "s.json")
    with open(path, "w") as fh:
        json.dump(doc, fh)
    ro, rerr = run_rust(binary, path)
    if ro is None:
        if run_py(doc)[0] == "undefined":
            return "undefined", rerr      # contract: outcome undefined (e.g. vfree after pfn free)
        return "rust_error", rerr
    po, perr = run_py(doc)
    if po == "undefined":
        return "undefined", None
    if po is None:
        return "py_error", perr
    diffs = {}
    for f in FORMATS:
        if ro[f] != po[f]:
            diffs[f] = first_diff(ro[f], po[f])
    if diffs:
        return "diff", diffs
    return "same", None


# ---------------------------------------------------------------- random scenarios
class Gen:
    """Random scenario generator: small zones so that fallbacks, claims, steals, watermark
    failures and pcp drains are frequent."""

    def __init__(self, seed, zones=None, max_ops=45):
        self.max_ops = max_ops
        self.r = random.Random(seed)
        self.n = 0
        self.zones = zones        # optional list of zone sizes to pick from
        self.cma = False          # --cma: half of the zones get "cma": true (numbering only in v1)

    def name(self):
        self.n += 1
        return "n%d" % self.n

    def zone(self):
        r = self.r
        pages = r.choice([1024, 1024, 1536, 2048, 2048, 2560, 3000, 3072, 4096, 4096, 6144,
                          8192, 8192, 12288, 16384, 32768, 53248, 65536, 65536])
        if self.zones:
            pages = r.choice(self.zones)
        z = {"pages": pages, "cpus": r.choice([1, 1, 2, 3, 4]),
             "rmqueue_mode_memory": r.random() < 0.6}
        if self.cma and r.random() < 0.5:
            z["cma"] = True
        if r.random() < 0.2:
            z["start_pfn"] = r.choice([1024, 4096, 32768])
        if z.get("cma"):
            # zone.cma_pageblocks: a random run of whole pageblocks inside the zone
            start = z.get("start_pfn", 0)
            first = -(-start // 512)
            nblocks = (start + pages) // 512 - first
            if nblocks > 0 and r.random() < 0.7:
                a = r.randrange(nblocks)
                n = r.randint(1, nblocks - a)
                z["cma_pageblocks"] = {"start_pfn": (first + a) * 512, "nr_pages": n * 512}
        if r.random() < 0.25:
            z["min_free_kbytes"] = r.choice([128, 256, 512, 1024, 2048, 4096])
        if r.random() < 0.2:
            pcp = {}
            if r.random() < 0.6:
                pcp["batch"] = r.choice([1, 2, 3, 7, 15, 31, 63])
            if r.random() < 0.5:
                pcp["high_min"] = r.choice([0, 4, 16, 64, 200, 1000])
            if r.random() < 0.5:
                pcp["high_max"] = r.choice([0, 8, 64, 256, 2000])
            z["pcp"] = pcp
        if r.random() < 0.25:
            # alloc_flags_nofragment(): only a Normal zone gets the ALLOC_NOFRAGMENT first pass.
            z["name"] = r.choice(["DMA32", "DMA32", "DMA"])
        return z

    def node(self):
        """A random node of several zones: DMA32 + Normal, sometimes DMA too,
        small enough that allocations spill from Normal into the zones below."""
        r = self.r
        cpus = r.choice([1, 1, 2, 3])
        zones = []
        if r.random() < 0.25:
            zones.append({"name": "DMA", "start_pfn": 1024, "pages": r.choice([1024, 2048, 3072])})
        lo = max(4096, zones[-1]["start_pfn"] + zones[-1]["pages"] if zones else 0)
        d32 = r.choice([1024, 2048, 3072, 4096, 8192, 16384])
        start = r.choice([lo, lo + 1024, 0x100000 - d32])
        zones.append({"name": "DMA32", "start_pfn": start, "pages": d32})
        n_start = r.choice([0x100000, start + d32, 0x100000 + 4096])
        zones.append({"name": "Normal", "start_pfn": n_start,
                      "pages": r.choice([1024, 2048, 3072, 4096, 8192, 16384, 32768])})
        for z in zones:
            z["cpus"] = cpus
            z["rmqueue_mode_memory"] = r.random() < 0.6
            if r.random() < 0.2:
                z["pcp"] = {"batch": r.choice([1, 2, 3, 7, 15, 31])}
        if r.random() < 0.3:
            zones[r.randrange(len(zones))]["min_free_kbytes"] = r.choice([128, 256, 512, 1024, 4096])
        return zones

    def span(self):
        """(start, pages) of a zone for pfn-based ops: one of the node's zones."""
        return self.r.choice(self.spans)

    def scenario(self):
        r = self.r
        self.n = 0
        if r.random() < 0.3:
            zones = self.node()
            self.spans = [(z["start_pfn"], z["pages"]) for z in zones]
            self.zone_names = [z["name"] for z in zones]
            self.cma_area = None
            self.start, self.pages = self.spans[-1]
            self.cpus = zones[0]["cpus"]
            doc = {"version": 1, "kernel": r.choice(["v6.18", "v6.19", "v7.1", "v7.2"]), "zones": zones,
                   "init": "boot"}
        else:
            z = self.zone()
            self.start = z.get("start_pfn", 0)
            self.pages = z["pages"]
            self.cpus = z["cpus"]
            self.spans = [(self.start, self.pages)]
            self.zone_names = []
            self.cma_area = z.get("cma_pageblocks")
            doc = {"version": 1, "kernel": r.choice(["v6.18", "v6.19", "v7.1", "v7.2"]), "zone": z, "init": "boot"}
        self.names = {"alloc": [], "contig": [], "vmalloc": [], "refs": [], "cma": []}
        self.ranges = []          # (pfn, n) of alloc_contig_range ops
        ops = []
        for _ in range(r.randint(5, self.max_ops)):
            if self.cma_area and r.random() < 0.08:
                ops.extend(self.cma_pattern())
            elif r.random() < 0.12:
                ops.extend(self.pattern())
            else:
                ops.append(self.op(self.names, depth=0))
        doc["ops"] = ops
        return doc

    def pattern(self):
        """Multi-op patterns that create fragmentation and watermark pressure."""
        r = self.r
        k = r.choice(["fill", "fill", "frag", "holes", "held", "migrate"])
        mt = r.choices(["unmovable", "movable", "reclaimable"], [4, 5, 2])[0]
        if k == "fill":
            # leak allocations in a repeat scope: the zone gets close to its watermarks
            o = r.choice([10, 9, 9, 5, 3, 0])
            t = max(1, int(self.pages * r.uniform(0.2, 0.95)) >> o)
            t = min(t, 300)
            op = {"op": "alloc", "order": o, "mt": mt}
            if r.random() < 0.2:
                op["highatomic"] = True
            out = [{"op": "repeat", "times": t, "ops": [op]}]
            for _ in range(r.randint(0, 4)):       # then some GFP_ATOMIC high-order requests
                nm = self.name()
                self.names["alloc"].append(nm)
                out.append({"op": "alloc", "order": r.choice([1, 2, 3, 9]), "highatomic": True,
                            "mt": r.choice(["unmovable", "movable", "reclaimable"]), "as": nm})
                if r.random() < 0.5:
                    out.append({"op": "free", "ref": nm})
            return out
        if k == "frag":
            # one large block, split, then free scattered pages of it
            o = r.choice([10, 9, 8])
            nm = self.name()
            self.names["alloc"].append(nm)
            out = [{"op": "alloc", "order": o, "mt": mt, "as": nm}, {"op": "split", "ref": nm}]
            step = r.choice([2, 3, 4, 8])
            first = r.randrange(step)
            idx = list(range(first, 1 << o, step))
            r.shuffle(idx)
            for i in sorted(idx[:r.randint(5, 120)]):
                out.append({"op": "free", "ref": nm, "page": i})
            return out
        if k == "held":
            # a split block or a contig range freed while get_page references hold some pages
            nm = self.name()
            if r.random() < 0.5:
                o = r.choice([10, 9, 4, 0])
                self.names["alloc"].append(nm)
                out = [{"op": "alloc", "order": o, "mt": mt, "as": nm}]
                if o > 0:
                    out.append({"op": "split", "ref": nm})
                n = 1 << o
            else:
                n = min(self.pages, r.choice([16, 100, 512]))
                pfn = self.start + (r.randrange(0, self.pages - n + 1) & ~r.choice([0, 7, 511]))
                self.names["contig"].append(nm)
                out = [{"op": "alloc_contig_range", "pfn": pfn, "nr_pages": n, "as": nm}]
            held = sorted(set(r.randrange(n) for _ in range(r.randint(1, 3))))
            for i in held:
                out.append({"op": "get_page", "ref": nm, "page": i})
                if r.random() < 0.2:
                    out.append({"op": "get_page", "ref": nm, "page": i})
            if r.random() < 0.6:
                op = {"op": "free_contig_range", "ref": nm}
                if r.random() < 0.5:
                    op["method"] = r.choice(["per_page", "chunked"])
                out.append(op)
            else:
                out.append({"op": "free", "ref": nm})
            r.shuffle(held)
            for i in held:
                for _ in range(r.choice([1, 1, 2, 3])):
                    out.append({"op": "put_page", "ref": nm, "page": i,
                                "cpu": r.randrange(self.cpus)})
            return out
        if k == "migrate":
            # movable data (some of it named, some split), then an alloc_contig_range over part
            # of the zone: the movable pages in it migrate (or the call fails), and the names
            # follow their pages
            o = r.choice([0, 0, 3, 9])
            t = max(1, int(self.pages * r.uniform(0.1, 0.7)) >> o)
            out = [{"op": "repeat", "times": min(t, 200),
                    "ops": [{"op": "alloc", "order": o, "mt": "movable"}]}]
            mine = []
            for _ in range(r.randint(1, 6)):
                nm = self.name()
                mine.append(nm)
                out.append({"op": "alloc", "order": r.choice([0, 1, 3, 9]), "mt": "movable", "as": nm})
                if r.random() < 0.3:
                    out.append({"op": "split", "ref": nm})
            n = min(self.pages, r.choice([16, 100, 512, 1024, 1100, 2048]))
            pfn = self.start + r.randrange(0, self.pages - n + 1)
            if r.random() < 0.5:
                pfn = max(self.start, pfn & ~511)
            cn = self.name()
            self.names["contig"].append(cn)
            out.append({"op": "alloc_contig_range", "pfn": pfn, "nr_pages": n, "as": cn})
            for nm in mine:
                if r.random() < 0.3:
                    out.append({"op": "free", "ref": nm, "page": r.randint(0, 7)})
                else:
                    out.append({"op": "free", "ref": nm})
            self.names["alloc"].extend(mine)
            return out
        # holes: a large contig range, then pfn-based frees of parts of it
        start, pages = self.span()
        n = min(pages, r.choice([512, 1024, 2048]))
        pfn = start + (r.randrange(0, pages - n + 1) & ~511)
        nm = self.name()
        self.names["contig"].append(nm)
        self.ranges.append((pfn, n))
        out = [{"op": "alloc_contig_range", "pfn": pfn, "nr_pages": n, "as": nm}]
        for _ in range(r.randint(2, 12)):
            a = r.randrange(0, n)
            b = min(n, a + r.choice([1, 2, 5, 16, 33, 100]))
            out.append({"op": "free_contig_range", "pfn": pfn + a, "nr_pages": b - a,
                        "method": r.choice(["per_page", "chunked"])})
        return out

    def cma_op(self, names):
        """cma_alloc from the zone's CMA area, or cma_release of an earlier one."""
        r = self.r
        if names["cma"] and r.random() < 0.4:
            op = {"op": "cma_release", "ref": r.choice(names["cma"])}
        else:
            size = self.cma_area["nr_pages"]
            n = min(size, r.choice([1, 3, 16, 100, 512, 513, 1024, 2048, size]))
            op = {"op": "cma_alloc", "nr_pages": n, "as": self.name()}
            if r.random() < 0.6:
                op["align"] = r.choice([0, 1, 4, 9, 10])
            names["cma"].append(op["as"])
        if self.cpus > 1 and r.random() < 0.5:
            op["cpu"] = r.randrange(self.cpus)
        return op

    def cma_pattern(self):
        """Movable data (some of it in the CMA area: __rmqueue's CMA balancing), a pinned page
        or two, then cma_alloc (migration, -EBUSY retries) and cma_release."""
        r = self.r
        o = r.choice([0, 0, 3, 9])
        t = max(1, int(self.pages * r.uniform(0.1, 0.6)) >> o)
        out = [{"op": "repeat", "times": min(t, 150),
                "ops": [{"op": "alloc", "order": o, "mt": "movable"}]}]
        mine = []
        for _ in range(r.randint(1, 5)):
            nm = self.name()
            mine.append(nm)
            out.append({"op": "alloc", "order": 0, "mt": "movable", "as": nm})
        pinned = [nm for nm in mine if r.random() < 0.3]
        for nm in pinned:
            out.append({"op": "get_page", "ref": nm, "page": 0})
        size = self.cma_area["nr_pages"]
        cn = self.name()
        out.append({"op": "cma_alloc", "nr_pages": min(size, r.choice([16, 100, 512, 1024, size])),
                    "align": r.choice([4, 9, 9, 10]), "as": cn})
        if r.random() < 0.7:
            out.append({"op": "cma_release", "ref": cn})
        self.names["cma"].append(cn)
        for nm in pinned:
            out.append({"op": "put_page", "ref": nm, "page": 0})
        for nm in mine:
            if r.random() < 0.5:
                out.append({"op": "free", "ref": nm})
        self.names["alloc"].extend(mine)
        return out

    def op(self, names, depth):
        r = self.r
        if self.cma_area and r.random() < 0.1:
            return self.cma_op(names)
        k = r.choices(["alloc", "free", "split", "acr", "fcr", "vmalloc", "vfree", "drain", "tick", "repeat",
                       "getp", "putp"],
                      [40, 18, 8, 5, 8, 6, 5, 5, 4, 3 if depth < 2 else 0, 4, 4])[0]
        op = None
        if k == "alloc":
            order = r.choices(range(11), [30, 10, 8, 8, 5, 4, 3, 3, 3, 6, 4])[0]
            op = {"op": "alloc", "order": order,
                  "mt": r.choices(["unmovable", "movable", "reclaimable"], [4, 5, 2])[0]}
            if r.random() < 0.08:
                op["highatomic"] = True
            if self.zone_names and r.random() < 0.3:
                op["zone"] = r.choice(self.zone_names[:-1])       # GFP_DMA32 / GFP_DMA
            if r.random() < 0.8:
                op["as"] = self.name()
                names["alloc"].append(op["as"])
        elif k == "free" and (names["alloc"] or names["contig"]):
            pool = names["alloc"] + names["contig"]
            op = {"op": "free", "ref": r.choice(pool)}
            if r.random() < 0.25:
                op["page"] = r.randint(0, 7)
        elif k == "split" and names["alloc"]:
            op = {"op": "split", "ref": r.choice(names["alloc"])}
        elif k == "acr":
            start, pages = self.span()
            n = r.choice([1, 3, 16, 100, 300, 512, 1024, 1100])
            n = min(n, pages)
            pfn = start + r.randrange(0, pages - n + 1)
            if r.random() < 0.5:
                pfn &= ~(r.choice([1, 8, 64, 512]) - 1)
                pfn = max(pfn, start)
            op = {"op": "alloc_contig_range", "pfn": pfn, "nr_pages": n, "as": self.name()}
            names["contig"].append(op["as"])
            self.ranges.append((pfn, n))
        elif k == "fcr" and (names["alloc"] or names["contig"] or self.ranges):
            if self.ranges and r.random() < 0.35:
                pfn, n = r.choice(self.ranges)
                a = r.randrange(0, n)
                b = r.randint(a + 1, n)
                op = {"op": "free_contig_range", "pfn": pfn + a, "nr_pages": b - a}
            else:
                pool = names["alloc"] + names["contig"]
                if not pool:
                    return {"op": "drain", "cpu": "all"}
                op = {"op": "free_contig_range", "ref": r.choice(pool)}
            if r.random() < 0.5:
                op["method"] = r.choice(["per_page", "chunked"])
            if r.random() < 0.3:
                op["frozen"] = True
        elif k == "vmalloc":
            op = {"op": "vmalloc", "pages": r.choice([1, 2, 5, 50, 100, 101, 200, 512, 513, 700, 1000, 1500, 3000])}
            if r.random() < 0.5:
                op["strategy"] = r.choice(["bulk", "large_order"])
            op["as"] = self.name()
            names["vmalloc"].append(op["as"])
        elif k == "vfree" and names["vmalloc"]:
            op = {"op": "vfree", "ref": r.choice(names["vmalloc"])}
            if r.random() < 0.5:
                op["method"] = r.choice(["per_page", "chunked"])
        elif k == "drain":
            op = {"op": "drain", "cpu": r.choice(["all"] + list(range(self.cpus)))}
            return op
        elif k == "tick":
            op = {"op": "tick"}
            if self.cpus > 1 and r.random() < 0.3:
                op["cpu"] = r.randrange(self.cpus)
            return op
        elif k == "getp" and (names["alloc"] or names["contig"]):
            nm = r.choice(names["alloc"] + names["contig"])
            page = r.choice([0, 0, 1, 3, 7, 100, 511])
            op = {"op": "get_page", "ref": nm, "page": page}
            names["refs"].append((nm, page))
        elif k == "putp" and names["refs"]:
            nm, page = r.choice(names["refs"])
            op = {"op": "put_page", "ref": nm, "page": page}
        elif k == "repeat":
            inner = {"alloc": list(names["alloc"]), "contig": list(names["contig"]),
                     "vmalloc": list(names["vmalloc"]), "refs": list(names["refs"]),
                     "cma": list(names["cma"])}
            ops = [self.op(inner, depth + 1) for _ in range(r.randint(1, 5))]
            # inner names must not be referenced after the repeat (dropped scope)
            return {"op": "repeat", "times": r.randint(0, 4), "ops": ops}
        if op is None:
            return {"op": "drain", "cpu": "all"}
        if self.cpus > 1 and r.random() < 0.5:
            op["cpu"] = r.randrange(self.cpus)
        return op


# ---------------------------------------------------------------- shrinking
def op_paths(ops, prefix=()):
    for i, op in enumerate(ops):
        yield prefix + (i,)
        if op.get("op") == "repeat":
            for p in op_paths(op["ops"], prefix + (i, "ops")):
                yield p


def remove_at(doc, path):
    d = copy.deepcopy(doc)
    lst = d["ops"]
    for step in path[:-1]:
        lst = lst[step] if isinstance(step, str) else lst[step]
    del lst[path[-1]]
    return d


def shrink(binary, doc, tmpdir, signature):
    """Greedy op removal, keeping any scenario whose diff still has the same signature."""
    cur = doc
    changed = True
    while changed:
        changed = False
        paths = list(op_paths(cur["ops"]))
        for path in reversed(paths):
            cand = remove_at(cur, path)
            st, det = compare(binary, cand, tmpdir)
            if st == "diff" and sig(det) == signature:
                cur = cand
                changed = True
                break
        # also try reducing repeat counts
        if not changed:
            for path in op_paths(cur["ops"]):
                cand = copy.deepcopy(cur)
                lst = cand["ops"]
                for step in path[:-1]:
                    lst = lst[step]
                op = lst[path[-1]]
                if op.get("op") == "repeat" and op["times"] > 1:
                    op["times"] = 1
                    st, det = compare(binary, cand, tmpdir)
                    if st == "diff" and sig(det) == signature:
                        cur = cand
                        changed = True
                        break
    return cur


def shrink_panic(binary, doc, tmpdir):
    """Greedy op removal keeping a Rust panic (non-zero exit with 'panicked')."""
    def panics(d):
        st, det = compare(binary, d, tmpdir)
        return st == "rust_error" and "panicked" in (det or "")
    cur = doc
    changed = True
    while changed:
        changed = False
        for path in reversed(list(op_paths(cur["ops"]))):
            cand = remove_at(cur, path)
            if panics(cand):
                cur, changed = cand, True
                break
    return cur


def sig(diffs):
    """Coarse signature: which outputs differ, and the event/field name on the first trace diff."""
    keys = sorted(diffs)
    t = diffs.get("trace")
    ev = ""
    if t:
        ev = (t[1].split(":")[0] + "|" + t[2].split(":")[0])
    return ",".join(keys) + "/" + ev


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "debug", "buddyscope"))
    ap.add_argument("--no-builtin", action="store_true")
    ap.add_argument("--cma", action="store_true", help="also generate zone.cma: true")
    ap.add_argument("--guided", default="", help="comma-separated model branches (see COVERAGE); "
                    "only scenarios reaching one of them are compared")
    ap.add_argument("--max-ops", type=int, default=45, help="top-level ops per random scenario (5..N)")
    ap.add_argument("--zones", default="", help="comma-separated zone sizes to draw from (default: built-in mix)")
    ap.add_argument("--max-shrinks", type=int, default=20)
    ap.add_argument("--compat", default="",
                    help="comma-separated model.COMPAT knobs imitating known Rust discrepancies ('' = strict)")
    ap.add_argument("--time-limit", type=float, default=0, help="seconds; 0 = none")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for k in filter(None, a.compat.split(",")):
        model.COMPAT[k] = True
    tmpdir = tempfile.mkdtemp(prefix="crosscheck")
    t0 = time.time()
    stats = {"same": 0, "diff": 0, "rust_error": 0, "py_error": 0, "undefined": 0}
    seen = {}
    if not a.no_builtin:
        sdir = os.path.join(ROOT, "engine", "scenarios")
        for fn in sorted(os.listdir(sdir)):
            if not fn.endswith(".json"):
                continue
            doc = json.load(open(os.path.join(sdir, fn)))
            if any(op.get("op") == "workload" for op in doc.get("ops", [])):
                continue
            st, det = compare(a.bin, doc, tmpdir)
            print("builtin %-40s %s %s" % (fn, st, det if det else ""), flush=True)
            stats[st] += 1
    g = Gen(a.seed, [int(x) for x in a.zones.split(",")] if a.zones else None, a.max_ops)
    g.cma = a.cma
    shrinks = 0
    for i in range(a.count):
        if a.time_limit and time.time() - t0 > a.time_limit:
            print("time limit reached after %d random scenarios" % i)
            break
        doc = g.scenario()
        doc["name"] = "random seed %d #%d" % (a.seed, i)
        if a.guided:
            # coverage-guided: run the Python model first, compare only scenarios that reach
            # one of the requested (rare) model branches
            d2 = copy.deepcopy(doc)
            d2["zone"].setdefault("min_free_kbytes", g.r.choice([128, 256, 1024, 4096, 20000]))
            try:
                mm = model.Model(copy.deepcopy(d2))
                mm.run()
            except Exception:  # noqa: BLE001
                mm = None
            if mm is None or mm.undefined or not (set(a.guided.split(",")) & set(mm.cov)):
                stats.setdefault("guided_skipped", 0)
                stats["guided_skipped"] += 1
                continue
            doc = d2
        st, det = compare(a.bin, doc, tmpdir)
        stats[st] += 1
        if st in ("rust_error", "py_error"):
            if st == "rust_error" and "panicked" in (det or "") and shrinks < a.max_shrinks:
                shrinks += 1
                doc = shrink_panic(a.bin, doc, tmpdir)
                det = compare(a.bin, doc, tmpdir)[1]
            print("%s #%d %s" % (st.upper(), i, (det or "").splitlines()[:2]), flush=True)
            with open(os.path.join(a.out, "%s-%d-%d.json" % (st, a.seed, i)), "w") as fh:
                json.dump({"scenario": doc, "error": det}, fh, indent=1)
            continue
        if st != "diff":
            continue
        s = sig(det)
        seen.setdefault(s, 0)
        seen[s] += 1
        print("DIFF #%d sig=%s %s" % (i, s, det), flush=True)
        if seen[s] > 1 or shrinks >= a.max_shrinks:
            continue
        shrinks += 1
        small = shrink(a.bin, doc, tmpdir, s)
        st2, det2 = compare(a.bin, small, tmpdir)
        rec = {"signature": s, "original_index": i, "seed": a.seed, "scenario": small,
               "first_diff": {f: {"line": d[0], "rust": d[1], "python": d[2]} for f, d in det2.items()}}
        fn = os.path.join(a.out, "diff-%d-%d.json" % (a.seed, i))
        with open(fn, "w") as fh:
            json.dump(rec, fh, indent=1)
        print("  shrunk to %d top-level ops -> %s" % (len(small["ops"]), fn), flush=True)
    print("COVERAGE (scenarios hitting each model branch):", json.dumps(dict(sorted(COVERAGE.items()))))
    print("SUMMARY", json.dumps(stats), "signatures", json.dumps(seen), "%.0fs" % (time.time() - t0))


if __name__ == "__main__":
    main()
