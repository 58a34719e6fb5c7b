//! The engine's layering, enforced: every file under `engine/src` is read, its imports (`use`
//! trees and `crate::…`/`super::…` paths in code) are resolved to the file that defines the
//! module they name, and the test fails on an import from a higher layer or on any loop between
//! files, naming the edge. `cargo test -p buddyscope-engine --test layers -- --nocapture` prints
//! the module map: layers, files, lines, edges and loops.
//!
//! The layers, bottom up: `mm` (the allocator model), `scenario` (the input format), `run` (a
//! scenario run and its cursor), `explain` (words, reports and answers about a run), `bench`
//! (benchmark sequences). A file imports only from its own layer and the layers below; `lib.rs`
//! is the front door and may name any layer.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The layers, bottom first.
const LAYERS: &[&str] = &["mm", "scenario", "run", "explain", "bench"];

/// One source file of the crate.
struct File {
    /// Path relative to `engine/src`.
    rel: String,
    /// Its module path from the crate root (`["mm", "zone"]`; empty for `lib.rs`).
    module: Vec<String>,
    lines: usize,
    text: String,
}

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            // The CLI is its own crate (`buddyscope::…`, not `crate::…`).
            if p.file_name().unwrap() != "bin" {
                collect(&p, out);
            }
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

fn read_files() -> Vec<File> {
    let root = src_dir();
    let mut paths = Vec::new();
    collect(&root, &mut paths);
    paths
        .into_iter()
        .map(|p| {
            let rel = p
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let text = std::fs::read_to_string(&p).unwrap();
            let mut module: Vec<String> = rel
                .trim_end_matches(".rs")
                .split('/')
                .map(str::to_string)
                .collect();
            if matches!(module.last().map(String::as_str), Some("mod" | "lib")) {
                module.pop();
            }
            File {
                rel,
                module,
                lines: text.lines().count(),
                text,
            }
        })
        .collect()
}

/// The source with comments, string and char literals blanked out (so that a path in a doc
/// comment or a message is not an import).
fn strip(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if b[i] == b'\n' {
                        out.push('\n');
                    }
                    i += 1;
                }
            }
            out.push(' ');
        } else if c == b'r'
            && (b.get(i + 1) == Some(&b'"') || b.get(i + 1) == Some(&b'#'))
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'))
        {
            // A raw string r"…" or r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&b'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&b'"') {
                out.push(c as char);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if b[j] == b'"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&b'#')) {
                    j += 1 + hashes;
                    break;
                }
                if b[j] == b'\n' {
                    out.push('\n');
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                } else if b[i] == b'\n' {
                    out.push('\n');
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == b'\'' {
            // A char literal ('x', '\n', '\u{..}') or a lifetime ('a).
            if b.get(i + 1) == Some(&b'\\') {
                i += 2;
                while i < b.len() && b[i] != b'\'' {
                    i += 1;
                }
                i += 1;
                out.push_str("' '");
            } else {
                // One UTF-8 character, then a closing quote for a char literal.
                let ch_len = src[i + 1..].chars().next().map_or(1, char::len_utf8);
                if b.get(i + 1 + ch_len) == Some(&b'\'') {
                    i += 2 + ch_len;
                    out.push_str("' '");
                } else {
                    out.push('\'');
                    i += 1;
                }
            }
        } else {
            let ch = src[i..].chars().next().unwrap();
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Sep, // ::
    Open,
    Close,
    Comma,
    Semi,
    Star,
    Other,
}

fn tokens(src: &str) -> Vec<Tok> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphabetic() || c == '_' || c == '$' {
            let start = i;
            i += 1;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            // `$crate` in a macro names this crate.
            out.push(Tok::Ident(word.trim_start_matches('$').to_string()));
            continue;
        }
        match c {
            ':' if chars.get(i + 1) == Some(&':') => {
                out.push(Tok::Sep);
                i += 2;
                continue;
            }
            '{' => out.push(Tok::Open),
            '}' => out.push(Tok::Close),
            ',' => out.push(Tok::Comma),
            ';' => out.push(Tok::Semi),
            '*' => out.push(Tok::Star),
            c if c.is_whitespace() => {}
            _ => out.push(Tok::Other),
        }
        i += 1;
    }
    out
}

/// Expands the use tree at `toks[*i..]` (after `use`) into full paths, prefix included.
fn use_tree(toks: &[Tok], i: &mut usize, prefix: &[String], out: &mut Vec<Vec<String>>) {
    let mut path = prefix.to_vec();
    loop {
        match toks.get(*i) {
            Some(Tok::Ident(w)) if w == "as" => {
                // `as alias`: the alias names nothing new.
                *i += 2;
                out.push(path);
                return;
            }
            Some(Tok::Ident(w)) => {
                if w != "self" || path.is_empty() {
                    path.push(w.clone());
                }
                *i += 1;
            }
            Some(Tok::Sep) => *i += 1,
            Some(Tok::Star) => {
                *i += 1;
                out.push(path);
                return;
            }
            Some(Tok::Open) => {
                *i += 1;
                loop {
                    match toks.get(*i) {
                        Some(Tok::Close) => {
                            *i += 1;
                            return;
                        }
                        Some(Tok::Comma) => *i += 1,
                        None => return,
                        _ => use_tree(toks, i, &path, out),
                    }
                }
            }
            _ => {
                out.push(path);
                return;
            }
        }
    }
}

