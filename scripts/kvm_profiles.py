#!/usr/bin/env python3
"""Writes the nine kvm workload profiles (assets/workloads/kvm/*.toml) from the calibration table below, then
calibrates two numbers per application against the paper by running the real simulator through the CLI:

* the time-driven allocations: Table 2 gives allocations ~ k x activations and Table 3 the slowdown of each run;
  a least-squares fit of allocations = alpha + beta * (1 + slowdown) over k = 10, 40, 75, 100 splits them into the
  program's own work (alpha, the phases' allocation counts) and timer allocations over the base run (beta),
  which sets the timer period: beta ticks' worth of allocations over the base run's wall time;
* the mutator compute per allocation m: the k = 10 column of Table 3 (the collector's cost relative to the
  program's) — m is scaled until the simulated k = 10 slowdown over base matches it.

Everything else in the table (object sizes, lifetimes, permanent space, phases) is structure chosen from the
paper's text; docs/calibration.md explains each. Run: python3 scripts/kvm_profiles.py [path/to/gclab]
"""
import json, subprocess, sys

GCLAB = sys.argv[1] if len(sys.argv) > 1 else "target/release/gclab"

# Table 3, k = 10 column: slowdown over base (fraction).
S10 = {'calculator': .9258, 'crypto': .8057, 'dragon': .1453, 'mathfp': .4782, 'manyballs': .2571,
       'kshape': .4083, 'kvideo': .3820, 'kwml': .9260, 'scheduler': .7098}
# From the alpha/beta fit (scripts' docstring): timer allocations over the base run.
BETA = {'calculator': 116, 'crypto': 117, 'dragon': 0, 'mathfp': 162, 'manyballs': 965, 'kshape': 0,
        'kvideo': 243, 'kwml': 8807, 'scheduler': 291}

EXP = lambda w, m: (w, 'exp', m)
IMM = lambda w: (w, 'immortal', None)
PHA = lambda w: (w, 'phase', None)
UNI = lambda w, lo, hi: (w, 'uniform', (lo, hi))
# name: description, permanent KiB, phases [(name, allocs, sizes[(w,min,max)], lifetimes)], timer sizes/lifetimes
APPS = {
 'calculator': ("Arithmetic calculator", 10,
   [("session", 823, [(0.85, 16, 72), (0.15, 72, 200)], [EXP(0.90, 30), IMM(0.10)])]),
 'crypto': ("Cryptography", 10,
   [("encrypt", 5747, [(0.8, 16, 64), (0.2, 64, 256)], [EXP(0.95, 25), IMM(0.05)])]),
 'dragon': ("Game program that comes with Sun's KVM", 12,
   [("play", 620, [(0.8, 16, 128), (0.17, 128, 600), (0.03, 4096, 9000)], [EXP(0.9, 20), IMM(0.1)])]),
 'kshape': ("Electronic map on KVM", 12,
   [("browse", 8000, [(1.0, 16, 64)], [EXP(0.97, 30), IMM(0.03)]),
    # Map tiles: born while loading, alive through rendering, torn down gradually afterwards.
    ("load map", 2400, [(1.0, 24, 72)], [UNI(0.855, 3500, 7500), EXP(0.145, 20)]),
    ("render", 3000, [(1.0, 16, 64)], [EXP(1.0, 15)]),
    ("browse again", 9400, [(1.0, 16, 64)], [EXP(0.98, 30), IMM(0.02)])]),
 'kvideo': ("KPG decoder", 10,
   [("decode", 687, [(0.8, 16, 96), (0.2, 96, 400)], [EXP(0.9, 30), IMM(0.1)])]),
 'kwml': ("WML browser", 12,
   [("browse", 32146, [(0.85, 16, 64), (0.15, 64, 160)], [EXP(0.975, 40), EXP(0.02, 2000), IMM(0.005)])]),
 'manyballs': ("Game program that comes with Sun's KVM", 8,
   [("animate", 918, [(0.9, 16, 64), (0.1, 64, 200)], [EXP(0.93, 30), IMM(0.07)])]),
 'mathfp': ("Integer math library", 8,
   [("compute", 8020, [(0.95, 16, 48), (0.05, 48, 128)], [EXP(0.98, 20), IMM(0.02)])]),
 'scheduler': ("Weekly/daily scheduler", 10,
   [("schedule", 9240, [(0.9, 16, 44), (0.1, 44, 120)], [EXP(0.97, 30), IMM(0.03)])]),
}
ALPHA = {n: sum(p[1] for p in a[2]) for n, a in APPS.items()}
TIMER_SIZES = [(1.0, 16, 48)]
TIMER_LIFE = [EXP(1.0, 10)]


