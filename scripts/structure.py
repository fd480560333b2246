#!/usr/bin/env python3
"""The structure drawn from the code's own imports (issue #18): module-level import cycles in core/ and app/, imports
running back up core's layers, source files over 600 lines (tests aside), and paths into core's hidden engine
modules from the crates that use it (they must use the API at core/src/lib.rs). Prints a report; exit 1 when any
remains.

A "room" is a file's module path below src/ (core/src/platform/android/sim.rs -> platform::android::sim); an edge
A -> B is any `crate::B...` path written in A (a `use` or an inline path) whose longest prefix names a room.
Cycles are strongly connected components of more than one room; `mod.rs` files count as their folder's room.
Usage: python3 scripts/structure.py [--max-lines 600] [--require cycles,layers,files,api]
"""
import os
import re
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX = int(sys.argv[sys.argv.index("--max-lines") + 1]) if "--max-lines" in sys.argv else 600
# `--require cycles,layers,files,api`: fail only on these kinds (what scripts/test.sh enforces); default: all.
KINDS = ("cycles", "layers", "files", "api")
REQUIRE = set(sys.argv[sys.argv.index("--require") + 1].split(",")) if "--require" in sys.argv else set(KINDS)


def rooms_of(src):
    rooms = {}
    for d, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs"):
                continue
            p = os.path.join(d, f)
            rel = os.path.relpath(p, src)[:-3].split(os.sep)
            if rel[-1] in ("mod", "lib", "main"):
                rel = rel[:-1]
            rooms[p] = "::".join(rel) or "crate"
    return rooms


def strip_tests(text):
    # Unit-test modules are not structure: cut from `#[cfg(test)]` + `mod tests` to the end of the file. Comments
    # (doc links such as [`super::kvm`] included) are not imports either.
    m = re.search(r"#\[cfg\(test\)\]\s*mod \w+\s*\{", text)
    text = text[: m.start()] if m else text
    return re.sub(r"//[^\n]*", "", text)


def uses(text, room, is_mod):
    """Every crate::a::b (or super::a::b) path as an absolute module path; `{b, c::d}` groups expand one level.
    In a file a::b::c (c.rs) `super` is a::b; in a folder's mod.rs (room a::b) `super` is a."""
    out = []
    parts = room.split("::") if room != "crate" else []
    for m in re.finditer(r"\b(crate::|(?:super::)+)([A-Za-z_]\w*(?:::[A-Za-z_]\w*)*)?(::)?(\{([^}]*)\})?", text):
        head = m.group(1)
        if head == "crate::":
            prefix = []
        else:
            ups = head.count("super")
            prefix = parts[: max(0, len(parts) - ups)]
        path = prefix + (m.group(2).split("::") if m.group(2) else [])
        base = "::".join(path)
        if m.group(5) is not None:
            for item in m.group(5).split(","):
                item = item.strip().split(" as ")[0]
                if item and item != "self":
                    out.append(f"{base}::{item}" if base else item)
        if base:
            out.append(base)
    return out


def graph(src):
    rooms = rooms_of(src)
    names = set(rooms.values())
    g = defaultdict(set)
    for path, room in rooms.items():
        text = strip_tests(open(path, encoding="utf-8").read())
        is_mod = os.path.basename(path) in ("mod.rs", "lib.rs", "main.rs")
        for u in uses(text, room, is_mod):
            parts = u.split("::")
            target = None
            for k in range(len(parts), 0, -1):
                cand = "::".join(parts[:k])
                if cand in names:
                    target = cand
                    break
            if target and target != room and not room.startswith(target + "::") and not target.startswith(room + "::"):
                g[room].add(target)
    return names, g


def sccs(names, g):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in g.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(names):
        if v not in index:
            visit(v)
    return out


