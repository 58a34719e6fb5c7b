//! An exercise set's types (`docs/exercise-format.md`): exercises, questions, the vocabulary of
//! asks, and resolved questions with their expected answers.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::mm::{MigrateType, Pfn};

/// The only `version` of the exercise-set format this build reads (the field is optional).
pub const EXERCISE_SET_VERSION: u32 = 1;
/// At most this many exercises in a set: a set is a lesson, not a question bank.
pub const MAX_EXERCISES: usize = 64;
/// At most this many questions per exercise.
pub const MAX_QUESTIONS: usize = 32;
/// Prompts, titles and labels are read on screen: a sentence or two.
pub const MAX_TEXT_CHARS: usize = 400;
/// At most this many explanation lines per resolved question (a free_contig_range of a large
/// range has hundreds of chunks; the reveal plays them all, the explanation names the first).
pub const MAX_EXPLAIN_LINES: usize = 8;

/// A whole exercise-set document.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExerciseSet {
    /// A short slug (`[a-z0-9-]`), unique among the shipped sets; the app keys progress by it.
    pub id: String,
    /// Shown above the set.
    pub title: String,
    /// What the set teaches (plain text); `""` when absent.
    pub description: String,
    /// The exercises, in order.
    pub exercises: Vec<Exercise>,
}

impl ExerciseSet {
    /// Questions over all exercises (the last line of `buddyscope check-exercises`).
    pub fn question_count(&self) -> usize {
        self.exercises.iter().map(|e| e.questions.len()).sum()
    }

    /// Pretty JSON that [`parse_exercise_set`] reads back to an equal set (to save or export).
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).expect("an exercise set always serializes")
    }
}

/// One exercise: a scenario and questions about its run, in run order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Exercise {
    /// Shown above the exercise.
    pub title: String,
    /// Shown before the first question (what to look at); optional.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intro: Option<String>,
    /// The scenario it runs.
    pub scenario: ScenarioSource,
    /// Its questions, in run order.
    pub questions: Vec<Question>,
}

/// The scenario of an exercise: JSON a string (a built-in's id, `engine/scenarios/ID.json`) or an
/// object (a scenario in the normal format, statically validated).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ScenarioSource {
    /// A built-in's id.
    Builtin(String),
    /// A scenario written in the set.
    Inline(Box<crate::scenario::Scenario>),
}

/// One question as written: a position, what to ask, and optional presentation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Question {
    /// After this many executed ops, exactly as `buddyscope run --ops K` and tour stops.
    pub op: u32,
    /// Events of op `op + 1` applied further (absent: 0, the op boundary).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<u32>,
    /// What it asks.
    pub ask: Ask,
    /// The question's text; absent: [`Ask::default_prompt`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Choice asks ([`Ask::outcomes`]): the outcomes to offer, by key, with the author's label;
    /// only these are offered, in the ask's order. Empty: every outcome, default labels.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// Number asks: offer these numbers as multiple choice instead of a free number field (the
    /// computed answer must be among them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub choices: Option<Vec<u64>>,
}

/// How a question is answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerKind {
    /// Pick one of several labels.
    Choice,
    /// Type a number.
    Number,
    /// Click a page on the memory map.
    Page,
    /// Click a free list (`freelist-{order}-{mt}`) in the free-list table.
    List,
}

macro_rules! asks {
    ($($v:ident = $name:literal, $kind:ident, $prompt:literal, $needs:literal;)*) => {
        /// What a question asks: a fixed vocabulary whose answers the engine computes from the
        /// run ([`resolve`]); each looks at the events from the question's position to the end
        /// of the next op (op `op + 1`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum Ask {
            $( #[doc = concat!("Asks \"", $prompt, "\"")] $v ),*
        }

        impl Ask {
            /// Every ask, in documentation order.
            pub const ALL: &'static [Ask] = &[$(Ask::$v),*];
            /// The JSON spelling (`"ask": "merged_order"`).
            pub fn name(self) -> &'static str {
                match self { $(Ask::$v => $name),* }
            }
            /// How it is answered (before `choices` turns a number into a choice).
            pub fn kind(self) -> AnswerKind {
                match self { $(Ask::$v => AnswerKind::$kind),* }
            }
            /// The prompt when the question gives none.
            pub fn default_prompt(self) -> &'static str {
                match self { $(Ask::$v => $prompt),* }
            }
            /// What the next op must do for the ask to apply (for "does not apply" errors).
            pub fn needs(self) -> &'static str {
                match self { $(Ask::$v => $needs),* }
            }
        }
    };
}

