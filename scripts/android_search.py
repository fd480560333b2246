#!/usr/bin/env python3
"""Searches the android-krait model's unknowns over their sourced ranges (issue #16, "Method") and writes
docs/calibration-android.md with two separate rankings of the same points:

* **Calibration** (chooses nothing by itself; the presets are moved only by a deliberate, re-validated change):
  the objective reads only the calibration set — Table 1's GC counts (CONC, ALLOC, trims), maximum pauses and
  GC CPU under default CMS, and Table 3's bg/fg migrations and delayed time over CMS — at seed 1.
* **Reachability** (never used to choose parameters): Corollaries 1–4 evaluated per seed 1–5 at every point, exactly
  as `gclab reproduce --paper android` checks them (core/src/reproduce/android/checks.rs, `Checks`), and per corollary the
  best any point achieves. This is what the issue's fallback clause needs: whether any point in the ranges gives a
  finding, and if not, how close the ranges come.

The unknowns and their ranges are documented with their sources in docs/models-android.md ("Calibration"). Points:
the defaults, each unknown alone at the ends of its range, and a Latin-hypercube sample (fixed RNG seed) of the joint
ranges. Everything is deterministic. Runs go through `gclab sweep` (one process per benchmark per point).

usage: python3 scripts/android_search.py target/release/gclab [--samples N] [--local K] [--out docs/calibration-android.md]
"""
import json, math, os, random, re, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor

# (scenario key, low, high, default, label + source). Workload keys are per benchmark: a factor on the preset.
UNKNOWNS = [
    ("android.gc.mark_stall_fraction", 0.5, 0.7, 0.55, "tracing memory-stall share (models.md §5: 0.5–0.6; §5 table to 0.7)"),
    ("android.gc.sweep_stall_fraction", 0.3, 0.5, 0.4, "sweep memory-stall share (models.md §5: ≈ 0.4)"),
    ("workload.android.mutator_stall_fraction", 0.15, 0.35, 0.25, "mutator memory-stall share (models.md §5: 0.2–0.3)"),
    ("mutator_factor", 0.7, 1.4, 1.0, "mutator compute per KiB × (the inferred value; GC CPU ±~30 %)"),
    ("android.gc.mark_ns_per_object", 100, 400, 200, "tracing per reachable object [ns] (200–800 cycles at 2 GHz)"),
    ("android.gc.alloc_ns_per_object", 60, 240, 120, "heap-lock hold per allocation [ns] (dlmalloc + zeroing)"),
    ("android.gc.contention_sleep_us", 5, 40, 20, "failed heap-lock take: futex sleep [µs]"),
    ("android.sched.context_switch_us", 2, 15, 5, "context switch [µs] (ARMv7, David et al. 2007)"),
    ("android.gc.trim_us_per_mib", 100, 1000, 300, "trim per MiB returned [µs] (mspace_trim + madvise)"),
    ("workload.android.background_period_ms", 20, 200, 50, "background thread wake-up period [ms]"),
    # The phone's other processes (android.system, docs/models-android.md "The phone's other processes"): every
    # point runs them (SYSTEM_ON); the point "other processes off" is the model before.
    ("android.system.display_burst_us", 0, 3000, 1000, "surfaceflinger composition per 60 Hz vsync [µs] (0: static screen)"),
    ("android.system.server_period_ms", 20, 500, 100, "system_server thread wake-up mean period [ms] (4 threads)"),
    ("android.system.server_burst_us", 100, 2000, 500, "system_server work per wake-up [µs]"),
    ("android.system.kernel_period_ms", 10, 100, 40, "kernel thread / native daemon wake-up mean period [ms] (4 threads)"),
    ("android.system.kernel_burst_us", 20, 500, 100, "kernel thread / native daemon work per wake-up [µs]"),
]
SYSTEM_ON = "android.system.enabled=true"

