//! `buddyscope`: run a scenario and print the final state in the kernel's `/proc` formats, the
//! event trace, JSON, or a summary of costs and metrics (scenario-format.md, "CLI").

use buddyscope::explain::overtime::{over_time, Series};
use buddyscope::{
    explain::report,
    run,
    scenario::{self, procfs},
    Limits, RunOptions, Runner,
};
use clap::{Parser, Subcommand, ValueEnum};
use std::io::Read;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "buddyscope",
    version,
    about = "A steppable model of the Linux buddy page allocator"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run a scenario (a file, or - for standard input) and print the final state.
    Run {
        file: String,
        #[arg(long, value_enum, default_value_t = Format::Summary)]
        format: Format,
        /// Stop after this many executed operations (a repeat body counts once per iteration,
        /// a workload once per step): the state the app shows after that many op steps.
        #[arg(long)]
        ops: Option<usize>,
        /// Run one side of the scenario's `compare` pair (its overrides applied): what compare
        /// mode shows on that side.
        #[arg(long, value_enum)]
        side: Option<SideArg>,
        /// Run with this kernel behaviour profile instead of the scenario's (v6.12, v6.18,
        /// v6.19, v7.1, v7.2, v7.3); with --side, instead of the side's.
        #[arg(long)]
        kernel: Option<String>,
        /// Counters only: run without recording the event trace and keep only the first and
        /// last op records, so the seeds' loops run at their real size (not with --format
        /// trace).
        #[arg(long, alias = "counters-only")]
        no_trace: bool,
        #[command(flatten)]
        matrix: MatrixArgs,
        #[command(flatten)]
        limits: LimitArgs,
    },
    /// Run the full-size seed benchmarks (scenarios with a `compare` pair, e.g.
    /// engine/bench/*.json): both sides counters only, the counters' B/A next to the thread's
    /// measured B/A.
    BenchSeeds {
        files: Vec<String>,
        #[command(flatten)]
        limits: LimitArgs,
    },
    /// Time the engine natively on the criterion bench's mixed sequence (the app's
    /// window.__buddyscopeBench runs the same in wasm): wall and CPU milliseconds, recording off
    /// and on, median of --runs.
    BenchEngine {
        #[arg(long, default_value_t = 1_000_000)]
        steps: usize,
        #[arg(long, default_value_t = 5)]
        runs: usize,
    },
    /// Replay an ftrace kmem trace (a file, or - for standard input) as forced transitions
    /// and print the final state; summary and json add the divergences.
    Replay {
        trace: String,
        #[arg(long, value_enum, default_value_t = Format::Summary)]
        format: Format,
        #[command(flatten)]
        start: ReplayStart,
        /// Replay only the lines after the trace_marker line with this text (e.g.
        /// "buddyscope: snapshot before"); the others count as skipped, line numbers stay.
        #[arg(long)]
        from_marker: Option<String>,
        /// Replay only the lines before the trace_marker line with this text (e.g.
        /// "buddyscope: snapshot after").
        #[arg(long)]
        to_marker: Option<String>,
        /// Compare the final state with this version-2 node snapshot (every free list in list
        /// order, pageblock type and pcp list): print the differences on standard error and
        /// exit 1 when there are any.
        #[arg(long)]
        expect: Option<String>,
        /// Print progress to standard error.
        #[arg(long)]
        progress: bool,
        /// Also replay the trace's requests through the model choosing its own pages, and print
        /// the replay summary: where the model's choices first differ, and the fragmentation
        /// index per order over time in both (--format summary or json).
        #[arg(long)]
        compare_model: bool,
        /// At every mm_page_alloc, first let the model choose a page itself from its current
        /// state (the traced order, gfp flags and CPU), then apply the kernel's: print the
        /// exact and same-list rates and the misses by cause (--format summary or json).
        #[arg(long, conflicts_with = "compare_model")]
        predict: bool,
        /// Counts and capped lists only: replay without recording the run, so memory stays
        /// bounded however long the trace (json: the final state's counters, the divergence
        /// and prediction totals, at most 10000 divergences and misses listed; not with
        /// --format trace or fallback_matrix).
        #[arg(long, alias = "counters-only")]
        no_trace: bool,
        #[command(flatten)]
        matrix: MatrixArgs,
    },
    /// Where is this page: the list holding PFN (free_area[o].free_list[mt] with its block's
    /// head and order, or a CPU's pcp list) or who allocated it (the op, or a trace's task),
    /// and the event that put it there. INPUT is a scenario (a file, - or a built-in's id) or,
    /// with --scenario/--init or when it is not JSON, an ftrace kmem trace.
    Where {
        input: String,
        /// The pfn: hex 0x… or decimal.
        pfn: String,
        /// After this many executed operations (a replay: trace events); default: the end.
        #[arg(long)]
        ops: Option<usize>,
        #[arg(long, value_enum, default_value_t = WhereFormat::Text)]
        format: WhereFormat,
        // A trace's start state: any of these flags makes INPUT a trace.
        #[command(flatten)]
        start: ReplayStart,
    },
    /// Check a scenario (everything before the first op), print what it costs (operations and
    /// pages touched, counted without running) and stop; refuse it over the operation limit.
    Check {
        file: String,
        #[command(flatten)]
        limits: LimitArgs,
    },
    /// List the built-in scenarios, or print one (`buddyscope builtin NAME`).
    Builtin { name: Option<String> },
    /// Check an exercise set (a file, or - for standard input): run its scenarios, compute every
    /// answer and print the answer key, ending with `N questions`.
    CheckExercises { file: String },
    /// For authoring exercises: after each op of a scenario (a file, - or a built-in's id), the
    /// asks that apply there and the engine's answers.
    ExerciseAsks {
        scenario: String,
        /// The first position (ops executed).
        #[arg(long, default_value_t = 0)]
        from: u32,
        /// The last position (default: from + 49).
        #[arg(long)]
        to: Option<u32>,
    },
}

