//! Where compaction's two scanners are at a position of a run, for the memory map: read back
//! from the run's own `mm_compaction_*` tracepoints (`compact_zone` traces where each scan of
//! a pageblock started and stopped).

use serde::Serialize;

use crate::mm::{Annotation, EventKind, Tracepoint, ZonePfn};
use crate::run::Run;

/// The scanners of the `compact_zone` in progress (zone pfns of the zone being compacted).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Scanners {
    /// The migration scanner (`cc->migrate_pfn`): `mm_compaction_begin`'s, then the end of
    /// each `mm_compaction_isolate_migratepages` range (it walks up from the zone start).
    pub migrate_pfn: ZonePfn,
    /// The free scanner: `mm_compaction_begin`'s `free_pfn` (the last pageblock), then the end
    /// of each `mm_compaction_isolate_freepages` range (where the scan of its pageblock
    /// stopped; it moves down a pageblock at a time).
    pub free_pfn: ZonePfn,
    /// The event of the `mm_compaction_begin`.
    pub begin: u32,
}

/// The scanners after the first `at` events of `run` (a recorded run or replay): `None` when
/// no `compact_zone` is in progress there (none began, or the last one traced its
/// `mm_compaction_end`). Walks back from `at` to the last begin or end: the length of the
/// compaction inside one, but back to the run's first event when no compaction came before.
pub fn compaction_scanners(run: &Run, at: u32) -> Option<Scanners> {
    let at = (at as usize).min(run.log.events.len());
    let (mut migrate, mut free) = (None, None);
    for i in (0..at).rev() {
        let EventKind::Annotation(Annotation::Trace(tp)) = run.log.events[i].kind() else {
            continue;
        };
        match tp {
            Tracepoint::MmCompactionEnd { .. } => return None,
            Tracepoint::MmCompactionBegin {
                migrate_pfn,
                free_pfn,
                ..
            } => {
                return Some(Scanners {
                    migrate_pfn: migrate.unwrap_or(migrate_pfn),
                    free_pfn: free.unwrap_or(free_pfn),
                    begin: i as u32,
                })
            }
            Tracepoint::MmCompactionIsolateMigratepages { end, .. } => {
                migrate.get_or_insert(end);
            }
            Tracepoint::MmCompactionIsolateFreepages { end, .. } => {
                free.get_or_insert(end);
            }
            _ => {}
        }
    }
    None
}
