//! Mixed pageblocks over a run: each page's migratetype (what [`page_mt`] says of a state) kept
//! in step with the run's events, without rebuilding any state. Two views read it: the number
//! of mixed pageblocks after every op ([`MixTracker`], charted by `overtime.rs`), and why one
//! pageblock became mixed ([`pageblock_mixing`]: the steal or claim that put each foreign page
//! there, which the page history links to).
//!
//! A page's type is the type of the list its block is on (a `free_area` list or a pcp list), or
//! else its holder's allocation type, as in [`page_mt`]; the events that change either are the
//! list mutations and the owner mutations, so the type is kept per page as those two bytes,
//! changed exactly as `Zone::apply` changes the zone's lists and owners.
//!
//! [`page_mt`]: crate::explain::pollution::page_mt

use crate::explain::pollution::{foreign_in, pcp_heads};
use crate::mm::*;
use crate::mm::{Annotation, Event, EventKind, Mutation, PageKind, Tracepoint, Zone};
use crate::mm::{NO_OWNER, PB_ISOLATE};
use crate::run::Run;
use serde::Serialize;

/// "No type": a page on no list and held by nobody.
const NONE: u8 = u8::MAX;

fn code(mt: Option<MigrateType>) -> u8 {
    mt.map_or(NONE, |m| m as u8)
}

fn decode(c: u8) -> Option<MigrateType> {
    (c != NONE).then(|| MigrateType::from_idx(c as usize))
}

/// `get_pageblock_migratetype` of raw pageblock bits.
fn pb_bits_mt(bits: u8) -> MigrateType {
    if bits & PB_ISOLATE != 0 {
        MigrateType::Isolate
    } else {
        MigrateType::from_idx((bits & 7) as usize)
    }
}

/// The type of pages `[lo, hi)` of one zone: per page, the type of the list its block is on
/// (buddy or pcp) and the type its holder allocated with; the first wins.
#[derive(Clone, Debug)]
pub(crate) struct PageTypes {
    lo: u32,
    list: Vec<u8>,
    owner: Vec<u8>,
}

impl PageTypes {
    /// The types of pages `[lo, hi)` of `z`, a state of `run`.
    pub(crate) fn of(run: &Run, z: &Zone, lo: u32, hi: u32) -> PageTypes {
        let hi = hi.min(z.pages());
        let n = hi.saturating_sub(lo) as usize;
        let mut t = PageTypes {
            lo,
            list: vec![NONE; n],
            owner: vec![NONE; n],
        };
        let pcp = pcp_heads(z);
        // Block heads from the order-10 alignment below `lo`: blocks are aligned, never overlap.
        let mut p = lo & !((1 << MAX_PAGE_ORDER) - 1);
        while p < hi {
            let len = match z.page_kind(p) {
                PageKind::Other => 1,
                k => {
                    let len = 1u32 << z.page_order(p);
                    let mt = match k {
                        PageKind::Buddy => Some(z.list_mt_of(p)),
                        _ => pcp.get(&p).copied(),
                    };
                    for q in p.max(lo)..(p + len).min(hi) {
                        t.list[(q - lo) as usize] = code(mt);
                    }
                    len
                }
            };
            p += len;
        }
        for q in lo..hi {
            // A pcp head's owner field is its CPU, and nobody's once it leaves the list.
            let o = match z.page_kind(q) {
                PageKind::Pcp => NO_OWNER,
                _ => z.page_owner(q),
            };
            t.owner[(q - lo) as usize] = code(match o {
                NO_OWNER => None,
                o => run.owner_mt(o),
            });
        }
        t
    }

    /// The type of zone page `p` (in the window).
    pub(crate) fn ty(&self, p: u32) -> Option<MigrateType> {
        let i = (p - self.lo) as usize;
        match self.list[i] {
            NONE => decode(self.owner[i]),
            c => decode(c),
        }
    }

    fn hi(&self) -> u32 {
        self.lo + self.list.len() as u32
    }

