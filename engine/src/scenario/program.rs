//! A scenario's ops compiled once into a [`Program`]: every op as written, numbered in
//! definition order (pre-order: a `repeat` before its body, a body once), with its JSON path and
//! summary ([`OpDef`]), the `repeat` around it, how many times it runs, and the op its `ref`
//! names. [`Program::compile`] is the one walk of the op tree; everything after it (validation,
//! the cost of a run, the runner, a compare side, the exercises, the op records) reads this list
//! or walks it with [`Walk`].

use serde::Serialize;

use super::format::{DrainTarget, Op};
use crate::mm::{FreeMethod, VmallocStrategy};

/// An op's number in its [`Program`]: its index in definition order, the index of its
/// [`OpDef`] (a run's `OpRecord::def` and `OwnerInfo::def`).
pub type OpId = u32;

/// One op as written in the scenario (a `repeat`'s body appears once). Derived from the
/// scenario, never read back: whoever has the scenario has its program's defs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OpDef {
    /// JSON path, e.g. `ops[2].ops[0]`.
    pub path: String,
    /// The `"op"` tag.
    pub op: String,
    /// The name it binds (`as`).
    pub name: Option<String>,
    /// The op's `note`.
    pub note: Option<String>,
    /// Short human summary, e.g. `alloc order 9 movable as thp`.
    pub summary: String,
}

/// Where an op sits in the program.
#[derive(Clone, Debug, PartialEq)]
struct Entry {
    /// The op; a `repeat`'s `ops` are left out (they are the entries that follow it).
    op: Op,
    /// The `repeat` whose body holds it.
    parent: Option<OpId>,
    /// Its index in its list (`ops[slot]` of the document or of its repeat).
    slot: u32,
    /// One past the last op of its body (the op itself for any but a `repeat`).
    end: OpId,
    /// `repeat`s around it.
    depth: usize,
    /// How many times it runs: the product of the `times` of the repeats around it
    /// (saturating).
    runs: u128,
    /// The op its `ref` names (set by validation, which resolves the names).
    target: Option<OpId>,
}

/// A scenario's ops, numbered. Built by [`Program::compile`]; a validated scenario's
/// ([`crate::scenario::ValidScenario::program`]) also has every `ref` bound to the op that
/// defines its name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Program {
    defs: Vec<OpDef>,
    entries: Vec<Entry>,
    /// The op records a whole run makes (saturating).
    executed: u128,
}

impl Program {
    /// Numbers `ops` (a scenario's `ops`) in definition order.
    pub fn compile(ops: &[Op]) -> Program {
        let mut p = Program::default();
        p.add(ops, None, "ops", 0, 1);
        p.executed = p
            .entries
            .iter()
            .map(|e| match e.op {
                Op::Repeat { .. } => 0,
                Op::Workload { steps, .. } => e.runs.saturating_mul(u128::from(steps)),
                _ => e.runs,
            })
            .fold(0u128, u128::saturating_add);
        p
    }

    fn add(&mut self, ops: &[Op], parent: Option<OpId>, path: &str, depth: usize, runs: u128) {
        for (i, op) in ops.iter().enumerate() {
            let id = self.entries.len() as OpId;
            let p = format!("{path}[{i}]");
            self.defs.push(OpDef {
                path: p.clone(),
                op: op.op_name().to_string(),
                name: op.binding().map(|(n, _)| n.to_string()),
                note: op.note().map(str::to_string),
                summary: summarize(op),
            });
            let (own, body) = match op {
                Op::Repeat {
                    times,
                    ops,
                    cpu,
                    note,
                } => (
                    Op::Repeat {
                        times: *times,
                        ops: Vec::new(),
                        cpu: *cpu,
                        note: note.clone(),
                    },
                    Some((ops, *times)),
                ),
                _ => (op.clone(), None),
            };
            self.entries.push(Entry {
                op: own,
                parent,
                slot: i as u32,
                end: id + 1,
                depth,
                runs,
                target: None,
            });
            if let Some((body, times)) = body {
                let inner = runs.saturating_mul(u128::from(times));
                self.add(body, Some(id), &format!("{p}.ops"), depth + 1, inner);
                self.entries[id as usize].end = self.entries.len() as OpId;
            }
        }
    }

    /// Every op as written, by [`OpId`].
    pub fn defs(&self) -> &[OpDef] {
        &self.defs
    }

    /// Ops as written (a `repeat` and each op of its body count once).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// No ops.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Op `id` as written; a `repeat`'s `ops` are left out (they are the ops of
    /// [`Program::body`]).
    pub fn op(&self, id: OpId) -> &Op {
        &self.entries[id as usize].op
    }

