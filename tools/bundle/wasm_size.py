#!/usr/bin/env python3
"""Where the bytes of the app's wasm go: sections, and code per crate.

    python3 tools/bundle/wasm_size.py sections FILE.wasm
    python3 tools/bundle/wasm_size.py crates FILE.wasm [--top N]
    python3 tools/bundle/wasm_size.py modules FILE.wasm [--top N]
    python3 tools/bundle/wasm_size.py paths FILE.wasm WHOLE.wasm PATH...

`crates` needs a wasm with a name section: the rustc output before wasm-bindgen and wasm-opt
($CARGO_TARGET_DIR/wasm32-unknown-unknown/wasm-release/buddyscope-app.wasm), the same view
twiggy gives. Each function is charged to the crate that defines it (for a generic function,
where it was written, not the crate whose type it was instantiated with: tachys's `Render`
impls instantiated with the app's view types count as tachys), closures to `core` when they
are called through `FnOnce::call_once` shims. `gzip` is gzip -9 of that crate's function bodies
alone, a guide to what removing it would save from the compressed bundle (the sum exceeds the
whole file's gzip: one stream shares its dictionary across crates). `modules` splits the
workspace's own crates (the engine `buddyscope`, the app `buddyscope_app`) per module.
`paths` counts the functions whose path starts with each PATH (`buddyscope::run::runner::Exec`)
in FILE (a split module) and in WHOLE (the rustc output before splitting).
"""

import collections
import gzip
import re
import sys

SECTION_NAMES = {
    0: "custom",
    1: "type",
    2: "import",
    3: "function",
    4: "table",
    5: "memory",
    6: "global",
    7: "export",
    8: "start",
    9: "element",
    10: "code",
    11: "data",
    12: "datacount",
}


def leb(b, i):
    result = shift = 0
    while True:
        x = b[i]
        i += 1
        result |= (x & 0x7F) << shift
        shift += 7
        if x < 0x80:
            return result, i


def sections(b):
    """(id, name, start, end) of each section's payload."""
    if b[:4] != b"\0asm":
        raise ValueError("not a wasm module")
    i = 8
    out = []
    while i < len(b):
        sid = b[i]
        n, i = leb(b, i + 1)
        name = SECTION_NAMES.get(sid, f"id{sid}")
        if sid == 0:
            ln, j = leb(b, i)
            name = "custom:" + b[j : j + ln].decode("utf-8", "replace")
        out.append((sid, name, i, i + n))
        i += n
    return out


def imported_functions(b, start):
    count, j = leb(b, start)
    funcs = 0
    for _ in range(count):
        for _ in range(2):  # module, field
            ln, j = leb(b, j)
            j += ln
        kind = b[j]
        j += 1
        if kind == 0:  # func: type index
            _, j = leb(b, j)
            funcs += 1
        elif kind == 1:  # table: reftype, limits
            j += 1
            flags = b[j]
            _, j = leb(b, j + 1)
            if flags & 1:
                _, j = leb(b, j)
        elif kind == 2:  # memory: limits
            flags = b[j]
            _, j = leb(b, j + 1)
            if flags & 1:
                _, j = leb(b, j)
        elif kind == 3:  # global: valtype, mut
            j += 2
        elif kind == 4:  # tag
            j += 1
            _, j = leb(b, j)
    return funcs


def functions(b):
    """[(name, body bytes)] of every defined function."""
    secs = {name: (s, e) for _, name, s, e in sections(b)}
    nimports = imported_functions(b, secs["import"][0]) if "import" in secs else 0
    bodies = []
    if "code" in secs:
        s, _ = secs["code"]
        count, j = leb(b, s)
        for _ in range(count):
            ln, k = leb(b, j)
            bodies.append(b[j : k + ln])
            j = k + ln
    names = {}
    if "custom:name" in secs:
        s, e = secs["custom:name"]
        ln, j = leb(b, s)
        j += ln  # the section's own name
        while j < e:
            sub = b[j]
            ln, j = leb(b, j + 1)
            end = j + ln
            if sub == 1:  # function names
                count, k = leb(b, j)
                for _ in range(count):
                    idx, k = leb(b, k)
                    nl, k = leb(b, k)
                    names[idx] = b[k : k + nl].decode("utf-8", "replace")
                    k += nl
            j = end
    return [(names.get(n + nimports, "?"), body) for n, body in enumerate(bodies)]


def _legacy_idents(name):
    i, out = 3, []
    while i < len(name) and name[i].isdigit():
        j = i
        while name[j].isdigit():
            j += 1
        ln = int(name[i:j])
        out.append(name[j : j + ln])
        i = j + ln
    return out


def crate_of(name):
    """The crate a (mangled) function name belongs to."""
    if name.startswith("_ZN"):
        ids = _legacy_idents(name)
        if not ids:
            return "?"
        first = ids[0]
        if not first.startswith("_$LT$"):
            return first
        # `<Type as Trait>::f`: the crate of Type when it is a path, else the first path's crate.
        s = first.replace("$LT$", "<").replace("$GT$", ">").replace("$u20$", " ")
        s = s.replace("$RF$", "&").replace("$C$", ",").replace("..", "::")
        m = re.match(r"_?<\s*(?:impl\s+)?[&\[( ]*(?:mut )?([A-Za-z_][A-Za-z0-9_]*)(::)?", s)
        if m and m.group(2):
            return m.group(1)
        paths = re.findall(r"([a-z_][a-z0-9_]*)::", s)
        return paths[0] if paths else "(generic)"
    if name.startswith("_R"):
        m = re.search(r"C(?:s[0-9A-Za-z]*_)?(\d+)([A-Za-z_][A-Za-z0-9_]*)", name)
        return m.group(2)[: int(m.group(1))] if m else "?"
    if name.startswith("__wbindgen_describe"):
        return "wasm_bindgen (describe, removed by wasm-bindgen)"
    if name.startswith("__wbg") or name.startswith("__wbindgen") or name.startswith("__externref"):
        return "wasm_bindgen"
    if name in ("memcpy", "memset", "memmove", "memcmp", "bcmp") or name.startswith("__"):
        return "compiler_builtins"
    return "(unnamed)" if name == "?" else "(other)"


