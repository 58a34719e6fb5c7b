//! Step 2 of [`super::valid::parse`]: [`Value`] → [`Scenario`] field by field, so every type error
//! and every unknown field carries its JSON path (`ops[2].ops[0].ref`).

use serde_json::{Map, Value};

use super::bounds::{
    check_alloc_mt, check_compaction_proactiveness, check_cpus, check_min_free_kbytes, check_order,
    check_pcp, check_version,
};
use super::error::{join, Res, ScenarioError};
use super::format::{
    default_init_zone, CompareSide, DrainTarget, Init, Measured, MeasuredRow, MtWeights, Op,
    PcpOverride, Scenario, ScenarioCompare, TourStop, ZoneSpec,
};
use crate::mm::{FreeMethod, Kernel, MigrateType, VmallocStrategy, MAX_CPUS, NR_PAGE_ORDERS};

const OP_NAMES: &[&str] = &[
    "alloc",
    "free",
    "split",
    "alloc_contig_range",
    "free_contig_range",
    "vmalloc",
    "vfree",
    "drain",
    "tick",
    "repeat",
    "workload",
    "get_page",
    "put_page",
    "cma_alloc",
    "cma_release",
    "compact_memory",
    "compact",
    "kcompactd",
];

const CPU_DOC: &str = "the CPU the op runs on, 0..=zone.cpus-1 (default 0)";
const NOTE_DOC: &str = "a text shown by the UI and the trace";
const AS_DOC: &str = "a name for the allocation, bound once per scope";
const FREE_METHOD_DOC: &str = "\"per_page\" or \"chunked\" (default: the kernel profile's)";

