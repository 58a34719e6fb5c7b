//! `buddyscope`: run a scenario and print the final state in the kernel's `/proc` formats, the
//! event trace, JSON, or a summary of costs and metrics (scenario-format.md, "CLI").

use buddyscope::runner::{run_valid, RunOptions};
use buddyscope::setup::{self, Start};
use buddyscope::{procfs, report, scenario};
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
    },
    /// Check a scenario (everything before the first op) and stop.
    Check { file: String },
    /// List the built-in scenarios, or print one (`buddyscope builtin NAME`).
    Builtin { name: Option<String> },
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
    Trace,
    Json,
    Summary,
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
        } => {
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
            let opts = RunOptions {
                record: matches!(format, Format::Trace),
                checkpoint_budget: 0,
                max_ops: ops,
            };
            let r = match run_valid(s, &opts) {
                Ok(r) => r,
                Err(e) => return fail(&format!("{file}: {e}")),
            };
            let out = match format {
                Format::Buddyinfo => procfs::buddyinfo(&r.final_zone),
                Format::Pagetypeinfo => procfs::pagetypeinfo(&r.final_zone),
                Format::Zoneinfo => procfs::zoneinfo(&r.final_zone),
                Format::Trace => buddyscope::narrate::trace_text(&r),
                Format::Json => report::json(&r),
                Format::Summary => report::summary(&r),
            };
            print!("{out}");
            ExitCode::SUCCESS
        }
        Cmd::Check { file } => {
            let text = match read(&file) {
                Ok(t) => t,
                Err(e) => return fail(&e),
            };
            match scenario::parse_valid(&text).and_then(setup::build) {
                Ok(Start { scenario: s, .. }) => {
                    println!(
                        "{file}: ok ({} ops, kernel {})",
                        s.ops.len(),
                        s.kernel.as_str()
                    );
                    ExitCode::SUCCESS
                }
                Err(e) => fail(&format!("{file}: {e}")),
            }
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
                    print!("{}", b.json);
                    ExitCode::SUCCESS
                }
                None => fail(&format!(
                    "no built-in scenario {n:?}; `buddyscope builtin` lists them"
                )),
            },
        },
    }
}

fn fail(msg: &str) -> ExitCode {
    eprintln!("buddyscope: {msg}");
    ExitCode::FAILURE
}
