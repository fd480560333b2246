//! Tick spacing chosen from a plot's size in points (#19 item 5). egui_plot's default spacer steps in powers of
//! ten only and hides a label closer than 20 points (y) or 60 points (x) to the next: a 70-point plot of 0–4 ms
//! gets ticks every 1 ms (17 points apart, all hidden) and labels only "0". Here the labelled step is the smallest
//! 1-2-5 step whose labels stand at least `gap` points apart (closer, down to egui_plot's limits of 21 points on y
//! and 61 on x, where the plot is too short for three labels), so a short or narrow plot still reads 0, 2, 4.

use egui_plot::{GridInput, GridMark};

/// egui_plot's `grid_spacing.min` (Plot's default, which the plots here keep): `base_step_size` is this many
/// points of the axis in plot units. `[points]`
const GRID_MIN_POINTS: f64 = 8.0;

/// Space between y tick labels: above egui_plot's 30-point fade, so every label is drawn in full. `[points]`
pub const Y_GAP: f32 = 32.0;

/// The closest y labels may stand: just past egui_plot's 20-point limit, below which it hides them. `[points]`
pub const Y_MIN_GAP: f32 = 21.0;

/// Space between x tick labels ("1.065" and its neighbours at 200 % zoom), above egui_plot's 80-point fade.
/// `[points]`
pub const X_GAP: f32 = 84.0;

/// The closest x labels may stand: just past egui_plot's 60-point limit for x. `[points]`
pub const X_MIN_GAP: f32 = 61.0;

/// The y-axis spacer of a plot: [`spaced`] at [`Y_GAP`], down to [`Y_MIN_GAP`].
pub fn y() -> impl Fn(GridInput) -> Vec<GridMark> {
    spaced(Y_GAP, Y_MIN_GAP)
}

/// The x-axis spacer of a plot: [`spaced`] at [`X_GAP`], down to [`X_MIN_GAP`].
pub fn x() -> impl Fn(GridInput) -> Vec<GridMark> {
    spaced(X_GAP, X_MIN_GAP)
}

/// The y axis of a time plot: [`label`]s drawn in full from [`Y_MIN_GAP`] apart. egui_plot fades a label in over
/// 20–30 points of spacing, so a label [`y`] placed 21 points from its neighbour on a short plot was drawn at a
/// third of its strength — on a projector, not there (#19 item 5).
pub fn y_axis(min_thickness: f32) -> egui_plot::AxisHints<'static> {
    egui_plot::AxisHints::new_y()
        .formatter(label)
        .min_thickness(min_thickness)
        .label_spacing(Y_MIN_GAP - 1.0..=Y_MIN_GAP)
}

/// The x axis of a time plot: [`label`]s drawn in full from [`X_MIN_GAP`] apart (as [`y_axis`]).
pub fn x_axis() -> egui_plot::AxisHints<'static> {
    egui_plot::AxisHints::new_x()
        .formatter(label)
        .label_spacing(X_MIN_GAP - 1.0..=X_MIN_GAP)
}

/// The smallest step of 1, 2 or 5 times a power of ten that is at least `min`.
pub fn nice_step(min: f64) -> f64 {
    if !(min.is_finite() && min > 0.0) {
        return 1.0;
    }
    let p = 10f64.powf(min.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|s| *s >= min * (1.0 - 1e-9))
        .unwrap_or(10.0 * p)
}