/// Every object's fields, in contract order, with a one-line description for hints. Unknown-field
/// checks read their allowed lists from here, so there is one list to extend.
const FIELDS: &[(&str, &str, &str)] = &[
    ("document", "version", "1, the only version this build reads"),
    ("document", "name", "a title"),
    ("document", "description", "a text shown in the UI (markdown allowed)"),
    ("document", "kernel", "\"v6.12\", \"v6.18\", \"v6.19\", \"v7.1\", \"v7.2\" or \"v7.3\" (default \"v7.2\")"),
    ("document", "zone", "an object with any of name, pages, start_pfn, cpus, cma, pcp, min_free_kbytes, rmqueue_mode_memory, compaction_proactiveness, cma_pageblocks"),
    ("document", "zones", "instead of zone, a node of several zones in pfn order: an array of zone objects named \"DMA\", \"DMA32\", \"Normal\""),
    ("document", "init", "\"boot\", or an object {\"pagetypeinfo\": TEXT, \"zoneinfo\": TEXT, \"zone\": NAME}"),
    ("document", "ops", "an array of ops"),
    ("document", "compare", "an object {\"a\": SIDE, \"b\": SIDE, \"measured\": …}: the before/after pair of compare mode"),
    ("compare", "a", "side A (before): an object with label and any of kernel, rmqueue_mode_memory, pcp, compaction_proactiveness, profile_methods"),
    ("compare", "b", "side B (after): an object with label and any of kernel, rmqueue_mode_memory, pcp, compaction_proactiveness, profile_methods"),
    ("compare", "measured", "the thread's measurement: {\"source\": TEXT, \"rows\": [{\"label\", \"a\", \"b\", \"unit\"}]}"),
    ("compare.pair", "a", "side A (before): an object with label and any of kernel, rmqueue_mode_memory, pcp, compaction_proactiveness, profile_methods"),
    ("compare.pair", "b", "side B (after): an object with label and any of kernel, rmqueue_mode_memory, pcp, compaction_proactiveness, profile_methods"),
    ("compare.side", "label", "a short name shown above the side"),
    ("compare.side", "kernel", "\"v6.12\", \"v6.18\", \"v6.19\", \"v7.1\", \"v7.2\" or \"v7.3\" (default: the document's)"),
    ("compare.side", "rmqueue_mode_memory", "true or false (default: the zone's)"),
    ("compare.side", "pcp", "an object with any of batch, high_min, high_max, replacing the zone's pcp (every zone's) whole: {} is the kernel's defaults"),
    ("compare.side", "compaction_proactiveness", "vm.compaction_proactiveness, 0..=100, in every zone (default: the zone's): kcompactd's proactive compaction, 0 off"),
    ("compare.side", "profile_methods", "true or false: the kernel profile picks free and vmalloc methods, ignoring the ops' (default true)"),
    ("compare.measured", "source", "where the figures come from"),
    ("compare.measured", "rows", "an array of {\"label\", \"a\", \"b\", \"unit\"}"),
    ("compare.measured.row", "label", "what was measured"),
    ("compare.measured.row", "a", "the figure before (side a), a non-negative number"),
    ("compare.measured.row", "b", "the figure after (side b), a non-negative number"),
    ("compare.measured.row", "unit", "the unit, e.g. \"usec\""),
    ("document", "tour", "an array of stops {\"op\": K, \"event\": E, \"caption\": TEXT}"),
    ("tour", "op", "the stop is after this many executed ops (as `buddyscope run --ops K`)"),
    ("tour", "event", "this many events further into the next op (optional, default 0)"),
    ("tour", "caption", "what to say at this stop (at most 400 characters)"),
    ("zone", "name", "one word printed in the /proc outputs (default \"Normal\")"),
    ("zone", "pages", "the zone size in pages, 1024..=4194304 (default 262144)"),
    ("zone", "start_pfn", "the first pfn, a multiple of 1024 (default 0)"),
    ("zone", "cpus", "the number of per-CPU page sets, 1..=64 (default 1)"),
    ("zone", "cma", "true or false: CONFIG_CMA (default false)"),
    ("zone", "pcp", "an object with any of batch, high_min, high_max"),
    ("zone", "min_free_kbytes", "the final min_free_kbytes, 0..=2147483647 (default: computed)"),
    ("zone", "compaction_proactiveness", "vm.compaction_proactiveness, 0..=100 (default 20): kcompactd's proactive compaction"),
    ("zone", "rmqueue_mode_memory", "true or false (default true)"),
    ("zone", "cma_pageblocks", "the CMA area {\"start_pfn\": P, \"nr_pages\": N}, whole pageblocks of the zone (needs cma: true)"),
    ("zone.cma_pageblocks", "start_pfn", "the first pfn, a multiple of 512 inside the zone"),
    ("zone.cma_pageblocks", "nr_pages", "the number of pages, a positive multiple of 512"),
    ("zone.pcp", "batch", "an integer 1..=4194304"),
    ("zone.pcp", "high_min", "an integer 0..=4194304"),
    ("zone.pcp", "high_max", "an integer 0..=4194304"),
    ("init", "pagetypeinfo", "the text of /proc/pagetypeinfo"),
    ("init", "zoneinfo", "the text of /proc/zoneinfo (optional)"),
    ("init", "zone", "the zone to read from the /proc text (default \"Normal\")"),
    ("alloc", "order", "an integer 0..=10"),
    ("alloc", "mt", "\"unmovable\", \"movable\" or \"reclaimable\" (default \"unmovable\")"),
    ("alloc", "highatomic", "true or false (default false)"),
    ("alloc", "as", AS_DOC),
    ("alloc", "cpu", CPU_DOC),
    ("alloc", "note", NOTE_DOC),
    ("alloc", "zone", "the highest zone the request may use: \"DMA32\" (GFP_DMA32) or \"DMA\" (GFP_DMA), a zone of the scenario (default: Normal)"),
    ("free", "ref", "the name of an alloc or alloc_contig_range"),
    ("free", "page", "the index of one page in the allocation (optional)"),
    ("free", "cpu", CPU_DOC),
    ("free", "note", NOTE_DOC),
    ("split", "ref", "the name of an alloc"),
    ("split", "cpu", CPU_DOC),
    ("split", "note", NOTE_DOC),
    ("alloc_contig_range", "pfn", "the first pfn of the range, inside the zone"),
    ("alloc_contig_range", "nr_pages", "the number of pages, at least 1"),
    ("alloc_contig_range", "as", AS_DOC),
    ("alloc_contig_range", "cpu", CPU_DOC),
    ("alloc_contig_range", "note", NOTE_DOC),
    ("free_contig_range", "ref", "the name of an alloc or alloc_contig_range (or give pfn and nr_pages)"),
    ("free_contig_range", "pfn", "the first pfn (with nr_pages, instead of ref)"),
    ("free_contig_range", "nr_pages", "the number of pages, at least 1 (with pfn)"),
    ("free_contig_range", "method", FREE_METHOD_DOC),
    ("free_contig_range", "frozen", "true or false (default false)"),
    ("free_contig_range", "cpu", CPU_DOC),
    ("free_contig_range", "note", NOTE_DOC),
    ("vmalloc", "pages", "the number of pages, at least 1"),
    ("vmalloc", "strategy", "\"bulk\" or \"large_order\" (default: the kernel profile's)"),
    ("vmalloc", "as", AS_DOC),
    ("vmalloc", "cpu", CPU_DOC),
    ("vmalloc", "note", NOTE_DOC),
    ("vfree", "ref", "the name of a vmalloc"),
    ("vfree", "method", FREE_METHOD_DOC),
    ("vfree", "cpu", CPU_DOC),
    ("vfree", "note", NOTE_DOC),
    ("drain", "cpu", "the CPU to drain, a number or \"all\" (default 0)"),
    ("drain", "note", NOTE_DOC),
    ("tick", "cpu", "the CPU whose vmstat worker runs, a number or \"all\" (default \"all\")"),
    ("tick", "note", NOTE_DOC),
    ("compact_memory", "cpu", "the CPU that writes /proc/sys/vm/compact_memory, 0..=zone.cpus-1 (default 0)"),
    ("compact_memory", "note", NOTE_DOC),
    ("compact", "order", "the order to compact for, an integer 0..=10"),
    ("compact", "zone", "a zone of the scenario (default: the highest one)"),
    ("compact", "priority", "0 (COMPACT_PRIO_SYNC_FULL, default) or 1 (COMPACT_PRIO_SYNC_LIGHT: deferral and skip bits honoured)"),
    ("compact", "cpu", CPU_DOC),
    ("compact", "note", NOTE_DOC),
    ("kcompactd", "order", "the order kswapd's wakeup_kcompactd asked for, 1..=10 (absent: the timeout wakeup, proactive compaction)"),
    ("kcompactd", "cpu", CPU_DOC),
    ("kcompactd", "note", NOTE_DOC),
    ("repeat", "times", "an integer ≥ 0"),
    ("repeat", "ops", "an array of ops, run once per iteration in a new name scope"),
    ("repeat", "cpu", "a CPU 0..=zone.cpus-1; not inherited by the repeated ops"),
    ("repeat", "note", NOTE_DOC),
    ("workload", "seed", "an integer"),
    ("workload", "steps", "an integer ≥ 0"),
    ("workload", "order_weights", "11 non-negative numbers, index = order"),
    ("workload", "mt_weights", "an object with any of unmovable, movable, reclaimable: non-negative numbers"),
    ("workload", "free_probability", "a number 0..=1"),
    ("workload", "cpu", CPU_DOC),
    ("workload", "note", NOTE_DOC),
    ("get_page", "ref", "the name of an order-0 or split alloc, or an alloc_contig_range"),
    ("get_page", "page", "the index of the page in the allocation"),
    ("get_page", "cpu", CPU_DOC),
    ("get_page", "note", NOTE_DOC),
    ("put_page", "ref", "the name get_page used"),
    ("put_page", "page", "the index get_page used"),
    ("put_page", "cpu", "the CPU that drops the reference (its pcp gets the page if it is the last), 0..=zone.cpus-1 (default 0)"),
    ("put_page", "note", NOTE_DOC),
    ("cma_alloc", "nr_pages", "the number of pages, 1..=the CMA area's size (zone.cma_pageblocks.nr_pages)"),
    ("cma_alloc", "align", "the alignment as a page order 0..=10 (default 0)"),
    ("cma_alloc", "as", AS_DOC),
    ("cma_alloc", "cpu", CPU_DOC),
    ("cma_alloc", "note", NOTE_DOC),
    ("cma_release", "ref", "the name of a cma_alloc"),
    ("cma_release", "cpu", "the CPU that frees the pages (its pcp gets them), 0..=zone.cpus-1 (default 0)"),
    ("cma_release", "note", NOTE_DOC),
    ("mt_weights", "unmovable", "a non-negative number (default 0)"),
    ("mt_weights", "movable", "a non-negative number (default 0)"),
    ("mt_weights", "reclaimable", "a non-negative number (default 0)"),
];

