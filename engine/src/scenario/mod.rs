//! The scenario layer: the format of a scenario document ([`Scenario`]), its reader and checks
//! ([`parse_valid`] → [`ValidScenario`]), its ops numbered once ([`Program`]), a scenario's A/B
//! [`ComparePair`], and the
//! inputs a scenario names: a real machine's `/proc` text ([`procfs`]), drgn snapshots of a
//! zone or a node, the built-in scenarios ([`builtin`]) and workloads.
//!
//! It imports from [`crate::mm`] only.

mod bounds;
pub mod builtin;
mod error;
mod format;
mod json;
mod layout;
mod node_snapshot;
mod pair;
pub mod procfs;
mod program;
mod read;
mod scopes;
#[cfg(test)]
mod tests;
pub mod texts;
mod valid;
mod validate;
mod workload;
mod zone_snapshot;
mod zones;

pub(crate) use bounds::{DEFAULT_ZONE_PAGES, IMPORT_ALL_ZONES};
pub(crate) use error::join;
pub use error::ScenarioError;
pub use format::{
    BindKind, CmaPageblocks, CompareSide, DrainTarget, Init, Measured, MeasuredRow, MtWeights, Op,
    PcpOverride, Scenario, ScenarioCompare, TourStop, ZoneSpec,
};
pub(crate) use json::parse_json;
pub(crate) use layout::{ImportedZone, Layout};
pub(crate) use node_snapshot::apply_zone as apply_node_snapshot_zone;
pub use node_snapshot::{
    differences as node_snapshot_differences, of_node as node_snapshot_of, NodeSnapshot, PcpState,
    SnapPageblock, SnapZone, Watermarks,
};
pub use pair::{ratio, ComparePair, Side};
pub use program::{summarize, OpDef, OpId, Program, Visit, Walk};
pub use read::suggest;
pub(crate) use read::{
    quoted_choices, read_string, read_u32, read_u64, scenario_from_value, type_err, FieldTable,
    Fields,
};
#[cfg(not(target_arch = "wasm32"))]
pub(crate) use texts::read_pseudocode;
#[cfg(target_arch = "wasm32")]
pub(crate) use texts::{exercise_set as exercise_set_text, pseudocode as pseudocode_text};
pub use valid::{parse, parse_boot_start, parse_start_state, parse_valid, validate, ValidScenario};
#[cfg(feature = "bench")]
pub(crate) use workload::SplitMix64;
pub use workload::{Workload, WorkloadStep};
pub(crate) use zone_snapshot::apply as apply_zone_snapshot;
pub use zone_snapshot::{SnapFreeList, SnapPcpList, Snapshot};