    /// Sets one of the two bytes over pages `[s, s + n)` ∩ the window; `changed(page, old,
    /// new)` for every page whose type changes.
    fn set(
        &mut self,
        owner: bool,
        (s, n): (u32, u32),
        v: u8,
        changed: &mut impl FnMut(u32, Option<MigrateType>, Option<MigrateType>),
    ) {
        let (a, b) = (s.max(self.lo), s.saturating_add(n).min(self.hi()));
        for p in a..b {
            let old = self.ty(p);
            let i = (p - self.lo) as usize;
            if owner {
                self.owner[i] = v;
            } else {
                self.list[i] = v;
            }
            let new = self.ty(p);
            if new != old {
                changed(p, old, new);
            }
        }
    }

    /// Applies mutation `m` of this zone as `Zone::apply` changes its lists and owners.
    pub(crate) fn apply(
        &mut self,
        run: &Run,
        m: &Mutation,
        changed: &mut impl FnMut(u32, Option<MigrateType>, Option<MigrateType>),
    ) {
        let block = |pfn: u32, order: u8| (pfn, 1u32 << order);
        let owner_code = |o: u32| code((o != NO_OWNER).then(|| run.owner_mt(o)).flatten());
        match *m {
            Mutation::FreeListAdd { pfn, order, mt, .. } => {
                self.set(false, block(pfn, order), mt as u8, changed)
            }
            Mutation::FreeListMove { pfn, order, to, .. } => {
                self.set(false, block(pfn, order), to as u8, changed)
            }
            Mutation::FreeListDel { pfn, order, .. } => {
                self.set(false, block(pfn, order), NONE, changed)
            }
            Mutation::PcpAdd { pindex, pfn, .. } => {
                let order = pindex_to_order(pindex as usize);
                self.set(true, (pfn, 1), NONE, changed);
                let mt = pindex_to_mt(pindex as usize);
                self.set(false, block(pfn, order), mt as u8, changed);
            }
            Mutation::PcpDel { pindex, pfn, .. } => {
                let order = pindex_to_order(pindex as usize);
                self.set(false, block(pfn, order), NONE, changed);
                self.set(true, (pfn, 1), NONE, changed);
            }
            Mutation::PrepNewPage {
                pfn, order, owner, ..
            } => self.set(true, block(pfn, order), owner_code(owner), changed),
            Mutation::ContigAlloc { pfn, nr, owner } => {
                self.set(true, (pfn, nr), owner_code(owner), changed)
            }
            Mutation::PutPage { pfn, order, .. } => {
                self.set(true, block(pfn, order), NONE, changed)
            }
            Mutation::PutPageRef {
                pfn, release: true, ..
            } => self.set(true, (pfn, 1), NONE, changed),
            _ => {}
        }
    }
}

/// One zone's pages, pageblock types and foreign-page counts.
struct ZoneMix {
    types: PageTypes,
    pb: Vec<MigrateType>,
    /// Pages of another type than their pageblock's, per pageblock.
    foreign: Vec<u16>,
    /// Mixed pageblocks by their own type (isolated ones are never counted).
    mixed: [u32; MT_SLOTS],
}

impl ZoneMix {
    fn of(run: &Run, z: &Zone) -> ZoneMix {
        let types = PageTypes::of(run, z, 0, z.pages());
        let pb: Vec<MigrateType> = (0..z.nr_pageblocks()).map(|b| z.pb_mt(b)).collect();
        let mut m = ZoneMix {
            foreign: vec![0; pb.len()],
            pb,
            types,
            mixed: [0; MT_SLOTS],
        };
        for b in 0..m.pb.len() as u32 {
            m.recount(b);
            m.count_in(b, 1);
        }
        m
    }

    fn count_in(&mut self, b: u32, d: i32) {
        let mt = self.pb[b as usize];
        if self.foreign[b as usize] > 0 && mt != MigrateType::Isolate {
            let c = &mut self.mixed[mt.idx()];
            *c = c.wrapping_add_signed(d);
        }
    }