asks! {
    MergedOrder = "merged_order", Number,
        "The next free reaches the buddy allocator. What order has the block __free_one_page puts on the free list, after merging with its buddies?",
        "puts no block on a buddy free list (__free_one_page)";
    AllocList = "alloc_list", List,
        "Which free list (order, migratetype) does the next allocation take its block from? Click it in the free-list table.",
        "takes no block from a buddy free list";
    AllocPage = "alloc_page", Page,
        "Which page does the next allocation return? Click it on the map.",
        "hands out no page (mm_page_alloc)";
    Chunks = "chunks", Number,
        "How many chunks does free_contig_range free (free_prepared_contig_range: largest naturally aligned chunks)?",
        "frees no free_prepared_contig_range chunks";
    Fallback = "fallback", Choice,
        "Does the next allocation fall back to another migratetype, and if so, does __rmqueue claim the pageblock or steal from it?",
        "allocates nothing from the buddy allocator";
    RefillPages = "refill_pages", Number,
        "The pcp list is empty. How many pages does the next refill (rmqueue_bulk) move onto it?",
        "refills no pcp list (rmqueue_bulk)";
    DrainPages = "drain_pages", Number,
        "How many pages does the next free_pcppages_bulk return from the pcp lists to the buddy?",
        "drains no pcp list (free_pcppages_bulk)";
    RetypedPageblock = "retyped_pageblock", Page,
        "Which pageblock changes its migratetype next? Click a page in it on the map.",
        "changes no pageblock's migratetype";
    VmallocOrders = "vmalloc_orders", Choice,
        "Which block orders does this vmalloc get its pages in?",
        "is not a vmalloc that allocates pages";
    WatermarkOk = "watermark_ok", Choice,
        "Does the next allocation pass the zone watermark check (zone_watermark_fast)?",
        "checks no watermark";
    FreePagesAfter = "free_pages_after", Number,
        "How many pages are on the buddy free lists after the next op (Σ nr_free[order] × 2^order)?",
        "";
    ScannersMet = "scanners_met", Page,
        "compact_zone runs its migration scanner up from the zone start and its free scanner down from the end. In which pageblock do they meet? Click a page of it on the map.",
        "runs no compact_zone whose scanners meet (COMPACT_COMPLETE)";
    SkippedPageblock = "skipped_pageblock", Page,
        "Which pageblock does compaction mark to be skipped next time (PB_migrate_skip)? Click a page of it on the map.",
        "sets no pageblock's skip bit (PB_migrate_skip)";
    CompactResult = "compact_result", Choice,
        "How does the next compaction end: does it make a free block of the order, or why not?",
        "runs no compaction (compact_zone, compaction_suitable or compaction_deferred)";
    CompactStallAfter = "compact_stall_after", Number,
        "What does /proc/vmstat's compact_stall read after the next op?",
        "runs no direct compaction (__alloc_pages_direct_compact)";
    CompactSuccessAfter = "compact_success_after", Number,
        "What does /proc/vmstat's compact_success read after the next op?",
        "runs no direct compaction (__alloc_pages_direct_compact)";
}

