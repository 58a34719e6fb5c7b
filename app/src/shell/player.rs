//! Playback: while the model is playing, one [`Command::Advance`] per animation frame (as many
//! events as the preferred speed asks for since the last frame), so a frame never carries two
//! updates and the panels' work lands just before the browser paints (an interval timer could
//! fire twice per frame, or between frames, and drop frames at 60 fps).

use leptos::prelude::*;

use super::Shell;
use crate::browser::now_ms;
use crate::model::Command;

/// Starts the player (once per page: the app root, or the embedded view).
pub fn install(shell: Shell) {
    // Bumped on every start and stop: a frame callback of an earlier playback does nothing.
    let generation = StoredValue::new_local(0u64);
    Effect::new(move |_| {
        let playing = shell.ui.playing.get();
        let g = generation.get_value().wrapping_add(1);
        generation.set_value(g);
        if !playing {
            return;
        }
        let player = Player {
            shell,
            generation,
            ticket: g,
            last: now_ms(),
            carry: 0.0,
        };
        request_animation_frame(move || player.frame());
    });
}

/// One playback in progress.
struct Player {
    shell: Shell,
    generation: StoredValue<u64, LocalStorage>,
    ticket: u64,
    /// When the last frame advanced, and the fraction of an event owed since.
    last: f64,
    carry: f64,
}

impl Player {
    fn frame(mut self) {
        if self.generation.try_get_value() != Some(self.ticket) {
            return;
        }
        let t = now_ms();
        let dt = (t - self.last).max(0.0) / 1000.0;
        self.last = t;
        let want = self.carry + dt * self.shell.prefs.speed.get_untracked();
        let n = want.floor() as u32;
        self.carry = want - n as f64;
        if n > 0 {
            // Stops playback at the end.
            self.shell.dispatch(Command::Advance(n));
        }
        if self.shell.read(|m| m.at_end()) {
            self.shell.dispatch(Command::Pause);
        }
        if !self.shell.ui.playing.get_untracked() {
            return;
        }
        request_animation_frame(move || self.frame());
    }
}