/// A table of fields in [`FIELDS`]'s shape: (owner, key, one-line description).
pub(crate) type FieldTable = &'static [(&'static str, &'static str, &'static str)];

fn field_doc(table: FieldTable, owner: &str, key: &str) -> &'static str {
    table
        .iter()
        .find(|(o, k, _)| *o == owner && *k == key)
        .map_or("", |(_, _, d)| d)
}

/// A short description of a JSON value for "expected …, found …" messages.
fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => {
            let short: String = s.chars().take(40).collect();
            let ell = if short.len() < s.len() { "…" } else { "" };
            format!("the string {}{ell}", Value::String(short))
        }
        Value::Array(_) => "an array".to_string(),
        Value::Object(_) => "an object".to_string(),
    }
}

pub(crate) fn type_err(path: &str, expected: &str, found: &Value) -> ScenarioError {
    ScenarioError::new(
        path,
        format!("expected {expected}, found {}", describe(found)),
        "",
    )
}

/// Levenshtein distance, for "did you mean" hints.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == *cb {
                prev
            } else {
                1 + prev.min(row[j]).min(cur)
            };
            prev = cur;
        }
    }
    row[b.len()]
}

/// The closest candidate (the format's names: ASCII), if close enough to be a likely typo.
pub fn suggest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = lowercase_against_ascii(word);
    candidates
        .into_iter()
        .map(|c| (distance(&lower, c), c))
        .filter(|(d, c)| *d <= 2 && *d < c.len().max(2))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// `word.to_lowercase()` as far as [`distance`] to an ASCII name can tell, without the Unicode
/// case tables (12 KB, which would be in the app's first download: data is never split off a
/// wasm module). ASCII letters are lowered; of the other characters, only KELVIN SIGN and LATIN
/// CAPITAL LETTER I WITH DOT ABOVE lower to something that contains ASCII (`k`, `i` and a
/// combining dot); every other one lowers to one non-ASCII character, which equals no ASCII
/// character just as the one it came from does, so it is kept
/// (`tests::lowercase_against_ascii_is_to_lowercase_for_the_distance` checks every character).
pub(crate) fn lowercase_against_ascii(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    for c in word.chars() {
        match c {
            '\u{212a}' => out.push('k'),
            '\u{130}' => out.push_str("i\u{307}"),
            c => out.push(c.to_ascii_lowercase()),
        }
    }
    out
}

/// `"a", "b" or "c"`.
pub(crate) fn quoted_choices(items: &[&str]) -> String {
    let q: Vec<String> = items.iter().map(|s| format!("\"{s}\"")).collect();
    match q.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

fn with_suggestion(word: &str, candidates: &[&str], rest: String) -> String {
    match suggest(word, candidates.iter().copied()) {
        Some(s) => format!("did you mean \"{s}\"? {rest}"),
        None => rest,
    }
}

pub(crate) type Reader<T> = fn(&Value, &str) -> Res<T>;

/// A JSON object being converted: its path, its owner key in [`FIELDS`] (or another document's
/// table, e.g. exercise sets') and how to name it.
pub(crate) struct Fields<'a> {
    path: String,
    owner: &'static str,
    what: String,
    table: FieldTable,
    pub(crate) map: &'a Map<String, Value>,
}

impl<'a> Fields<'a> {
    fn new(v: &'a Value, path: &str, owner: &'static str, what: &str) -> Res<Self> {
        Self::new_in(FIELDS, v, path, owner, what)
    }