    fn recount(&mut self, b: u32) {
        let mt = self.pb[b as usize];
        let start = b << PAGEBLOCK_ORDER;
        let end = (start + PAGEBLOCK_NR_PAGES).min(self.types.hi());
        self.foreign[b as usize] = (start..end)
            .filter(|&p| foreign_in(self.types.ty(p), mt))
            .count() as u16;
    }

    fn apply(&mut self, run: &Run, m: &Mutation) {
        if let Mutation::SetPageblock { pb, new, .. } = *m {
            let mt = pb_bits_mt(new);
            if (pb as usize) < self.pb.len() && self.pb[pb as usize] != mt {
                self.count_in(pb, -1);
                self.pb[pb as usize] = mt;
                self.recount(pb);
                self.count_in(pb, 1);
            }
            return;
        }
        let (pbs, foreign) = (&self.pb, &mut self.foreign);
        let mixed = &mut self.mixed;
        self.types.apply(run, m, &mut |p, old, new| {
            let b = (p >> PAGEBLOCK_ORDER) as usize;
            let mt = pbs[b];
            let (was, is) = (foreign_in(old, mt), foreign_in(new, mt));
            if was == is {
                return;
            }
            let before = foreign[b];
            if is {
                foreign[b] += 1;
            } else {
                foreign[b] -= 1;
            }
            if mt != MigrateType::Isolate && (before == 0) != (foreign[b] == 0) {
                let c = &mut mixed[mt.idx()];
                *c = if is { *c + 1 } else { *c - 1 };
            }
        });
    }
}

/// The number of mixed pageblocks of every zone of a run's node, by pageblock type, kept in
/// step with the run's events from its initial state.
pub struct MixTracker {
    zones: Vec<ZoneMix>,
    active: usize,
}

impl MixTracker {
    /// At the run's initial state.
    pub fn new(run: &Run) -> MixTracker {
        MixTracker {
            zones: run
                .initial
                .zones()
                .iter()
                .map(|z| ZoneMix::of(run, z))
                .collect(),
            active: run.initial.active_index(),
        }
    }

    /// Applies the next event of the run.
    pub fn event(&mut self, run: &Run, ev: &Event) {
        if let EventKind::Mutation(m) = ev.kind() {
            if let Mutation::ZoneSwitch { to, .. } = m {
                self.active = to as usize;
            } else {
                self.zones[self.active].apply(run, &m);
            }
        }
    }

    /// Mixed pageblocks of zone `zone` (node index) by their type ([`MigrateType::idx`]).
    pub fn mixed(&self, zone: usize) -> [u32; MT_SLOTS] {
        self.zones[zone].mixed
    }

    /// The type of page `p` of zone `zone` now (what [`page_mt`] says of the state).
    ///
    /// [`page_mt`]: crate::explain::pollution::page_mt
    pub fn page_type(&self, zone: usize, p: ZonePfn) -> Option<MigrateType> {
        self.zones[zone].types.ty(p)
    }
}

/// What put foreign pages into a pageblock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MixKind {
    /// `__rmqueue_steal` (or `rmqueue_bulk` refilling a pcp list with a steal's pages): the
    /// block was taken off another type's free list and the pageblock kept its type.
    Steal,
    /// `try_to_claim_block` re-typed the pageblock: the pages its old type had allocated stay.
    Claim,
    /// Mixed in the run's initial state (a `/proc` import or snapshot laid it out so).
    Start,
    /// No fallback recorded with it (a replay forced the page there).
    Other,
}

/// One fallback (or other event) that put foreign pages into the pageblock.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MixCause {
    /// Which.
    pub kind: MixKind,
    /// The event to show: the fallback's `mm_page_alloc_extfrag` (else its `__rmqueue_steal` /
    /// claim annotation; for [`MixKind::Other`] the event that made the page foreign); the
    /// timeline position that shows it is `event + 1`. `None` for [`MixKind::Start`].
    pub event: Option<u32>,
    /// The executed op holding that event.
    pub op: Option<u32>,
    /// The type the foreign pages are of.
    pub page_mt: MigrateType,
    /// The pageblock's type they are foreign in.
    pub block_mt: MigrateType,
    /// For a steal or claim: the order asked for and the order of the block taken (`None`
    /// when the tracepoint is missing).
    pub orders: Option<(u8, u8)>,
}

