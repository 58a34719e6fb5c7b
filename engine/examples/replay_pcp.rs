//! Replays a kernel trace from a node snapshot (as `buddyscope replay --scenario`) up to a line,
//! and prints the model's pcp lists there, one line per CPU and list (pfns from the head), to
//! compare with what the trace implies (its `mm_page_pcpu_drain` lines) or with a snapshot.
//!
//! `cargo run --release -p buddyscope-engine --example replay_pcp -- SNAPSHOT TRACE FROM-MARKER
//! TO-MARKER [LAST-LINE] [ZONE]`: the lines after `FROM-MARKER` and before `TO-MARKER` (and up
//! to the 1-based `LAST-LINE` of the file) are replayed; `ZONE` (default `Normal`) is printed.

use buddyscope::replay::{cut_at_markers, replay, ReplayOptions};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    if a.len() < 5 {
        eprintln!("usage: replay_pcp SNAPSHOT TRACE FROM-MARKER TO-MARKER [LAST-LINE] [ZONE]");
        std::process::exit(2);
    }
    let snap = std::fs::read_to_string(&a[1]).expect("snapshot");
    let s = buddyscope::scenario::parse_start_state(&snap, &a[1]).expect("a start state");
    let text = std::fs::read_to_string(&a[2]).expect("trace");
    let mut cut = cut_at_markers(&text, Some(&a[3]), Some(&a[4])).expect("markers");
    drop(text);
    if let Some(last) = a.get(5).and_then(|l| l.parse::<usize>().ok()) {
        // Keep the first `last` lines (line numbers stay): cut after the last-th newline.
        if let Some((i, _)) = cut.match_indices('\n').nth(last.saturating_sub(1)) {
            cut.truncate(i + 1);
        }
    }
    let zone = a.get(6).map_or("Normal", String::as_str);
    let opts = ReplayOptions {
        record: false,
        checkpoint_budget: 0,
        ..Default::default()
    };
    let r = replay(&s, cut.as_bytes(), &opts, &mut |_| {}).expect("replay");
    eprintln!(
        "{} events, {} divergences",
        r.trace_events, r.divergence_count
    );
    for z in r.run.final_node.zones() {
        if z.cfg().name != zone {
            continue;
        }
        for cpu in 0..z.pcp().len() {
            for pi in 0..buddyscope::mm::NR_PCP_LISTS {
                let l = z.pcp_list_pfns(cpu, pi);
                if l.is_empty() {
                    continue;
                }
                let pfns: Vec<String> = l.iter().map(|&p| format!("{:#x}", z.abs_pfn(p))).collect();
                println!("cpu {cpu} pindex {pi} n {} {}", l.len(), pfns.join(" "));
            }
        }
    }
}