# core's layers, lowest first (ARCHITECTURE.md): a module may import from its own layer's other rooms only when
# no circle results, and from lower layers freely; an import of a higher layer "runs back up".
LAYERS = [
    ["units", "error", "rng", "progress", "io", "parallel"],
    ["heap", "cpu", "metrics", "trace"],
    ["collector", "workload", "importers", "input"],
    ["run"],
    ["scenario"],
    ["platform"],
    ["sweep", "reproduce", "lesson"],
    ["crate"],
]
LAYER = {room: i for i, rooms in enumerate(LAYERS) for room in rooms}


def layer(room):
    """A model's own configuration (`collector::config`, `platform::kvm::config`, …) sits with the collector and
    workload layer whatever its model's layer, so the scenario file can put the sections together; every other
    room takes its top-level module's layer."""
    if room.endswith("::config") or "::config::" in room:
        return 2
    return LAYER.get(room.split("::")[0], 0)


def main():
    bad = 0
    for crate in ("core", "app"):
        src = os.path.join(ROOT, crate, "src")
        names, g = graph(src)
        cycles = sccs(names, g)
        print(f"## {crate}: {len(names)} modules, {sum(len(v) for v in g.values())} import edges, {len(cycles)} cycles")
        for c in cycles:
            bad += "cycles" in REQUIRE
            print("  cycle: " + " <-> ".join(c))
        if crate == "core":
            up = sorted(
                (a, b)
                for a, targets in g.items()
                for b in targets
                if layer(a) < layer(b)
            )
            names = " < ".join("/".join(l) for l in LAYERS)
            print(f"## core: {len(up)} imports running back up a layer (layers: {names}; any *::config sits with collector/workload)")
            for a, b in up:
                bad += "layers" in REQUIRE
                print(f"  {a} -> {b}")
    long_files = []
    for crate in ("core", "app"):
        for d, _, files in os.walk(os.path.join(ROOT, crate, "src")):
            for f in files:
                p = os.path.join(d, f)
                if f.endswith(".rs") and "test" not in f:
                    n = sum(1 for _ in open(p, encoding="utf-8"))
                    if n > MAX:
                        long_files.append((n, os.path.relpath(p, ROOT)))
    print(f"## files over {MAX} lines (tests aside): {len(long_files)}")
    for n, p in sorted(long_files, reverse=True):
        bad += "files" in REQUIRE
        print(f"  {n:5d} {p}")
    deep = api_violations()
    print(f"## gclab_core paths outside its public API (app, tests, benches, examples, fuzz): {len(deep)}")
    for where, path in deep:
        bad += "api" in REQUIRE
        print(f"  {where}: {path}")
    return 1 if bad else 0


# core's public surface (core/src/lib.rs): names re-exported at the top, and the subsystems that are APIs of their
# own. The engine's modules (collector, cpu, heap, platform, rng, run, workload, error, progress) are #[doc(hidden)].
PUBLIC_MODULES = {"importers", "input", "io", "lesson", "metrics", "reproduce", "scenario", "sweep", "trace", "units"}


def api_violations():
    """Every `gclab_core::m::…` path (a `use`, braces expanded one level, or inline) in the crates that use core,
    whose first segment is a hidden engine module."""
    out = []
    dirs = ["app/src", "app/benches", "tests", "core/benches", "core/examples", "core/tests", "fuzz/fuzz_targets", "fuzz/src"]
    for d in dirs:
        for base, _, files in os.walk(os.path.join(ROOT, d)):
            for f in files:
                if not f.endswith(".rs"):
                    continue
                p = os.path.join(base, f)
                text = re.sub(r"//[^\n]*", "", open(p, encoding="utf-8").read())
                found = set()
                for m in re.finditer(r"gclab_core::\{([^;]*?)\};", text, re.S):
                    for part in re.split(r"[,{}\s]+", m.group(1)):
                        first = part.split("::")[0]
                        if "::" in part and first.islower():
                            found.add(part.split("::")[0])
                for m in re.finditer(r"gclab_core::([a-z_]+)::", text):
                    found.add(m.group(1))
                for first in sorted(found - PUBLIC_MODULES):
                    out.append((os.path.relpath(p, ROOT), f"gclab_core::{first}::…"))
    return out


if __name__ == "__main__":
    sys.exit(main())