SEEDS = [1, 2, 3, 4, 5]
JAVA = ["lusearch", "xalan", "javac", "jack"]
COR4 = ["lusearch", "xalan", "javac"]
VARIANTS = ["cms", "gencms", "cmsfly", "bg", "fg"]
ALL = ["quadrant", "pandora", "javac", "jack", "lusearch", "xalan"]
# Table 1 (SYSTOR'15): CONC, ALLOC, trims, max pause [ms], GC CPU [%]
TABLE1 = {
    "quadrant": (6, 4, 3, 30.5, 2.8),
    "pandora": (7, 18, 4, 33.1, 6.2),
    "javac": (55, 42, 1, 99.0, 19.7),
    "jack": (105, 0, 1, 24.0, 8.0),
    "lusearch": (356, 0, 1, 35.0, 5.4),
    "xalan": (199, 1, 1, 37.2, 3.5),
}
TABLE3 = {  # (migrations, delayed time) over CMS per Java benchmark
    "bg": ([0.97, 1.02, 1.36, 1.00], [1.14, 1.06, 0.90, 1.09]),
    "fg": ([0.44, 0.79, 0.71, 0.38], [0.63, 0.90, 1.93, 1.20]),
}


def preset_value(bench, key):
    text = open(f"assets/workloads/android/{bench}.toml").read()
    m = re.search(rf"^{key} = ([0-9.e+-]+)", text, re.M)
    return float(m.group(1)) if m else None


def sweep(gclab, bench, sets, varies):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "s.json")
        args = [gclab, "sweep", f"preset:android/{bench}", "--json", out, "--quiet"]
        for k, vs in varies:
            args += ["--vary", f"{k}=" + ",".join(str(v) for v in vs)]
        for s in sets:
            args += ["--set", s]
        subprocess.run(args, check=True, capture_output=True, text=True)
        runs = json.load(open(out))["runs"]
    res = {}
    for r in runs:
        st = r["set"]
        key = (int(st.get("seed", 1)), str(st.get("collector.kind", "cms")).strip('"'), float(st.get("heap.target_util", 0.75)))
        res[key] = r["summary"]
    return res


def point_sets(point, bench):
    sets = [SYSTEM_ON] + list(point.get("_extra", []))
    if "_load_cores" in point:
        n = preset_value(bench, "threads") - preset_value(bench, "mutators") - 1
        n -= 1 if (preset_value(bench, "compilations") or 0) > 0 else 0
        period_us = point["workload.android.background_period_ms"] * 1000
        sets.append(f"workload.android.background_work_us={round(point['_load_cores'] * period_us / n, 1)}")
    for key, *_ in UNKNOWNS:
        v = point[key]
        if key == "mutator_factor":
            base = preset_value(bench, "mutator_us_per_kib")
            sets.append(f"workload.android.mutator_us_per_kib={round(base * v, 3)}")
        else:
            sets.append(f"{key}={v}")
    return sets


def run_point(gclab, point):
    """All runs the checks and the objective need: {bench: {(seed, kind, u): summary}}."""
    res = {}
    for b in ALL:
        sets = point_sets(point, b)
        r = {}
        if b in COR4:
            r.update(sweep(gclab, b, sets, [("seed", SEEDS), ("collector.kind", VARIANTS)]))
        elif b == "jack":
            r.update(sweep(gclab, b, sets, [("seed", SEEDS), ("collector.kind", ["cms", "bg", "fg"])]))
        else:
            r.update(sweep(gclab, b, sets, [("seed", SEEDS)]))
        if b in JAVA:
            r.update(sweep(gclab, b, sets + ["collector.kind=cms"], [("seed", SEEDS), ("heap.target_util", [0.1, 0.9])]))
        res[b] = r
    return res


def trig(s, k):
    return s["collections_by_trigger"].get(k, 0)


def low_share(s):
    t = s.get("time_at_frequency_s") or {}
    tot = sum(t.values())
    if tot <= 0:
        return 0.0
    low = sum(v for k, v in t.items() if k != "offline" and float(k) <= 960.0)
    return (low + t.get("offline", 0.0)) / tot


def mean_mmu(s):
    m = s.get("mmu") or []
    return sum(p["utilization"] for p in m) / len(m) if m else 0.0


def geomean(v):
    return math.exp(sum(math.log(max(x, 1e-12)) for x in v) / len(v))


