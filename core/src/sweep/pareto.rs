//! The Pareto frontier of a sweep: the points no other point beats on every objective. Objectives, all
//! **minimised**: total energy (`energy_j.total`) [J], longest pause (`max_pause_ms`) [ms] and execution time
//! (`execution_time_s`) [s]. Point *a* dominates *b* when it is no worse on all three and better on one; equal
//! points do not dominate each other (both stay). Runs that ended out of memory, or with a non-finite objective,
//! are left out: an aborted run is short and cheap without being a policy anyone would pick.
//!
//! Built incrementally (`offer` one point at a time), so a merge streams: memory holds the frontier only.

use serde::Deserialize;
use serde_json::value::RawValue;

/// One point of the frontier.
#[derive(Debug, Clone, PartialEq)]
pub struct ParetoPoint {
    /// The point's index in the plan.
    pub index: u64,
    /// Its settings, compact JSON (`{"collector.k":10}`).
    pub set: String,
    /// Total energy. `[J]`
    pub energy_j: f64,
    /// Longest mutator pause. `[ms]`
    pub max_pause_ms: f64,
    /// Execution time. `[s]`
    pub execution_time_s: f64,
}

impl ParetoPoint {
    fn objectives(&self) -> [f64; 3] {
        [self.energy_j, self.max_pause_ms, self.execution_time_s]
    }

    /// True when `self` is no worse than `other` on every objective and better on at least one.
    pub fn dominates(&self, other: &ParetoPoint) -> bool {
        let (a, b) = (self.objectives(), other.objectives());
        a.iter().zip(&b).all(|(x, y)| x <= y) && a.iter().zip(&b).any(|(x, y)| x < y)
    }
}

/// The non-dominated points seen so far, and how many points were left out.
#[derive(Debug, Clone, Default)]
pub struct ParetoFront {
    points: Vec<ParetoPoint>,
    offered: u64,
    excluded: u64,
}

#[derive(Deserialize)]
struct EnergyRaw<'a> {
    #[serde(borrow)]
    total: &'a RawValue,
}

#[derive(Deserialize)]
struct ObjectivesRaw<'a> {
    #[serde(borrow)]
    energy_j: EnergyRaw<'a>,
    #[serde(borrow)]
    max_pause_ms: &'a RawValue,
    #[serde(borrow)]
    execution_time_s: &'a RawValue,
    #[serde(default)]
    out_of_memory: bool,
}

impl ParetoFront {
    /// An empty frontier.
    pub fn new() -> ParetoFront {
        ParetoFront::default()
    }

    /// Offers point `index` with its `set` (compact JSON) and its summary's JSON text; a summary without the
    /// objectives is an error message naming the missing field.
    pub fn offer_summary(&mut self, index: u64, set: &str, summary: &str) -> Result<(), String> {
        let o: ObjectivesRaw<'_> = serde_json::from_str(summary).map_err(|e| e.to_string())?;
        // Numbers are parsed from their exact text (std's parser is correctly rounded).
        let num = |r: &RawValue| r.get().trim().parse::<f64>().unwrap_or(f64::NAN);
        let p = ParetoPoint {
            index,
            set: set.to_string(),
            energy_j: num(o.energy_j.total),
            max_pause_ms: num(o.max_pause_ms),
            execution_time_s: num(o.execution_time_s),
        };
        if o.out_of_memory || !p.objectives().iter().all(|x| x.is_finite()) {
            self.offered += 1;
            self.excluded += 1;
            return Ok(());
        }
        self.offer(p);
        Ok(())
    }

    /// Offers one point: kept if nothing seen dominates it; the points it dominates leave.
    pub fn offer(&mut self, p: ParetoPoint) {
        self.offered += 1;
        if self.points.iter().any(|q| q.dominates(&p)) {
            return;
        }
        self.points.retain(|q| !p.dominates(q));
        self.points.push(p);
    }

    /// The frontier, by energy then index (deterministic).
    pub fn points(&self) -> Vec<ParetoPoint> {
        let mut v = self.points.clone();
        v.sort_by(|a, b| {
            a.energy_j
                .total_cmp(&b.energy_j)
                .then(a.index.cmp(&b.index))
        });
        v
    }

    /// Points offered.
    pub fn offered(&self) -> u64 {
        self.offered
    }

    /// Points left out (out of memory or a non-finite objective).
    pub fn excluded(&self) -> u64 {
        self.excluded
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(index: u64, e: f64, pause: f64, t: f64) -> ParetoPoint {
        ParetoPoint {
            index,
            set: String::new(),
            energy_j: e,
            max_pause_ms: pause,
            execution_time_s: t,
        }
    }

    #[test]
    fn the_front_keeps_exactly_the_non_dominated_points() {
        let pts = [
            p(0, 1.0, 5.0, 1.0),
            p(1, 2.0, 1.0, 1.0),
            p(2, 2.0, 5.0, 1.0), // dominated by 0 and 1
            p(3, 0.5, 9.0, 3.0),
            p(4, 1.0, 5.0, 1.0), // equal to 0: both stay
            p(5, 3.0, 3.0, 0.5),
            p(6, 3.0, 3.0, 0.6), // dominated by 5
        ];
        let mut f = ParetoFront::new();
        for q in &pts {
            f.offer(q.clone());
        }
        let idx: Vec<u64> = f.points().iter().map(|q| q.index).collect();
        assert_eq!(idx, [3, 0, 4, 1, 5], "sorted by energy, then index");
        // Brute force agrees, whatever the offering order.
        let mut g = ParetoFront::new();
        for q in pts.iter().rev() {
            g.offer(q.clone());
        }
        let brute: Vec<u64> = {
            let mut v: Vec<&ParetoPoint> = pts
                .iter()
                .filter(|a| !pts.iter().any(|b| b.dominates(a)))
                .collect();
            v.sort_by(|a, b| {
                a.energy_j
                    .total_cmp(&b.energy_j)
                    .then(a.index.cmp(&b.index))
            });
            v.iter().map(|q| q.index).collect()
        };
        assert_eq!(
            g.points().iter().map(|q| q.index).collect::<Vec<_>>(),
            brute,
            "order-free"
        );
    }

    #[test]
    fn out_of_memory_runs_are_left_out() {
        let mut f = ParetoFront::new();
        let s = r#"{"energy_j":{"total":0.1},"max_pause_ms":0.0,"execution_time_s":0.1,"out_of_memory":true}"#;
        f.offer_summary(0, "{}", s).unwrap();
        let s = r#"{"energy_j":{"total":1.0},"max_pause_ms":2.0,"execution_time_s":3.0,"out_of_memory":false}"#;
        f.offer_summary(1, "{}", s).unwrap();
        assert_eq!(f.points().len(), 1, "only the complete run");
        assert_eq!(f.excluded(), 1, "one left out");
        assert!(
            f.offer_summary(2, "{}", "{}").is_err(),
            "missing objectives"
        );
    }
}