/// The fallback matrix's filters (`--format fallback_matrix`).
#[derive(clap::Args, Clone)]
struct MatrixArgs {
    /// Count only requests of these orders: LO-HI or one order (--format fallback_matrix).
    #[arg(long)]
    orders: Option<String>,
    /// Count only events FROM-TO of the run's log, inclusive (--format fallback_matrix).
    #[arg(long)]
    events: Option<String>,
}

impl MatrixArgs {
    fn print(&self, run: &buddyscope::Run) -> Result<String, String> {
        let f = buddyscope::explain::fallback::MatrixFilter::parse(
            run,
            self.orders.as_deref(),
            self.events.as_deref(),
        )?;
        Ok(buddyscope::explain::fallback::text(
            &buddyscope::explain::fallback::fallback_matrix(run, f),
        ))
    }
}

/// The start state of a trace's replay (`replay`, `where`): a scenario's or snapshot's, or the
/// defaults, with these overrides.
#[derive(clap::Args, Clone, Default)]
struct ReplayStart {
    /// Start from this scenario's kernel, zone and init (its ops are ignored), or from a
    /// bare snapshot file (version 1: one zone; version 2: a node).
    #[arg(long)]
    scenario: Option<String>,
    /// Start from a real machine's /proc files:
    /// pagetypeinfo=FILE[,zoneinfo=FILE][,zone=NAME|all][,cma=0|1] (CONFIG_CMA is read from
    /// the text's CMA row; cma= may only agree with it).
    #[arg(long)]
    init: Option<String>,
    /// Kernel behaviour profile (v6.12, v6.18, v6.19, v7.1, v7.2, v7.3).
    #[arg(long)]
    kernel: Option<String>,
    /// Zone size in pages.
    #[arg(long)]
    pages: Option<u64>,
    /// First pfn of the zone (a multiple of 1024).
    #[arg(long)]
    start_pfn: Option<u64>,
    /// CPUs (pcp lists) of the zone.
    #[arg(long)]
    cpus: Option<u32>,
}

impl ReplayStart {
    /// Whether any flag was given.
    fn is_set(&self) -> bool {
        self.scenario.is_some()
            || self.init.is_some()
            || self.kernel.is_some()
            || self.pages.is_some()
            || self.start_pfn.is_some()
            || self.cpus.is_some()
    }
}

/// Raising the bounds of `buddyscope::Limits`.
#[derive(clap::Args, Clone, Copy)]
struct LimitArgs {
    /// Most operations the scenario may expand to (default 10000000 with --no-trace, 1000000
    /// otherwise).
    #[arg(long)]
    max_ops: Option<u64>,
    /// Most events a run with the trace (--format trace) may record (default 16777216).
    #[arg(long)]
    max_events: Option<u64>,
}