def checks(res, seed):
    """The four corollaries at one seed, as core/src/reproduce/android/checks.rs `Checks` computes them."""
    slower = energy = trans = 0
    lus_low = xal_not = False
    m_t, m_e, m_tr = [], [], []
    m_lus = m_xal = 0.0
    for b in JAVA:
        lo, hi = res[b][(seed, "cms", 0.1)], res[b][(seed, "cms", 0.9)]
        slower += hi["execution_time_s"] > lo["execution_time_s"]
        down = hi["energy_j"]["total"] < lo["energy_j"]["total"]
        energy += down == (b == "lusearch")
        trans += hi["frequency_transitions"] > lo["frequency_transitions"]
        # Margins (> 0: the sub-condition holds): how far each is from flipping.
        m_t.append(hi["execution_time_s"] / lo["execution_time_s"] - 1)
        e = hi["energy_j"]["total"] / lo["energy_j"]["total"] - 1
        m_e.append(-e if b == "lusearch" else e)
        m_tr.append(hi["frequency_transitions"] - lo["frequency_transitions"])
        if b == "lusearch":
            lus_low = low_share(hi) > low_share(lo)
            m_lus = low_share(hi) - low_share(lo)
        if b == "xalan":
            xal_not = low_share(hi) <= low_share(lo)
            m_xal = low_share(lo) - low_share(hi)
    ratio = lambda kind, f: geomean([f(res[b][(seed, kind, 0.75)]) / max(f(res[b][(seed, "cms", 0.75)]), 1e-12) for b in JAVA])
    c3e = ratio("bg", lambda s: s["energy_j"]["total"])
    c3d = ratio("bg", lambda s: s.get("delayed_time_s") or 0.0)
    best, m_mmu = [], []
    for b, want in zip(COR4, ["fg", "fg", "bg"]):
        vals = [mean_mmu(res[b][(seed, k, 0.75)]) for k in VARIANTS]
        top = max(vals)
        best.append(VARIANTS[max(i for i, v in enumerate(vals) if v == top)])  # Rust max_by: the last of ties
        w = VARIANTS.index(want)
        m_mmu.append(vals[w] - max(v for i, v in enumerate(vals) if i != w))
    over = [b for b in ALL if res[b][(seed, "cms", 0.75)]["max_pause_ms"] > 50.0]
    others = max(res[b][(seed, "cms", 0.75)]["max_pause_ms"] for b in ALL if b != "javac")
    return {
        # Margins: C1 worst T(0.9)/T(0.1) − 1 and worst energy-as-paper margin; C2 third-largest transition growth,
        # lusearch and xalan low+offline share differences; C4 wanted variant's MinMU minus the best other's on
        # lusearch / xalan / javac, and 50 ms minus the largest non-javac CMS max pause.
        "m1_t": min(m_t), "m1_e": min(m_e), "m2_tr": sorted(m_tr)[-3], "m2_lus": m_lus, "m2_xal": m_xal,
        "m4_mmu": m_mmu, "m4_p50": 50.0 - others,
        "c1": slower == 4 and energy == 4,
        "c2": trans >= 3 and lus_low and xal_not,
        "c3": c3e > 1.0 and c3d > 1.0,
        "c4": best == ["fg", "fg", "bg"] and over == ["javac"],
        "c1_parts": slower + energy,  # of 8
        "c2_parts": min(trans, 3) + lus_low + xal_not,  # of 5
        "c3_energy": c3e,
        "c3_delayed": c3d,
        "c4_parts": sum(x == y for x, y in zip(best, ["fg", "fg", "bg"])) + (over == ["javac"]),  # of 4
        "best": "/".join(best),
        "over50": "+".join(over) or "none",
    }


def within_count(ours, paper):
    d = abs(ours - paper)
    return d <= max(0.2 * paper, 1) + 1e-9 if paper <= 10 else d <= 0.1 * paper + 1e-12


