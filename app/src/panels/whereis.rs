//! Where is this page: type a pfn (hex `0x…` or decimal) or click the map, and the panel says
//! which list holds the page at the cursor (`free_area[o].free_list[mt]` with its block, or a
//! CPU's pcp list) or who allocated it (the op, or a replayed trace's task), with the event that
//! put it there one click away. The engine answers ([`where_is`], what `buddyscope where`
//! prints); this module only lays the words out.
//!
//! [`where_is`]: buddyscope::explain::whereis::where_is

use buddyscope::{
    explain::whereis::{parse_pfn, where_is},
    replay::TracedAllocs,
    Pfn, Timeline,
};
use leptos::prelude::*;

use super::frame::PanelFrame;
use super::pfnpicker::PfnPicker;
use crate::model::Command;
use crate::shell::View;

#[derive(Clone, Debug, PartialEq)]
pub struct WhereModel {
    /// The engine's sentence: where the page is, or who holds it.
    pub headline: String,
    /// The event that put it there: the position that shows it and the engine's line for it
    /// (`put there by event …`, as the CLI prints it).
    pub event: Option<(u32, String)>,
    /// The rest of the engine's text (a traced allocation's line and timestamp).
    pub more: Vec<String>,
}

/// The answer for absolute `pfn` at the cursor of `t`; `traced` names a replay's tasks.
pub fn view_model(
    t: &Timeline,
    traced: Option<&TracedAllocs>,
    pfn: Pfn,
) -> Result<WhereModel, String> {
    let w = where_is(&t.run, t.node(), t.pos(), pfn, traced)?;
    let text = w.text();
    let mut lines = text.lines().map(str::to_string);
    let headline = lines.next().unwrap_or_default();
    let second = lines.next().unwrap_or_default();
    let (event, more) = match w.event {
        Some(e) => (Some((e + 1, second)), lines.collect()),
        None => (None, std::iter::once(second).chain(lines).collect()),
    };
    Ok(WhereModel {
        headline,
        event,
        more,
    })
}

#[component]
pub fn WhereIsPanel() -> impl IntoView {
    let view = View::here();
    // The pfn asked about: typed, or the page clicked on the map (a page of the viewed zone).
    let query = RwSignal::new(None::<Pfn>);
    Effect::new(move |_| {
        if let Some(idx) = view.shell.ui.selected_page.get() {
            if let Some(p) = view.untracked(|s| s.timeline.zone().abs_pfn(idx)) {
                query.set(Some(p));
            }
        }
    });
    let model = Memo::new(move |_| {
        let pfn = query.get()?;
        view.with(|s| view_model(&s.timeline, s.replay.as_ref().map(|r| &r.allocs), pfn))
    });
    let typed_error = RwSignal::new(None::<String>);
    let pick = Callback::new(move |text: String| {
        let p = parse_pfn(&text)?;
        query.set(Some(p));
        Ok(())
    });
    let body = move || {
        match model.get() {
        None => view! {
            <p class="history-empty" data-testid="whereis-empty">
                "Type a pfn or click a page on the memory map: which list holds it now, or who allocated it."
            </p>
        }
        .into_any(),
        Some(Err(e)) => view! {
            <p class="whereis-error" role="alert" data-testid="whereis-error">{e}</p>
        }
        .into_any(),
        Some(Ok(m)) => view! {
            <p class="whereis-headline" data-testid="whereis-headline">{m.headline}</p>
            {match m.event {
                Some((pos, line)) => view! {
                    <button
                        type="button"
                        class="history-link whereis-event"
                        data-testid="whereis-event"
                        data-pos=pos.to_string()
                        title=format!("Go to event {pos}")
                        on:click=move |_| {
                            view.dispatch(Command::Seek(pos));
                        }
                    >
                        {line}
                    </button>
                }
                .into_any(),
                None => ().into_any(),
            }}
            {m
                .more
                .into_iter()
                .map(|l| view! { <p class="whereis-more" data-testid="whereis-more">{l}</p> })
                .collect_view()}
        }
        .into_any(),
    }
    };
    view! {
        <PanelFrame
            key="whereis"
            title="Where is this page"
            testid="whereis"
            help="The list that holds a page at the cursor (free_area block or a CPU's pcp list) or who allocated it, and the event that put it there: buddyscope where PFN --ops K."
        >
            <PfnPicker prefix="whereis" button="Where" pick=pick error=typed_error/>
            <div class="whereis-body" aria-live="polite">{body}</div>
        </PanelFrame>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::timeline;

    /// At op 3 of fallback-claim: a page op 1 allocated (its event one click away), a free page
    /// there since boot, and a pfn outside the zone; the words are the engine's (the CLI's).
    #[test]
    fn the_answer_is_the_engines_text() {
        let mut t = timeline("fallback-claim");
        let end = t.op(2).end;
        t.seek(end);
        let m = view_model(&t, None, 0x10).unwrap();
        let w = where_is(&t.run, t.node(), t.pos(), 0x10, None).unwrap();
        assert_eq!(m.headline, w.headline());
        assert_eq!(
            m.headline,
            "pfn 0x10 is allocated in zone Normal by op 1 (alloc order 10 movable as b0)"
        );
        let (pos, line) = m.event.clone().unwrap();
        assert_eq!(pos, w.event.unwrap() + 1);
        assert!(line.starts_with("put there by event "), "{line}");
        let free = view_model(&t, None, 0x800).unwrap();
        assert_eq!(free.event, None);
        assert_eq!(
            free.more,
            vec!["there since the start (no recorded event put it there)".to_string()]
        );
        assert!(view_model(&t, None, 1 << 30)
            .unwrap_err()
            .contains("outside every zone"));
        // Before op 1 the same page is still free.
        t.seek(0);
        assert!(view_model(&t, None, 0x10)
            .unwrap()
            .headline
            .contains("is free in zone Normal"));
    }
}
