"""The snapshot JSON writer without a kernel: python3 -m unittest discover -s tools/drgn"""

import json
import os
import subprocess
import tempfile
import unittest

from snapshot import ZoneView, build_snapshot, pageblock_name

NAMES = ["Unmovable", "Movable", "Reclaimable", "HighAtomic", "CMA", "Isolate"]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def view():
    bits = {0x100000: 1, 0x100200: 0, 0x100400: 1 | (1 << 4), 0x100600: 2}
    return ZoneView(
        name="Normal",
        start_pfn=0x100000,
        spanned_pages=2048,
        migratetype_names=NAMES,
        free_lists={(0, 1): [0x100003, 0x100001], (3, 0): [0x100208], (9, 1): [], (9, 5): []},
        pcp={0: [[] for _ in range(14)], 1: [[0x100004]] + [[] for _ in range(13)]},
        pageblock_bits=lambda pfn: bits[pfn],
        isolate_bit=4,
    )


class BuildSnapshot(unittest.TestCase):
    def test_document(self):
        s = build_snapshot(view())
        self.assertEqual(s["version"], 1)
        self.assertEqual((s["start_pfn"], s["pages"]), (0x100000, 2048))
        self.assertEqual(s["pageblocks"], ["Movable", "Unmovable", "Isolate", "Reclaimable"])
        self.assertEqual(
            s["free_area"],
            [
                {"order": 0, "migratetype": "Movable", "pfns": [0x100003, 0x100001]},
                {"order": 3, "migratetype": "Unmovable", "pfns": [0x100208]},
            ],
        )
        self.assertEqual(s["pcp"], [{"cpu": 1, "pindex": 0, "pfns": [0x100004]}])

    def test_unaligned_zone_start_is_padded(self):
        v = view()
        v.start_pfn, v.spanned_pages = 1, 4095
        v.pageblock_bits = lambda pfn: 0
        s = build_snapshot(v)
        self.assertEqual((s["start_pfn"], s["pages"]), (0, 4096))
        self.assertEqual(len(s["pageblocks"]), 8)

    def test_pageblock_name(self):
        self.assertEqual(pageblock_name(2, NAMES, 4), "Reclaimable")
        self.assertEqual(pageblock_name(1 | 16, NAMES, 4), "Isolate")
        self.assertEqual(pageblock_name(16, NAMES, None), "Unmovable")

    def test_the_engine_accepts_it(self):
        """The engine accepts the document (`buddyscope run`), when the debug binary is built.

        scripts/test.sh builds it first and sets BUDDYSCOPE_REQUIRE_CLI=1, so there a missing
        binary fails instead of skipping."""
        target = os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target")
        exe = os.path.join(ROOT, target, "debug", "buddyscope")
        if not os.path.exists(exe):
            if os.environ.get("BUDDYSCOPE_REQUIRE_CLI"):
                self.fail(f"{exe} is not built (cargo build -p buddyscope-engine)")
            self.skipTest(f"{exe} not built")
        s = build_snapshot(view())
        doc = {"version": 1, "zone": {"cpus": 2}, "init": {"snapshot": s}}
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(doc, f)
        try:
            out = subprocess.run([exe, "run", f.name, "--format", "json"],
                                 capture_output=True, text=True)
            self.assertEqual(out.returncode, 0, out.stderr)
            state = json.loads(out.stdout)
            self.assertEqual(state["start_pfn"], 0x100000)
            self.assertIn({"order": 3, "migratetype": "Unmovable", "pfns": [0x100208]},
                          state["free_lists"])
        finally:
            os.unlink(f.name)


if __name__ == "__main__":
    unittest.main()
