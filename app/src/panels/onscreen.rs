//! Where a canvas is, without asking the layout in the middle of a frame: its CSS size from a
//! `ResizeObserver` and whether it is on (or near) the screen from an `IntersectionObserver`.
//!
//! Why: reading `clientWidth` right after the panels' DOM updates forces a synchronous layout
//! of the whole page (the charts did it before every draw: the largest share of a scrub jump in
//! the profile, BENCHMARKS.md "Frames"), and a panel scrolled out of view need not repaint on
//! every op: it catches up when the cursor rests ([`Seen::schedule`]) or when it scrolls into
//! view.

use std::time::Duration;

use leptos::html::Canvas;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// How long the cursor must rest before an off-screen canvas repaints (playback and scrubbing
/// never wait for it; a test polling the canvas, or the user scrolling to it, sees it current).
pub const OFFSCREEN_SETTLE: Duration = Duration::from_millis(250);

/// An observed canvas.
#[derive(Clone, Copy)]
pub struct Seen {
    /// CSS size `(clientWidth, clientHeight)`, measured by the observer after layout; `(0, 0)`
    /// until the first measurement or while hidden.
    pub size: RwSignal<(u32, u32)>,
    /// On screen or within [`MARGIN`] of it.
    pub visible: RwSignal<bool>,
    /// Bumped on every deferred repaint request, so only the last one draws.
    pending: StoredValue<u64, LocalStorage>,
}

/// Canvases this close to the viewport count as visible (scrolling shows them drawn).
const MARGIN: &str = "200px";

struct Observers {
    resize: web_sys::ResizeObserver,
    intersection: web_sys::IntersectionObserver,
    _on_resize: Closure<dyn FnMut(js_sys::Array)>,
    _on_intersect: Closure<dyn FnMut(js_sys::Array)>,
}

impl Drop for Observers {
    fn drop(&mut self) {
        self.resize.disconnect();
        self.intersection.disconnect();
    }
}

/// Observes `el` once it is mounted; the observers disconnect when the owner is cleaned up.
pub fn observe(el: NodeRef<Canvas>) -> Seen {
    let seen = Seen {
        size: RwSignal::new((0, 0)),
        visible: RwSignal::new(false),
        pending: StoredValue::new_local(0),
    };
    // Dropped (and so disconnected) with the owner, or replaced when the canvas is remounted.
    let held = StoredValue::new_local(None::<Observers>);
    Effect::new(move |_| {
        let Some(canvas) = el.get() else { return };
        let size = seen.size;
        let on_resize = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
            for e in entries.iter() {
                let Ok(e) = e.dyn_into::<web_sys::ResizeObserverEntry>() else {
                    continue;
                };
                // After layout: reading the box here costs nothing extra.
                let t = e.target();
                let wh = (
                    t.client_width().max(0) as u32,
                    t.client_height().max(0) as u32,
                );
                if size.get_untracked() != wh {
                    size.set(wh);
                }
            }
        });
        let visible = seen.visible;
        let on_intersect =
            Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
                if let Some(e) = entries
                    .iter()
                    .last()
                    .and_then(|e| e.dyn_into::<web_sys::IntersectionObserverEntry>().ok())
                {
                    let v = e.is_intersecting();
                    if visible.get_untracked() != v {
                        visible.set(v);
                    }
                }
            });
        let Ok(resize) = web_sys::ResizeObserver::new(on_resize.as_ref().unchecked_ref()) else {
            return;
        };
        let opts = web_sys::IntersectionObserverInit::new();
        opts.set_root_margin(MARGIN);
        let Ok(intersection) = web_sys::IntersectionObserver::new_with_options(
            on_intersect.as_ref().unchecked_ref(),
            &opts,
        ) else {
            return;
        };
        resize.observe(&canvas);
        intersection.observe(&canvas);
        held.set_value(Some(Observers {
            resize,
            intersection,
            _on_resize: on_resize,
            _on_intersect: on_intersect,
        }));
    });
    on_cleanup(move || {
        held.try_update_value(|h| *h = None);
    });
    seen
}

impl Seen {
    /// Repaints with `draw`: now when the canvas is visible, else once the cursor has rested
    /// for [`OFFSCREEN_SETTLE`] (a later request replaces an earlier one). Call it from the
    /// effect that tracks what the canvas shows; it tracks `visible`, so scrolling the canvas
    /// into view repaints it at once.
    pub fn schedule(&self, draw: impl FnOnce() + 'static) {
        let ticket = self.pending.get_value().wrapping_add(1);
        self.pending.set_value(ticket);
        if self.visible.get() {
            draw();
            return;
        }
        let pending = self.pending;
        set_timeout(
            move || {
                if pending.try_get_value() == Some(ticket) {
                    draw();
                }
            },
            OFFSCREEN_SETTLE,
        );
    }
}