impl MixCause {
    /// In words.
    pub fn words(&self) -> String {
        let (p, b) = (self.page_mt.kernel_name(), self.block_mt.kernel_name());
        match self.kind {
            MixKind::Steal => match self.orders {
                Some((a, f)) => format!(
                    "steal: an order-{a} {p} allocation took an order-{f} block off the {b} free list, leaving the pageblock {b} (__rmqueue_steal)"
                ),
                None => format!("steal: a {p} allocation took pages off the {b} free list (__rmqueue_steal)"),
            },
            MixKind::Claim => format!(
                "claim: a {b} allocation claimed the pageblock (try_to_claim_block re-typed it), leaving its {p} pages in a {b} block"
            ),
            MixKind::Start => format!("{p} pages in this {b} pageblock from the start (the initial state)"),
            MixKind::Other => format!("became {p} in this {b} pageblock with no fallback recorded"),
        }
    }
}

/// A page of the pageblock foreign over positions `[from, to)` of the timeline.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ForeignSpan {
    /// The page (zone-relative).
    pub page: ZonePfn,
    /// The first position it is foreign at (`event + 1` of the event that made it so).
    pub from: u32,
    /// The first position it is not (`None`: to the end of the run).
    pub to: Option<u32>,
    /// Its type.
    pub mt: MigrateType,
    /// Index into [`PageblockMixing::causes`].
    pub cause: usize,
}

impl ForeignSpan {
    /// Foreign at position `pos`.
    pub fn covers(&self, pos: u32) -> bool {
        self.from <= pos && self.to.is_none_or(|t| pos < t)
    }
}

/// Why one pageblock holds pages of another type, over the whole run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PageblockMixing {
    /// The zone (node index) and the pageblock.
    pub zone: usize,
    /// The pageblock's index in the zone.
    pub pb: u32,
    /// What put foreign pages there, in run order.
    pub causes: Vec<MixCause>,
    /// Every stretch of a page being foreign, in the order they began.
    pub spans: Vec<ForeignSpan>,
}

impl PageblockMixing {
    /// The causes of the pages foreign at position `pos`, with how many pages each, in run
    /// order.
    pub fn causes_at(&self, pos: u32) -> Vec<(&MixCause, u32)> {
        let mut n = vec![0u32; self.causes.len()];
        for s in self.spans.iter().filter(|s| s.covers(pos)) {
            n[s.cause] += 1;
        }
        self.causes.iter().zip(n).filter(|&(_, k)| k > 0).collect()
    }

    /// The stretch page `page` is foreign in at position `pos`, if it is.
    pub fn page_at(&self, page: ZonePfn, pos: u32) -> Option<&ForeignSpan> {
        self.spans
            .iter()
            .rev()
            .find(|s| s.page == page && s.covers(pos))
    }
}

/// A fallback of the current op that touched the pageblock: a cause once a page is put to it.
struct Candidate {
    kind: MixKind,
    range: (u32, u32),
    event: u32,
    orders: Option<(u8, u8)>,
    /// Index into the causes once materialised.
    cause: Option<usize>,
}

/// A span's cause not known yet (a claim re-types the pageblock before its annotation).
const PENDING: usize = usize::MAX;

/// The walk of [`pageblock_mixing`]: the pageblock's pages and the spans and causes so far.
struct MixWalk {
    out: PageblockMixing,
    lo: u32,
    block_mt: MigrateType,
    /// Per page: its open span.
    open: Vec<Option<usize>>,
    /// Per page: the (type, cause) it keeps across a stretch of no type.
    keep: Vec<Option<(MigrateType, usize)>>,
    /// The steals and claims of the current op that touched the pageblock.
    candidates: Vec<Candidate>,
    /// Spans of the current op waiting for a cause.
    pending: Vec<usize>,
    /// The op (index into `run.ops`) of the current events, if they are in one.
    op: Option<u32>,
}