def objective(res, seed=1):
    """Calibration set at `seed` (1 chooses): mean squared log ratio over Table 1 counts, max pauses, GC CPU and
    Table 3."""
    terms, counts, pauses = [], 0, 0
    sq = lambda a, b: math.log((a + 1.0) / (b + 1.0)) ** 2
    for b, (conc, alloc, trims, maxp, cpu) in TABLE1.items():
        s = res[b][(seed, "cms", 0.75)]
        for k, p in (("concurrent", conc), ("alloc", alloc), ("trim", trims)):
            terms.append(sq(trig(s, k), p))
            counts += within_count(trig(s, k), p)
        terms.append(sq(s["max_pause_ms"], maxp))
        pauses += 1 / 1.5 <= s["max_pause_ms"] / maxp <= 1.5
        terms.append(sq(100 * s["gc_cpu_fraction"], cpu))
    for kind, (mig, dly) in TABLE3.items():
        for i, b in enumerate(JAVA):
            s, c = res[b][(seed, kind, 0.75)], res[b][(seed, "cms", 0.75)]
            terms.append(math.log(max(s["migrations"], 1) / max(c["migrations"], 1) / mig[i]) ** 2)
            terms.append(math.log(max(s["delayed_time_s"], 1e-9) / max(c["delayed_time_s"], 1e-9) / dly[i]) ** 2)
    return sum(terms) / len(terms), counts, pauses


def points(samples):
    defaults = {k: d for k, _, _, d, _ in UNKNOWNS}
    pts = [("defaults", dict(defaults)),
           ("other processes off", dict(defaults, _extra=["android.system.enabled=false"]))]
    for k, lo, hi, _, _ in UNKNOWNS:
        for end, v in (("low", lo), ("high", hi)):
            p = dict(defaults)
            p[k] = v
            pts.append((f"{k.split('.')[-1]} {end}", p))
    rng = random.Random(16)
    strata = {k: rng.sample(range(samples), samples) for k, *_ in UNKNOWNS}
    for i in range(samples):
        p = {}
        for k, lo, hi, _, _ in UNKNOWNS:
            u = (strata[k][i] + rng.random()) / samples
            p[k] = round(lo + u * (hi - lo), 3)
        pts.append((f"LHS {i + 1}", p))
    return pts


# The finer local search: a small Latin hypercube in a box of ±LOCAL_WIDTH of each range around each centre.
LOCAL_CENTRES = ["LHS 6", "LHS 10", "LHS 11"]
LOCAL_WIDTH = 0.15


def local_points(pts, per_centre):
    by_name = dict(pts)
    rng = random.Random(1616)
    out = []
    for c in LOCAL_CENTRES:
        centre = by_name[c]
        strata = {k: rng.sample(range(per_centre), per_centre) for k, *_ in UNKNOWNS}
        for i in range(per_centre):
            p = {}
            for k, lo, hi, _, _ in UNKNOWNS:
                half = LOCAL_WIDTH * (hi - lo)
                a, b = max(lo, centre[k] - half), min(hi, centre[k] + half)
                u = (strata[k][i] + rng.random()) / per_centre
                p[k] = round(a + u * (b - a), 3)
            out.append((f"{c} / {i + 1}", p))
    return out


# The what-if outside the ranges (not a calibration): competing load on the cores. The model schedules one process;
# the paper's phone also ran Android's system services. Proxy: the preset's background threads (threads − mutators −
# daemon − JIT: 20 on lusearch, 71 on Pandora) together demanding L cores — each doing L × period / n of work per
# wake-up (`workload.android.background_work_us`; the default 100 µs every 50 ms is 0.04 cores on lusearch).
WHAT_IF_LOAD_CORES = [0.5, 1.0, 2.0, 3.0, 4.0]


def what_if_points(pts):
    base = dict(pts)["defaults"]
    pts = [(f"load {c} cores", dict(base, _load_cores=c)) for c in WHAT_IF_LOAD_CORES]
    # Quadrant's CMS max pause is its own System.gc() (mechanism 7); Corollary 4's "only javac > 50 ms" also needs
    # Table 1's Max. Pause not to count it — the same load with mechanism 7 off.
    c = WHAT_IF_LOAD_CORES[-1]
    pts.append((f"load {c} cores, own System.gc() no pause",
                dict(base, _load_cores=c, _extra=["android.pauses.explicit_gc=false"])))
    return pts