    /// The ops of `id`'s body (empty for any op but a `repeat`).
    pub fn body(&self, id: OpId) -> std::ops::Range<OpId> {
        id + 1..self.entries[id as usize].end
    }

    /// The `repeat` whose body holds `id`.
    pub fn parent(&self, id: OpId) -> Option<OpId> {
        self.entries[id as usize].parent
    }

    /// The `repeat`s around `id`.
    pub fn depth(&self, id: OpId) -> usize {
        self.entries[id as usize].depth
    }

    /// How many times `id` runs in a whole run: the product of the `times` of the repeats
    /// around it (saturating; a `workload` makes `steps` op records each time).
    pub fn runs(&self, id: OpId) -> u128 {
        self.entries[id as usize].runs
    }

    /// The op that binds the name `id`'s `ref` names (a validated scenario's program).
    pub fn target(&self, id: OpId) -> Option<OpId> {
        self.entries[id as usize].target
    }

    /// The op records a whole run makes: a `repeat`'s body once per iteration, a `workload`
    /// once per step, a `repeat` itself none (saturating).
    pub fn executed_ops(&self) -> u128 {
        self.executed
    }

    /// `id`'s place in the document's op tree: the index in `ops`, then in each repeat's
    /// `ops` down to it.
    pub fn position(&self, id: OpId) -> Vec<usize> {
        let mut at = Vec::new();
        let mut cur = Some(id);
        while let Some(i) = cur {
            let e = &self.entries[i as usize];
            at.push(e.slot as usize);
            cur = e.parent;
        }
        at.reverse();
        at
    }

    /// Op `id` in `ops`, the op tree this program was compiled from, to change it.
    pub(crate) fn op_in<'a>(&self, ops: &'a mut [Op], id: OpId) -> &'a mut Op {
        let at = self.position(id);
        let (first, rest) = at.split_first().expect("an op has a position");
        let mut op = &mut ops[*first];
        for &i in rest {
            op = match op {
                Op::Repeat { ops, .. } => &mut ops[i],
                _ => unreachable!("only a repeat holds ops"),
            };
        }
        op
    }

    /// The resolution of every op's `ref` (by [`OpId`]).
    pub(crate) fn bind(&mut self, targets: Vec<Option<OpId>>) {
        for (e, t) in self.entries.iter_mut().zip(targets) {
            e.target = t;
        }
    }

    /// The ops as written, each once: a `repeat`'s body between [`Visit::Enter`] and
    /// [`Visit::Leave`] even when it runs 0 times (what validation checks and costs are
    /// counted over).
    pub fn walk(&self) -> Walk<'_> {
        Walk::new(self, false)
    }

    /// The ops in the order a run executes them: a `repeat`'s body once per iteration
    /// (none for `times: 0`), each iteration between [`Visit::Enter`] and [`Visit::Leave`].
    pub fn run_order(&self) -> Walk<'_> {
        Walk::new(self, true)
    }
}

/// One step of a [`Walk`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Visit<'p> {
    /// An op (a `repeat` too, before its body).
    Op(OpId, &'p Op),
    /// An iteration of a `repeat`'s body begins: a new name scope.
    Enter {
        /// The `repeat`.
        repeat: OpId,
        /// The iteration (0 in [`Program::walk`]).
        iteration: u64,
    },
    /// That iteration ends, and its scope.
    Leave {
        /// The `repeat`.
        repeat: OpId,
    },
}

/// A walk over a [`Program`]'s ops, without recursion: [`Program::walk`] or
/// [`Program::run_order`].
#[derive(Clone, Debug)]
pub struct Walk<'p> {
    program: &'p Program,
    /// Iterate each `repeat` `times` times (a run) instead of once.
    expand: bool,
    /// The next op.
    next: OpId,
    /// The repeats being iterated, innermost last.
    frames: Vec<Frame>,
    /// A `repeat` just visited, whose body comes next.
    pending: Option<OpId>,
}

#[derive(Clone, Copy, Debug)]
struct Frame {
    repeat: OpId,
    iteration: u64,
    times: u64,
    /// Its [`Visit::Leave`] of this iteration is given.
    left: bool,
}

impl<'p> Walk<'p> {
    fn new(program: &'p Program, expand: bool) -> Walk<'p> {
        Walk {
            program,
            expand,
            next: 0,
            frames: Vec::new(),
            pending: None,
        }
    }

    /// The iterations of the innermost repeats, outermost first.
    pub fn iterations(&self) -> impl Iterator<Item = u64> + '_ {
        self.frames.iter().map(|f| f.iteration)
    }
}

impl<'p> Iterator for Walk<'p> {
    type Item = Visit<'p>;

