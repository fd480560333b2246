#!/usr/bin/env python3
"""How close can any point in the unknowns' sourced ranges bring each SYSTOR'15 corollary? (issue #16, "Done when":
"resolve with the ablation and the search showing quantitatively that no point in the ranges gives it").

The wide search (scripts/android_search.py --dump) samples the ranges; a corollary it never sees hold may still
hold in a corner no sample reached. This script *maximises* each corollary's margin directly — the validation set
used as an objective, which is why nothing here is ever adopted into the presets: it bounds what the model can
show, it does not choose parameters.

Per target (C1, C2, C3, C4, C2∧C3, C1∧C2∧C3, all four) and start point (the wide search's best points for that target), a
(1+1) evolution strategy in the unit cube of the ranges (log scale for LOG unknowns, integers rounded as `draw`
rounds them): each step moves a random third of the unknowns by a Gaussian of width sigma, kept when the target's
fitness does not fall (sigma ×1.3 on a gain, ×0.9 otherwise; within [0.02, 0.4]). Fitness, compared in order:
the seeds of 1–5 on which the corollary holds (the issue wants ≥ 4), then the second-lowest per-seed margin (> 0 on
at least four seeds exactly when it holds on four). A margin is the worst of the corollary's sub-conditions, each
scaled to about one unit per "clearly holds"; android_search_core.checks defines them as `reproduce` checks them.

usage: python3 scripts/android_reach.py GCLAB --dump /tmp/gs/global.json [--steps 30] [--starts 2]
       [--targets c1,c4,all] [--out docs/reachability-android.md] [--json /tmp/reach.json]
Deterministic: the RNG is seeded per target and start.
"""
import json, math, os, random, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from android_search_core import INTEGER, LOG, SEEDS, UNKNOWNS, checks, draw, run_point  # noqa: E402


def sub_margins(c):
    """Each corollary's sub-condition margins at one seed (> 0: holds), on comparable scales."""
    return {
        "c1": [c["m1_t"] / 0.05, c["m1_e"] / 0.05],
        "c2": [c["m2_tr"] / 20.0, c["m2_lus"] / 0.05, (c["m2_xal"] + 1e-9) / 0.05],
        "c3": [(c["c3_energy"] - 1) / 0.02, (c["c3_delayed"] - 1) / 0.05],
        "c4": [m / 0.05 for m in c["m4_mmu"]] + [c["m4_p50"] / 10.0],
    }


TARGETS = {
    "c1": ["c1"], "c2": ["c2"], "c3": ["c3"], "c4": ["c4"], "c23": ["c2", "c3"], "c123": ["c1", "c2", "c3"], "all": ["c1", "c2", "c3", "c4"],
}
SUBS = {
    "c1": ["T(0.9)/T(0.1) − 1, worst Java benchmark (÷ 0.05)", "energy in the paper's direction, worst benchmark (÷ 0.05)"],
    "c2": ["third-largest transition growth 0.1 → 0.9 (÷ 20)", "lusearch low+offline share gain (÷ 5 pp)",
           "xalan low+offline share not gained (÷ 5 pp)"],
    "c3": ["bg/CMS energy g.mean − 1 (÷ 0.02)", "bg/CMS delayed time g.mean − 1 (÷ 0.05)"],
    "c4": ["fg's MinMU lead on lusearch (÷ 0.05)", "fg's MinMU lead on xalan (÷ 0.05)",
           "bg's MinMU lead on javac (÷ 0.05)", "50 ms − largest non-javac CMS max pause (÷ 10 ms)"],
}
NAMES = {"c1": "Corollary 1", "c2": "Corollary 2", "c3": "Corollary 3", "c4": "Corollary 4",
         "c23": "Corollaries 2 and 3 together", "c123": "Corollaries 1, 2 and 3 together", "all": "all four corollaries together"}


def seeds_holding(target, ch):
    """Seeds (of the per-seed checks `ch`) on which every corollary of `target` holds."""
    return sum(all(c[k] for k in TARGETS[target]) for c in ch)


def fitness(target, ch):
    """(seeds holding, second-lowest per-seed margin): the issue counts a corollary held on >= 4 of seeds 1-5."""
    holds = seeds_holding(target, ch)
    per_seed = sorted(min(m for k in TARGETS[target] for m in sub_margins(c)[k]) for c in ch)
    return holds, per_seed[1]