/// A grid spacer labelling every `gap` points or more at a 1-2-5 step (closer, down to `min_gap`, where the plot is
/// too short for three labels), with minor lines between (egui_plot labels those too where they stand far enough
/// apart).
pub fn spaced(gap: f32, min_gap: f32) -> impl Fn(GridInput) -> Vec<GridMark> {
    move |input: GridInput| {
        let (lo, hi) = input.bounds;
        if input.base_step_size <= 0.0 || hi.is_nan() || lo.is_nan() || hi <= lo {
            return Vec::new();
        }
        let units_per_point = input.base_step_size / GRID_MIN_POINTS;
        // A plot too short for three labels `gap` apart gets them closer, down to egui_plot's 20-point limit
        // (a 47-point pause plot at 150 % read only "0").
        let extent_points = (hi - lo) / units_per_point;
        let gap = f64::from(gap).min((extent_points / 3.0).max(f64::from(min_gap)));
        let mut major = nice_step(units_per_point * gap);
        // A 1-2-5 step jumps from 2 to 5: where the 5 leaves a single label ("0" under a 43 s run on a 110-point
        // axis) and a 2.5 step still keeps labels `min_gap` apart, take it ("0", "25").
        let labels = |step: f64| (hi / step).floor() - (lo / step).ceil() + 1.0;
        let quarter = major / 2.0;
        if labels(major) < 2.0
            && (major / 10f64.powf(major.log10().floor()) - 5.0).abs() < 1e-6
            && quarter >= units_per_point * f64::from(min_gap) * (1.0 - 1e-9)
            && labels(quarter) >= 2.0
        {
            major = quarter;
        }
        // Minor lines: a fifth of a 1, 2.5 or 5 step, a half of a 2 step.
        let lead = major / 10f64.powf(major.log10().floor());
        let minor = if (lead - 2.0).abs() < 1e-6 {
            major / 2.0
        } else {
            major / 5.0
        };
        let first = (lo / minor).ceil() as i64;
        let last = (hi / minor).floor() as i64;
        if last - first > 2000 {
            return Vec::new();
        }
        // egui_plot labels a mark whose step spans more than the axis's `label_spacing` start and fades it in up to
        // its end ([`x_axis`], [`y_axis`]: `min_gap − 1` to `min_gap` points). A minor step inside that band would
        // be labelled at a fraction of its strength ("100" and "300" between 0, 200, 400 at 60.2 points apart:
        // alpha 49 of 255), so it is reported at the band's start: a line, no label.
        let band_start = units_per_point * (f64::from(min_gap) - 1.0);
        let minor_step = if minor > band_start && minor < units_per_point * f64::from(min_gap) {
            band_start
        } else {
            minor
        };
        (first..=last)
            .map(|i| {
                let value = i as f64 * minor;
                let on_major = ((value / major) - (value / major).round()).abs() < 1e-6;
                GridMark {
                    value,
                    step_size: if on_major { major } else { minor_step },
                }
            })
            .collect()
    }
}