impl MixWalk {
    fn foreign(&self, t: Option<MigrateType>) -> bool {
        foreign_in(t, self.block_mt)
    }

    /// Materialises candidate `c` as a cause of pages of type `mt`.
    fn cause_of(&mut self, c: usize, mt: MigrateType) -> usize {
        if let Some(k) = self.candidates[c].cause {
            return k;
        }
        let cand = &self.candidates[c];
        self.out.causes.push(MixCause {
            kind: cand.kind,
            event: Some(cand.event),
            op: self.op,
            page_mt: mt,
            block_mt: self.block_mt,
            orders: cand.orders,
        });
        let k = self.out.causes.len() - 1;
        self.candidates[c].cause = Some(k);
        k
    }

    /// Gives span `s` cause `k` (and the page's kept cause, if it was waiting too).
    fn settle(&mut self, s: usize, k: usize) {
        self.out.spans[s].cause = k;
        let pi = (self.out.spans[s].page - self.lo) as usize;
        if let Some((mt, PENDING)) = self.keep[pi] {
            self.keep[pi] = Some((mt, k));
        }
    }

    /// Page `p`'s type is now `new` at event `i` (its foreign state, or its foreign type,
    /// changed).
    fn change(&mut self, p: u32, new: Option<MigrateType>, i: u32) {
        let pi = (p - self.lo) as usize;
        if let Some(s) = self.open[pi].take() {
            self.out.spans[s].to = Some(i + 1);
            self.keep[pi] = Some((self.out.spans[s].mt, self.out.spans[s].cause));
        }
        if new == Some(self.block_mt) {
            // Back home: a later foreign stretch has a cause of its own.
            self.keep[pi] = None;
        }
        if !self.foreign(new) {
            return;
        }
        let t = new.expect("foreign");
        let s = self.out.spans.len();
        self.out.spans.push(ForeignSpan {
            page: p,
            from: i + 1,
            to: None,
            mt: t,
            cause: PENDING,
        });
        self.open[pi] = Some(s);
        let kept = self.keep[pi].filter(|&(mt, _)| mt == t).map(|(_, c)| c);
        let found = kept.or_else(|| {
            let c = self
                .candidates
                .iter()
                .rposition(|c| p >= c.range.0 && p - c.range.0 < c.range.1)?;
            Some(self.cause_of(c, t))
        });
        match found {
            Some(k) if k != PENDING => {
                self.out.spans[s].cause = k;
                self.keep[pi] = Some((t, k));
            }
            _ => {
                self.pending.push(s);
                self.keep[pi] = Some((t, PENDING));
            }
        }
    }

    /// A steal or claim touching the pageblock at event `i`: pages of the op waiting for a cause
    /// that its block holds get it.
    fn fallback(&mut self, cand: Candidate) {
        let range = cand.range;
        self.candidates.push(cand);
        let c = self.candidates.len() - 1;
        let pending = std::mem::take(&mut self.pending);
        for s in pending {
            let (page, mt) = (self.out.spans[s].page, self.out.spans[s].mt);
            if page >= range.0 && page - range.0 < range.1 {
                let k = self.cause_of(c, mt);
                self.settle(s, k);
            } else {
                self.pending.push(s);
            }
        }
    }

    /// The op's events are over: spans still waiting have no fallback.
    fn end_op(&mut self) {
        for s in std::mem::take(&mut self.pending) {
            let span = &self.out.spans[s];
            self.out.causes.push(MixCause {
                kind: MixKind::Other,
                event: Some(span.from - 1),
                op: self.op,
                page_mt: span.mt,
                block_mt: self.block_mt,
                orders: None,
            });
            let k = self.out.causes.len() - 1;
            self.settle(s, k);
        }
        self.candidates.clear();
    }
}

