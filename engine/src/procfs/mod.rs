//! The kernel's `/proc` text formats, byte for byte (kernel-model.md §8), and the import of a
//! real machine's `/proc/pagetypeinfo` + `/proc/zoneinfo` as a start state (scenario contract,
//! "`init` from `/proc`").
//!
//! Output: [`buddyinfo`] (§8.1), [`pagetypeinfo`] (§8.2, one zone as Node 0, no mixed-blocks
//! section) and [`zoneinfo`] (the contract's fixed list of zone lines).
//!
//! Import: [`parse_import`] reads the text into a [`ProcImport`] (free-block counts per type and
//! order, pageblock counts per type, the zone size and what `zoneinfo` says about the pcp) and
//! checks everything the contract checks, including that the deterministic layout exists;
//! [`apply_import`] lays that out in an empty zone built by [`crate::setup::new_zone`]. Errors
//! are [`ScenarioError`](crate::scenario::ScenarioError)s whose `path` is the field to fix (`init.pagetypeinfo`,
//! `init.zoneinfo`, `init.zone`, `zone.pages`).

mod format;
mod import;
mod parse;
#[cfg(test)]
mod tests;

pub use format::{
    buddyinfo, pageblock_counts, pagetypeinfo, vm_stats_threshold, zoneinfo,
    PAGETYPEINFO_FREECOUNT_CAP,
};
pub use import::{apply_import, filler_owner, filler_owner_mt};
pub use parse::{parse_import, ProcImport};
