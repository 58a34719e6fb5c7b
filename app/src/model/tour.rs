//! Tours and presenter mode's part of the model: which stop is active, moving to a stop (both
//! sides in compare mode), whether the screen still shows it (a caption never outlives its
//! stop), and `?tour=`'s words. Presenter mode itself (large type, blanking) is a preference
//! of the shell (`crate::prefs`).

use buddyscope::explain::tour_positions;
use buddyscope::mm::{EventKind, Mutation};
use buddyscope::run::Timeline;

use super::{lockstep, Effect, Model};
use crate::share::PresenterState;

/// The tour bar's text for stop `i` of `n`: `stop i/n`, 1-based.
pub fn stop_label(i: usize, n: usize) -> String {
    format!("stop {}/{n}", i + 1)
}

/// The tour bar once the cursor has left stop `i` of `n` (its caption no longer describes the
/// screen).
pub fn off_stop_hint(i: usize, n: usize) -> String {
    let back = format!("PageUp goes back to stop {}", i + 1);
    if i + 1 < n {
        format!("Moved off the stop: {back}, PageDown on to stop {}.", i + 2)
    } else {
        format!("Moved off the last stop: {back}.")
    }
}

/// Which stop `?tour=<v>` asks for (0-based) in a tour of `n` stops, or why it cannot be shown
/// (the message names the stops there are; the tour then starts at stop 1).
pub fn tour_query(v: &str, n: usize) -> Result<usize, String> {
    if n == 0 {
        return Err(format!(
            "?tour={v}: this scenario has no tour; PageDown/PageUp step an operation."
        ));
    }
    let range = if n == 1 {
        "?tour=1".to_string()
    } else {
        format!("?tour=1 to ?tour={n}")
    };
    match v.trim().parse::<usize>() {
        Ok(k) if (1..=n).contains(&k) => Ok(k - 1),
        Ok(k) => Err(format!(
            "There is no stop {k}: this tour has {n} stops ({range}). It starts at stop 1."
        )),
        Err(_) => Err(format!(
            "?tour={v:?} is not a stop number: use {range}. The tour starts at stop 1."
        )),
    }
}

/// The event index of every stop of the main run's tour (empty: no tour, or a tour with a
/// stop beyond the run).
pub fn positions(m: &Model) -> Vec<u32> {
    tour_positions(&m.main().timeline.run).unwrap_or_default()
}

/// Makes stop `i` the current one and moves the cursor there (clamped to the tour). In compare
/// mode both sides move to the stop's op (and event, [`lockstep::seek_stop`]). In a node of
/// several zones the panels show the zone the op worked in, the one the caption talks about.
pub fn go(m: &mut Model, i: usize) {
    let at = positions(m);
    m.tour_notice = None;
    if at.is_empty() {
        m.tour_stop = None;
        return;
    }
    let i = i.min(at.len() - 1);
    m.playing = false;
    m.tour_stop = Some(i);
    let stop = m.main().scenario.tour.get(i).cloned();
    let show_worked = |t: &mut Timeline| {
        if let Some(z) = worked_zone(t) {
            t.set_view_zone(Some(z));
        }
    };
    match (stop, m.sides_mut()) {
        (Some(stop), Some((a, b))) => {
            let (k, e) = (stop.op as usize, stop.event.unwrap_or(0));
            lockstep::seek_stop(a, b, k, e);
            show_worked(a);
            show_worked(b);
        }
        _ => {
            let t = &mut m.main_mut().timeline;
            t.seek(at[i]);
            show_worked(t);
        }
    }
}

/// The stop on screen: the active stop, when the cursor (both sides' in compare mode) is at
/// its position; `None` once anything else moved it, so a caption never outlives its stop.
pub fn here(m: &Model) -> Option<usize> {
    let i = m.tour_stop?;
    let stop = m.main().scenario.tour.get(i)?;
    if let Some(p) = m.pair() {
        let (k, e) = (stop.op as usize, stop.event.unwrap_or(0));
        return lockstep::at_stop(&p.a.timeline, &p.b.timeline, k, e).then_some(i);
    }
    let t = &m.main().timeline;
    let at = tour_positions(&t.run).ok()?;
    (at.get(i) == Some(&t.pos())).then_some(i)
}