/// Why pageblock `pb` of zone `zone` (node index) became mixed, over the whole run: every
/// stretch of each of its pages being of another type than the pageblock, and the event that
/// put it there. A page made foreign is put down to the latest steal or claim of its op whose
/// block holds it (a claim re-types the pageblock before its annotation, so one later in the
/// op counts too); a page that leaves its list and comes back as the same type (a stolen page
/// a later allocation takes from the pcp list) keeps its cause. One pass over the log.
pub fn pageblock_mixing(run: &Run, zone: usize, pb: u32) -> PageblockMixing {
    let empty = PageblockMixing {
        zone,
        pb,
        causes: Vec::new(),
        spans: Vec::new(),
    };
    if zone >= run.initial.nr_zones() || pb >= run.initial.zone(zone).nr_pageblocks() {
        return empty;
    }
    let z0 = run.initial.zone(zone);
    let lo = pb << PAGEBLOCK_ORDER;
    let hi = (lo + PAGEBLOCK_NR_PAGES).min(z0.pages());
    let mut types = PageTypes::of(run, z0, lo, hi);
    let n = (hi - lo) as usize;
    let mut w = MixWalk {
        out: empty,
        lo,
        block_mt: z0.pb_mt(pb),
        open: vec![None; n],
        keep: vec![None; n],
        candidates: Vec::new(),
        pending: Vec::new(),
        op: None,
    };
    for p in lo..hi {
        let t = types.ty(p);
        if w.foreign(t) {
            if w.out.causes.is_empty() {
                w.out.causes.push(MixCause {
                    kind: MixKind::Start,
                    event: None,
                    op: None,
                    page_mt: t.expect("foreign"),
                    block_mt: w.block_mt,
                    orders: None,
                });
            }
            w.open[(p - lo) as usize] = Some(w.out.spans.len());
            w.out.spans.push(ForeignSpan {
                page: p,
                from: 0,
                to: None,
                mt: t.expect("foreign"),
                cause: 0,
            });
        }
    }
    let meets = |(s, n): (u32, u32)| s < hi && s.saturating_add(n) > lo;
    // A steal or claim waiting for its tracepoint (a replay's partial claim traces it in the
    // next op).
    let mut awaiting_tp: Option<(usize, usize)> = None;
    let mut active = run.initial.active_index();
    // The op whose end is past the event (events between ops go with the next one).
    let mut op = 0usize;
    let mut group = usize::MAX;
    let mut changes: Vec<(u32, Option<MigrateType>)> = Vec::new();
    for (i, ev) in run.log.events.iter().enumerate() {
        let i = i as u32;
        while op < run.ops.len() && run.ops[op].end <= i {
            op += 1;
        }
        if op != group {
            w.end_op();
            group = op;
            awaiting_tp = awaiting_tp.filter(|&(_, g)| g + 1 == op);
        }
        w.op = run
            .ops
            .get(op)
            .filter(|o| o.start <= i && i < o.end)
            .map(|_| op as u32);
        let kind = ev.kind();
        if let EventKind::Mutation(Mutation::ZoneSwitch { to, .. }) = kind {
            active = to as usize;
            continue;
        }
        if active != zone || !kind.touched_pages().is_some_and(meets) {
            continue;
        }
        changes.clear();
        match kind {
            EventKind::Mutation(Mutation::SetPageblock { pb: b, new, .. }) => {
                if b != pb {
                    continue;
                }
                let mt = pb_bits_mt(new);
                let old = std::mem::replace(&mut w.block_mt, mt);
                for p in lo..hi {
                    let t = types.ty(p);
                    let was = foreign_in(t, old);
                    if was != w.foreign(t) {
                        changes.push((p, t));
                    }
                }
            }
            EventKind::Mutation(m) => {
                let b = w.block_mt;
                let foreign = |t: Option<MigrateType>| foreign_in(t, b);
                types.apply(run, &m, &mut |p, old, new| {
                    if foreign(old) || foreign(new) {
                        changes.push((p, new));
                    }
                });
            }
            EventKind::Annotation(a) => {
                let fallback = match a {
                    Annotation::Stolen {
                        pfn,
                        order,
                        alloc_order,
                        ..
                    } => Some((
                        MixKind::Steal,
                        (pfn, 1u32 << order),
                        Some((alloc_order, order)),
                    )),
                    Annotation::Claimed {
                        pfn,
                        order,
                        pageblocks,
                        ..
                    } => Some((
                        MixKind::Claim,
                        (pfn, (1u32 << order).max(pageblocks * PAGEBLOCK_NR_PAGES)),
                        None,
                    )),
                    _ => None,
                };
                if let Some((kind, range, orders)) = fallback {
                    w.fallback(Candidate {
                        kind,
                        range,
                        event: i,
                        orders,
                        cause: None,
                    });
                    awaiting_tp = Some((w.candidates.len() - 1, op));
                }
                if let Annotation::Trace(Tracepoint::MmPageAllocExtfrag {
                    alloc_order,
                    fallback_order,
                    ..
                }) = a
                {
                    if let Some((c, g)) = awaiting_tp.take() {
                        if g == op {
                            let cand = &mut w.candidates[c];
                            cand.event = i;
                            cand.orders = Some((alloc_order, fallback_order));
                            if let Some(k) = cand.cause {
                                w.out.causes[k].event = Some(i);
                                w.out.causes[k].orders = cand.orders;
                            }
                        } else if let Some(k) = w
                            .out
                            .causes
                            .iter()
                            .rposition(|k| k.kind == MixKind::Claim && k.op == Some(g as u32))
                        {
                            // The claim's tracepoint in the op after it (its candidates are
                            // gone): point the cause at it.
                            w.out.causes[k].event = Some(i);
                            w.out.causes[k].orders = Some((alloc_order, fallback_order));
                        }
                    }
                }
            }
        }
        for &(p, new) in &changes {
            w.change(p, new, i);
        }
    }
    w.end_op();
    w.out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::pollution::{mixed_pageblocks, page_mt};
    use crate::run::Timeline;

    fn run_of(id: &str) -> Run {
        let b = crate::scenario::builtin::get(id).unwrap();
        crate::scenario::parse_valid(b.json())
            .and_then(|s| crate::run::Runner::new(s).run())
            .unwrap()
    }

    /// Walked event by event over every built-in, the tracker's count of mixed pageblocks by
    /// type, and every page's type, equal what `mixed_pageblocks` and `page_mt` find by
    /// scanning the state the timeline rebuilds after each op (a long run: every 50th op).
    #[test]
    fn the_tracker_agrees_with_a_scan_of_every_state() {
        for b in crate::scenario::builtin::ALL {
            let run = run_of(b.id);
            let mut mix = MixTracker::new(&run);
            let mut tl = Timeline::new(run.clone());
            let every = (run.ops.len() / 100).max(1);
            let mut next = 0usize;
            for (k, op) in run.ops.iter().enumerate() {
                let end = op.end as usize;
                for ev in run.log.events.range(next..end) {
                    mix.event(&run, ev);
                }
                next = end;
                if k % every != 0 && k + 1 != run.ops.len() {
                    continue;
                }
                tl.seek(op.end);
                let node = tl.node();
                let blocks = mixed_pageblocks(&run, node);
                for (zi, z) in node.zones().iter().enumerate() {
                    let mut want = [0u32; MT_SLOTS];
                    for bl in blocks.iter().filter(|bl| bl.zone == z.cfg().name) {
                        want[bl.mt.idx()] += 1;
                    }
                    assert_eq!(mix.mixed(zi), want, "{} after op {k} zone {zi}", b.id);
                    let pcp = pcp_heads(z);
                    for p in 0..z.pages() {
                        assert_eq!(
                            mix.page_type(zi, p),
                            page_mt(&run, z, &pcp, p),
                            "{} after op {k} zone {zi} page {p}",
                            b.id
                        );
                    }
                }
            }
        }
    }

    /// fallback-steal worked by hand: the first unmovable allocation's `rmqueue_bulk` refill
    /// finds no Unmovable page and steals from the Movable order-6 block at pfn 0x1fc0
    /// (pageblock 15, pfns 0x1e00-0x1fff): 30 steals of one page each, pfn 0x1fc0 + i by the
    /// i-th, split from blocks of order 6, 0, 1, 0, 2, 0, 1, 0, 3, … (the binary carry of i),
    /// each traced by its `mm_page_alloc_extfrag`. Pageblock 15 stays Movable; nothing else
    /// is mixed, and nothing was before that op.
    #[test]
    fn fallback_steal_pageblock_15_became_mixed_by_30_steals() {
        let run = run_of("fallback-steal");
        let m = pageblock_mixing(&run, 0, 15);
        assert_eq!(m.causes.len(), 30, "{:#?}", m.causes);
        // The 30 stolen pages, then, for the 5 the burst allocates off the pcp list, a second
        // stretch (allocated Unmovable, after a few events on no list) with the same steal as
        // its cause.
        assert_eq!(m.spans.len(), 35, "{:#?}", m.spans);
        for s in &m.spans[30..] {
            assert_eq!(s.cause, (s.page - 0x1fc0) as usize, "{s:?}");
            assert!(m.spans[s.cause].to.is_some_and(|t| t <= s.from), "{s:?}");
        }
        let first_op = run
            .ops
            .iter()
            .position(|o| {
                run.log
                    .events
                    .range(o.start as usize..o.end as usize)
                    .any(|e| matches!(e.kind(), EventKind::Annotation(Annotation::Stolen { .. })))
            })
            .unwrap() as u32;
        for (i, c) in m.causes.iter().enumerate() {
            assert_eq!(c.kind, MixKind::Steal);
            assert_eq!(c.page_mt, MigrateType::Unmovable);
            assert_eq!(c.block_mt, MigrateType::Movable);
            assert_eq!(c.op, Some(first_op));
            // Block orders: 6 for the first, then the lowest set bit of i.
            let from = if i == 0 { 6 } else { i.trailing_zeros() as u8 };
            assert_eq!(c.orders, Some((0, from)), "steal {i}");
            let ev = run.log.events.get(c.event.unwrap() as usize).unwrap();
            match ev.kind() {
                EventKind::Annotation(Annotation::Trace(Tracepoint::MmPageAllocExtfrag {
                    alloc_order,
                    fallback_order,
                    change_ownership,
                    ..
                })) => {
                    assert_eq!((alloc_order, fallback_order), (0, from));
                    assert!(!change_ownership);
                }
                k => panic!("steal {i} points at {k:?}"),
            }
            let s = &m.spans[i];
            assert_eq!(
                (s.page, s.mt, s.cause),
                (0x1fc0 + i as u32, MigrateType::Unmovable, i)
            );
            // Foreign from when `rmqueue_bulk` puts it on the Unmovable pcp list, after the
            // tracepoint.
            assert!(s.from > c.event.unwrap() + 1, "steal {i}");
            match run.log.events.get(s.from as usize - 1).unwrap().kind() {
                EventKind::Mutation(Mutation::PcpAdd { pfn, pindex, .. }) => {
                    assert_eq!(pfn, s.page);
                    assert_eq!(pindex_to_mt(pindex as usize), MigrateType::Unmovable);
                }
                k => panic!("span {i} starts at {k:?}"),
            }
        }
        // The words a page history shows.
        assert_eq!(
            m.causes[0].words(),
            "steal: an order-0 Unmovable allocation took an order-6 block off the Movable free list, leaving the pageblock Movable (__rmqueue_steal)"
        );
        let end = run.log.events.len() as u32;
        assert_eq!(m.causes_at(end).len(), 30);
        assert!(m.causes_at(m.spans[0].from - 1).is_empty());
        assert_eq!(m.page_at(0x1fc5, end).map(|s| s.cause), Some(5));
        assert!(m.page_at(0x1fbf, end).is_none());
        // No other pageblock has a foreign page at any time.
        for pb in (0..run.initial.active().nr_pageblocks()).filter(|&pb| pb != 15) {
            let o = pageblock_mixing(&run, 0, pb);
            assert!(o.spans.is_empty(), "pageblock {pb}: {:?}", o.spans);
        }
    }
}