/// The import paths of one file, each with the module it was written in (an inline `mod tests`
/// is its own module for `super::`).
fn imports(file: &File) -> Vec<(Vec<String>, Vec<String>)> {
    let toks = tokens(&strip(&file.text));
    let mut out = Vec::new();
    // Inline modules: (name, brace depth at which it closes).
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    // Child modules declared here (`mod x;` / `mod x { … }`), for `use x::…`.
    let mut children: BTreeSet<String> = BTreeSet::new();
    for w in toks.windows(2) {
        if let [Tok::Ident(m), Tok::Ident(name)] = w {
            if m == "mod" {
                children.insert(name.clone());
            }
        }
    }
    let mut i = 0;
    while i < toks.len() {
        let here = || {
            let mut m = file.module.clone();
            m.extend(inline.iter().map(|(n, _)| n.clone()));
            m
        };
        match &toks[i] {
            Tok::Open => {
                depth += 1;
                i += 1;
            }
            Tok::Close => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
                i += 1;
            }
            Tok::Ident(w) if w == "mod" => {
                if let (Some(Tok::Ident(name)), Some(Tok::Open)) =
                    (toks.get(i + 1), toks.get(i + 2))
                {
                    inline.push((name.clone(), depth + 1));
                }
                i += 1;
            }
            Tok::Ident(w) if w == "use" => {
                i += 1;
                let mut paths = Vec::new();
                use_tree(&toks, &mut i, &[], &mut paths);
                let m = here();
                for p in paths {
                    if p.first().is_some_and(|s| {
                        s == "crate" || s == "super" || s == "self" || children.contains(s)
                    }) {
                        out.push((m.clone(), p));
                    }
                }
            }
            // `pub(in crate::mm)` names a module, it imports nothing.
            Tok::Ident(w)
                if (w == "crate" || w == "super")
                    && toks.get(i + 1) == Some(&Tok::Sep)
                    && !(i > 0 && toks[i - 1] == Tok::Ident("in".into())) =>
            {
                let mut p = vec![w.clone()];
                let mut j = i + 1;
                while toks.get(j) == Some(&Tok::Sep) {
                    match toks.get(j + 1) {
                        Some(Tok::Ident(s)) => p.push(s.clone()),
                        _ => break,
                    }
                    j += 2;
                }
                out.push((here(), p));
                i = j;
            }
            _ => i += 1,
        }
    }
    out
}

/// The absolute module path of `path` written in module `here`.
fn absolute(here: &[String], path: &[String]) -> Vec<String> {
    let mut cur: Vec<String> = here.to_vec();
    let mut rest = path;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            cur.clear();
            rest = &rest[1..];
        }
        Some("self") => rest = &rest[1..],
        _ => {}
    }
    while rest.first().map(String::as_str) == Some("super") {
        cur.pop();
        rest = &rest[1..];
    }
    cur.extend(rest.iter().cloned());
    cur
}

struct Graph {
    files: Vec<File>,
    /// File index → the file indices it imports from.
    edges: Vec<BTreeSet<usize>>,
}

fn graph() -> Graph {
    let files = read_files();
    let by_module: BTreeMap<Vec<String>, usize> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.module.clone(), i))
        .collect();
    let mut edges = vec![BTreeSet::new(); files.len()];
    for (i, f) in files.iter().enumerate() {
        for (here, p) in imports(f) {
            let abs = absolute(&here, &p);
            // The longest prefix that is a file's module.
            let target = (0..=abs.len())
                .rev()
                .find_map(|n| by_module.get(&abs[..n]).copied());
            if let Some(t) = target {
                if t != i {
                    edges[i].insert(t);
                }
            }
        }
    }
    Graph { files, edges }
}

/// The layer of a file: the index in `LAYERS` of its top module; `None` for the crate root
/// and for a module outside the layers.
fn layer(f: &File) -> Option<usize> {
    let top = f.module.first()?;
    LAYERS.iter().position(|l| l == top)
}