/// A tick label with as many decimals as its step needs (0.5 → "0.5"; egui_plot's default rounds the step's
/// log10, so a 0.5 step printed "0" and "1" alternately). Use it with [`spaced`].
pub fn label(mark: GridMark, _range: &std::ops::RangeInclusive<f64>) -> String {
    let mut decimals = (-mark.step_size.log10().floor()).max(0.0) as usize;
    // A 2.5 × 10ⁿ step needs one decimal more than its power of ten (0.25 → "0.25", not "0.3").
    let scaled = mark.step_size * 10f64.powi(decimals as i32);
    if (scaled - scaled.round()).abs() > 1e-6 * scaled.abs().max(1.0) {
        decimals += 1;
    }
    format!("{:.*}", decimals, mark.value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labelled(input: GridInput, gap: f32) -> Vec<f64> {
        let marks = spaced(gap, Y_MIN_GAP)(input);
        let major = marks.iter().map(|m| m.step_size).fold(0.0, f64::max);
        marks
            .iter()
            .filter(|m| m.step_size == major)
            .map(|m| m.value)
            .collect()
    }

    #[test]
    fn a_70_point_plot_of_four_milliseconds_gets_three_labels() {
        // 0..4 over 70 points: base_step_size = 8 points in units.
        let input = GridInput {
            bounds: (0.0, 4.0),
            base_step_size: 4.0 / 70.0 * 8.0,
        };
        let v = labelled(input, Y_GAP);
        assert_eq!(v, vec![0.0, 2.0, 4.0], "labels every 2 ms, 23 points apart");
    }

    #[test]
    fn labels_are_never_closer_than_the_gap() {
        for (range, points) in [(1.0, 60.0), (37.0, 90.0), (0.003, 200.0), (1e6, 45.0)] {
            let input = GridInput {
                bounds: (0.0, range),
                base_step_size: range / points * 8.0,
            };
            let v = labelled(input, Y_GAP);
            assert!(v.len() >= 2, "{range} over {points} points: {v:?}");
            let step_points = (v[1] - v[0]) / range * points;
            assert!(
                step_points >= f64::from(Y_MIN_GAP) - 1e-6,
                "{range}: {step_points}"
            );
        }
    }

    #[test]
    fn labels_carry_the_decimals_of_their_step() {
        let m = |value, step_size| label(GridMark { value, step_size }, &(0.0..=1.0));
        assert_eq!(m(0.5, 0.5), "0.5", "a 0.5 step keeps its decimal");
        assert_eq!(m(4.0, 2.0), "4", "whole steps, no decimals");
        assert_eq!(m(0.04, 0.02), "0.04", "a 0.02 step: two decimals");
        assert_eq!(m(100.0, 50.0), "100", "no decimals");
    }

    #[test]
    fn a_narrow_time_axis_takes_a_2_5_step_rather_than_one_label() {
        // 43.36 s over 110 points (android/quadrant's occupancy at 1280×720, 200 %): 20 s steps would stand 51
        // points apart, under egui_plot's 60 for x; 50 s steps leave "0" alone; 25 s steps stand 63 points apart.
        let input = GridInput {
            bounds: (0.0, 43.36),
            base_step_size: 43.36 / 110.0 * 8.0,
        };
        let marks = spaced(X_GAP, X_MIN_GAP)(input);
        let major = marks.iter().map(|m| m.step_size).fold(0.0, f64::max);
        let v: Vec<f64> = marks
            .iter()
            .filter(|m| m.step_size == major)
            .map(|m| m.value)
            .collect();
        assert_eq!(v, vec![0.0, 25.0]);
        let m = |value, step_size| label(GridMark { value, step_size }, &(0.0..=1.0));
        assert_eq!(m(25.0, 25.0), "25");
        assert_eq!(m(0.25, 0.25), "0.25", "a 0.25 step keeps both decimals");
        assert_eq!(m(2.5, 2.5), "2.5");
    }

    #[test]
    fn a_47_point_plot_still_gets_two_labels() {
        let input = GridInput {
            bounds: (0.0, 0.33),
            base_step_size: 0.33 / 47.0 * 8.0,
        };
        assert_eq!(
            labelled(input, Y_GAP),
            vec![0.0, 0.2],
            "0 and 0.2, 28 points apart"
        );
    }

    #[test]
    fn a_127_point_time_axis_labels_0_and_1_not_nothing() {
        // 0.5 s steps would stand 60 points apart, where egui_plot hides x labels: whole seconds instead.
        let marks = x()(GridInput {
            bounds: (0.0, 1.065),
            base_step_size: 1.065 / 127.0 * 8.0,
        });
        let major = marks.iter().map(|m| m.step_size).fold(0.0, f64::max);
        assert!((major - 1.0).abs() < 1e-12, "whole seconds: {major}");
    }

    #[test]
    fn nice_steps_are_one_two_or_five_times_a_power_of_ten() {
        for (min, step) in [
            (0.7, 1.0),
            (1.0, 1.0),
            (1.3, 2.0),
            (3.0, 5.0),
            (6.0, 10.0),
            (0.013, 0.02),
        ] {
            assert!(
                (nice_step(min) - step).abs() < 1e-12,
                "at least {min}: {step}, not {}",
                nice_step(min)
            );
        }
    }
}