impl Ask {
    /// The outcomes of a choice ask, `(key, default label)`, in the order they are offered.
    /// [`Ask::VmallocOrders`] generates its choices from the request instead.
    pub fn outcomes(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Ask::Fallback => &[
                (
                    "claim",
                    "Claim: __rmqueue_claim re-types the pageblock (try_to_claim_block)",
                ),
                (
                    "steal",
                    "Steal: __rmqueue_steal takes the pages, the pageblock keeps its type",
                ),
                (
                    "none",
                    "Neither: a free list of the request's own migratetype has a block",
                ),
            ],
            Ask::CompactResult => &[
                (
                    "success",
                    "Success: a free block of the order forms (COMPACT_SUCCESS)",
                ),
                (
                    "complete",
                    "Complete: the scanners meet without one (COMPACT_COMPLETE)",
                ),
                (
                    "partial_skipped",
                    "Partial: the scanners meet in a zone scanned only in part (COMPACT_PARTIAL_SKIPPED)",
                ),
                (
                    "skipped",
                    "Skipped: too few free pages to compact (compaction_suitable: COMPACT_SKIPPED)",
                ),
                (
                    "not_suitable_zone",
                    "Not suitable: the zone lacks memory rather than contiguity (fragmentation_index, COMPACT_NOT_SUITABLE_ZONE)",
                ),
                (
                    "deferred",
                    "Deferred: compaction failed here recently (compaction_deferred: COMPACT_DEFERRED)",
                ),
            ],
            Ask::WatermarkOk => &[
                ("pass", "Pass: the zone is tried"),
                (
                    "fail",
                    "Fail: the zone is skipped (the slow path may retry)",
                ),
            ],
            _ => &[],
        }
    }
}

/// The engine's answer to a question, as the app presents it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Expected {
    /// `labels[correct]` is right.
    Choice {
        /// The labels offered, in order.
        labels: Vec<String>,
        /// Index of the right one.
        correct: usize,
    },
    /// This number is right.
    Number(u64),
    /// Any absolute pfn in `[first, first + count)` is right (a block, or a whole pageblock).
    Page {
        /// First page of the range.
        first: Pfn,
        /// Pages in it.
        count: u64,
    },
    /// The free list `free_area[order].free_list[mt]`.
    List {
        /// The order.
        order: u8,
        /// The migratetype.
        mt: MigrateType,
    },
}

impl Expected {
    /// An answer [`check`] accepts (the first page of a page range): for answer keys and tests.
    pub fn right_answer(&self) -> Answer {
        match *self {
            Expected::Choice { correct, .. } => Answer::Choice(correct),
            Expected::Number(n) => Answer::Number(n),
            Expected::Page { first, .. } => Answer::Page(first),
            Expected::List { order, mt } => Answer::List { order, mt },
        }
    }

    /// How the answer is given.
    pub fn kind(&self) -> AnswerKind {
        match self {
            Expected::Choice { .. } => AnswerKind::Choice,
            Expected::Number(_) => AnswerKind::Number,
            Expected::Page { .. } => AnswerKind::Page,
            Expected::List { .. } => AnswerKind::List,
        }
    }
}

/// A student's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    /// The index of the chosen label.
    Choice(usize),
    /// The number typed.
    Number(u64),
    /// The absolute pfn of the clicked page.
    Page(Pfn),
    /// The clicked free list.
    List {
        /// The order.
        order: u8,
        /// The migratetype.
        mt: MigrateType,
    },
}

/// One line of a question's explanation: a revealing event in words and its pseudocode line
/// (the same narration and pseudocode the app shows while stepping).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExplainLine {
    /// The event's index in the run's log.
    pub event: u32,
    /// [`crate::explain::narrate::narrate`] of the event.
    pub narration: String,
    /// The kernel function of the event's pseudocode step.
    pub function: String,
    /// Index into [`crate::explain::pseudocode::lines`] of that function.
    pub line: usize,
    /// The pseudocode line's text.
    pub code: String,
}

