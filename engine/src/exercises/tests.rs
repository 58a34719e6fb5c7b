//! Exercise sets: parsing, validation paths, answers per ask kind, `check`.