def to_unit(point):
    """The point's place in the unit cube (the inverse of `draw`)."""
    x = {}
    for k, lo, hi, _, _ in UNKNOWNS:
        v = point[k]
        if k in INTEGER:
            x[k] = (v - lo + 0.5) / (hi - lo + 1)
        elif k in LOG:
            x[k] = math.log(max(v, lo) / lo) / math.log(hi / lo)
        else:
            x[k] = (v - lo) / (hi - lo)
        x[k] = min(max(x[k], 0.0), 0.999999)
    return x


def from_unit(x):
    return {k: draw(k, lo, hi, x[k]) for k, lo, hi, _, _ in UNKNOWNS}


def climb(gclab, target, start_name, start_point, steps, rng, log):
    x = to_unit(start_point)
    point = from_unit(x)
    ch = [checks(run_point(gclab, point), s) for s in SEEDS]
    best = (fitness(target, ch), point, ch)
    trail = [best[0]]
    sigma = 0.15
    for i in range(steps):
        y = dict(x)
        keys = [k for k, *_ in UNKNOWNS]
        for k in rng.sample(keys, max(1, len(keys) // 3)):
            y[k] = min(max(y[k] + rng.gauss(0.0, sigma), 0.0), 0.999999)
        p = from_unit(y)
        ch = [checks(run_point(gclab, p), s) for s in SEEDS]
        f = fitness(target, ch)
        if f >= best[0]:
            sigma = min(0.4, sigma * 1.3) if f > best[0] else sigma
            x, best = y, (f, p, ch)
        else:
            sigma = max(0.02, sigma * 0.9)
        trail.append(best[0])
        print(f"{target} from {start_name}, step {i + 1}/{steps}: {f[0]} seeds, margin {f[1]:+.3f}; best {best[0][0]}, "
              f"{best[0][1]:+.3f}", file=log, flush=True)
    return {"start": start_name, "fitness": best[0], "point": best[1], "checks": best[2], "trail": trail}


def median(v):
    v = sorted(v)
    return (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2


def holds(r, t):
    """Seeds of 1-5 on which target t holds at the dumped point r."""
    return seeds_holding(t, r["checks"])


def sampled_section(rows):
    """Where each target holds among the wide search's Latin-hypercube points, and what the calibration objective
    is at the best of those points (the presets' point is the calibration set's best)."""
    lhs = [r for r in rows if r["name"].startswith("LHS")]
    pre = next((r for r in rows if r["name"] == "presets"), None)
    L = ["## Where the sampled points show each corollary, and what it costs the calibration set", "",
         f"Of the wide search's {len(lhs)} Latin-hypercube points: how many show the target on ≥ 4 of seeds 1–5, and "
         "among those the best calibration objective (Table 1 and 3, mean over seeds 1–5; lower is better"
         + (f"; the presets' point: {pre['objective']:.3f}, where "
            + ", ".join(f"C{i} holds on {holds(pre, f'c{i}')}" for i in range(1, 5)) + " of seeds 1–5" if pre else "")
         + ") with that point's Table 1 scores at seed 1 (GC counts within tolerance of 18, max pauses within ×1.5 "
         "of 6; the issue's bars are 12 and 4).", "",
         "| target | points (of " + str(len(lhs)) + ") | best objective among them | its Table 1 scores | its seeds holding C1 / C2 / C3 / C4 |",
         "|---|---|---|---|---|"]
    for t in ["c1", "c2", "c3", "c4", "c23", "c123", "all"]:
        ok = [r for r in lhs if holds(r, t) >= 4]
        if ok:
            b = min(ok, key=lambda r: r["objective"])
            L.append(f"| {NAMES[t]} | {len(ok)} | {b['objective']:.3f} ({b['name']}) | {b['counts']} / {b['pauses']} | "
                     + " / ".join(str(holds(b, k)) for k in ["c1", "c2", "c3", "c4"]) + " |")
        else:
            L.append(f"| {NAMES[t]} | 0 | — | — | — |")
    # Corollary 4's two halves apart: the MinMU ranking (fg, fg, bg) and "only javac above 50 ms".
    rank = [r for r in lhs if sum(c["best"] == "fg/fg/bg" for c in r["checks"]) >= 4]
    if rank:
        b = min(rank, key=lambda r: r["objective"])
        over = [median([50.0 - c["m4_p50"] for c in r["checks"]]) for r in rank]
        only = sum(sum(c["over50"] == "javac" for c in r["checks"]) >= 4 for r in rank)
        L.append(f"| Corollary 4's MinMU ranking alone (fg best on lusearch and xalan, bg on javac) | {len(rank)} | "
                 f"{b['objective']:.3f} ({b['name']}) | {b['counts']} / {b['pauses']} | "
                 + " / ".join(str(holds(b, k)) for k in ["c1", "c2", "c3", "c4"]) + " |")
    most = max(sum(holds(r, k) >= 4 for k in ["c1", "c2", "c3", "c4"]) for r in lhs)
    L += ["", f"At most {most} of the four corollaries hold on ≥ 4 seeds at any one sampled point."]
    if rank:
        L += ["", f"Corollary 4's halves exclude each other at the sampled points: where its MinMU ranking holds "
              f"(on ≥ 4 seeds, {len(rank)} points) the largest CMS max pause outside javac is "
              f"{min(over):.0f}–{max(over):.0f} ms (median over seeds 1–5, per point), and \"only javac above 50 ms\" "
              f"holds on ≥ 4 seeds at {only} of them. In the model fg leads only where CMS's pauses outside javac "
              "are long; the paper has fg leading with them short."]
        rest = [r for r in lhs if r not in rank]
        md = lambda rs, k: median([r["point"][k] for r in rs])
        L += ["", "What those points share (medians, theirs against the other sampled points'): a chained JIT loop "
              "that delays a safepoint (mechanism 12) found at "
              f"{md(rank, 'android.gc.jit_loop_share'):.3f} of suspensions against "
              f"{md(rest, 'android.gc.jit_loop_share'):.3f}, running "
              f"{md(rank, 'android.gc.jit_loop_run_us') / 1000:.1f} ms on against "
              f"{md(rest, 'android.gc.jit_loop_run_us') / 1000:.1f} ms, and "
              f"{md(rank, 'mutators_dacapo'):.0f} DaCapo query thread(s) against "
              f"{md(rest, 'mutators_dacapo'):.0f} (points with one: "
              f"{sum(r['point']['mutators_dacapo'] == 1 for r in rank)} of {len(rank)}). A long loop stretches "
              "the root scans in which CMS's and bg's daemon waits for the query thread to reach its suspend check; "
              "with one query thread, fg's collector is that thread, its root scans stop no other mutator "
              "(core/src/platform/android/cycle.rs, `suspend_all` skips the collector), and no loop delays them."]
    L.append("")
    return L


def write(dest, out, cmd, rows):
    seeds = sum(len(r["checks"]) for r in rows)
    javac50 = sum("javac" in c["over50"].split("+") for r in rows for c in r["checks"])
    L = ["# android-krait: how close the unknowns' ranges bring each corollary", "",
         f"Generated by `{cmd}`; do not edit by hand. Issue #16's fallback asks, for a finding that does not emerge, "
         "for the search showing quantitatively that no point in the unknowns' ranges gives it. "
         f"The wide search (`python3 scripts/android_search.py target/release/gclab --samples "
         f"{sum(r['name'].startswith('LHS') for r in rows)} --local 0 --dump FILE`, docs/calibration-android.md: the "
         "Latin hypercube of every range, RNG seed 16, with the reference rows and the presets' point) samples the "
         "ranges; this page then "
         "*maximises* each corollary's margin from the sampled points that came closest: a (1+1) evolution strategy "
         f"in the unit cube of the ranges, {out['starts']} starts × {out['steps']} steps per target, each step a full "
         "point (140 runs: seeds 1–5, the variants and targetUtils the checks read). Here the validation set is the "
         "objective, so nothing on this page is adopted into the presets: it bounds what the model can show. "
         "Ranges and sources: docs/calibration-android.md and docs/models-android.md, \"Calibration\".", "",
         "Fitness, compared in order: the seeds of 1–5 on which the target holds (the issue wants ≥ 4), then the "
         "second-lowest per-seed margin (> 0 on at least four seeds when it holds on four; C4's margins leave out "
         f"javac's own max pause passing 50 ms, true on {javac50:,} of the wide search's {seeds:,} point-seeds). A margin is the "
         "worst of the target's sub-conditions, each divided by the scale in its name so that 1 reads \"clearly "
         "holds\"; the sub-conditions are those `gclab reproduce` checks (core/src/reproduce/android/checks.rs).", ""
         ] + sampled_section(rows) + [
         "## Each target maximised", "",
         "| target | sampled best: seeds, margin (point) | maximised: seeds, margin (start) | seeds holding after each step |",
         "|---|---|---|---|"]
    for t, r in out["targets"].items():
        best = max(r["climbs"], key=lambda c: c["fitness"])
        trail = "; ".join(f"{c['start']}: " + " ".join(str(f[0]) for f in c["trail"]) for c in r["climbs"])
        (sn, (sh, sm)) = r["sampled_best"]
        L.append(f"| {NAMES[t]} | {sh} of 5, {sm:+.3f} ({sn}) | **{best['fitness'][0]} of 5, {best['fitness'][1]:+.3f}** "
                 f"({best['start']}) | {trail} |")
    L += ["", "## At each target's best point: the sub-conditions, median over seeds 1–5 (> 0: holds)", ""]
    for t, r in out["targets"].items():
        best = max(r["climbs"], key=lambda c: c["fitness"])
        L.append(f"**{NAMES[t]}** ({best['fitness'][0]} of 5 seeds, from {best['start']}):")
        L.append("")
        for k in TARGETS[t]:
            subs = [sub_margins(c)[k] for c in best["checks"]]
            for i, name in enumerate(SUBS[k]):
                vals = [s[i] for s in subs]
                binding = sum(min(s) == s[i] for s in subs)
                L.append(f"- {k.upper()}: {name}: median {median(vals):+.3f}, range {min(vals):+.3f} to "
                         f"{max(vals):+.3f}; the binding one on {binding} of 5 seeds")
        c1 = best["checks"][0]
        L.append(f"- seed 1: best MinMU lusearch/xalan/javac {c1['best']}; CMS max pauses > 50 ms: {c1['over50']}; "
                 f"bg/CMS energy {c1['c3_energy']:.3f}, delayed {c1['c3_delayed']:.3f}")
        L.append("- point: " + ", ".join(f"{k.split('.')[-1]}={v:g}" for k, v in best["point"].items()))
        L.append("")
    L.append(f"{sum(len(r['climbs']) * (out['steps'] + 1) for r in out['targets'].values())} points evaluated in "
             f"{out['minutes']:.0f} min on this machine.")
    tmp = dest + ".tmp"
    open(tmp, "w").write("\n".join(L) + "\n")
    os.replace(tmp, dest)


def command():
    """The command that reproduces the document: the arguments that change its content (not where files go)."""
    a, skip = [], False
    for x in sys.argv[2:]:
        if skip:
            skip = False
        elif x in ("--out", "--json", "--dump", "--render"):
            skip = True
            if x == "--dump":
                a.append("--dump FILE")
        else:
            a.append(x)
    return "python3 scripts/android_reach.py target/release/gclab " + " ".join(a)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    arg = lambda k, d: sys.argv[sys.argv.index(k) + 1] if k in sys.argv else d
    gclab = sys.argv[1]
    rows = json.load(open(arg("--dump", "docs/calibration-android.json")))
    if "--render" in sys.argv:  # the document again from a finished run's --json (no runs)
        out = json.load(open(arg("--render", "")))
        cmd = (f"python3 scripts/android_reach.py target/release/gclab --dump FILE --steps {out['steps']} "
               f"--starts {out['starts']} --targets {','.join(out['targets'])}")
        write(arg("--out", "docs/reachability-android.md"), out, cmd, rows)
        return
    steps, starts = int(arg("--steps", 30)), int(arg("--starts", 2))
    targets = arg("--targets", "c1,c4,all").split(",")
    t0 = time.time()
    out = {"steps": steps, "starts": starts, "sampled": len(rows), "targets": {}}
    for t in targets:
        # Start from the wide search's best points for this target (in every range: the reference rows are not).
        ranked = sorted((r for r in rows if r["name"].startswith("LHS")),
                        key=lambda r: fitness(t, r["checks"]), reverse=True)
        sampled_best = fitness(t, ranked[0]["checks"])
        runs = [climb(gclab, t, r["name"], r["point"], steps, random.Random(f"{t}/{j}"), sys.stderr)
                for j, r in enumerate(ranked[:starts])]
        out["targets"][t] = {"sampled_best": [ranked[0]["name"], sampled_best], "climbs": runs}
        out["minutes"] = (time.time() - t0) / 60
        dest = arg("--json", "")
        if dest:  # after each target: a run stopped early keeps what it finished
            tmp = dest + ".tmp"
            json.dump(out, open(tmp, "w"), indent=1, default=str)
            os.replace(tmp, dest)
    if arg("--out", ""):
        write(arg("--out", ""), out, command(), rows)
    for t, r in out["targets"].items():
        best = max(r["climbs"], key=lambda c: c["fitness"])
        print(f"{NAMES[t]}: sampled best {r['sampled_best'][1]}; climbed best {best['fitness']} from {best['start']}",
              file=sys.stderr)


if __name__ == "__main__":
    main()
