"""The snapshot JSON writer without a kernel: python3 -m unittest discover -s tools/drgn"""

import json
import os
import subprocess
import tempfile
import unittest

from snapshot import (NodeView, ZoneView, build_node_snapshot, build_snapshot, build_zone_v2,
                      pageblock_name, scenario_of)

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

    def test_absent_section_is_memmap_init_default_in_v1(self):
        v = view()
        v.pageblock_bits = lambda pfn: None if pfn >= 0x100400 else 0
        s = build_snapshot(v)
        self.assertEqual(s["pageblocks"], ["Unmovable", "Unmovable", "Movable", "Movable"])

    def test_scenario_says_cma_on_a_cma_kernel(self):
        s = build_snapshot(view())
        doc = scenario_of(s, "Normal", NAMES)
        self.assertEqual(doc["zone"], {"name": "Normal", "cpus": 2, "cma": True})
        no_cma = ["Unmovable", "Movable", "Reclaimable", "HighAtomic", "Isolate"]
        self.assertNotIn("cma", scenario_of(s, "Normal", no_cma)["zone"])

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
        # the --scenario wrapping: a CMA kernel's names set zone.cma
        doc = scenario_of(s, "Normal", NAMES)
        self.assertTrue(doc["zone"]["cma"])
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


def dma32():
    """DMA32 of a 6 GiB qemu guest: 4096..0xc0000 present, the 3-4 GiB hole absent."""
    return ZoneView(
        name="DMA32",
        start_pfn=0x1000,
        spanned_pages=0x100000 - 0x1000,
        migratetype_names=NAMES,
        free_lists={(10, 1): [0x1000 + 1024], (0, 0): [0x1201]},
        pcp={0: [[0x1300, 0x1301]] + [[] for _ in range(12)], 1: [[] for _ in range(13)]},
        pageblock_bits=lambda pfn: None if pfn >= 0xc0000 else (0 if pfn < 0x1400 else 1),
        isolate_bit=4,
        present_pages=0xc0000 - 0x1000,
        managed_pages=700000,
        nr_free=[1] + [0] * 9 + [1],
        pcp_state={0: {"count": 2, "high": 100, "batch": 63}, 1: {"count": 0, "high": 100, "batch": 63}},
        watermark={"min": 1, "low": 2, "high": 3},
        lowmem_reserve=[0, 0, 3000, 3000, 3000],
        vm_stat={"NR_FREE_PAGES": 1025},
    )


class BuildNodeSnapshot(unittest.TestCase):
    def test_zone_pageblocks_skip_absent_sections(self):
        z = build_zone_v2(dma32())
        # from start_pfn rounded down to a pageblock, to the zone's end
        self.assertEqual(len(z["pageblocks"]), (0x100000 - 0x1000) // 512)
        self.assertEqual(z["pageblocks"][:3], ["Unmovable", "Unmovable", "Movable"])
        absent = z["pageblocks"].count("Absent")
        self.assertEqual(absent, 0x40000 // 512)  # the 3-4 GiB hole, never read
        self.assertEqual(z["pageblocks"][-1], "Absent")
        self.assertEqual(z["start_pfn"], 0x1000)  # not padded
        self.assertEqual(z["nr_free"][10], 1)
        self.assertEqual(z["pcp"], [{"cpu": 0, "pindex": 0, "pfns": [0x1300, 0x1301]}])
        self.assertEqual(z["pcp_state"][0], {"cpu": 0, "count": 2, "high": 100, "batch": 63})
        self.assertEqual(z["vm_stat"], {"NR_FREE_PAGES": 1025})

    def test_unaligned_start_rounds_down_to_a_pageblock(self):
        v = dma32()
        v.start_pfn, v.spanned_pages = 1, 4095
        v.pageblock_bits = lambda pfn: 2
        z = build_zone_v2(v)
        self.assertEqual(len(z["pageblocks"]), 8)
        self.assertEqual(set(z["pageblocks"]), {"Reclaimable"})

    def test_node_document(self):
        empty = dma32()
        empty.name, empty.spanned_pages = "Movable", 0
        doc = build_node_snapshot(NodeView(node=0, migratetype_names=NAMES, cpus=2,
                                           zones=[dma32(), empty], kernel="7.2.13+deb14-amd64"))
        self.assertEqual(doc["version"], 2)
        self.assertEqual(doc["kernel"], "7.2.13+deb14-amd64")
        self.assertTrue(doc["cma"])
        self.assertEqual(doc["cpus"], 2)
        self.assertEqual([z["zone"] for z in doc["zones"]], ["DMA32"])  # empty zones omitted
        keys = {"zone", "start_pfn", "spanned_pages", "present_pages", "managed_pages",
                "pageblocks", "free_area", "nr_free", "pcp", "pcp_state", "watermark",
                "watermark_boost", "lowmem_reserve", "nr_reserved_highatomic", "vm_stat"}
        self.assertEqual(set(doc["zones"][0]), keys)  # the contract's fields, no others
        json.dumps(doc)

    def test_no_cma_kernel(self):
        names = ["Unmovable", "Movable", "Reclaimable", "HighAtomic", "Isolate"]
        v = dma32()
        v.migratetype_names = names
        doc = build_node_snapshot(NodeView(node=0, migratetype_names=names, cpus=2, zones=[v]))
        self.assertFalse(doc["cma"])
        self.assertNotIn("kernel", doc)


if __name__ == "__main__":
    unittest.main()