def classes(prefix, sizes, lifes):
    out = ""
    for w, lo, hi in sizes:
        out += f"\n[[{prefix}sizes]]\nweight = {w}\nmin = {lo}\nmax = {hi}\n"
    for w, k, m in lifes:
        out += f"\n[[{prefix}lifetimes]]\nweight = {w}\nkind = \"{k}\"\n"
        if isinstance(m, tuple):
            out += f"min_allocations = {m[0]}\nmax_allocations = {m[1]}\n"
        elif m:
            out += f"mean_allocations = {m}\n"
    return out


# Allocations per timer tick: a frame of ManyBalls' animation allocates for several balls at once.
PER_TICK = {'manyballs': 4}


def write(name, m, period):
    desc, perm, phases = APPS[name]
    t = (f"# Workload profile: {name} — {desc} (Chen et al., JVM'02, Table 1).\n"
         f"# Written by scripts/kvm_profiles.py; docs/calibration.md derives every number.\n"
         f"name = \"kvm/{name}\"\ndescription = \"{desc}\"\n"
         f"source = \"JVM'02 Tables 1-3; calibration in docs/calibration.md\"\n"
         f"permanent_bytes = \"{perm}KiB\"\nmutator_cycles_per_allocation = {m:.1f}\n")
    if period:
        t += f"\n[timer]\nperiod_cycles = {period}\nallocations_per_tick = {PER_TICK.get(name, 1)}\n" + classes("timer.", TIMER_SIZES, TIMER_LIFE)
    for pname, n, sizes, lifes in phases:
        t += f"\n[[phases]]\nname = \"{pname}\"\nallocations = {n}\n" + classes("phases.", sizes, lifes)
    open(f"assets/workloads/kvm/{name}.toml", "w").write(t)


def run(name, *sets):
    args = [GCLAB, "run", f"preset:kvm/{name}", "--json", "-", "--set", "record.layout=false"]
    for s in sets:
        args += ["--set", s]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return json.loads(out)["summary"]


def calibrate(name):
    # The presets are compiled into the binary: candidate values go in through --set, exactly as a user's would.
    m, period = 1500.0, 1_000_000
    def sets():
        out = [f"workload.mutator_cycles_per_allocation={m}"]
        return out + ([f"workload.timer.period_cycles={period}"] if BETA[name] else [])
    for _ in range(12):
        base = run(name, *sets())
        k10 = run(name, "collector.kind=k-allocation", "collector.k=10", *sets())
        t0 = base["execution_cycles"]
        s10 = k10["execution_cycles"] / t0 - 1
        m *= s10 / S10[name]
        if BETA[name]:
            # beta timer allocations over the base run's wall time, which is about (alpha + beta) x m cycles.
            period = max(1, round((ALPHA[name] + BETA[name]) / BETA[name] * m * PER_TICK.get(name, 1)))
    base = run(name, *sets())
    k10 = run(name, "collector.kind=k-allocation", "collector.k=10", *sets())
    write(name, m, period if BETA[name] else 0)
    print(f"{name:11s} m={m:8.1f} period={period:9d} base: allocs={base['allocations']:6d} "
          f"gcs={base['collections']:3d} | k10: s={k10['execution_cycles'] / base['execution_cycles'] - 1:.4f} "
          f"(paper {S10[name]}) acts={k10['collections']}")


if __name__ == "__main__":
    names = sys.argv[2:] or list(APPS)
    for n in names:  # structure first (timer present where beta > 0), so --set can reach every field
        write(n, 1500.0, 1_000_000 if BETA[n] else 0)
    if subprocess.run(["cargo", "build", "--release", "-q", "-p", "gclab"]).returncode != 0:
        sys.exit("build failed")
    for n in names:
        calibrate(n)
    print("profiles written; rebuild to embed them (cargo build --release)")
