//! How a panel reads the run it shows: [`View::here`] is the single view's run, or, inside a
//! compare side ([`SideSlot`] in context), that side's, so the single view's panels serve both
//! sides unchanged. Reads track the slot's cursor ([`View::with`]) or only which run it is
//! ([`View::with_run`]): a step on side B re-renders nothing of side A's.

use buddyscope::scenario::Side;
use leptos::prelude::*;

use super::Shell;
use crate::model::{Command, Session, Slot};

/// Context for the panels of one compare side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SideSlot(pub Side);

/// A panel's window on the model: the shell and the slot it shows.
#[derive(Clone, Copy)]
pub struct View {
    pub shell: Shell,
    pub slot: Slot,
}

impl View {
    /// The slot of the panel being built (call it in a component body).
    pub fn here() -> View {
        let slot = match use_context::<SideSlot>() {
            Some(SideSlot(s)) => Slot::Side(s),
            None => Slot::Main,
        };
        View {
            shell: Shell::get(),
            slot,
        }
    }

    /// The side this view shows, if it is one.
    pub fn side(self) -> Option<Side> {
        match self.slot {
            Slot::Side(s) => Some(s),
            Slot::Main => None,
        }
    }

    /// Reads the slot's run, tracking its run and cursor (re-runs the caller's memo or view when
    /// they change). `None` for a side outside compare mode.
    pub fn with<R>(self, f: impl FnOnce(&Session) -> R) -> Option<R> {
        self.shell.cursor(self.slot)?;
        self.untracked(f)
    }

    /// Reads the slot's run, tracking only which run it is (a view of the whole run: the op
    /// ticks, the scenario's description, the divergences).
    pub fn with_run<R>(self, f: impl FnOnce(&Session) -> R) -> Option<R> {
        self.shell.run_id(self.slot)?;
        self.untracked(f)
    }

    /// Reads the slot's run without tracking (event handlers).
    pub fn untracked<R>(self, f: impl FnOnce(&Session) -> R) -> Option<R> {
        self.shell.read(|m| m.session(self.slot).map(f))
    }

    pub fn dispatch(self, cmd: Command) {
        self.shell.dispatch(cmd)
    }
}