    /// A [`Fields`] over another document's field table, so other JSON documents (exercise
    /// sets) get the same path-naming errors and "did you mean" hints as scenarios.
    pub(crate) fn new_in(
        table: FieldTable,
        v: &'a Value,
        path: &str,
        owner: &'static str,
        what: &str,
    ) -> Res<Self> {
        let map = v
            .as_object()
            .ok_or_else(|| type_err(path, &format!("{what} (a JSON object)"), v))?;
        Ok(Fields {
            path: path.to_string(),
            owner,
            what: what.to_string(),
            table,
            map,
        })
    }

    fn allowed(&self) -> Vec<&'static str> {
        let mut keys = Vec::new();
        if OP_NAMES.contains(&self.owner) {
            keys.push("op");
        }
        keys.extend(
            self.table
                .iter()
                .filter(|(o, _, _)| *o == self.owner)
                .map(|(_, k, _)| *k),
        );
        keys
    }

    /// Rejects the first unknown key (in key order, so the report is stable).
    pub(crate) fn deny_unknown(&self) -> Res<()> {
        let allowed = self.allowed();
        if let Some(key) = self.map.keys().find(|k| !allowed.contains(&k.as_str())) {
            let takes = format!("{} takes: {}", self.what, allowed.join(", "));
            let hint = match suggest(key, allowed.iter().copied()) {
                Some(s) => format!("did you mean `{s}`? {takes}"),
                None => takes,
            };
            return Err(ScenarioError::new(
                join(&self.path, key),
                format!("unknown field `{key}` in {}", self.what),
                hint,
            ));
        }
        Ok(())
    }

    fn read<T>(&self, key: &str, v: &Value, read: Reader<T>) -> Res<T> {
        read(v, &join(&self.path, key)).map_err(|e| {
            e.or_hint(&format!(
                "`{key}`: {}",
                field_doc(self.table, self.owner, key)
            ))
        })
    }

    /// A required field.
    pub(crate) fn req<T>(&self, key: &str, read: Reader<T>) -> Res<T> {
        match self.map.get(key) {
            Some(v) => self.read(key, v, read),
            None => Err(ScenarioError::new(
                join(&self.path, key),
                format!("missing field `{key}` in {}", self.what),
                format!("`{key}`: {}", field_doc(self.table, self.owner, key)),
            )),
        }
    }

    /// An optional field; `null` counts as absent (as serde reads an `Option`).
    pub(crate) fn opt<T>(&self, key: &str, read: Reader<T>) -> Res<Option<T>> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => self.read(key, v, read).map(Some),
        }
    }

    /// A field with a default.
    pub(crate) fn or<T>(&self, key: &str, default: T, read: Reader<T>) -> Res<T> {
        match self.map.get(key) {
            None => Ok(default),
            Some(v) => self.read(key, v, read),
        }
    }
}

/// Integers; an integral float such as `1.0` is accepted (JSON does not tell them apart).
pub(crate) fn read_u64(v: &Value, path: &str) -> Res<u64> {
    if let Some(n) = v.as_u64() {
        return Ok(n);
    }
    if let Some(x) = v.as_f64() {
        if x.fract() == 0.0 && (0.0..=9_007_199_254_740_992.0).contains(&x) {
            return Ok(x as u64);
        }
        if x < 0.0 {
            return Err(type_err(path, "a non-negative integer", v));
        }
    }
    Err(type_err(path, "an integer", v))
}

fn read_i64(v: &Value, path: &str) -> Res<i64> {
    if let Some(n) = v.as_i64() {
        return Ok(n);
    }
    if let Some(x) = v.as_f64() {
        if x.fract() == 0.0 && x.abs() <= 9_007_199_254_740_992.0 {
            return Ok(x as i64);
        }
    }
    Err(type_err(path, "an integer", v))
}

fn read_f64(v: &Value, path: &str) -> Res<f64> {
    v.as_f64().ok_or_else(|| type_err(path, "a number", v))
}

fn read_bool(v: &Value, path: &str) -> Res<bool> {
    v.as_bool()
        .ok_or_else(|| type_err(path, "true or false", v))
}

pub(crate) fn read_string(v: &Value, path: &str) -> Res<String> {
    v.as_str()
        .map(str::to_string)
        .ok_or_else(|| type_err(path, "a string", v))
}

fn read_choice<T: Copy>(v: &Value, path: &str, what: &str, choices: &[(&str, T)]) -> Res<T> {
    let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
    let s = v
        .as_str()
        .ok_or_else(|| type_err(path, &format!("{what} {}", quoted_choices(&names)), v))?;
    choices
        .iter()
        .find(|(n, _)| *n == s)
        .map(|(_, t)| *t)
        .ok_or_else(|| {
            ScenarioError::new(
                path,
                format!("unknown {what} {}", Value::String(s.to_string())),
                with_suggestion(s, &names, format!("use {}", quoted_choices(&names))),
            )
        })
}

fn read_kernel(v: &Value, path: &str) -> Res<Kernel> {
    let choices: Vec<(&str, Kernel)> = Kernel::ALL.iter().map(|&k| (k.as_str(), k)).collect();
    read_choice(v, path, "kernel", &choices)
}

fn read_alloc_mt(v: &Value, path: &str) -> Res<MigrateType> {
    if let Some(s) = v.as_str() {
        if let Some(mt) = MigrateType::ALL.iter().find(|m| m.slug() == s) {
            check_alloc_mt(path, *mt)?;
        }
    }
    read_choice(
        v,
        path,
        "mt",
        &[
            ("unmovable", MigrateType::Unmovable),
            ("movable", MigrateType::Movable),
            ("reclaimable", MigrateType::Reclaimable),
        ],
    )
}