impl LimitArgs {
    fn limits(self, record_ops: bool) -> Limits {
        let d = Limits::for_recording(record_ops);
        Limits {
            max_ops: self.max_ops.unwrap_or(d.max_ops),
            max_events: self.max_events.unwrap_or(d.max_events),
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum WhereFormat {
    Text,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum SideArg {
    A,
    B,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Buddyinfo,
    Pagetypeinfo,
    Zoneinfo,
    /// The compaction lines of /proc/vmstat.
    Vmstat,
    /// `/sys/kernel/debug/extfrag/unusable_index` of the final state.
    #[value(name = "unusable_index")]
    UnusableIndex,
    /// `/sys/kernel/debug/extfrag/extfrag_index` of the final state.
    #[value(name = "extfrag_index")]
    ExtfragIndex,
    /// From-migratetype × to-migratetype fallbacks (mm_page_alloc_extfrag), claims/steals.
    #[value(name = "fallback_matrix")]
    FallbackMatrix,
    /// Pageblocks holding pages of another migratetype, per zone and type, and each block.
    #[value(name = "mixed_pageblocks")]
    MixedPageblocks,
    /// Who holds the pages of another migratetype in mixed pageblocks (op, or traced task).
    Polluters,
    /// CSV: free pages per order after every op (a replay: every trace event, and the trace's
    /// clock), thinned to 2048 rows per zone.
    #[value(name = "free_pages_over_time")]
    FreePagesOverTime,
    /// CSV: unusable_index per order over time.
    #[value(name = "unusable_index_over_time")]
    UnusableIndexOverTime,
    /// CSV: extfrag_index per order over time.
    #[value(name = "extfrag_index_over_time")]
    ExtfragIndexOverTime,
    /// CSV: mixed pageblocks (in all and by type) over time.
    #[value(name = "mixed_pageblocks_over_time")]
    MixedPageblocksOverTime,
    /// CSV: fallbacks so far (claims, steals) and per op (a timed replay: per second).
    #[value(name = "fallbacks_over_time")]
    FallbacksOverTime,
    Trace,
    Json,
    Summary,
    /// The final state as a version-2 node snapshot, in the format of the one the replay started
    /// from (`--scenario SNAPSHOT`): another replay can start where this one stopped.
    Snapshot,
}

impl Format {
    /// The series an `…_over_time` format prints.
    fn series(self) -> Option<Series> {
        Some(match self {
            Format::FreePagesOverTime => Series::FreePages,
            Format::UnusableIndexOverTime => Series::UnusableIndex,
            Format::ExtfragIndexOverTime => Series::ExtfragIndex,
            Format::MixedPageblocksOverTime => Series::MixedPageblocks,
            Format::FallbacksOverTime => Series::Fallbacks,
            _ => return None,
        })
    }

    /// The format walks the run's events.
    fn needs_trace(self) -> bool {
        matches!(self, Format::Trace | Format::FallbackMatrix) || self.series().is_some()
    }
}

fn read(file: &str) -> Result<String, String> {
    if file == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| format!("reading standard input: {e}"))?;
        Ok(s)
    } else {
        std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Run {
            file,
            format,
            ops,
            side,
            kernel,
            no_trace,
            matrix,
            limits,
        } => {
            if no_trace && format.needs_trace() {
                return fail(
                    "--format trace, fallback_matrix and …_over_time need the trace: drop --no-trace",
                );
            }
            let text = match read(&file) {
                Ok(t) => t,
                Err(e) => return fail(&e),
            };
            let s = match scenario::parse_valid(&text) {
                Ok(s) => s,
                Err(e) => return fail(&format!("{file}: {e}")),
            };
            let s = match side {
                None => s,
                Some(side) => {
                    let Some(c) = &s.compare else {
                        return fail(&format!(
                            "{file}: --side needs a scenario with a `compare` pair"
                        ));
                    };
                    let side = match side {
                        SideArg::A => &c.a,
                        SideArg::B => &c.b,
                    };
                    match scenario::ValidScenario::new(side.apply(&s)) {
                        Ok(s) => s,
                        Err(e) => return fail(&format!("{file}: {e}")),
                    }
                }
            };
            let s = match kernel {
                None => s,
                Some(k) => {
                    let Some(k) = buddyscope::Kernel::parse(&k) else {
                        return fail(&format!(
                            "--kernel {k}: expected {}",
                            buddyscope::Kernel::choices()
                        ));
                    };
                    let mut s = s.into_scenario();
                    s.kernel = k;
                    match scenario::ValidScenario::new(s) {
                        Ok(s) => s,
                        Err(e) => return fail(&format!("{file}: {e}")),
                    }
                }
            };
            import_notes(&s);
            let template = match (&s.init, format) {
                (scenario::Init::NodeSnapshot(t), Format::Snapshot) => Some(t.clone()),
                (_, Format::Snapshot) => {
                    return fail(&format!("--format snapshot: {file} {NOT_A_NODE_SNAPSHOT}"))
                }
                _ => None,
            };
            let opts = RunOptions {
                record: format.needs_trace(),
                checkpoint_budget: 0,
                max_ops: ops,
            };
            // Without --no-trace every op keeps its record: the recorded run's op limit.
            let runner = Runner::new(s)
                .options(&opts)
                .limits(limits.limits(!no_trace));
            let r = if no_trace {
                runner.counters_only().run()
            } else {
                runner.run()
            };
            let r = match r {
                Ok(r) => r,
                Err(e) => return fail(&format!("{file}: {e}")),
            };
            let out = match format {
                Format::Buddyinfo => procfs::buddyinfo(&r.final_node),
                Format::Pagetypeinfo => procfs::pagetypeinfo(&r.final_node),
                Format::Zoneinfo => procfs::zoneinfo(&r.final_node),
                Format::Vmstat => procfs::vmstat_compaction(&r.final_node, &r.stats),
                Format::UnusableIndex => procfs::unusable_index(&r.final_node),
                Format::ExtfragIndex => procfs::extfrag_index(&r.final_node),
                Format::FallbackMatrix => match matrix.print(&r) {
                    Ok(t) => t,
                    Err(e) => return fail(&e),
                },
                Format::MixedPageblocks => buddyscope::explain::pollution::text(
                    &r.final_node,
                    &buddyscope::explain::pollution::mixed_pageblocks(&r, &r.final_node),
                ),
                Format::Polluters => buddyscope::explain::pollution::polluters_text(
                    &buddyscope::explain::pollution::polluters(&r, &r.final_node, None),
                ),
                Format::FreePagesOverTime
                | Format::UnusableIndexOverTime
                | Format::ExtfragIndexOverTime
                | Format::MixedPageblocksOverTime
                | Format::FallbacksOverTime => {
                    let series = format.series().expect("an over-time format");
                    over_time(&r, None).csv(series)
                }
                Format::Trace => buddyscope::trace_text(&r),
                Format::Json => report::json(&r),
                Format::Summary => report::summary(&r),
                Format::Snapshot => {
                    let t = template.expect("checked before the run");
                    let snap = buddyscope::scenario::node_snapshot_of(&r.final_node, &t);
                    serde_json::to_string(&snap).expect("serializable") + "\n"
                }
            };
            print!("{out}");
            ExitCode::SUCCESS
        }
        Cmd::Replay {
            trace,
            format,
            start,
            progress,
            compare_model,
            predict,
            from_marker,
            to_marker,
            expect,
            no_trace,
            matrix,
        } => {
            if predict && !matches!(format, Format::Summary | Format::Json) {
                return fail("--predict prints --format summary or json");
            }
            if compare_model && !matches!(format, Format::Summary | Format::Json) {
                return fail("--compare-model prints --format summary or json");
            }
            if matches!(format, Format::Snapshot) && start.scenario.is_none() {
                return fail(
                    "--format snapshot writes the final state in the format of the node snapshot the replay starts from: give it with --scenario SNAPSHOT.json (tools/drgn/snapshot.py --node)",
                );
            }
            let expect = match expect
                .map(|f| read_node_snapshot(&f).map(|s| (f, s)))
                .transpose()
            {
                Ok(e) => e,
                Err(e) => return fail(&e),
            };
            if no_trace && format.needs_trace() {
                return fail(
                    "--format trace, fallback_matrix and …_over_time need the trace: drop --no-trace",
                );
            }
            // Cutting standard input at markers reads it into memory; a file is cut as it is
            // streamed, after a first pass that finds the markers (line numbers kept).
            let markers = from_marker.is_some() || to_marker.is_some();
            let mut file_cut = None;
            let cut = if markers && trace == "-" {
                let text = match read(&trace) {
                    Ok(t) => t,
                    Err(e) => return fail(&e),
                };
                match cut_at_markers(&text, from_marker.as_deref(), to_marker.as_deref()) {
                    Ok(t) => Some(t),
                    Err(e) => return fail(&format!("{trace}: {e}")),
                }
            } else {
                if markers {
                    match find_markers(&trace, from_marker.as_deref(), to_marker.as_deref()) {
                        Ok(c) => file_cut = Some(c),
                        Err(e) => return fail(&format!("{trace}: {e}")),
                    }
                }
                None
            };
            let s = match replay_start(start) {
                Ok(s) => s,
                Err(e) => return fail(&e),
            };
            import_notes(&s);
            let mut opts = buddyscope::replay::ReplayOptions {
                record: !no_trace && (format.needs_trace() || matches!(format, Format::Json)),
                checkpoint_budget: 0,
                predict,
                ..Default::default()
            };
            let mut report = |n: u64| {
                if progress {
                    eprint!("\rbuddyscope: {n} events replayed");
                }
            };
            // The comparison reads the trace a second time: standard input is kept in memory.
            let stdin_text = if cut.is_some() {
                cut
            } else if trace == "-" && compare_model {
                let mut t = String::new();
                if let Err(e) = std::io::Read::read_to_string(&mut std::io::stdin(), &mut t) {
                    return fail(&format!("standard input: {e}"));
                }
                Some(t)
            } else {
                None
            };
            // A probed trace is read as one from its first line (a streamed standard input
            // learns it at its first probe line).
            let probes = match &stdin_text {
                Some(t) => kprobe_lines(std::io::Cursor::new(t.as_bytes())),
                None if trace == "-" => KprobeLines::default(),
                None => std::fs::File::open(&trace)
                    .map(|f| kprobe_lines(std::io::BufReader::new(f)))
                    .unwrap_or_default(),
            };
            opts.free_one_page_probed = probes.free_one_page;
            opts.pcp_commit_probed = probes.pcp_commit;
            let r = if let Some(t) = &stdin_text {
                buddyscope::replay::replay(&s, t.as_bytes(), &opts, &mut report)
            } else if trace == "-" {
                let stdin = std::io::stdin();
                buddyscope::replay::replay(&s, stdin.lock(), &opts, &mut report)
            } else {
                match open_trace(&trace, file_cut) {
                    Ok(f) => buddyscope::replay::replay(&s, f, &opts, &mut report),
                    Err(e) => return fail(&e),
                }
            };
            if progress {
                eprintln!();
            }
            let r = match r {
                Ok(r) => r,
                Err(e) => return fail(&format!("{trace}: {e}")),
            };
            if compare_model {
                let c = match &stdin_text {
                    Some(t) => buddyscope::replay::reissue(&s, t.as_bytes()),
                    None => match open_trace(&trace, file_cut) {
                        Ok(f) => buddyscope::replay::reissue(&s, f),
                        Err(e) => return fail(&e),
                    },
                };
                let c = match c {
                    Ok(c) => c,
                    Err(e) => return fail(&format!("{trace}: {e}")),
                };
                let sum = buddyscope::replay::summary(&r, Some(&c));
                match format {
                    Format::Json => println!(
                        "{}",
                        serde_json::to_string_pretty(&sum).expect("serializable")
                    ),
                    _ => print!("{}", buddyscope::replay::summary_text(&sum)),
                }
                return ExitCode::SUCCESS;
            }
            let out = match format {
                Format::Buddyinfo => procfs::buddyinfo(&r.run.final_node),
                Format::Pagetypeinfo => procfs::pagetypeinfo(&r.run.final_node),
                Format::Zoneinfo => procfs::zoneinfo(&r.run.final_node),
                Format::Vmstat => procfs::vmstat_compaction(&r.run.final_node, &r.run.stats),
                Format::UnusableIndex => procfs::unusable_index(&r.run.final_node),
                Format::ExtfragIndex => procfs::extfrag_index(&r.run.final_node),
                Format::FallbackMatrix => match matrix.print(&r.run) {
                    Ok(t) => t,
                    Err(e) => return fail(&e),
                },
                Format::MixedPageblocks => buddyscope::explain::pollution::text(
                    &r.run.final_node,
                    &buddyscope::explain::pollution::mixed_pageblocks(&r.run, &r.run.final_node),
                ),
                Format::Polluters => buddyscope::explain::pollution::polluters_text(
                    &buddyscope::explain::pollution::polluters(
                        &r.run,
                        &r.run.final_node,
                        Some(&r.allocs),
                    ),
                ),
                Format::FreePagesOverTime
                | Format::UnusableIndexOverTime
                | Format::ExtfragIndexOverTime
                | Format::MixedPageblocksOverTime
                | Format::FallbacksOverTime => {
                    let series = format.series().expect("an over-time format");
                    over_time(&r.run, Some(&r.times)).csv(series)
                }
                Format::Trace => buddyscope::trace_text(&r.run),
                Format::Json => buddyscope::explain::replay_report::json(&r),
                Format::Summary => buddyscope::explain::replay_report::summary(&r),
                Format::Snapshot => match snapshot_out(&s.init, &r.run.final_node) {
                    Ok(t) => t,
                    Err(e) => return fail(&format!("--format snapshot: --scenario {e}")),
                },
            };
            print!("{out}");
            if let Some((file, snap)) = expect {
                const SHOWN: usize = 50;
                let d = buddyscope::scenario::node_snapshot_differences(
                    &r.run.final_node,
                    &snap,
                    usize::MAX,
                );
                if d.is_empty() {
                    eprintln!(
                        "buddyscope: expect: the final state equals {file} (every free list, pageblock type and pcp list)"
                    );
                } else {
                    eprintln!("buddyscope: expect: {} differences from {file}:", d.len());
                    for l in d.iter().take(SHOWN) {
                        eprintln!("  {l}");
                    }
                    if d.len() > SHOWN {
                        eprintln!("  … {} more", d.len() - SHOWN);
                    }
                    return ExitCode::FAILURE;
                }
            }
            ExitCode::SUCCESS
        }
        Cmd::Where {
            input,
            pfn,
            ops,
            format,
            start,
        } => {
            let pfn = match buddyscope::explain::whereis::parse_pfn(&pfn) {
                Ok(p) => p,
                Err(e) => return fail(&e),
            };
            match where_cmd(&input, pfn, ops, start) {
                Ok(w) => {
                    match format {
                        WhereFormat::Text => print!("{}", w.text()),
                        WhereFormat::Json => println!(
                            "{}",
                            serde_json::to_string_pretty(&w).expect("serializable")
                        ),
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => fail(&e),
            }
        }
        Cmd::Check { file, limits } => {
            let text = match read(&file) {
                Ok(t) => t,
                Err(e) => return fail(&e),
            };
            match scenario::parse_valid(&text) {
                Ok(s) => {
                    let cost = run::estimate(&s);
                    // The counters-only limit: what `run --no-trace` accepts.
                    let limits = limits.limits(false);
                    if let Err(e) = run::check_limits(&cost, &limits) {
                        return fail(&format!("{file}: {e}"));
                    }
                    println!(
                        "{file}: ok ({} ops, kernel {})",
                        s.ops.len(),
                        s.kernel.as_str()
                    );
                    if let Some(Ok(sum)) = procfs::summary_of(&s) {
                        for f in &sum.fallbacks {
                            println!("note: init: {f}");
                        }
                    }
                    println!(
                        "{file}: expands to {cost} (limit {} operations)",
                        limits.max_ops
                    );
                    ExitCode::SUCCESS
                }
                Err(e) => fail(&format!("{file}: {e}")),
            }
        }
        Cmd::BenchEngine { steps, runs } => {
            let seq = buddyscope::bench::mixed_sequence(steps);
            println!("mixed sequence, {steps} steps, {runs} runs (median; all runs in ms)");
            for record in [false, true] {
                let mut wall = Vec::new();
                let mut cpu = Vec::new();
                for _ in 0..runs.max(1) {
                    let mut e = buddyscope::bench::mixed_engine(record);
                    let (t0, c0) = (std::time::Instant::now(), cpu_seconds());
                    std::hint::black_box(buddyscope::bench::run_mixed_engine(&mut e, &seq));
                    wall.push(t0.elapsed().as_secs_f64() * 1e3);
                    cpu.push((cpu_seconds() - c0) * 1e3);
                }
                let median = |v: &mut Vec<f64>| {
                    v.sort_by(f64::total_cmp);
                    v[v.len() / 2]
                };
                let list = |v: &[f64]| {
                    v.iter()
                        .map(|x| format!("{x:.1}"))
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                let (w, c) = (median(&mut wall), median(&mut cpu));
                println!(
                    "recording {:<3}  wall {w:8.1} ms  cpu {c:8.1} ms   wall: {}",
                    if record { "on" } else { "off" },
                    list(&wall)
                );
            }
            ExitCode::SUCCESS
        }
        Cmd::BenchSeeds { files, limits } => {
            let limits = limits.limits(false);
            let mut clock = cpu_seconds;
            for file in &files {
                let r = read(file).and_then(|text| {
                    buddyscope::bench::run_seed(&text, &limits, &mut clock)
                        .map_err(|e| format!("{file}: {e}"))
                });
                match r {
                    Ok(r) => println!("{}", buddyscope::bench::table(file, &r)),
                    Err(e) => return fail(&e),
                }
            }
            ExitCode::SUCCESS
        }
        Cmd::CheckExercises { file } => {
            let text = match read(&file) {
                Ok(t) => t,
                Err(e) => return fail(&e),
            };
            let set = buddyscope::explain::exercises::parse_exercise_set(&text);
            match set.and_then(|s| buddyscope::explain::exercises::resolve(&s).map(|r| (s, r))) {
                Ok((set, resolved)) => {
                    print!(
                        "{}",
                        buddyscope::explain::exercises::answer_key(&set, &resolved)
                    );
                    ExitCode::SUCCESS
                }
                Err(e) => fail(&format!("{file}: {e}")),
            }
        }
        Cmd::ExerciseAsks { scenario, from, to } => {
            let text = match buddyscope::builtin::get(&scenario) {
                Some(b) if !std::path::Path::new(&scenario).exists() => b.json().to_string(),
                _ => match read(&scenario) {
                    Ok(t) => t,
                    Err(e) => return fail(&e),
                },
            };
            let opts = RunOptions {
                record: true,
                checkpoint_budget: 0,
                max_ops: None,
            };
            let r = match scenario::parse_valid(&text)
                .and_then(|s| Runner::new(s).options(&opts).run())
            {
                Ok(r) => r,
                Err(e) => return fail(&format!("{scenario}: {e}")),
            };
            let last = to.unwrap_or(from.saturating_add(49));
            for k in from..=last.min(r.ops.len().saturating_sub(1) as u32) {
                let def = &r.op_defs[r.ops[k as usize].def as usize];
                println!("op {k} (before op {} `{}`):", k + 1, def.summary);
                for q in buddyscope::explain::exercises::asks_at(&r, k) {
                    println!("  {}: {} ({})", q.ask.name(), q.answer_text, q.summary);
                }
            }
            ExitCode::SUCCESS
        }
        Cmd::Builtin { name } => match name {
            None => {
                for b in buddyscope::builtin::ALL {
                    println!("{:<28} {}", b.id, b.title);
                }
                ExitCode::SUCCESS
            }
            Some(n) => match buddyscope::builtin::get(&n) {
                Some(b) => {
                    print!("{}", b.json());
                    ExitCode::SUCCESS
                }
                None => fail(&format!(
                    "no built-in scenario {n:?}; `buddyscope builtin` lists them"
                )),
            },
        },
    }
}

/// `buddyscope where`: run the scenario (or replay the trace) recorded, put the cursor after
/// `ops` executed ops, and answer for `pfn` there.
fn where_cmd(
    input: &str,
    pfn: u64,
    ops: Option<usize>,
    start: ReplayStart,
) -> Result<buddyscope::explain::whereis::PageWhere, String> {
    let trace_flags = start.is_set();
    let text = match buddyscope::builtin::get(input) {
        Some(b) if !trace_flags && !std::path::Path::new(input).exists() => b.json().to_string(),
        _ => read(input)?,
    };
    let is_scenario = !trace_flags && text.trim_start().starts_with('{');
    let (run, traced) = if is_scenario {
        let opts = RunOptions {
            record: true,
            checkpoint_budget: 0,
            max_ops: None,
        };
        let r = scenario::parse_valid(&text)
            .and_then(|s| Runner::new(s).options(&opts).run())
            .map_err(|e| format!("{input}: {e}"))?;
        (r, None)
    } else {
        let s = replay_start(start)?;
        import_notes(&s);
        let opts = buddyscope::replay::ReplayOptions {
            record: true,
            checkpoint_budget: 0,
            ..Default::default()
        };
        let r = buddyscope::replay::replay_text(&s, &text, &opts)
            .map_err(|e| format!("{input}: {e}"))?;
        (r.run, Some(r.allocs))
    };
    let pos = match ops {
        None => run.log.events.len() as u32,
        Some(0) => 0,
        Some(k) if k <= run.ops.len() => run.ops[k - 1].end,
        Some(k) => {
            return Err(format!(
                "--ops {k}: {input} has {} executed {} (0 to {} may be asked)",
                run.ops.len(),
                if is_scenario { "ops" } else { "trace events" },
                run.ops.len()
            ))
        }
    };
    let mut t = buddyscope::Timeline::new(run);
    t.seek(pos);
    buddyscope::explain::whereis::where_is(&t.run, t.node(), t.pos(), pfn, traced.as_ref())
        .map_err(|e| format!("{input}: {e}"))
}

/// The start state of a replay: a scenario's (or the defaults), with the flags' overrides.
fn replay_start(start: ReplayStart) -> Result<scenario::Scenario, String> {
    let ReplayStart {
        scenario: base,
        init,
        kernel,
        pages,
        start_pfn,
        cpus,
    } = start;
    let mut s = match &base {
        Some(f) => scenario_or_snapshot(f)?,
        None => scenario::Scenario::default(),
    };
    s.ops.clear();
    if let Some(k) = kernel {
        s.kernel = buddyscope::Kernel::parse(&k)
            .ok_or_else(|| format!("--kernel {k}: expected {}", buddyscope::Kernel::choices()))?;
    }
    if pages.is_some() {
        s.zone.pages = pages;
    }
    if let Some(p) = start_pfn {
        s.zone.start_pfn = p;
    }
    if let Some(c) = cpus {
        s.zone.cpus = c;
    }
    if let Some(spec) = init {
        let (mut pti, mut zi, mut zone) = (None, None, "Normal".to_string());
        let mut cma = None;
        for part in spec.split(',') {
            match part.split_once('=') {
                Some(("pagetypeinfo", f)) => pti = Some(read(f)?),
                Some(("zoneinfo", f)) => zi = Some(read(f)?),
                Some(("zone", z)) => zone = z.to_string(),
                Some(("cma", v)) => {
                    cma = Some(match v {
                        "1" | "true" | "yes" => true,
                        "0" | "false" | "no" => false,
                        _ => return Err(format!("--init cma={v}: expected cma=1 or cma=0")),
                    })
                }
                _ => {
                    return Err(format!(
                        "--init {part}: expected pagetypeinfo=FILE, zoneinfo=FILE, zone=NAME or cma=0|1"
                    ))
                }
            }
        }
        let pagetypeinfo: String = pti.ok_or("--init needs pagetypeinfo=FILE")?;
        // CONFIG_CMA is read from the text (its CMA row); cma= may only agree with it.
        s.zone.cma =
            procfs::resolve_cma(&pagetypeinfo, cma, "--init cma").map_err(|e| e.to_string())?;
        s.init = scenario::Init::Proc {
            pagetypeinfo,
            zoneinfo: zi,
            zone,
        };
    }
    if s.name.is_empty() {
        s.name = "trace replay".to_string();
    }
    scenario::validate(&s).map_err(|e| e.to_string())?;
    Ok(s)
}

/// A scenario file, or a bare snapshot (version 1 or 2, as `tools/drgn/snapshot.py` writes
/// it), which starts a scenario of its own (errors name its fields under `init.snapshot`).
fn scenario_or_snapshot(f: &str) -> Result<scenario::Scenario, String> {
    // A node snapshot that says its release (`uname -r`) is replayed with that release's profile
    // unless --kernel says otherwise; the summary's "snapshot kernel" line says which was used.
    scenario::parse_start_state(&read(f)?, f)
}

const NOT_A_NODE_SNAPSHOT: &str = "does not start from a version-2 node snapshot (tools/drgn/snapshot.py --node): the final state is written in that snapshot's format";

/// `--format snapshot`: the final state in the format of the node snapshot the run started from.
fn snapshot_out(init: &scenario::Init, node: &buddyscope::Node) -> Result<String, String> {
    match init {
        scenario::Init::NodeSnapshot(template) => Ok(serde_json::to_string(
            &buddyscope::scenario::node_snapshot_of(node, template),
        )
        .expect("serializable")
            + "\n"),
        _ => Err(NOT_A_NODE_SNAPSHOT.to_string()),
    }
}

/// A version-2 node snapshot file (bare, or a scenario's `init.snapshot`), for `--expect`.
fn read_node_snapshot(f: &str) -> Result<buddyscope::scenario::NodeSnapshot, String> {
    match scenario_or_snapshot(f)?.init {
        scenario::Init::NodeSnapshot(s) => Ok(*s),
        _ => Err(format!(
            "--expect {f}: expected a version-2 node snapshot (tools/drgn/snapshot.py --node)"
        )),
    }
}

/// The 0-based lines a marker cut keeps, `start..end` (`end`: none, to the end of the file).
#[derive(Clone, Copy)]
struct MarkerCut {
    start: usize,
    end: Option<usize>,
}

/// The lines [`cut_at_markers`] would keep, found in one streaming pass over the file.
fn find_markers(path: &str, from: Option<&str>, to: Option<&str>) -> Result<MarkerCut, String> {
    use std::io::BufRead;
    let f = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut r = std::io::BufReader::with_capacity(1 << 16, f);
    let mut line = Vec::new();
    let (mut start, mut end) = (from.is_none().then_some(0), None);
    let mut i = 0usize;
    loop {
        line.clear();
        if r.read_until(b'\n', &mut line).map_err(|e| e.to_string())? == 0 {
            break;
        }
        let text = String::from_utf8_lossy(&line);
        let m = buddyscope::replay::marker_text(text.trim_end_matches(['\n', '\r']));
        match start {
            None if m.is_some() && m == from => start = Some(i + 1),
            Some(s) if i >= s && to.is_some() && m == to => {
                end = Some(i);
                break;
            }
            _ => {}
        }
        i += 1;
    }
    let Some(start) = start else {
        let m = from.unwrap_or_default();
        return Err(format!(
            "--from-marker {m:?}: no trace_marker line (tracing_mark_write: {m}) in the trace"
        ));
    };
    if let (Some(m), None) = (to, end) {
        return Err(format!(
            "--to-marker {m:?}: no trace_marker line (tracing_mark_write: {m}) after the start"
        ));
    }
    Ok(MarkerCut { start, end })
}

/// A trace file as the replay reads it: streamed, cut at the markers when `cut` is given
/// (the lines outside them read as blank lines, as [`cut_at_markers`] writes them).
fn open_trace(path: &str, cut: Option<MarkerCut>) -> Result<Box<dyn std::io::BufRead>, String> {
    let f = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
    let r = std::io::BufReader::with_capacity(1 << 16, f);
    Ok(match cut {
        None => Box::new(r),
        Some(cut) => Box::new(std::io::BufReader::with_capacity(
            1 << 16,
            CutReader {
                inner: r,
                cut,
                line: 0,
                out: Vec::new(),
                at: 0,
            },
        )),
    })
}

/// [`open_trace`]'s cut: each line of `inner` inside the cut (its line ending made `\n`), each
/// line outside it as a blank line.
struct CutReader<R> {
    inner: R,
    cut: MarkerCut,
    line: usize,
    out: Vec<u8>,
    at: usize,
}

impl<R: std::io::BufRead> std::io::Read for CutReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.at == self.out.len() {
            self.out.clear();
            self.at = 0;
            if self.inner.read_until(b'\n', &mut self.out)? == 0 {
                return Ok(0);
            }
            let keep = self.line >= self.cut.start && self.cut.end.is_none_or(|e| self.line < e);
            self.line += 1;
            if keep {
                while matches!(self.out.last(), Some(b'\n' | b'\r')) {
                    self.out.pop();
                }
            } else {
                self.out.clear();
            }
            self.out.push(b'\n');
        }
        let n = buf.len().min(self.out.len() - self.at);
        buf[..n].copy_from_slice(&self.out[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// The trace cut at the `--from-marker`/`--to-marker` lines, the errors in the options' words.
fn cut_at_markers(text: &str, from: Option<&str>, to: Option<&str>) -> Result<String, String> {
    buddyscope::replay::cut_at_markers(text, from, to).map_err(|e| match e {
        buddyscope::replay::MissingMarker::From(m) => format!(
            "--from-marker {m:?}: no trace_marker line (tracing_mark_write: {m}) in the trace"
        ),
        buddyscope::replay::MissingMarker::To(m) => format!(
            "--to-marker {m:?}: no trace_marker line (tracing_mark_write: {m}) after the start"
        ),
    })
}

/// Says on standard error which fallback (zone size, placement) an `init` from `/proc` needed,
/// so that standard output stays the kernel's format.
fn import_notes(s: &scenario::Scenario) {
    if let Some(Ok(sum)) = procfs::summary_of(s) {
        for f in &sum.fallbacks {
            eprintln!("buddyscope: note: init: {f}");
        }
    }
}

/// This thread's CPU time in seconds (`/proc/thread-self/schedstat`, nanoseconds): what the
/// engine spent, not what a loaded machine made it wait. Wall time where that file is missing.
fn cpu_seconds() -> f64 {
    use std::sync::OnceLock;
    static T0: OnceLock<std::time::Instant> = OnceLock::new();
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .map(|ns| ns as f64 / 1e9)
        .unwrap_or_else(|| {
            T0.get_or_init(std::time::Instant::now)
                .elapsed()
                .as_secs_f64()
        })
}

fn fail(msg: &str) -> ExitCode {
    eprintln!("buddyscope: {msg}");
    ExitCode::FAILURE
}

/// Which of the lab's kprobe events the trace has lines of (lab/capture-lib.sh).
#[derive(Clone, Copy, Default)]
struct KprobeLines {
    free_one_page: bool,
    pcp_commit: bool,
}

fn kprobe_lines(mut r: impl std::io::BufRead) -> KprobeLines {
    let mut found = KprobeLines::default();
    let mut line = Vec::new();
    loop {
        line.clear();
        match r.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return found,
            Ok(_) => {
                let Ok(l) = std::str::from_utf8(&line) else {
                    continue;
                };
                found.free_one_page |= l.contains(": free_one_page: (free_one_page+");
                found.pcp_commit |= l
                    .contains(": free_frozen_page_commit: (free_frozen_page_commit+")
                    || l.contains(": free_unref_page_commit: (free_unref_page_commit+");
                if found.free_one_page && found.pcp_commit {
                    return found;
                }
            }
        }
    }
}