def evaluate(gclab, pts):
    with ThreadPoolExecutor(max_workers=int(os.environ.get("GCLAB_SEARCH_JOBS", "1"))) as ex:
        results = list(ex.map(lambda np: run_point(gclab, np[1]), pts))
    rows = []
    for (name, p), res in zip(pts, results):
        ch = [checks(res, s) for s in SEEDS]
        obj, counts, pauses = objective(res)
        rows.append((name, p, ch, obj, counts, pauses, res))
        print(f"{name}: objective {obj:.3f}, counts {counts}/18, pauses {pauses}/6, holds "
              + " ".join(f"C{i}:{sum(c[f'c{i}'] for c in ch)}" for i in range(1, 5)), file=sys.stderr)
    return rows


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    gclab = sys.argv[1]
    samples = int(sys.argv[sys.argv.index("--samples") + 1]) if "--samples" in sys.argv else 12
    local = int(sys.argv[sys.argv.index("--local") + 1]) if "--local" in sys.argv else 0
    out = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else "docs/calibration-android.md"
    pts = points(samples)
    rows = evaluate(gclab, pts)
    local_rows = evaluate(gclab, local_points(pts, local)) if local else []
    what_if_rows = evaluate(gclab, what_if_points(pts)) if "--no-what-if" not in sys.argv else []
    write(out, rows, samples, local_rows, local, what_if_rows)


def fmt_point(p):
    return ", ".join(f"{k.split('.')[-1]}={v}" for k, v in p.items() if not k.startswith("_"))


