//! The lexical scopes of `as`/`ref` names, as validation resolves them (the runner then follows
//! each `ref` to the op validation bound it to).

use std::collections::hash_map::Entry;
use std::collections::HashMap;

/// The lexical scopes of `as`/`ref`: a stack of frames, the root being the top-level ops, one
/// frame pushed per `repeat` body and popped at its end. Validation binds each name to its
/// kind and the op that binds it.
#[derive(Clone, Debug)]
pub struct Scopes<T> {
    frames: Vec<HashMap<String, T>>,
}

impl<T> Default for Scopes<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Scopes<T> {
    /// Just the root scope.
    pub fn new() -> Self {
        Scopes {
            frames: vec![HashMap::new()],
        }
    }

    /// Enters a new scope (a `repeat` iteration).
    pub fn push(&mut self) {
        self.frames.push(HashMap::new());
    }

    /// Leaves the innermost scope and returns its bindings; the root scope is never popped
    /// (`None`).
    pub fn pop(&mut self) -> Option<HashMap<String, T>> {
        if self.frames.len() > 1 {
            self.frames.pop()
        } else {
            None
        }
    }

    /// Number of scopes above the root (= `repeat` nesting).
    #[cfg(test)]
    pub fn depth(&self) -> usize {
        self.frames.len() - 1
    }

    /// Binds `name` in the innermost scope. A name binds once per scope: if it is already bound
    /// there, nothing changes and `value` comes back as the error. Shadowing an outer scope's name
    /// is fine.
    pub fn bind(&mut self, name: impl Into<String>, value: T) -> Result<(), T> {
        let frame = self
            .frames
            .last_mut()
            .expect("the root scope is never popped");
        match frame.entry(name.into()) {
            Entry::Occupied(_) => Err(value),
            Entry::Vacant(e) => {
                e.insert(value);
                Ok(())
            }
        }
    }

    /// The innermost binding of `name` visible here.
    pub fn lookup(&self, name: &str) -> Option<&T> {
        self.frames.iter().rev().find_map(|f| f.get(name))
    }

    /// The binding of `name`, innermost scope first, to change it.
    #[cfg(test)]
    pub fn lookup_mut(&mut self, name: &str) -> Option<&mut T> {
        self.frames.iter_mut().rev().find_map(|f| f.get_mut(name))
    }

    /// The binding of `name` in the innermost scope only.
    pub fn lookup_here(&self, name: &str) -> Option<&T> {
        self.frames.last().and_then(|f| f.get(name))
    }
}