/// The zone the current op last changed (a node of several zones; `None` for one zone). After
/// an op the engine switches back to the first zone of the zonelist (`ZoneSwitch`, the
/// bookkeeping of `get_page_from_freelist`'s walk), so "the zone being worked on" at an op end
/// is the zonelist's first zone even when the op's block came from another: a tour stop shows
/// this zone instead, the one its caption talks about.
pub fn worked_zone(t: &Timeline) -> Option<usize> {
    let node = t.node();
    if !node.several_zones() {
        return None;
    }
    let mut cur = node.active_index();
    let start = t.op_index().map(|i| t.op(i).start).unwrap_or(0);
    for i in (start..t.pos()).rev() {
        match t.run.log.events.get(i as usize).map(|e| e.kind()) {
            Some(EventKind::Mutation(Mutation::ZoneSwitch { from, .. })) => cur = from as usize,
            Some(EventKind::Mutation(Mutation::Account { .. } | Mutation::Counter { .. })) => {}
            Some(EventKind::Mutation(_)) => return Some(cur),
            _ => {}
        }
    }
    Some(cur)
}

/// Next stop (stays at the last one).
pub fn next(m: &mut Model) {
    let i = m.tour_stop.map_or(0, |i| i + 1);
    go(m, i);
}

/// Previous stop (stays at the first one); moved off the current stop, back to it.
pub fn prev(m: &mut Model) {
    let i = match m.tour_stop {
        Some(i) if here(m) != Some(i) => i,
        Some(i) => i.saturating_sub(1),
        None => 0,
    };
    go(m, i);
}

/// Presenter mode on or off (the shell has set the preference). On starts the scenario's tour
/// (if it has one and none is active) at its first stop; off ends the tour (its caption goes
/// with it).
pub fn present(m: &mut Model, on: bool) {
    if on {
        if m.tour_stop.is_none() && !positions(m).is_empty() {
            go(m, 0);
        }
    } else {
        m.tour_stop = None;
        m.tour_notice = None;
    }
}

/// Restores a presenter/tour state (a share link's). A stop beyond the scenario's tour is
/// dropped. The cursor is not moved: a link carries its exact position itself.
pub fn restore_presenter(m: &mut Model, p: &PresenterState, fx: &mut Vec<Effect>) {
    let n = positions(m).len();
    fx.push(Effect::Presenter {
        on: p.presenter,
        follow: Some(p.follow),
    });
    m.tour_stop = p.tour_stop.map(|i| i as usize).filter(|&i| i < n);
}

/// What the address asks of presenter mode: `?tour=<v>` or `?present`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ask {
    pub tour: Option<String>,
    pub present: bool,
}

/// `?tour=`/`?present`: presenter mode, at that stop of the tour or with the tour started.
pub fn open_ask(m: &mut Model, ask: &Ask, fx: &mut Vec<Effect>) {
    if let Some(v) = &ask.tour {
        super::finish_first_run(m);
        open_query(m, v, fx);
    } else if ask.present {
        super::finish_first_run(m);
        fx.push(Effect::Presenter {
            on: true,
            follow: None,
        });
        present(m, true);
    }
}

/// `?tour=<v>`: presenter mode at that stop; a stop that is not there says so in the tour bar
/// and the tour starts at stop 1.
pub fn open_query(m: &mut Model, v: &str, fx: &mut Vec<Effect>) {
    let n = positions(m).len();
    fx.push(Effect::Presenter {
        on: true,
        follow: None,
    });
    match tour_query(v, n) {
        Ok(i) => go(m, i),
        Err(msg) => {
            go(m, 0);
            m.tour_notice = Some(msg);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tour_query_beyond_the_tour_says_which_stops_there_are() {
        assert_eq!(tour_query("3", 4), Ok(2));
        assert_eq!(tour_query("1", 1), Ok(0));
        let e = tour_query("99", 6).unwrap_err();
        assert!(
            e.contains("no stop 99") && e.contains("6 stops") && e.contains("?tour=6"),
            "{e}"
        );
        let e = tour_query("0", 6).unwrap_err();
        assert!(e.contains("no stop 0"), "{e}");
        assert!(tour_query("two", 6)
            .unwrap_err()
            .contains("not a stop number"));
        assert!(tour_query("1", 0).unwrap_err().contains("no tour"));
        assert!(
            off_stop_hint(1, 4).contains("back to stop 2")
                && off_stop_hint(1, 4).contains("stop 3")
        );
        assert!(off_stop_hint(3, 4).contains("last stop"));
        assert_eq!(stop_label(0, 4), "stop 1/4");
    }
}