def median(v):
    v = sorted(v)
    return v[len(v) // 2]


def joint123(ch):
    return sum(c["c1"] and c["c2"] and c["c3"] for c in ch)


def margins_row(name, ch):
    """One point's seeds-held counts (C1, C2, C3, C1∧C2∧C3 on the same seed, C4) and median margins over seeds."""
    m = lambda k: median([c[k] for c in ch])
    mm = [median([c["m4_mmu"][i] for c in ch]) for i in range(3)]
    return (f"| {name} | " + " | ".join(str(sum(c[f'c{i}'] for c in ch)) for i in (1, 2, 3)) + f" | {joint123(ch)}"
            + f" | {sum(c['c4'] for c in ch)} | {m('m1_t'):+.3f} / {m('m1_e'):+.3f}"
            + f" | {m('m2_tr'):+d} / {100 * m('m2_lus'):+.1f} / {100 * m('m2_xal'):+.1f}"
            + f" | {m('c3_energy') - 1:+.3f} / {m('c3_delayed') - 1:+.3f}"
            + f" | {mm[0]:+.3f} / {mm[1]:+.3f} / {mm[2]:+.3f} | {m('m4_p50'):+.1f} |")


MARGIN_HEAD = ["| point | C1 | C2 | C3 | C1∧C2∧C3 | C4 | C1 margins: T, E | C2 margins: transitions, lus pp, xal pp "
               "| C3 margins: energy, delayed | C4 margins: MinMU lus / xal / javac | 50 ms − max non-javac pause |",
               "|---|---|---|---|---|---|---|---|---|---|---|"]


def write(out, rows, samples, local_rows=(), local=0, what_if_rows=()):
    L = ["# android-krait: calibration search and reachability of the corollaries", "",
         "Generated by `scripts/calibrate-android.sh` (`python3 scripts/android_search.py target/release/gclab "
         f"--samples {samples} --local {local}`); do not edit by hand. Points: the defaults, each unknown alone at both ends of its "
         f"range, and {samples} Latin-hypercube points of the joint ranges (ranges and sources: "
         "docs/models-android.md, \"Calibration\"). Mutator compute is *not* re-inferred per point: its factor is "
         "one of the unknowns. Every point runs the phone's other processes (`android.system.enabled=true`, "
         "docs/models-android.md \"The phone's other processes\") except \"other processes off\" (the model before).", "",
         "## Unknowns and ranges", "", "| unknown | range | default | what |", "|---|---|---|---|"]
    for k, lo, hi, d, what in UNKNOWNS:
        L.append(f"| `{k}` | {lo} – {hi} | {d} | {what} |")
    L += ["", "## Calibration ranking (calibration set only: Table 1 counts, max pauses, GC CPU; Table 3 — seed 1)", "",
          "Objective: mean squared log ratio gclab/paper over 18 counts, 6 max pauses, 6 GC CPU shares and 16 Table 3 "
          "cells. Counts within tolerance (of 18) and max pauses within ×1.5 (of 6) are the issue's scores. The last "
          "column is the same objective at each of seeds 1–5 — its spread is the noise a gain must exceed. The top 10, "
          "then \"defaults\" (the estimates, other processes on) and \"other processes off\" (the model before) "
          "with their ranks.", "",
          "| rank | point | objective | counts | pauses | objective, seeds 1–5 (min – max; not used to rank) |",
          "|---|---|---|---|---|---|"]
    ranked = sorted(rows, key=lambda r: r[3])
    extra = [r for r in ranked[10:] if r[0] in ("defaults", "other processes off")]
    for r in ranked[:10] + extra:
        name, p, ch, obj, counts, pauses, res = r
        spread = [objective(res, sd)[0] for sd in SEEDS]
        L.append(f"| {ranked.index(r) + 1} | {name} | {obj:.3f} | {counts} | {pauses} "
                 f"| {min(spread):.3f} – {max(spread):.3f} |")
    best = ranked[0]
    L += ["", f"Best point ({best[0]}): {fmt_point(best[1])}.", "",
          "## Reachability of the validation findings (never used to choose parameters)", "",
          "Per point: on how many of seeds 1–5 each corollary holds (the issue wants ≥ 4), and its partial scores summed "
          "over the seeds — C1: slower-when-tight + energy-as-paper benchmarks (of 8 per seed); C2: transitions (capped "
          "at 3) + lusearch low + xalan not (of 5); C3: bg/CMS energy g.mean (min over seeds); C4: best-MinMU matches + "
          "'only javac > 50 ms' (of 4).", "",
          "| point | C1 | C2 | C3 | C4 | C1 parts | C2 parts | C3 energy (min) | C3 delayed (min) | C4 parts | seed-1 best MinMU (lus/xal/javac) | > 50 ms |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, p, ch, *_ in rows:
        L.append(f"| {name} | " + " | ".join(str(sum(c[f'c{i}'] for c in ch)) for i in range(1, 5))
                 + f" | {sum(c['c1_parts'] for c in ch)}/40 | {sum(c['c2_parts'] for c in ch)}/25"
                 + f" | {min(c['c3_energy'] for c in ch):.3f} | {min(c['c3_delayed'] for c in ch):.3f}"
                 + f" | {sum(c['c4_parts'] for c in ch)}/20 | {ch[0]['best']} | {ch[0]['over50']} |")
    L += ["", "### Best any point achieves, per corollary", ""]
    for i in range(1, 5):
        top = max(rows, key=lambda r: (sum(c[f"c{i}"] for c in r[2]), sum(c.get(f"c{i}_parts", 0) for c in r[2])))
        n = sum(c[f"c{i}"] for c in top[2])
        L.append(f"- Corollary {i}: holds on {n} of 5 seeds at best ({top[0]}: {fmt_point(top[1])}).")
    joint = max(rows, key=lambda r: (sum(sum(c[f"c{i}"] for c in r[2]) >= 4 for i in range(1, 5)),
                                     sum(sum(c[f"c{i}"] for c in r[2]) for i in range(1, 5))))
    nj = sum(sum(c[f"c{i}"] for c in joint[2]) >= 4 for i in range(1, 5))
    L.append(f"- Jointly: at most {nj} of 4 corollaries hold on ≥ 4 of 5 seeds at one point ({joint[0]}: "
             + ", ".join(f"C{i} on {sum(c[f'c{i}'] for c in joint[2])}" for i in range(1, 5)) + ").")
    bc = max(rows, key=lambda r: (r[4], -r[3]))
    bp = max(rows, key=lambda r: (r[5], -r[3]))
    L.append(f"- Table 1 scores: at most {bc[4]} of 18 counts within tolerance ({bc[0]}) and {bp[5]} of 6 max pauses "
             f"within ×1.5 ({bp[0]}) at seed 1.")
    if local_rows:
        L += ["", f"## Local search around {', '.join(LOCAL_CENTRES)} ({local} points each)", "",
              f"`--local {local}`: a Latin hypercube (RNG seed 1616) in a box of ±{int(LOCAL_WIDTH * 100)} % of each "
              "range around each centre, clipped to the ranges. Per point: seeds (of 5) on which C1, C2, C3, all three "
              "together on the same seed, and C4 hold; then each sub-condition's margin, the median over seeds 1–5 "
              "(> 0: holds; its size says how far it is from flipping). C1: worst T(0.9)/T(0.1) − 1 over the four "
              "Java benchmarks, worst energy-as-paper margin (lusearch 1 − E(0.9)/E(0.1), others E(0.9)/E(0.1) − 1); "
              "C2: the third-largest transition growth (runs 0.9 − 0.1), lusearch's and xalan's low+offline share "
              "differences (percentage points); C3: bg/CMS energy and delayed g.means − 1; C4: the wanted variant's "
              "mean MinMU minus the best other's (fg on lusearch, xalan; bg on javac) and 50 ms minus the largest "
              "non-javac CMS max pause.", ""] + MARGIN_HEAD
        for name, p, ch, *_ in [r for r in rows if r[0] in LOCAL_CENTRES] + list(local_rows):
            L.append(margins_row(name, ch))
        allr = list(rows) + list(local_rows)
        bj = max(allr, key=lambda r: (joint123(r[2]), sum(sum(c[f"c{i}"] for c in r[2]) for i in (1, 2, 3))))
        L += ["", f"- C1∧C2∧C3 on the same seed: at most {joint123(bj[2])} of 5 seeds at any point ({bj[0]}: "
              f"{fmt_point(bj[1])})."]
        for i in range(1, 5):
            top = max(allr, key=lambda r: sum(c[f"c{i}"] for c in r[2]))
            L.append(f"- Corollary {i}: at best on {sum(c[f'c{i}'] for c in top[2])} of 5 seeds ({top[0]}).")
        lr = sorted(allr, key=lambda r: r[3])[0]
        L.append(f"- Calibration objective over both searches: best {lr[3]:.3f} at {lr[0]} ({lr[4]} of 18 counts, "
                 f"{lr[5]} of 6 pauses at seed 1).")
    if what_if_rows:
        base = [r for r in rows if r[0] == "defaults"]
        L += ["", "## What-if outside the ranges: competing load on the cores (not a calibration)", "",
              "The model schedules one process; the paper's phone also ran Android's system services. Proxy: the "
              "preset's background threads together demanding L cores (`--set workload.android.background_work_us=W`, "
              "W = L × 50 ms / their number: lusearch and xalan 20 threads, Pandora 71, Quadrant 12, javac 4, jack 5; "
              "the default 100 µs every 50 ms is 0.04 cores on lusearch), everything else at the defaults. Not a sourced value and not the default: "
              "it shows which further effect the missing findings need. Columns as above; then Table 1 at seed 1 "
              "(counts of 18, max pauses within ×1.5 of 6), each benchmark's CMS max pause at seed 1 (ms; paper: "
              "quadrant 30.5, pandora 33.1, javac 99.0, jack 24.0, lusearch 35.0, xalan 37.2) and lusearch's CMS "
              "execution time over the defaults' (the cost of the load).", ""] + MARGIN_HEAD
        for name, p, ch, *_ in base + list(what_if_rows):
            L.append(margins_row(name, ch))
        L += ["", "| point | T1 counts | T1 pauses | CMS max pause ms (quad / pand / javac / jack / lus / xal) | "
              "lusearch time ÷ defaults |", "|---|---|---|---|---|"]
        t0 = base[0][6]["lusearch"][(1, "cms", 0.75)]["execution_time_s"] if base else 1.0
        for name, p, ch, obj, counts, pauses, res in base + list(what_if_rows):
            mp = " / ".join(f"{res[b][(1, 'cms', 0.75)]['max_pause_ms']:.1f}" for b in ALL)
            t = res["lusearch"][(1, "cms", 0.75)]["execution_time_s"] / t0
            L.append(f"| {name} | {counts} | {pauses} | {mp} | {t:.2f} |")
    L.append("")
    tmp = out + ".tmp"
    open(tmp, "w").write("\n".join(L))
    os.replace(tmp, out)


if __name__ == "__main__":
    main()