/// A question with its computed answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResolvedQuestion {
    /// JSON path of the question, e.g. `exercises[0].questions[1]`.
    pub path: String,
    /// After this many executed ops.
    pub op: u32,
    /// Events of op `op + 1` applied further.
    pub event: u32,
    /// What it asks.
    pub ask: Ask,
    /// The question's text.
    pub prompt: String,
    /// The event index (timeline cursor) where the question is asked.
    pub asked_at: u32,
    /// The op the timeline's position names at `asked_at` (`Timeline::op_index` + 1; 0: before
    /// op 1): `op` at an op's end, `op + 1` inside it, and an earlier op when the ops up to `op`
    /// ran no events (a `drain all` with empty pcp lists ends where the op before it ended).
    pub asked_in_op: u32,
    /// The event index the reveal plays to: the end of op `op + 1`.
    pub reveal_to: u32,
    /// The summary of the op the question is about (op `op + 1`), e.g. `free a`.
    pub next_op: String,
    /// The right answer.
    pub expected: Expected,
    /// The answer in words (the CLI's answer key).
    pub answer_text: String,
    /// A one-sentence explanation.
    pub summary: String,
    /// The revealing events, at most [`MAX_EXPLAIN_LINES`]: the first ones and the last.
    pub explanation: Vec<ExplainLine>,
    /// Revealing events beyond those listed.
    pub explanation_more: usize,
}

/// An exercise with every answer computed. Written, never read back: it holds a scenario, which
/// only the scenario reader reads (what is kept is the set's text, resolved again).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ResolvedExercise {
    /// As written.
    pub title: String,
    /// As written.
    pub intro: Option<String>,
    /// The built-in's id, if the exercise names one.
    pub builtin: Option<String>,
    /// The scenario (validated), for loading into the app.
    pub scenario: crate::scenario::Scenario,
    /// Executed ops and recorded events of the run.
    pub ops: usize,
    /// Recorded events of the run.
    pub events: u32,
    /// Its questions, answers computed.
    pub questions: Vec<ResolvedQuestion>,
}

/// Is `answer` right? A wrong kind of answer is wrong.
pub fn check(q: &ResolvedQuestion, answer: &Answer) -> bool {
    match (&q.expected, answer) {
        (Expected::Choice { correct, .. }, Answer::Choice(i)) => i == correct,
        (Expected::Number(n), Answer::Number(a)) => n == a,
        (Expected::Page { first, count }, Answer::Page(p)) => *p >= *first && *p - *first < *count,
        (Expected::List { order, mt }, Answer::List { order: o, mt: m }) => order == o && mt == m,
        _ => false,
    }
}

/// One shipped exercise set (`engine/exercises/*.json`).
#[derive(Clone, Copy, Debug)]
pub struct BuiltinSet {
    /// File stem (equal to the set's `id`).
    pub id: &'static str,
}

impl BuiltinSet {
    /// The set's JSON text. In the browser build it comes from the data file the app installs
    /// after the first paint ([`crate::scenario::texts`]), before the exercise panel can open.
    pub fn json(&self) -> &'static str {
        #[cfg(target_arch = "wasm32")]
        return crate::scenario::exercise_set_text(self.id);
        #[cfg(not(target_arch = "wasm32"))]
        compiled_in(self.id)
    }
}

macro_rules! builtin_sets {
    ($($id:literal,)*) => {
        /// The shipped exercise sets, in teaching order.
        pub fn builtin_sets() -> &'static [BuiltinSet] {
            const SETS: &[BuiltinSet] = &[$(BuiltinSet { id: $id }),*];
            SETS
        }

        /// The sets' texts, compiled into the CLI and the native tests.
        #[cfg(not(target_arch = "wasm32"))]
        fn compiled_in(id: &str) -> &'static str {
            match id {
                $($id => include_str!(concat!("../../../exercises/", $id, ".json")),)*
                _ => unreachable!("{id} is not a shipped set"),
            }
        }
    };
}

builtin_sets! {
    "split-and-merge",
    "pcp-refill-and-drain",
    "free-contig-range-chunks",
    "vmalloc-orders",
    "claim-or-steal",
    "watermarks",
    "compaction",
}