/// The strongly connected components of more than one file (Tarjan), each sorted.
fn loops(n: usize, edges: &[BTreeSet<usize>]) -> Vec<Vec<usize>> {
    struct St<'a> {
        edges: &'a [BTreeSet<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut St, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on[v] = true;
        for &w in s.edges[v].iter() {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on[w] => s.low[v] = s.low[v].min(iw),
                _ => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on[w] = false;
                comp.push(w);
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = St {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        on: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out.sort();
    s.out
}

/// The module map as text: per layer its files (lines, what each imports), then the loops.
fn map(g: &Graph, loops_found: &[Vec<usize>]) -> String {
    let mut s = String::new();
    let total: usize = g.files.iter().map(|f| f.lines).sum();
    let nr_edges: usize = g.edges.iter().map(BTreeSet::len).sum();
    let in_loops: usize = loops_found.iter().map(Vec::len).sum();
    writeln!(
        s,
        "engine/src: {} files, {} lines, {} import edges between files, {} loops ({} files in loops)",
        g.files.len(),
        total,
        nr_edges,
        loops_found.len(),
        in_loops
    )
    .unwrap();
    let mut groups: BTreeMap<(usize, String), Vec<usize>> = BTreeMap::new();
    for (i, f) in g.files.iter().enumerate() {
        let key = match layer(f) {
            Some(l) => (l + 1, LAYERS[l].to_string()),
            None if f.module.is_empty() => (LAYERS.len() + 1, "(crate root)".to_string()),
            None => (0, "(no layer)".to_string()),
        };
        groups.entry(key).or_default().push(i);
    }
    for ((_, name), files) in &groups {
        let lines: usize = files.iter().map(|&i| g.files[i].lines).sum();
        writeln!(s, "\n{name}: {} files, {lines} lines", files.len()).unwrap();
        for &i in files {
            let f = &g.files[i];
            let to: Vec<&str> = g.edges[i]
                .iter()
                .map(|&t| g.files[t].rel.as_str())
                .collect();
            writeln!(s, "  {:<34} {:>5}  -> {}", f.rel, f.lines, to.join(", ")).unwrap();
        }
    }
    writeln!(s, "\nloops between files: {}", loops_found.len()).unwrap();
    for l in loops_found {
        let names: Vec<&str> = l.iter().map(|&i| g.files[i].rel.as_str()).collect();
        writeln!(s, "  {} files: {}", l.len(), names.join(" ")).unwrap();
    }
    s
}

#[test]
fn layers_point_down_and_files_have_no_loops() {
    let g = graph();
    let found = loops(g.files.len(), &g.edges);
    println!("{}", map(&g, &found));

    let mut errors = Vec::new();
    for (i, f) in g.files.iter().enumerate() {
        if f.module.is_empty() {
            continue;
        }
        let Some(from) = layer(f) else {
            errors.push(format!("{} is in no layer (one of {LAYERS:?})", f.rel));
            continue;
        };
        for &t in &g.edges[i] {
            let to = &g.files[t];
            if to.module.is_empty() {
                errors.push(format!(
                    "{} imports from the crate root ({}): import from the layer",
                    f.rel, to.rel
                ));
            } else if let Some(l) = layer(to) {
                if l > from {
                    errors.push(format!(
                        "{} ({}) imports from a higher layer: {} ({})",
                        f.rel, LAYERS[from], to.rel, LAYERS[l]
                    ));
                }
            }
        }
    }
    for l in &found {
        // Name one edge of the loop from each file in it to the next file in it.
        let set: BTreeSet<usize> = l.iter().copied().collect();
        let files = &g.files;
        let edges: Vec<String> = l
            .iter()
            .flat_map(|&a| {
                g.edges[a]
                    .iter()
                    .filter(|b| set.contains(b))
                    .map(move |&b| format!("{} -> {}", files[a].rel, files[b].rel))
            })
            .collect();
        errors.push(format!("import loop: {}", edges.join(", ")));
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

/// The parser finds what it must: a `use` tree, a path in code, `super` from an inline module,
/// and nothing in comments or strings.
#[test]
fn imports_are_read_from_code_only() {
    let f = File {
        rel: "a/b.rs".into(),
        module: vec!["a".into(), "b".into()],
        lines: 0,
        text: r#"
            use crate::x::{self, y::{Z, W as V}, q::*};
            use std::fmt;
            // use crate::commented::Out;
            /// [`crate::doc::Link`]
            fn f() -> &'static str { let _ = crate::p::r(); let c = '"'; "crate::s::t" }
            mod tests { use super::*; fn g() { super::super::sib::h(); } }
            pub(in crate::a) fn k() {}
        "#
        .into(),
    };
    let got: Vec<Vec<String>> = imports(&f)
        .into_iter()
        .map(|(here, p)| absolute(&here, &p))
        .collect();
    let want: Vec<Vec<String>> = [
        "x",
        "x::y::Z",
        "x::y::W",
        "x::q",
        "p::r",
        "a::b",
        "a::sib::h",
    ]
    .iter()
    .map(|s| s.split("::").map(str::to_string).collect())
    .collect();
    assert_eq!(got, want);
}