fn read_strategy(v: &Value, path: &str) -> Res<VmallocStrategy> {
    read_choice(
        v,
        path,
        "strategy",
        &[
            ("bulk", VmallocStrategy::Bulk),
            ("large_order", VmallocStrategy::LargeOrder),
        ],
    )
}

fn read_method(v: &Value, path: &str) -> Res<FreeMethod> {
    read_choice(
        v,
        path,
        "method",
        &[
            ("per_page", FreeMethod::PerPage),
            ("chunked", FreeMethod::Chunked),
        ],
    )
}

fn read_version(v: &Value, path: &str) -> Res<u32> {
    check_version(read_u64(v, path)?)
}

/// `enum compact_priority`: the two sync priorities (the async one is not modelled).
fn read_compact_priority(v: &Value, path: &str) -> Res<u8> {
    match v.as_u64() {
        Some(p @ 0..=1) => Ok(p as u8),
        _ => Err(ScenarioError::new(
            path,
            format!("priority {v} is not a modelled compaction priority"),
            "use 0 (COMPACT_PRIO_SYNC_FULL) or 1 (COMPACT_PRIO_SYNC_LIGHT)",
        )),
    }
}

fn read_order(v: &Value, path: &str) -> Res<u8> {
    check_order(path, read_u64(v, path)?)
}

fn read_cpus(v: &Value, path: &str) -> Res<u32> {
    check_cpus(path, read_u64(v, path)?)
}

fn read_cpu(v: &Value, path: &str) -> Res<u32> {
    let n = read_u64(v, path)?;
    u32::try_from(n).map_err(|_| {
        ScenarioError::new(
            path,
            format!("cpu {n} is out of range"),
            format!("use 0..=zone.cpus-1 (zone.cpus is at most {MAX_CPUS})"),
        )
    })
}

fn read_drain_target(v: &Value, path: &str) -> Res<DrainTarget> {
    match v {
        Value::String(s) if s == "all" => Ok(DrainTarget::All),
        Value::String(s) => Err(ScenarioError::new(
            path,
            format!("unknown drain target {}", Value::String(s.clone())),
            "use a CPU number or \"all\"",
        )),
        _ => read_cpu(v, path)
            .map(DrainTarget::Cpu)
            .map_err(|e| e.or_hint("a CPU number or \"all\"")),
    }
}

fn read_batch(v: &Value, path: &str) -> Res<i32> {
    check_pcp(path, "batch", 1, read_i64(v, path)?)
}

fn read_high(v: &Value, path: &str) -> Res<i32> {
    let name = path.rsplit('.').next().unwrap_or("high");
    check_pcp(path, name, 0, read_i64(v, path)?)
}

fn read_min_free_kbytes(v: &Value, path: &str) -> Res<u64> {
    let n = read_u64(v, path)?;
    check_min_free_kbytes(path, n)?;
    Ok(n)
}

fn read_order_weights(v: &Value, path: &str) -> Res<[f64; NR_PAGE_ORDERS]> {
    let items = v
        .as_array()
        .ok_or_else(|| type_err(path, "an array of 11 numbers", v))?;
    if items.len() != NR_PAGE_ORDERS {
        return Err(ScenarioError::new(
            path,
            format!(
                "expected {NR_PAGE_ORDERS} order weights (orders 0..=10), found {}",
                items.len()
            ),
            "give one non-negative weight per order, index = order",
        ));
    }
    let mut out = [0.0; NR_PAGE_ORDERS];
    for (k, item) in items.iter().enumerate() {
        out[k] = read_f64(item, &format!("{path}[{k}]"))?;
    }
    Ok(out)
}

fn mt_weights_from_value(v: &Value, path: &str) -> Res<MtWeights> {
    let f = Fields::new(v, path, "mt_weights", "mt_weights")?;
    f.deny_unknown()?;
    Ok(MtWeights {
        unmovable: f.or("unmovable", 0.0, read_f64)?,
        movable: f.or("movable", 0.0, read_f64)?,
        reclaimable: f.or("reclaimable", 0.0, read_f64)?,
    })
}

fn pcp_from_value(v: &Value, path: &str) -> Res<PcpOverride> {
    let f = Fields::new(v, path, "zone.pcp", "zone.pcp")?;
    f.deny_unknown()?;
    Ok(PcpOverride {
        batch: f.opt("batch", read_batch)?,
        high_min: f.opt("high_min", read_high)?,
        high_max: f.opt("high_max", read_high)?,
    })
}

fn read_proactiveness(v: &Value, path: &str) -> Res<u32> {
    check_compaction_proactiveness(path, read_u64(v, path)?)
}

fn zone_from_value(v: &Value, path: &str) -> Res<ZoneSpec> {
    let f = Fields::new(v, path, "zone", "zone")?;
    f.deny_unknown()?;
    let d = ZoneSpec::default();
    Ok(ZoneSpec {
        name: f.or("name", d.name, read_string)?,
        pages: f.opt("pages", read_u64)?,
        start_pfn: f.or("start_pfn", d.start_pfn, read_u64)?,
        cpus: f.or("cpus", d.cpus, read_cpus)?,
        cma: f.or("cma", d.cma, read_bool)?,
        pcp: f.or("pcp", d.pcp, pcp_from_value)?,
        min_free_kbytes: f.opt("min_free_kbytes", read_min_free_kbytes)?,
        rmqueue_mode_memory: f.or("rmqueue_mode_memory", d.rmqueue_mode_memory, read_bool)?,
        compaction_proactiveness: f.opt("compaction_proactiveness", read_proactiveness)?,
        cma_pageblocks: f.opt("cma_pageblocks", cma_pageblocks_from_value)?,
    })
}

