//! The kernel's `/proc` text formats, byte for byte (kernel-model.md §8), and the import of a
//! real machine's `/proc/pagetypeinfo` + `/proc/zoneinfo` as a start state (scenario contract,
//! "`init` from `/proc`").
//!
//! Output: [`buddyinfo`] (§8.1), [`pagetypeinfo`] (§8.2, one zone as Node 0, no mixed-blocks
//! section), [`zoneinfo`] (the contract's fixed list of zone lines) and debugfs's
//! `extfrag/unusable_index` and `extfrag/extfrag_index` ([`unusable_index`], [`extfrag_index`]).
//!
//! Import: [`parse_import`] reads the text into a [`ProcImport`] (free-block counts per type and
//! order, pageblock counts per type, the zone size and what `zoneinfo` says about the pcp) and
//! checks everything the contract checks, including that the deterministic layout exists;
//! [`apply_import`] lays that out in an empty zone built by [`crate::mm::new_zone`]. Errors
//! are [`ScenarioError`](super::error::ScenarioError)s whose `path` is the field to fix (`init.pagetypeinfo`,
//! `init.zoneinfo`, `init.zone`, `zone.pages`); an error about a spot of the text starts with
//! `line N, column C` ([`error_location`]). Where the contract's size rule or layout has no room
//! for a real machine's counts, the import falls back ([`ZoneSize`], [`Placement`]) and says so
//! ([`ProcImport::fallbacks`]); [`import_summary`] reports what was imported and assumed.

mod import;
mod parse;
mod summary;
#[cfg(test)]
mod tests;
mod write;

pub(crate) use import::apply_import;
pub use import::{Placement, ProcImport, ZoneSize};
pub(crate) use parse::parse_import_up_to;
pub use parse::{error_location, parse_import};
pub use summary::{
    buddyinfo_mismatches, import_summary, resolve_cma, scan_pagetypeinfo, summary_of,
    ImportSummary, PasteScan, PasteZone,
};
pub use write::{
    buddyinfo, extfrag_index, pagetypeinfo, unusable_index, vmstat_compaction, zoneinfo,
};
