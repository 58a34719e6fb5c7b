//! The ops of a 4096-page zone where a THP can only come from direct compaction: three
//! order-10 movable blocks with every other page freed, two order-9 unmovable blocks pinning
//! the rest, the pcp lists drained. `compaction.rs` checks the capture step by step,
//! `replay.rs` that its trace replays back.

/// The ops (JSON objects) up to, not including, the THP's allocation.
pub fn fragmented_before_thp() -> Vec<String> {
    let mut ops = Vec::new();
    for n in ["a", "b", "c"] {
        ops.push(format!(
            r#"{{"op": "alloc", "order": 10, "mt": "movable", "as": "{n}"}}"#
        ));
    }
    ops.push(r#"{"op": "alloc", "order": 9, "mt": "unmovable", "as": "d"}"#.into());
    let frees = |ops: &mut Vec<String>, n: &str| {
        ops.push(format!(r#"{{"op": "split", "ref": "{n}"}}"#));
        for k in (0..1024).step_by(2) {
            ops.push(format!(r#"{{"op": "free", "ref": "{n}", "page": {k}}}"#));
        }
    };
    frees(&mut ops, "a");
    ops.push(r#"{"op": "alloc", "order": 9, "mt": "unmovable", "as": "e"}"#.into());
    frees(&mut ops, "b");
    frees(&mut ops, "c");
    ops.push(r#"{"op": "drain", "cpu": "all"}"#.into());
    ops
}