fn cma_pageblocks_from_value(v: &Value, path: &str) -> Res<super::format::CmaPageblocks> {
    let f = Fields::new(v, path, "zone.cma_pageblocks", "zone.cma_pageblocks")?;
    f.deny_unknown()?;
    Ok(super::format::CmaPageblocks {
        start_pfn: f.req("start_pfn", read_u64)?,
        nr_pages: f.req("nr_pages", read_u64)?,
    })
}

fn zones_from_value(v: &Value, path: &str) -> Res<Vec<ZoneSpec>> {
    let items = v
        .as_array()
        .ok_or_else(|| type_err(path, "an array of zone objects", v))?;
    if items.is_empty() {
        return Err(ScenarioError::new(
            path,
            "zones is empty",
            "give at least one zone, e.g. [{\"name\": \"DMA32\", …}, {\"name\": \"Normal\", …}], or use zone",
        ));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| zone_from_value(item, &format!("{path}[{i}]")))
        .collect()
}

fn init_from_value(v: &Value, path: &str) -> Res<Init> {
    let hint =
        "use \"boot\", or an object {\"pagetypeinfo\": TEXT, \"zoneinfo\": TEXT, \"zone\": NAME}";
    match v {
        Value::String(s) if s == "boot" => Ok(Init::Boot),
        Value::String(s) => Err(ScenarioError::new(
            path,
            format!("unknown init {}", Value::String(s.clone())),
            hint,
        )),
        Value::Object(m) if m.contains_key("snapshot") => {
            if let Some(k) = m.keys().find(|k| *k != "snapshot") {
                return Err(ScenarioError::new(
                    join(path, k),
                    format!("unknown field `{k}` next to `snapshot`"),
                    "init is {\"snapshot\": {...}} alone",
                ));
            }
            let snap = &m["snapshot"];
            let sp = join(path, "snapshot");
            if snap.get("version").and_then(Value::as_u64) == Some(2) {
                return crate::scenario::node_snapshot::from_value(snap, &sp)
                    .map(|s| Init::NodeSnapshot(Box::new(s)));
            }
            crate::scenario::zone_snapshot::from_value(snap, &sp)
                .map(|s| Init::Snapshot(Box::new(s)))
        }
        Value::Object(_) => {
            let f = Fields::new(v, path, "init", "init")?;
            f.deny_unknown()?;
            Ok(Init::Proc {
                pagetypeinfo: f.req("pagetypeinfo", read_string)?,
                zoneinfo: f.opt("zoneinfo", read_string)?,
                zone: f.or("zone", default_init_zone(), read_string)?,
            })
        }
        _ => Err(type_err(path, "\"boot\" or an object", v).or_hint(hint)),
    }
}

fn ops_from_value(v: &Value, path: &str) -> Res<Vec<Op>> {
    let items = v
        .as_array()
        .ok_or_else(|| type_err(path, "an array of ops", v))?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| op_from_value(item, &format!("{path}[{i}]")))
        .collect()
}