def cmd_sections(path):
    b = open(path, "rb").read()
    print(f"{'section':32} {'bytes':>10} {'gzip -9':>10}")
    for _, name, s, e in sections(b):
        print(f"{name:32} {e - s:10d} {len(gzip.compress(b[s:e], 9, mtime=0)):10d}")
    print(f"{'file':32} {len(b):10d} {len(gzip.compress(b, 9, mtime=0)):10d}")


def grouped(path, key):
    """The functions of `path` (name, body) and their bodies grouped by `key(name)`; `None` for a
    split piece of a few unnamed functions (the splitter's stubs)."""
    fns = functions(open(path, "rb").read())
    if not any(n != "?" for n, _ in fns):
        code = sum(len(body) for _, body in fns)
        if code < 4096:
            print(f"({len(fns)} functions without names, {code} bytes of code: the splitter's stubs)")
            return None
        sys.exit(f"{path}: no name section (analyse the rustc output, not dist/)")
    per = collections.defaultdict(list)
    for name, body in fns:
        per[key(name)].append(body)
    return fns, per


def cmd_crates(path, top):
    g = grouped(path, crate_of)
    if g is None:
        return
    fns, per = g
    total = sum(len(body) for _, body in fns)
    rows = sorted(per.items(), key=lambda kv: -sum(map(len, kv[1])))
    print(f"| crate | functions | code bytes | share | gzip -9 |")
    print(f"|---|---:|---:|---:|---:|")
    rest = [0, 0, b""]
    for i, (crate, bodies) in enumerate(rows):
        size = sum(map(len, bodies))
        if i < top:
            gz = len(gzip.compress(b"".join(bodies), 9, mtime=0))
            print(f"| {crate} | {len(bodies)} | {size} | {100 * size / total:.1f}% | {gz} |")
        else:
            rest[0] += len(bodies)
            rest[1] += size
            rest[2] += b"".join(bodies)
    if rest[0]:
        gz = len(gzip.compress(rest[2], 9, mtime=0))
        print(f"| (the other {len(rows) - top} crates) | {rest[0]} | {rest[1]} | {100 * rest[1] / total:.1f}% | {gz} |")
    print(f"| **all code** | {len(fns)} | {total} | 100% | {len(gzip.compress(b''.join(b for _, b in fns), 9, mtime=0))} |")


def module_of(name):
    """`crate::module` of a function, for the crates of this workspace (the app and the
    engine); every other function counts for its crate alone."""
    crate = crate_of(name)
    if crate not in ("buddyscope", "buddyscope_app") or not name.startswith("_ZN"):
        return crate
    ids = _legacy_idents(name)
    path = [crate]
    # Two levels under the app's `panels` (one module per panel), one elsewhere.
    for ident in ids[1 : 3 if ids[1:2] == ["panels"] else 2]:
        if not re.match(r"[a-z_][a-z0-9_]*$", ident) or re.match(r"h[0-9a-f]{16}$", ident):
            break
        path.append(ident)
    return "::".join(path) if ids and ids[0] == crate else crate


def cmd_modules(path, top):
    """Code per module of the workspace's two crates (the rest per crate), largest first."""
    g = grouped(path, module_of)
    if g is None:
        return
    _, per = g
    rows = sorted(
        ((m, bodies) for m, bodies in per.items() if "::" in m),
        key=lambda kv: -sum(map(len, kv[1])),
    )
    print("| module | functions | code bytes | gzip -9 |")
    print("|---|---:|---:|---:|")
    for m, bodies in rows[:top]:
        gz = len(gzip.compress(b"".join(bodies), 9, mtime=0))
        print(f"| {m} | {len(bodies)} | {sum(map(len, bodies))} | {gz} |")


def _paths(path):
    """The `::`-joined paths of the (legacy-mangled) functions of `path`."""
    return [
        "::".join(_legacy_idents(n))
        for n, _ in functions(open(path, "rb").read())
        if n.startswith("_ZN")
    ]


def cmd_paths(path, whole, prefixes):
    """Functions under each path prefix in `path` and in `whole`."""
    here, all_ = _paths(path), _paths(whole)
    print("| code | functions in the module | in the whole app |")
    print("|---|---:|---:|")
    for p in prefixes:
        n = sum(1 for f in here if f.startswith(p))
        m = sum(1 for f in all_ if f.startswith(p))
        print(f"| {p} | {n} | {m} |")


def main(argv):
    if len(argv) < 3 or argv[1] not in ("sections", "crates", "modules", "paths"):
        sys.exit(__doc__)
    if argv[1] == "paths":
        cmd_paths(argv[2], argv[3], argv[4:])
        return
    top = int(argv[argv.index("--top") + 1]) if "--top" in argv else 20
    if argv[1] == "sections":
        cmd_sections(argv[2])
    elif argv[1] == "crates":
        cmd_crates(argv[2], top)
    else:
        cmd_modules(argv[2], top)


if __name__ == "__main__":
    main(sys.argv)
