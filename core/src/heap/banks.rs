//! `Banks`: the heap's SRAM banks and their power states (JVM'02 §3.3), with leakage integrated over time.
//!
//! States: **Active** (powered; full leakage — the paper's R/W state is an Active bank being accessed, whose
//! dynamic energy is charged per access, not as an interval), **Gated** (supply-gated, contents lost, leaks
//! `gated_leakage_fraction` of an active bank: 5 %), **Waking** (resynchronising for `resync_cycles`, 350, leaking
//! the average of active and gated). A bank may be gated only when it holds no live object. Times are in cycles.

use serde::{Deserialize, Serialize};

/// A bank's power state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BankState {
    /// Powered on: full leakage.
    Active,
    /// Supply-gated: 5 % leakage, contents lost.
    Gated,
    /// Resynchronising after a gated bank was accessed.
    Waking,
}

/// A bank held one state over `[start_cycles, end_cycles)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BankSpan {
    /// Bank index, from address 0.
    pub bank: u32,
    /// The state.
    pub state: BankState,
    /// Start. `[cycles]`
    pub start_cycles: u64,
    /// End. `[cycles]`
    pub end_cycles: u64,
}

/// All banks of one heap.
#[derive(Debug, Clone)]
pub struct Banks {
    bank_size: u64,
    /// `log2(bank_size)` when it is a power of two (every preset): `bank_of` shifts instead of dividing — it runs
    /// several times per allocation.
    bank_shift: Option<u32>,
    state: Vec<BankState>,
    since: Vec<u64>,
    leak_active_j_per_cycle: f64,
    gated_fraction: f64,
    resync_cycles: u64,
    leak_j: Vec<f64>,
    spans: Vec<BankSpan>,
    wakeups: u64,
    /// Banks currently gated (a fast path: nothing to wake when none is).
    gated: usize,
}

impl Banks {
    /// `count` banks of `bank_size` bytes, all in `initial` state at cycle 0.
    pub fn new(
        count: usize,
        bank_size: u64,
        initial: BankState,
        leak_active_j_per_cycle: f64,
        gated_fraction: f64,
        resync_cycles: u64,
    ) -> Self {
        Banks {
            bank_size,
            bank_shift: bank_size
                .is_power_of_two()
                .then(|| bank_size.trailing_zeros()),
            state: vec![initial; count],
            since: vec![0; count],
            leak_active_j_per_cycle,
            gated_fraction,
            resync_cycles,
            leak_j: vec![0.0; count],
            spans: Vec::new(),
            wakeups: 0,
            gated: if initial == BankState::Gated {
                count
            } else {
                0
            },
        }
    }

    fn rate(&self, s: BankState) -> f64 {
        match s {
            BankState::Active => self.leak_active_j_per_cycle,
            BankState::Gated => self.leak_active_j_per_cycle * self.gated_fraction,
            BankState::Waking => self.leak_active_j_per_cycle * (1.0 + self.gated_fraction) / 2.0,
        }
    }

    fn set(&mut self, b: usize, s: BankState, now: u64) {
        let old = self.state[b];
        if old == s {
            return;
        }
        self.close_interval(b, now);
        self.state[b] = s;
    }

    /// Ends bank `b`'s current interval at `now`: its leakage is charged and its span recorded; the next one
    /// starts at `now`.
    fn close_interval(&mut self, b: usize, now: u64) {
        let state = self.state[b];
        let start = self.since[b];
        self.leak_j[b] += (now - start) as f64 * self.rate(state);
        if now > start {
            self.spans.push(BankSpan {
                bank: b as u32,
                state,
                start_cycles: start,
                end_cycles: now,
            });
        }
        self.since[b] = now;
    }

    /// Number of banks.
    pub fn count(&self) -> usize {
        self.state.len()
    }

    /// The bank holding byte `addr`.
    pub fn bank_of(&self, addr: u64) -> usize {
        let b = match self.bank_shift {
            Some(shift) => addr >> shift,
            None => addr / self.bank_size,
        };
        (b as usize).min(self.state.len().saturating_sub(1))
    }

    /// The banks overlapping `[addr, addr+len)`, `len` ≥ 1.
    pub fn spanned(&self, addr: u64, len: u64) -> std::ops::RangeInclusive<usize> {
        self.bank_of(addr)..=self.bank_of(addr + len - 1)
    }

    /// The current state of bank `b`.
    pub fn state(&self, b: usize) -> BankState {
        self.state[b]
    }

    /// Banks currently not gated.
    pub fn powered(&self) -> usize {
        self.state
            .iter()
            .filter(|s| **s != BankState::Gated)
            .count()
    }

    /// Banks currently gated.
    pub fn gated_count(&self) -> usize {
        self.gated
    }

    /// True when any bank overlapping `[addr, addr+len)` is gated (an access there would wake it).
    pub fn any_gated_in(&self, addr: u64, len: u64) -> bool {
        if len == 0 {
            return false;
        }
        self.spanned(addr, len)
            .any(|b| self.state[b] == BankState::Gated)
    }

    /// Number of gated banks overlapping `[addr, addr+len)`.
    pub fn gated_in(&self, addr: u64, len: u64) -> usize {
        if len == 0 {
            return 0;
        }
        self.spanned(addr, len)
            .filter(|b| self.state[*b] == BankState::Gated)
            .count()
    }

    /// Wakes every gated bank overlapping `[addr, addr+len)` at cycle `now`, one after another; returns the stall.
    /// `[cycles]`
    pub fn wake_range(&mut self, addr: u64, len: u64, now: u64) -> u64 {
        if len == 0 || self.gated == 0 {
            return 0;
        }
        let mut t = now;
        for b in self.spanned(addr, len) {
            if self.state[b] == BankState::Gated {
                self.gated -= 1;
                self.set(b, BankState::Waking, t);
                t += self.resync_cycles;
                self.set(b, BankState::Active, t);
                self.wakeups += 1;
            }
        }
        t - now
    }

    /// Gates every powered bank whose `occupied[b]` is false, at cycle `now`.
    pub fn gate_unoccupied(&mut self, occupied: &[bool], now: u64) {
        for (b, occ) in occupied.iter().enumerate().take(self.state.len()) {
            if !occ && self.state[b] == BankState::Active {
                self.gated += 1;
                self.set(b, BankState::Gated, now);
            }
        }
    }

    /// Closes every open interval at `now`; returns (spans, leakage per bank `[J]`, wake-ups).
    pub fn finish(mut self, now: u64) -> (Vec<BankSpan>, Vec<f64>, u64) {
        for b in 0..self.state.len() {
            self.close_interval(b, now);
        }
        self.spans.sort_by_key(|s| (s.bank, s.start_cycles));
        (self.spans, self.leak_j, self.wakeups)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leakage_follows_states() {
        let mut b = Banks::new(2, 16, BankState::Gated, 1.0, 0.05, 350);
        let stall = b.wake_range(0, 20, 100); // both banks
        assert_eq!(stall, 700);
        b.gate_unoccupied(&[true, false], 1000);
        let (spans, leak, wakes) = b.finish(2000);
        assert_eq!(wakes, 2);
        // bank 0: gated 0..100 (5), waking 100..450 (0.525·350), active 450..2000 (1550)
        assert!(
            (leak[0] - (100.0 * 0.05 + 350.0 * 0.525 + 1550.0)).abs() < 1e-9,
            "{}",
            leak[0]
        );
        assert!(
            spans.iter().all(|s| s.end_cycles > s.start_cycles),
            "no empty spans"
        );
    }
}
