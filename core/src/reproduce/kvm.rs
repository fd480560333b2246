//! Reproduction of the adaptive-GC paper on the kvm-soc platform: runs every application under base, the six
//! k-allocation collectors and adaptive, and compares with Tables 2–3 and Fig. 4; the same at other bank and
//! heap sizes (§4.5–4.6). Pure and single-threaded; [`super::kvm_report`] turns the results into
//! `docs/reproduction.md`, and the tests assert on the same numbers.

use super::paper_kvm::{APPS, KS};
use crate::error::{ScenarioError, SimError};
use crate::progress::{Cancel, NoProgress};
use crate::run::Summary;
use crate::scenario::{CollectorKind, Scenario, Set};
use crate::{WorkloadTapes, simulate_with};

/// Results of one application under the eight collectors.
#[derive(Debug, Clone, PartialEq)]
pub struct AppResult {
    /// Preset name.
    pub app: String,
    /// Summaries for k = 10 … 500 (in [`KS`] order), then base, then adaptive.
    pub runs: Vec<Summary>,
}

impl AppResult {
    /// Summary of the base run.
    pub fn base(&self) -> &Summary {
        &self.runs[6]
    }

    /// Summary of the adaptive run.
    pub fn adaptive(&self) -> &Summary {
        &self.runs[7]
    }

    /// Heap energy of run `i` over base's.
    pub fn heap_energy_norm(&self, i: usize) -> f64 {
        self.runs[i].energy_j.heap / self.base().energy_j.heap
    }

    /// Execution-cycle increase of run `i` over base. `[%]`
    pub fn slowdown_pct(&self, i: usize) -> f64 {
        let b = self.base().execution_cycles.unwrap_or(1) as f64;
        (self.runs[i].execution_cycles.unwrap_or(0) as f64 / b - 1.0) * 100.0
    }

    /// Lowest heap energy of the six k-allocation runs, over base's, and its k.
    pub fn best_k(&self) -> (u64, f64) {
        (0..6)
            .map(|i| (KS[i], self.heap_energy_norm(i)))
            .fold((0, f64::INFINITY), |a, b| if b.1 < a.1 { b } else { a })
    }

    /// Total energy (CPU datapath + every memory) of run `i` over base's.
    pub fn total_energy_norm(&self, i: usize) -> f64 {
        self.runs[i].energy_j.total / self.base().energy_j.total
    }

    /// Lowest total energy of the six k-allocation runs, over base's, and its k.
    pub fn best_k_total(&self) -> (u64, f64) {
        (0..6)
            .map(|i| (KS[i], self.total_energy_norm(i)))
            .fold((0, f64::INFINITY), |a, b| if b.1 < a.1 { b } else { a })
    }

    /// True when any run ended out of memory.
    pub fn any_oom(&self) -> bool {
        self.runs.iter().any(|r| r.out_of_memory)
    }
}

/// Either error a reproduction run can meet.
#[derive(Debug, thiserror::Error)]
pub enum ReproError {
    /// A preset or override was bad.
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    /// A run did not finish.
    #[error(transparent)]
    Sim(#[from] SimError),
}

/// The eight collector settings, in [`AppResult::runs`] order.
pub fn collector_sets() -> Vec<Vec<String>> {
    let mut v: Vec<Vec<String>> = KS
        .iter()
        .map(|k| {
            vec![
                Set::CollectorKind(CollectorKind::KAllocation).arg(),
                Set::CollectorK(*k).arg(),
            ]
        })
        .collect();
    v.push(vec![Set::CollectorKind(CollectorKind::Base).arg()]);
    v.push(vec![Set::CollectorKind(CollectorKind::Adaptive).arg()]);
    v
}

/// Runs one application under the eight collectors with extra `overrides` (e.g. `heap.bank_size=8KiB`).
pub fn run_app(app: &str, overrides: &[String]) -> Result<AppResult, ReproError> {
    let mut runs = Vec::with_capacity(8);
    // The eight collectors run the same workload: drawn once.
    let tapes = WorkloadTapes::new();
    for set in collector_sets() {
        let mut all: Vec<String> = vec![Set::RecordLayout(false).arg()];
        all.extend(overrides.iter().cloned());
        all.extend(set);
        let sc = Scenario::load(&format!("preset:{app}"), &all)?;
        runs.push(simulate_with(&sc, Some(&tapes), &Cancel::never(), &mut NoProgress)?.summary);
    }
    Ok(AppResult {
        app: app.to_string(),
        runs,
    })
}

/// Runs all nine applications.
pub fn run_all(overrides: &[String]) -> Result<Vec<AppResult>, ReproError> {
    APPS.iter().map(|a| run_app(a, overrides)).collect()
}

/// Index of `app` in the paper's tables.
pub fn paper_row(app: &str) -> Option<usize> {
    APPS.iter().position(|a| *a == app)
}

/// Average heap-energy saving of adaptive over base, `[%]`.
pub fn adaptive_saving_pct(results: &[AppResult]) -> f64 {
    let n = results.len().max(1) as f64;
    results
        .iter()
        .map(|r| (1.0 - r.heap_energy_norm(7)) * 100.0)
        .sum::<f64>()
        / n
}

/// Average execution-cycle increase of run `i` over base, `[%]`.
pub fn mean_slowdown_pct(results: &[AppResult], i: usize) -> f64 {
    let n = results.len().max(1) as f64;
    results.iter().map(|r| r.slowdown_pct(i)).sum::<f64>() / n
}