fn op_from_value(v: &Value, path: &str) -> Res<Op> {
    let list = OP_NAMES.join(", ");
    let map = v.as_object().ok_or_else(|| {
        type_err(path, "an op (a JSON object)", v)
            .or_hint("write an op as {\"op\": \"alloc\", \"order\": 0}")
    })?;
    let Some(tag) = map.get("op") else {
        return Err(ScenarioError::new(
            path,
            "missing field `op`",
            format!("every op names its kind in \"op\": {list}"),
        ));
    };
    let tag_path = join(path, "op");
    let tag = read_string(tag, &tag_path).map_err(|e| e.or_hint(&format!("one of {list}")))?;
    let Some(&kind) = OP_NAMES.iter().find(|n| **n == tag) else {
        return Err(ScenarioError::new(
            tag_path,
            format!("unknown op {}", Value::String(tag.clone())),
            with_suggestion(&tag, OP_NAMES, format!("ops: {list}")),
        ));
    };
    let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    let f = Fields::new(v, path, kind, &format!("{article} {kind} op"))?;
    f.deny_unknown()?;
    let cpu = || f.opt("cpu", read_cpu);
    let note = || f.opt("note", read_string);
    Ok(match kind {
        "alloc" => Op::Alloc {
            order: f.req("order", read_order)?,
            mt: f.or("mt", MigrateType::Unmovable, read_alloc_mt)?,
            highatomic: f.or("highatomic", false, read_bool)?,
            as_name: f.opt("as", read_string)?,
            cpu: cpu()?,
            note: note()?,
            zone: f.opt("zone", read_string)?,
        },
        "free" => Op::Free {
            ref_name: f.req("ref", read_string)?,
            page: f.opt("page", read_u64)?,
            cpu: cpu()?,
            note: note()?,
        },
        "split" => Op::Split {
            ref_name: f.req("ref", read_string)?,
            cpu: cpu()?,
            note: note()?,
        },
        "alloc_contig_range" => Op::AllocContigRange {
            pfn: f.req("pfn", read_u64)?,
            nr_pages: f.req("nr_pages", read_u64)?,
            as_name: f.opt("as", read_string)?,
            cpu: cpu()?,
            note: note()?,
        },
        "free_contig_range" => Op::FreeContigRange {
            ref_name: f.opt("ref", read_string)?,
            pfn: f.opt("pfn", read_u64)?,
            nr_pages: f.opt("nr_pages", read_u64)?,
            method: f.opt("method", read_method)?,
            frozen: f.or("frozen", false, read_bool)?,
            cpu: cpu()?,
            note: note()?,
        },
        "vmalloc" => Op::Vmalloc {
            pages: f.req("pages", read_u64)?,
            strategy: f.opt("strategy", read_strategy)?,
            as_name: f.opt("as", read_string)?,
            cpu: cpu()?,
            note: note()?,
        },
        "vfree" => Op::Vfree {
            ref_name: f.req("ref", read_string)?,
            method: f.opt("method", read_method)?,
            cpu: cpu()?,
            note: note()?,
        },
        "drain" => Op::Drain {
            cpu: f.or("cpu", DrainTarget::default(), read_drain_target)?,
            note: note()?,
        },
        "tick" => Op::Tick {
            cpu: f.or("cpu", DrainTarget::All, read_drain_target)?,
            note: note()?,
        },
        "compact_memory" => Op::CompactMemory {
            cpu: cpu()?,
            note: note()?,
        },
        "compact" => Op::Compact {
            order: f.req("order", read_order)?,
            zone: f.opt("zone", read_string)?,
            priority: f.opt("priority", read_compact_priority)?,
            cpu: cpu()?,
            note: note()?,
        },
        "kcompactd" => Op::Kcompactd {
            order: f.opt("order", read_order)?,
            cpu: cpu()?,
            note: note()?,
        },
        "repeat" => Op::Repeat {
            times: f.req("times", read_u64)?,
            ops: f.req("ops", ops_from_value)?,
            cpu: cpu()?,
            note: note()?,
        },
        "workload" => Op::Workload {
            seed: f.req("seed", read_u64)?,
            steps: f.req("steps", read_u64)?,
            order_weights: f.req("order_weights", read_order_weights)?,
            mt_weights: f.req("mt_weights", mt_weights_from_value)?,
            free_probability: f.req("free_probability", read_f64)?,
            cpu: cpu()?,
            note: note()?,
        },
        "get_page" => Op::GetPage {
            ref_name: f.req("ref", read_string)?,
            page: f.req("page", read_u64)?,
            cpu: cpu()?,
            note: note()?,
        },
        "put_page" => Op::PutPage {
            ref_name: f.req("ref", read_string)?,
            page: f.req("page", read_u64)?,
            cpu: cpu()?,
            note: note()?,
        },
        "cma_alloc" => Op::CmaAlloc {
            nr_pages: f.req("nr_pages", read_u64)?,
            align: f.opt("align", read_order)?,
            as_name: f.opt("as", read_string)?,
            cpu: cpu()?,
            note: note()?,
        },
        "cma_release" => Op::CmaRelease {
            ref_name: f.req("ref", read_string)?,
            cpu: cpu()?,
            note: note()?,
        },
        _ => unreachable!("OP_NAMES and this match list the same ops"),
    })
}

fn side_from_value(v: &Value, path: &str) -> Res<CompareSide> {
    let f = Fields::new(v, path, "compare.side", "a compare side")?;
    f.deny_unknown()?;
    Ok(CompareSide {
        label: f.req("label", read_string)?,
        kernel: f.opt("kernel", read_kernel)?,
        rmqueue_mode_memory: f.opt("rmqueue_mode_memory", read_bool)?,
        pcp: f.opt("pcp", pcp_from_value)?,
        compaction_proactiveness: f.opt("compaction_proactiveness", read_proactiveness)?,
        profile_methods: f.or("profile_methods", true, read_bool)?,
    })
}

fn measured_row_from_value(v: &Value, path: &str) -> Res<MeasuredRow> {
    let f = Fields::new(v, path, "compare.measured.row", "a measured row")?;
    f.deny_unknown()?;
    Ok(MeasuredRow {
        label: f.req("label", read_string)?,
        a: f.req("a", read_f64)?,
        b: f.req("b", read_f64)?,
        unit: f.req("unit", read_string)?,
    })
}

fn measured_rows_from_value(v: &Value, path: &str) -> Res<Vec<MeasuredRow>> {
    let items = v
        .as_array()
        .ok_or_else(|| type_err(path, "an array of rows", v))?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| measured_row_from_value(item, &format!("{path}[{i}]")))
        .collect()
}

fn measured_from_value(v: &Value, path: &str) -> Res<Measured> {
    let f = Fields::new(v, path, "compare.measured", "compare.measured")?;
    f.deny_unknown()?;
    Ok(Measured {
        source: f.req("source", read_string)?,
        rows: f.req("rows", measured_rows_from_value)?,
    })
}

/// A compare pair kept in other state (a share link's): `{"a": SIDE, "b": SIDE}`, the sides
/// read as a scenario's `compare` sides are.
pub(crate) fn pair_sides_from_value(v: &Value, path: &str) -> Res<(CompareSide, CompareSide)> {
    let f = Fields::new(v, path, "compare.pair", "a compare pair")?;
    f.deny_unknown()?;
    Ok((f.req("a", side_from_value)?, f.req("b", side_from_value)?))
}

fn compare_from_value(v: &Value, path: &str) -> Res<ScenarioCompare> {
    let f = Fields::new(v, path, "compare", "compare")?;
    f.deny_unknown()?;
    Ok(ScenarioCompare {
        a: f.req("a", side_from_value)?,
        b: f.req("b", side_from_value)?,
        measured: f.opt("measured", measured_from_value)?,
    })
}

