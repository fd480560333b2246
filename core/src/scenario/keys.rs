//! The scenario fields code sets, declared once with their types (issue #18 item 4): the app's controls, its
//! sweeps and the reproductions build overrides as [`Set`] values, so a key is spelled in one place and a value
//! cannot be of the wrong type. Each becomes the same `(dotted key, TOML value)` pair a `--set KEY=VALUE` gives
//! ([`Scenario::with_overrides`](super::Scenario::with_overrides)); every other field stays reachable by its dotted
//! path from the command line and from sweep files, which are data.

use toml::Value;

use crate::collector::config::CollectorKind;
use crate::cpu::governor::GovernorKind;
use crate::cpu::hotplug::HotplugKind;
use crate::units::ByteSize;

/// One typed override.
#[derive(Debug, Clone, PartialEq)]
pub enum Set {
    /// `name`: the scenario's name (a saved copy takes the file's).
    Name(String),
    /// `seed`: the run's seed.
    Seed(u64),
    /// `collector.kind`.
    CollectorKind(CollectorKind),
    /// `collector.k`: k-allocation's frequency (collections every k allocations' worth).
    CollectorK(u64),
    /// `heap.size`. `[bytes]`
    HeapSize(ByteSize),
    /// `heap.bank_size`. `[bytes]`
    HeapBankSize(ByteSize),
    /// `heap.target_util`: Dalvik's heap sizing target (android-krait).
    HeapTargetUtil(f64),
    /// `android.cpu.governor`.
    Governor(GovernorKind),
    /// `android.cpu.hotplug`.
    Hotplug(HotplugKind),
    /// `android.cpu.cores`: cores present.
    Cores(u32),
    /// `workload.android.large_objects.share`: share of the allocated bytes in large objects.
    LargeObjectShare(f64),
    /// `record.layout`: keep the per-object layout (off for reports that need summaries only).
    RecordLayout(bool),
}

impl Set {
    /// Every key a [`Set`] writes, in declaration order (the test checks each is a field of the scenario file).
    pub const KEYS: [&'static str; 12] = [
        "name",
        "seed",
        "collector.kind",
        "collector.k",
        "heap.size",
        "heap.bank_size",
        "heap.target_util",
        "android.cpu.governor",
        "android.cpu.hotplug",
        "android.cpu.cores",
        "workload.android.large_objects.share",
        "record.layout",
    ];

    /// The dotted key.
    pub fn key(&self) -> &'static str {
        Self::KEYS[match self {
            Set::Name(_) => 0,
            Set::Seed(_) => 1,
            Set::CollectorKind(_) => 2,
            Set::CollectorK(_) => 3,
            Set::HeapSize(_) => 4,
            Set::HeapBankSize(_) => 5,
            Set::HeapTargetUtil(_) => 6,
            Set::Governor(_) => 7,
            Set::Hotplug(_) => 8,
            Set::Cores(_) => 9,
            Set::LargeObjectShare(_) => 10,
            Set::RecordLayout(_) => 11,
        }]
    }

    /// The TOML value, written as a scenario file would hold it: sizes exactly (`"64KiB"`, else bytes), integers
    /// beyond `i64` as digit strings (the readers accept both).
    pub fn value(&self) -> Value {
        match self {
            Set::Name(s) => Value::String(s.clone()),
            Set::Seed(n) | Set::CollectorK(n) => wide(*n),
            Set::CollectorKind(k) => Value::String(k.name().into()),
            Set::HeapSize(b) | Set::HeapBankSize(b) => {
                Value::try_from(b).unwrap_or_else(|_| Value::String(b.bytes().to_string()))
            }
            Set::HeapTargetUtil(x) | Set::LargeObjectShare(x) => Value::Float(*x),
            Set::Governor(g) => Value::String(g.name().into()),
            Set::Hotplug(h) => Value::String(h.name().into()),
            Set::Cores(n) => Value::Integer(i64::from(*n)),
            Set::RecordLayout(b) => Value::Boolean(*b),
        }
    }

    /// The `(key, value)` pair [`Scenario::with_overrides`](super::Scenario::with_overrides) takes.
    pub fn pair(&self) -> (String, Value) {
        (self.key().to_string(), self.value())
    }

    /// The `--set` argument text, `KEY=VALUE` with the value as a TOML literal (`collector.kind="adaptive"`).
    pub fn arg(&self) -> String {
        format!("{}={}", self.key(), self.value())
    }

    /// The pairs of `sets`.
    pub fn pairs(sets: &[Set]) -> Vec<(String, Value)> {
        sets.iter().map(Set::pair).collect()
    }
}

fn wide(n: u64) -> Value {
    i64::try_from(n).map_or_else(|_| Value::String(n.to_string()), Value::Integer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    fn every_kind() -> Vec<Set> {
        vec![
            Set::Name("x".into()),
            Set::Seed(u64::MAX),
            Set::CollectorKind(CollectorKind::Fg),
            Set::CollectorK(7),
            Set::HeapSize(ByteSize(3 << 20)),
            Set::HeapBankSize(ByteSize(64 << 10)),
            Set::HeapTargetUtil(0.5),
            Set::Governor(GovernorKind::Performance),
            Set::Hotplug(HotplugKind::None),
            Set::Cores(2),
            Set::LargeObjectShare(0.1),
            Set::RecordLayout(false),
        ]
    }

    #[test]
    fn every_key_is_declared_once_and_names_a_scenario_field() {
        let sets = every_kind();
        let keys: Vec<&str> = sets.iter().map(Set::key).collect();
        assert_eq!(keys, Set::KEYS, "one Set per key, in KEYS order");
        let android = Scenario::load("preset:android/lusearch", &[]).expect("preset");
        for s in &sets {
            let sc = android
                .with_overrides(&[s.pair()])
                .unwrap_or_else(|e| panic!("{} does not apply: {e}", s.arg()));
            let echoed = toml::to_string(sc.file()).expect("serialises");
            assert!(
                !echoed.is_empty(),
                "{} gives a scenario that serialises",
                s.arg()
            );
        }
    }

    #[test]
    fn typed_values_read_back_as_set() {
        let sc = Scenario::default_preset()
            .expect("default")
            .with_overrides(&Set::pairs(&[
                Set::Seed(u64::MAX),
                Set::HeapSize(ByteSize(6104 * 16384)),
                Set::CollectorKind(CollectorKind::KAllocation),
                Set::CollectorK(12),
            ]))
            .expect("applies");
        let f = sc.file();
        assert_eq!(f.seed, u64::MAX);
        assert_eq!(f.heap.size, ByteSize(6104 * 16384));
        assert_eq!(f.collector.kind, CollectorKind::KAllocation);
        assert_eq!(f.collector.k, 12);
    }

    #[test]
    fn arg_is_the_set_text_of_the_same_pair() {
        for s in every_kind() {
            let via_text = Scenario::default_preset()
                .and_then(|b| b.with_set(&s.arg()))
                .map(|sc| toml::to_string(sc.file()).expect("serialises"));
            let via_pair = Scenario::default_preset()
                .and_then(|b| b.with_overrides(&[s.pair()]))
                .map(|sc| toml::to_string(sc.file()).expect("serialises"));
            match (via_text, via_pair) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{}", s.arg()),
                (Err(_), Err(_)) => {} // android-only keys on the kvm default fail both ways
                (a, b) => panic!("{}: text {:?} vs pair {:?}", s.arg(), a.is_ok(), b.is_ok()),
            }
        }
    }
}