    fn next(&mut self) -> Option<Visit<'p>> {
        let entries = &self.program.entries;
        if let Some(r) = self.pending.take() {
            let times = match entries[r as usize].op {
                Op::Repeat { times, .. } if self.expand => times,
                _ => 1,
            };
            if times > 0 {
                self.frames.push(Frame {
                    repeat: r,
                    iteration: 0,
                    times,
                    left: false,
                });
                self.next = r + 1;
                return Some(Visit::Enter {
                    repeat: r,
                    iteration: 0,
                });
            }
            self.next = entries[r as usize].end;
        }
        while let Some(f) = self.frames.last_mut() {
            if self.next != entries[f.repeat as usize].end {
                break;
            }
            if !f.left {
                f.left = true;
                return Some(Visit::Leave { repeat: f.repeat });
            }
            if f.iteration + 1 < f.times {
                f.iteration += 1;
                f.left = false;
                self.next = f.repeat + 1;
                return Some(Visit::Enter {
                    repeat: f.repeat,
                    iteration: f.iteration,
                });
            }
            self.frames.pop();
        }
        let id = self.next;
        let e = entries.get(id as usize)?;
        self.next += 1;
        if matches!(e.op, Op::Repeat { .. }) {
            self.pending = Some(id);
        }
        Some(Visit::Op(id, &e.op))
    }
}

/// A one-line summary of an op as written.
pub fn summarize(op: &Op) -> String {
    let name = |n: &Option<String>| n.as_ref().map(|n| format!(" as {n}")).unwrap_or_default();
    match op {
        Op::Alloc {
            order,
            mt,
            highatomic,
            as_name,
            ..
        } => format!(
            "alloc order {order} {}{}{}",
            mt.slug(),
            if *highatomic { " (GFP_ATOMIC)" } else { "" },
            name(as_name)
        ),
        Op::Free { ref_name, page, .. } => match page {
            Some(p) => format!("free {ref_name} page {p}"),
            None => format!("free {ref_name}"),
        },
        Op::Split { ref_name, .. } => format!("split_page {ref_name}"),
        Op::AllocContigRange {
            pfn,
            nr_pages,
            as_name,
            ..
        } => {
            format!("alloc_contig_range {pfn:#x} +{nr_pages}{}", name(as_name))
        }
        Op::FreeContigRange {
            ref_name,
            pfn,
            nr_pages,
            method,
            frozen,
            ..
        } => {
            let what = match ref_name {
                Some(r) => r.clone(),
                None => format!("{:#x} +{}", pfn.unwrap_or(0), nr_pages.unwrap_or(0)),
            };
            let m = match method {
                Some(FreeMethod::PerPage) => " (per page)",
                Some(FreeMethod::Chunked) => " (chunked)",
                None => "",
            };
            format!(
                "{}free_contig_range {what}{m}",
                if *frozen { "__frozen " } else { "" }
            )
        }
        Op::Vmalloc {
            pages,
            strategy,
            as_name,
            ..
        } => format!(
            "vmalloc {} KB{}{}",
            pages * 4,
            match strategy {
                Some(VmallocStrategy::Bulk) => " (bulk)",
                Some(VmallocStrategy::LargeOrder) => " (large order)",
                None => "",
            },
            name(as_name)
        ),
        Op::Vfree { ref_name, .. } => format!("vfree {ref_name}"),
        Op::Drain { cpu, .. } => match cpu {
            DrainTarget::Cpu(c) => format!("drain cpu {c}"),
            DrainTarget::All => "drain all".into(),
        },
        Op::CompactMemory { .. } => "compact_memory".into(),
        Op::Compact { order, zone, .. } => match zone {
            Some(z) => format!("compact order {order} zone {z}"),
            None => format!("compact order {order}"),
        },
        Op::Tick { cpu, .. } => match cpu {
            DrainTarget::Cpu(c) => format!("tick cpu {c}"),
            DrainTarget::All => "tick".into(),
        },
        Op::Repeat { times, .. } => format!("repeat ×{times}"),
        Op::Workload { steps, seed, .. } => format!("workload {steps} steps (seed {seed})"),
        Op::GetPage { ref_name, page, .. } => format!("get_page {ref_name} page {page}"),
        Op::PutPage { ref_name, page, .. } => format!("put_page {ref_name} page {page}"),
        Op::CmaAlloc {
            nr_pages,
            align,
            as_name,
            ..
        } => format!(
            "cma_alloc {nr_pages} pages{}{}",
            align.map(|a| format!(" align {a}")).unwrap_or_default(),
            name(as_name)
        ),
        Op::CmaRelease { ref_name, .. } => format!("cma_release {ref_name}"),
    }
}