pub(crate) fn read_u32(v: &Value, path: &str) -> Res<u32> {
    let n = read_u64(v, path)?;
    u32::try_from(n).map_err(|_| {
        ScenarioError::new(
            path,
            format!("{n} is out of range"),
            "use at most 4294967295",
        )
    })
}

fn tour_stop_from_value(v: &Value, path: &str) -> Res<TourStop> {
    let f = Fields::new(v, path, "tour", "a tour stop")?;
    f.deny_unknown()?;
    Ok(TourStop {
        op: f.req("op", read_u32)?,
        event: f.opt("event", read_u32)?,
        caption: f.req("caption", read_string)?,
    })
}

fn tour_from_value(v: &Value, path: &str) -> Res<Vec<TourStop>> {
    let items = v
        .as_array()
        .ok_or_else(|| type_err(path, "an array of tour stops", v))?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| tour_stop_from_value(item, &format!("{path}[{i}]")))
        .collect()
}

pub(crate) fn scenario_from_value(v: &Value) -> Res<Scenario> {
    let mut s = document_from_value(v, init_from_value, ops_from_value, tour_from_value)?;
    // A `/proc` text says whether its kernel has CONFIG_CMA: `zone.cma` is read from it, and a
    // `zone.cma` the text contradicts is an error.
    if let Init::Proc { pagetypeinfo, .. } = &s.init {
        let explicit = v
            .get("zone")
            .and_then(|z| z.get("cma"))
            .and_then(Value::as_bool);
        s.zone.cma = crate::scenario::procfs::resolve_cma(pagetypeinfo, explicit, "zone.cma")?;
    }
    node_snapshot_zone(&mut s, v.get("zone"))?;
    Ok(s)
}

/// The start of a scenario whose `init` is `"boot"` (or absent), as [`scenario_from_value`]
/// reads it, but without its `ops` and `tour` (left empty, neither read nor looked at); `None`
/// for another `init`. Only the readers named here are linked: not the ops', nor the `/proc`
/// text's, nor the snapshots' (the app's first frame, [`crate::scenario::parse_boot_start`]).
pub(crate) fn boot_start_from_value(v: &Value) -> Res<Option<Scenario>> {
    if v.get("init").is_some_and(|i| i.as_str() != Some("boot")) {
        return Ok(None);
    }
    document_from_value(
        v,
        |_, _| Ok(Init::Boot),
        |_, _| Ok(Vec::new()),
        |_, _| Ok(Vec::new()),
    )
    .map(Some)
}

/// The document's fields in the order their errors are reported, `init`, `ops` and `tour` by
/// the readers given.
fn document_from_value(
    v: &Value,
    init: Reader<Init>,
    ops: Reader<Vec<Op>>,
    tour: Reader<Vec<TourStop>>,
) -> Res<Scenario> {
    let f = Fields::new(v, "", "document", "the document")?;
    // The version first: a newer document should be told so, not that its new fields are unknown.
    let version = f.req("version", read_version)?;
    f.deny_unknown()?;
    Ok(Scenario {
        version,
        name: f.or("name", String::new(), read_string)?,
        description: f.opt("description", read_string)?,
        kernel: f.or("kernel", Kernel::default(), read_kernel)?,
        zone: f.or("zone", ZoneSpec::default(), zone_from_value)?,
        zones: f.or("zones", Vec::new(), zones_from_value)?,
        init: f.or("init", Init::Boot, init)?,
        ops: f.or("ops", Vec::new(), ops)?,
        compare: f.opt("compare", compare_from_value)?,
        tour: f.or("tour", Vec::new(), tour)?,
    })
}

/// A node snapshot gives the CPUs and CONFIG_CMA: `zone.cpus` and `zone.cma` are read from it,
/// and may only agree with it when given; no other `zone` field applies (the zones are the
/// snapshot's).
pub(crate) fn node_snapshot_zone(s: &mut Scenario, zone: Option<&Value>) -> Res<()> {
    let Init::NodeSnapshot(snap) = &s.init else {
        return Ok(());
    };
    let given = |k: &str| zone.and_then(|z| z.get(k));
    if let Some(c) = given("cpus").and_then(Value::as_u64) {
        if c != u64::from(snap.cpus) {
            return Err(ScenarioError::new(
                "zone.cpus",
                format!("zone.cpus is {c} but init.snapshot.cpus is {}", snap.cpus),
                "remove zone.cpus: the snapshot gives the CPUs",
            ));
        }
    }
    if let Some(c) = given("cma").and_then(Value::as_bool) {
        if c != snap.cma {
            return Err(ScenarioError::new(
                "zone.cma",
                format!("zone.cma is {c} but init.snapshot.cma is {}", snap.cma),
                "remove zone.cma: the snapshot says whether the kernel has CONFIG_CMA",
            ));
        }
    }
    if let Some(k) = zone
        .and_then(Value::as_object)
        .and_then(|m| m.keys().find(|k| !["cpus", "cma"].contains(&k.as_str())))
    {
        return Err(ScenarioError::new(
            join("zone", k),
            format!("zone.{k} with a node snapshot"),
            "the snapshot gives every zone: leave zone out (or give only cpus and cma, as the snapshot has them)",
        ));
    }
    s.zone.cpus = snap.cpus;
    s.zone.cma = snap.cma;
    Ok(())
}
