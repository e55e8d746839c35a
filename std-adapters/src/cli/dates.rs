//! ISO 8601 text for `numpy.datetime64` values, exactly as NumPy prints them
//! (`str(np.datetime64(count, unit))`), for `zinto read --format json`.
//!
//! Years are zero-padded to four characters with the sign counted (`0001`, `-001`, `10000`), as
//! NumPy's `%04lld` does. Where NumPy's own `i64` arithmetic wraps and it prints a wrong date,
//! [`datetime_iso`] gives `None` instead:
//! - `Y` counts above `i64::MAX - 1970` (NumPy prints a negative year, or `NaT`);
//! - `D` and `W` values whose day count minus 10957 (1970-01-01 to 2000-01-01) does not fit an
//!   `i64`: `D` counts below `i64::MIN + 10957`, and `W` counts below about `-i64::MAX / 7` or
//!   above `(i64::MAX + 10957) / 7`.
//!
//! Every other count prints as NumPy prints it.

use crate::{TimeUnit, Unit};

/// NumPy's NaT ("not a time"): the smallest `i64`.
const NAT: i64 = i64::MIN;

/// The year counts start from.
const EPOCH_YEAR: i128 = 1970;

/// Days from 1970-01-01 to 2000-01-01. NumPy subtracts them in `i64` before splitting a day
/// count into years, and prints a wrong date where that wraps.
const DAYS_1970_TO_2000: i128 = 10_957;

/// Days from 0000-03-01 to 1970-01-01 (the shift of Howard Hinnant's `civil_from_days`).
const DAYS_0000_03_01_TO_1970: i128 = 719_468;

/// Days in 400 Gregorian years.
const DAYS_PER_ERA: i128 = 146_097;

/// `count` units since 1970-01-01T00:00 as NumPy prints it (`str(np.datetime64(count, unit))`):
/// `None` for NaT (`i64::MIN`) or a value whose year does not fit the formatter.
///
/// A scaled unit (`10s`) is formatted in its base unit, `count * scale` of it; `None` when that
/// product overflows an `i64`, or for a scale of 0. "Does not fit the formatter" means the values
/// NumPy itself prints wrongly, listed in the [module documentation](self).
pub fn datetime_iso(count: i64, unit: TimeUnit) -> Option<String> {
    if count == NAT || unit.scale == 0 {
        return None;
    }
    let count = count.checked_mul(i64::from(unit.scale))?;
    match unit.unit {
        Unit::Year => year_only(count),
        Unit::Month => year_month(count),
        Unit::Week => date_text(i128::from(count).checked_mul(7)?),
        Unit::Day => date_text(i128::from(count)),
        finer => time_text(count, Clock::of(finer)?),
    }
}

/// How a unit finer than a day prints the time of day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Clock {
    /// Hours: `T05`.
    Hours,
    /// Minutes: `T05:06`.
    Minutes,
    /// Seconds with `digits` digits of fraction: `T05:06:07` (0 digits), `T05:06:07.123` (3).
    Seconds {
        /// Digits after the decimal point: 0 for seconds up to 18 for attoseconds.
        digits: u32,
    },
}

impl Clock {
    /// The clock of `unit`; `None` for units of a day or longer.
    fn of(unit: Unit) -> Option<Self> {
        let digits = match unit {
            Unit::Hour => return Some(Self::Hours),
            Unit::Minute => return Some(Self::Minutes),
            Unit::Second => 0,
            Unit::Millisecond => 3,
            Unit::Microsecond => 6,
            Unit::Nanosecond => 9,
            Unit::Picosecond => 12,
            Unit::Femtosecond => 15,
            Unit::Attosecond => 18,
            _ => return None,
        };
        Some(Self::Seconds { digits })
    }

    /// How many counts of the unit make a day.
    fn ticks_per_day(self) -> Option<i128> {
        match self {
            Self::Hours => Some(24),
            Self::Minutes => Some(24 * 60),
            Self::Seconds { digits } => 86_400_i128.checked_mul(10_i128.checked_pow(digits)?),
        }
    }

    /// The time of day `tick` (in `0..ticks_per_day()`) as NumPy prints it after the `T`.
    fn text(self, tick: i128) -> Option<String> {
        match self {
            Self::Hours => Some(format!("{tick:02}")),
            Self::Minutes => Some(format!("{:02}:{:02}", tick / 60, tick % 60)),
            Self::Seconds { digits } => {
                let per_second = 10_i128.checked_pow(digits)?;
                let (seconds, fraction) = (tick / per_second, tick % per_second);
                let hms = format!(
                    "{:02}:{:02}:{:02}",
                    seconds / 3600,
                    seconds / 60 % 60,
                    seconds % 60
                );
                if digits == 0 {
                    return Some(hms);
                }
                let width = usize::try_from(digits).ok()?;
                Some(format!("{hms}.{fraction:0width$}"))
            }
        }
    }
}

/// `count` years since 1970: `2020`.
fn year_only(count: i64) -> Option<String> {
    // NumPy adds 1970 in i64 and prints a wrong year where that overflows.
    let year = count.checked_add(1970)?;
    Some(year_text(i128::from(year)))
}

/// `count` months since 1970-01: `2020-01`.
fn year_month(count: i64) -> Option<String> {
    let count = i128::from(count);
    let year = EPOCH_YEAR.checked_add(count.div_euclid(12))?;
    let month = count.rem_euclid(12).checked_add(1)?;
    Some(format!("{}-{month:02}", year_text(year)))
}

/// `count` units finer than a day since 1970-01-01T00: the date, `T`, then the time of day.
fn time_text(count: i64, clock: Clock) -> Option<String> {
    let per_day = clock.ticks_per_day()?;
    let count = i128::from(count);
    let date = date_text(count.div_euclid(per_day))?;
    let time = clock.text(count.rem_euclid(per_day))?;
    Some(format!("{date}T{time}"))
}

/// The date `days` days after 1970-01-01: `2020-01-01`; `None` where NumPy's arithmetic wraps.
fn date_text(days: i128) -> Option<String> {
    // NumPy computes `days - DAYS_1970_TO_2000` in i64; where the true difference does not fit,
    // it prints a wrong date, so there is nothing right to match.
    i64::try_from(days.checked_sub(DAYS_1970_TO_2000)?).ok()?;
    let (year, month, day) = civil_from_days(days)?;
    Some(format!("{}-{month:02}-{day:02}", year_text(year)))
}

/// The proleptic Gregorian `(year, month, day)` of `days` days after 1970-01-01 (Howard
/// Hinnant's `civil_from_days`, with Euclidean division for days before 0000-03-01).
fn civil_from_days(days: i128) -> Option<(i128, i128, i128)> {
    let z = days.checked_add(DAYS_0000_03_01_TO_1970)?;
    let era = z.div_euclid(DAYS_PER_ERA);
    // Day of the era in 0..146097, so the arithmetic below stays small.
    let doe = z.rem_euclid(DAYS_PER_ERA);
    // Year of the era in 0..400 (the era starts on March 1st).
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    // Day of the year starting March 1st, in 0..366.
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    // Month starting from March, in 0..12.
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let (month, january_or_february) = if mp < 10 { (mp + 3, 0) } else { (mp - 9, 1) };
    let year = era
        .checked_mul(400)?
        .checked_add(yoe)?
        .checked_add(january_or_february)?;
    Some((year, month, day))
}

/// A year as NumPy prints it (C's `%04lld`): at least four characters, the sign counted.
fn year_text(year: i128) -> String {
    format!("{year:04}")
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::datetime_iso;
    use crate::{TimeUnit, Unit};

    /// The unit `scale` of NumPy's `code`.
    fn unit(code: &str, scale: u32) -> TimeUnit {
        let unit = Unit::from_code(code).unwrap_or_else(|| panic!("no unit {code:?}"));
        TimeUnit { unit, scale }
    }

    #[test]
    fn matches_numpy() {
        for &(count, code, want) in NUMPY_CASES {
            let got = datetime_iso(count, unit(code, 1));
            assert_eq!(got.as_deref(), want, "np.datetime64({count}, {code:?})");
        }
    }

    #[test]
    fn every_unit_at_its_precision() {
        let cases = [
            ("Y", "2020"),
            ("M", "2020-01"),
            ("W", "2020-01-02"),
            ("D", "2020-01-01"),
            ("h", "2020-01-01T05"),
            ("m", "2020-01-01T05:06"),
            ("s", "2020-01-01T05:06:07"),
            ("ms", "2020-01-01T05:06:07.123"),
            ("us", "2020-01-01T05:06:07.123456"),
            ("ns", "2020-01-01T05:06:07.123456789"),
        ];
        // np.datetime64("2020-01-01T05:06:07.123456789", code).astype("int64")
        let counts = [
            50,
            600,
            2609,
            18262,
            438_293,
            26_297_586,
            1_577_855_167,
            1_577_855_167_123,
            1_577_855_167_123_456,
            1_577_855_167_123_456_789,
        ];
        for ((code, want), count) in cases.into_iter().zip(counts) {
            assert_eq!(
                datetime_iso(count, unit(code, 1)).as_deref(),
                Some(want),
                "{code}"
            );
        }
        // The range of ps, fs and as is small: 1970-01-01T00:00:01.5 and -1.5 s.
        let after = [
            ("ps", 1_500_000_000_000, "1970-01-01T00:00:01.500000000000"),
            (
                "fs",
                1_500_000_000_000_000,
                "1970-01-01T00:00:01.500000000000000",
            ),
            (
                "as",
                1_500_000_000_000_000_000,
                "1970-01-01T00:00:01.500000000000000000",
            ),
            (
                "as",
                -1_500_000_000_000_000_000,
                "1969-12-31T23:59:58.500000000000000000",
            ),
        ];
        for (code, count, want) in after {
            assert_eq!(
                datetime_iso(count, unit(code, 1)).as_deref(),
                Some(want),
                "{code}"
            );
        }
    }

    #[test]
    fn nat_is_none() {
        for (code, _) in [
            ("Y", 0),
            ("M", 0),
            ("W", 0),
            ("D", 0),
            ("h", 0),
            ("ns", 0),
            ("as", 0),
        ] {
            assert_eq!(datetime_iso(i64::MIN, unit(code, 1)), None, "{code}");
            assert_eq!(datetime_iso(i64::MIN, unit(code, 10)), None, "{code}");
        }
    }

    #[test]
    fn scaled_units() {
        // str(np.datetime64(count, unit)) for each row.
        let cases: [(i64, &str, u32, Option<&str>); 13] = [
            (5, "s", 10, Some("1970-01-01T00:00:50")),
            (-5, "s", 10, Some("1969-12-31T23:59:10")),
            (7, "D", 3, Some("1970-01-22")),
            (2, "W", 2, Some("1970-01-29")),
            (5, "M", 6, Some("1972-07")),
            (3, "Y", 10, Some("2000")),
            (-1, "Y", 10, Some("1960")),
            (5, "ms", 100, Some("1970-01-01T00:00:00.500")),
            (1, "ms", 1000, Some("1970-01-01T00:00:01.000")),
            (13, "h", 25, Some("1970-01-14T13")),
            (2, "m", 7, Some("1970-01-01T00:14")),
            // count * scale is exactly i64::MIN: a value, not NaT, and NumPy prints it right.
            (-(1 << 62), "s", 2, Some("-292277022657-01-27T08:29:52")),
            (-(1 << 62), "Y", 2, Some("-9223372036854773838")),
        ];
        for (count, code, scale, want) in cases {
            let got = datetime_iso(count, unit(code, scale));
            assert_eq!(
                got.as_deref(),
                want,
                "np.datetime64({count}, '{scale}{code}')"
            );
        }
    }

    #[test]
    fn overflow_is_none() {
        // count * scale overflows i64 (NumPy wraps and prints a wrong date).
        assert_eq!(datetime_iso(1 << 62, unit("s", 10)), None);
        assert_eq!(datetime_iso(1 << 62, unit("Y", 2)), None);
        assert_eq!(datetime_iso(i64::MAX, unit("ns", u32::MAX)), None);
        // Year 1970 + count past i64::MAX.
        assert_eq!(datetime_iso(i64::MAX, unit("Y", 1)), None);
        // A scale of 0 is no unit.
        assert_eq!(datetime_iso(1, unit("s", 0)), None);
    }

    #[test]
    fn no_count_panics() {
        let codes = [
            "Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as",
        ];
        let counts = [i64::MIN, i64::MIN + 1, -1, 0, 1, i64::MAX - 1, i64::MAX];
        for code in codes {
            for scale in [1, 2, 7, 1000, u32::MAX] {
                for count in counts {
                    let _ = datetime_iso(count, unit(code, scale));
                }
            }
        }
    }

    // NUMPY_CASES were generated with NumPy 2.4.6 by this script, which also checks every row
    // against an exact big-integer formatter and that NumPy differs from it only where its i64
    // arithmetic wraps (those rows expect None; the comment shows what NumPy prints):
    //
    // import numpy as np, random
    // random.seed(1970)
    // MIN, MAX = -2**63, 2**63 - 1
    // UNITS = ["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as"]
    // DIGITS = {"s": 0, "ms": 3, "us": 6, "ns": 9, "ps": 12, "fs": 15, "as": 18}
    //
    // def civil(z):  # Howard Hinnant's civil_from_days, exact Python ints
    //     z += 719468
    //     era = z // 146097
    //     doe = z - era * 146097
    //     yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    //     doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    //     mp = (5 * doy + 2) // 153
    //     d = doy - (153 * mp + 2) // 5 + 1
    //     m = mp + 3 if mp < 10 else mp - 9
    //     return yoe + era * 400 + (m <= 2), m, d
    //
    // def year(y): return f"{y:04d}" if y >= 0 else "-" + f"{-y:03d}"
    // def date(days):
    //     y, m, d = civil(days); return f"{year(y)}-{m:02d}-{d:02d}"
    //
    // def exact(c, u):
    //     if u == "Y": return year(1970 + c)
    //     if u == "M": return f"{year(1970 + c // 12)}-{c % 12 + 1:02d}"
    //     if u == "W": return date(7 * c)
    //     if u == "D": return date(c)
    //     if u == "h": return f"{date(c // 24)}T{c % 24:02d}"
    //     if u == "m": t = c % 1440; return f"{date(c // 1440)}T{t // 60:02d}:{t % 60:02d}"
    //     k = DIGITS[u]; per = 10**k; t = c % (86400 * per); s = t // per
    //     frac = f".{t % per:0{k}d}" if k else ""
    //     hms = f"{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}"
    //     return f"{date(c // (86400 * per))}T{hms}{frac}"
    //
    // def wraps(c, u):
    //     """Where NumPy's own i64 arithmetic wraps (and zinto returns None)."""
    //     if u == "Y": return c + 1970 > MAX
    //     days = {"W": 7 * c, "D": c}.get(u)
    //     return days is not None and not (MIN <= days - 10957 <= MAX)
    //
    // counts = {u: set() for u in UNITS}
    // edges = [0, 1, -1, 2, -2, MAX, MAX - 1, MIN + 1, MIN + 2, 2**62, -2**62, 10**6, -10**6,
    //          10**12, -10**12, 10**15, -10**15, 10**18, -10**18]
    // for u in UNITS:
    //     counts[u].update(edges)
    //     for _ in range(8): counts[u].add(random.randint(MIN + 1, MAX))
    //     for _ in range(6):
    //         sign = random.choice([1, -1])
    //         counts[u].add(sign * random.randint(0, 10**random.randint(1, 18)))
    // # Named instants, converted to each unit where exact
    // for text in ["2000-02-29T13:14:15.123456789012345678", "1900-03-01",
    //              "1969-12-31T23:59:59.999999999", "2020-01-01T05:06:07.123456789012345678",
    //              "0001-01-01", "9999-12-31T23:59:59", "1600-02-29T12", "-0001-12-31",
    //              "0000-03-01", "10000-01-01", "1970-01-01T00:00:00.000000000000000001"]:
    //     for u in UNITS:
    //         try:
    //             v = np.datetime64(text, u).astype("int64")
    //             counts[u].add(int(v))
    //         except Exception:
    //             pass
    // # D boundary where NumPy starts to wrap
    // counts["D"].update([MIN + 10956, MIN + 10957, MIN + 10958])
    // counts["W"].update([MAX // 7, MAX // 7 + 1, MIN // 7, MIN // 7 + 1, -(MAX // 7) + 1565,
    //                     -(MAX // 7) + 1566, (MIN + 10957) // 7, (MIN + 10957) // 7 + 1])
    // counts["Y"].update([MAX - 1970, MAX - 1969, -1969, -1970, -1971, -1980, -2970, -11970, 8029,
    //                     8030, 8031])
    //
    // rows = []
    // for u in UNITS:
    //     for c in sorted(counts[u]):
    //         got = str(np.datetime64(c, u))
    //         want = exact(c, u)
    //         if wraps(c, u):
    //             assert got != want, (c, u, got)
    //             rows.append((c, u, None, got))
    //         else:
    //             assert got == want, (c, u, got, want)
    //             rows.append((c, u, got, None))
    // for c, u, s, numpy_text in rows:
    //     if s is None:
    //         print(f"    ({c}, {u!r}, None), // NumPy wraps: {numpy_text}".replace("'", '"'))
    //     else:
    //         print(f"    ({c}, {u!r}, Some({s!r})),".replace("'", '"'))

    /// `(count, unit code, str(np.datetime64(count, unit)) or None)`; see the script above.
    const NUMPY_CASES: &[(i64, &str, Option<&str>)] = &[
        (-9223372036854775807, "Y", Some("-9223372036854773837")),
        (-9223372036854775806, "Y", Some("-9223372036854773836")),
        (-8609164584308798493, "Y", Some("-8609164584308796523")),
        (-4681706295678672284, "Y", Some("-4681706295678670314")),
        (-4611686018427387904, "Y", Some("-4611686018427385934")),
        (-2762924208333932000, "Y", Some("-2762924208333930030")),
        (-1000000000000000000, "Y", Some("-999999999999998030")),
        (-1000000000000000, "Y", Some("-999999999998030")),
        (-1000000000000, "Y", Some("-999999998030")),
        (-739928342165, "Y", Some("-739928340195")),
        (-1000000, "Y", Some("-998030")),
        (-196136, "Y", Some("-194166")),
        (-88557, "Y", Some("-86587")),
        (-11970, "Y", Some("-10000")),
        (-2970, "Y", Some("-1000")),
        (-1980, "Y", Some("-010")),
        (-1971, "Y", Some("-001")),
        (-1970, "Y", Some("0000")),
        (-1969, "Y", Some("0001")),
        (-370, "Y", Some("1600")),
        (-70, "Y", Some("1900")),
        (-2, "Y", Some("1968")),
        (-1, "Y", Some("1969")),
        (0, "Y", Some("1970")),
        (1, "Y", Some("1971")),
        (2, "Y", Some("1972")),
        (30, "Y", Some("2000")),
        (50, "Y", Some("2020")),
        (8029, "Y", Some("9999")),
        (8030, "Y", Some("10000")),
        (8031, "Y", Some("10001")),
        (67192, "Y", Some("69162")),
        (1000000, "Y", Some("1001970")),
        (726069586001, "Y", Some("726069587971")),
        (1000000000000, "Y", Some("1000000001970")),
        (1000000000000000, "Y", Some("1000000000001970")),
        (465620399312653318, "Y", Some("465620399312655288")),
        (1000000000000000000, "Y", Some("1000000000000001970")),
        (2684913168341148052, "Y", Some("2684913168341150022")),
        (3603914699295364754, "Y", Some("3603914699295366724")),
        (4245348122466731228, "Y", Some("4245348122466733198")),
        (4611686018427387904, "Y", Some("4611686018427389874")),
        (5766099032368259499, "Y", Some("5766099032368261469")),
        (8651942069794607603, "Y", Some("8651942069794609573")),
        (9223372036854773837, "Y", Some("9223372036854775807")),
        (9223372036854773838, "Y", None), // NumPy wraps: NaT
        (9223372036854775806, "Y", None), // NumPy wraps: -9223372036854773840
        (9223372036854775807, "Y", None), // NumPy wraps: -9223372036854773839
        (-9223372036854775807, "M", Some("-768614336404562681-06")),
        (-9223372036854775806, "M", Some("-768614336404562681-07")),
        (-7226755671343101569, "M", Some("-602229639278589828-08")),
        (-6414806818831145238, "M", Some("-534567234902593467-07")),
        (-4705509929384684663, "M", Some("-392125827448721752-02")),
        (-4611686018427387904, "M", Some("-384307168202280356-09")),
        (-2076523112412345980, "M", Some("-173043592701026862-05")),
        (-1000000000000000000, "M", Some("-83333333333331364-09")),
        (-1000000000000000, "M", Some("-83333333331364-09")),
        (-1000000000000, "M", Some("-83333331364-09")),
        (-1000000, "M", Some("-81364-09")),
        (-23641, "M", Some("-001-12")),
        (-23638, "M", Some("0000-03")),
        (-23628, "M", Some("0001-01")),
        (-5895, "M", Some("1478-10")),
        (-4439, "M", Some("1600-02")),
        (-838, "M", Some("1900-03")),
        (-411, "M", Some("1935-10")),
        (-2, "M", Some("1969-11")),
        (-1, "M", Some("1969-12")),
        (0, "M", Some("1970-01")),
        (1, "M", Some("1970-02")),
        (2, "M", Some("1970-03")),
        (361, "M", Some("2000-02")),
        (600, "M", Some("2020-01")),
        (8182, "M", Some("2651-11")),
        (96359, "M", Some("9999-12")),
        (96360, "M", Some("10000-01")),
        (1000000, "M", Some("85303-05")),
        (7105192, "M", Some("594069-05")),
        (49792354282, "M", Some("4149364826-11")),
        (1000000000000, "M", Some("83333335303-05")),
        (1000000000000000, "M", Some("83333333335303-05")),
        (1000000000000000000, "M", Some("83333333333335303-05")),
        (1059661730779285028, "M", Some("88305144231609055-09")),
        (3598996710334388054, "M", Some("299916392527867641-03")),
        (4611686018427387904, "M", Some("384307168202284295-05")),
        (5071911878597411271, "M", Some("422659323216452909-04")),
        (7413130588778414555, "M", Some("617760882398203182-12")),
        (9223372036854775806, "M", Some("768614336404566620-07")),
        (9223372036854775807, "M", Some("768614336404566620-08")),
        (-9223372036854775807, "W", None), // NumPy wraps: 25252734927768524-08-04
        (-9223372036854775806, "W", None), // NumPy wraps: 25252734927768524-08-11
        (-5032899442933291054, "W", None), // NumPy wraps: 4553665159138888-03-22
        (-4611686018427387904, "W", None), // NumPy wraps: 12626367463885247-04-15
        (-2855134793798810537, "W", None), // NumPy wraps: -4214185049334080-04-10
        (-1317624576693539402, "W", None), // NumPy wraps: 25252734927768524-07-22
        (-1317624576693539401, "W", None), // NumPy wraps: 25252734927768524-07-29
        (-1317624576693537836, "W", None), // NumPy wraps: 25252734927768554-07-27
        (-1317624576693537835, "W", Some("-25252734927764555-06-12")),
        (-1000000000000000000, "W", Some("-19165349048917584-07-21")),
        (-150007741236884057, "W", Some("-2874950720842917-08-30")),
        (-123795000124359398, "W", Some("-2372574387892418-08-12")),
        (-1000000000000000, "W", Some("-19165349046950-06-13")),
        (-1000000000000, "W", Some("-19165347079-01-30")),
        (-1000000, "W", Some("-17196-08-26")),
        (-854577, "W", Some("-14409-09-26")),
        (-158430, "W", Some("-1067-08-20")),
        (-102790, "W", Some("-001-12-30")),
        (-102782, "W", Some("0000-02-24")),
        (-102738, "W", Some("0000-12-28")),
        (-19298, "W", Some("1600-02-24")),
        (-3644, "W", Some("1900-03-01")),
        (-2, "W", Some("1969-12-18")),
        (-1, "W", Some("1969-12-25")),
        (0, "W", Some("1970-01-01")),
        (1, "W", Some("1970-01-08")),
        (2, "W", Some("1970-01-15")),
        (635, "W", Some("1982-03-04")),
        (1573, "W", Some("2000-02-24")),
        (2608, "W", Some("2019-12-26")),
        (9603, "W", Some("2154-01-17")),
        (418985, "W", Some("9999-12-30")),
        (1000000, "W", Some("21135-05-09")),
        (672959356, "W", Some("12899470-12-15")),
        (9003605372, "W", Some("172559209-08-27")),
        (1000000000000, "W", Some("19165351018-12-03")),
        (1000000000000000, "W", Some("19165349050889-07-21")),
        (1000000000000000000, "W", Some("19165349048921523-06-14")),
        (1189261952392609829, "W", Some("22792620428205886-01-14")),
        (1317624576693539401, "W", Some("25252734927768524-07-27")),
        (1317624576693539402, "W", Some("25252734927768524-08-03")),
        (2321779994542498223, "W", None), // NumPy wraps: -6007745845325625-03-04
        (4611686018427387904, "W", None), // NumPy wraps: -12626367463881308-09-18
        (6373894815110628298, "W", None), // NumPy wraps: 21146979221629504-09-25
        (6554195358096223628, "W", None), // NumPy wraps: 24602502061658163-04-03
        (9223372036854775806, "W", None), // NumPy wraps: 25252734927768524-07-14
        (9223372036854775807, "W", None), // NumPy wraps: 25252734927768524-07-21
        (-9223372036854775807, "D", None), // NumPy wraps: 25252734927768524-07-29
        (-9223372036854775806, "D", None), // NumPy wraps: 25252734927768524-07-30
        (-9223372036854764852, "D", None), // NumPy wraps: 25252734927768554-07-27
        (-9223372036854764851, "D", Some("-25252734927764555-06-06")),
        (-9223372036854764850, "D", Some("-25252734927764555-06-07")),
        (-9042076835906864443, "D", Some("-24756365526755909-06-27")),
        (-4611686018427387904, "D", Some("-12626367463881308-09-18")),
        (-3662565603764962293, "D", Some("-10027764030101215-09-12")),
        (-1779334381033453100, "D", Some("-4871652069605081-08-14")),
        (-1000000000000000000, "D", Some("-2737907006986538-05-14")),
        (-1000000000000000, "D", Some("-2737907005019-06-29")),
        (-1000000000000, "D", Some("-2737905037-01-05")),
        (-6139425275, "D", Some("-16807206-07-10")),
        (-1695391446, "D", Some("-4639855-11-18")),
        (-1000000, "D", Some("-768-02-04")),
        (-719529, "D", Some("-001-12-31")),
        (-719468, "D", Some("0000-03-01")),
        (-719162, "D", Some("0001-01-01")),
        (-135081, "D", Some("1600-02-29")),
        (-25508, "D", Some("1900-03-01")),
        (-2, "D", Some("1969-12-30")),
        (-1, "D", Some("1969-12-31")),
        (0, "D", Some("1970-01-01")),
        (1, "D", Some("1970-01-02")),
        (2, "D", Some("1970-01-03")),
        (9, "D", Some("1970-01-10")),
        (328, "D", Some("1970-11-25")),
        (8438, "D", Some("1993-02-07")),
        (11016, "D", Some("2000-02-29")),
        (18262, "D", Some("2020-01-01")),
        (1000000, "D", Some("4707-11-29")),
        (2932896, "D", Some("9999-12-31")),
        (2932897, "D", Some("10000-01-01")),
        (797228992, "D", Some("2184708-11-05")),
        (1000000000000, "D", Some("2737908976-12-27")),
        (1000000000000000, "D", Some("2737907008958-07-05")),
        (1000000000000000000, "D", Some("2737907006990477-08-20")),
        (4609067636258042570, "D", Some("12619198576996822-12-05")),
        (4611686018427387904, "D", Some("12626367463885247-04-15")),
        (4795177686730851744, "D", Some("13128750588257311-12-26")),
        (6156123323166689189, "D", Some("16854893182385425-05-07")),
        (8956479939546251439, "D", Some("24522009184437657-01-30")),
        (9124747405886540186, "D", Some("24982709859578936-07-01")),
        (9223372036854775806, "D", Some("25252734927768524-07-26")),
        (9223372036854775807, "D", Some("25252734927768524-07-27")),
        (
            -9223372036854775807,
            "h",
            Some("-1052197288654970-03-24T17"),
        ),
        (
            -9223372036854775806,
            "h",
            Some("-1052197288654970-03-24T18"),
        ),
        (-8374078160981029789, "h", Some("-955310303082172-06-09T11")),
        (-5107213640320897508, "h", Some("-582628167165608-02-15T04")),
        (-4611686018427387904, "h", Some("-526098644326500-02-11T08")),
        (-4428308108221842746, "h", Some("-505178991606556-10-03T22")),
        (-2360422462313293653, "h", Some("-269275716623890-04-13T03")),
        (-1000000000000000000, "h", Some("-114079458622552-11-06T08")),
        (-747683272519909668, "h", Some("-85295302949712-05-23T12")),
        (-84868024996989152, "h", Some("-9681698344219-02-23T16")),
        (-1000000000000000, "h", Some("-114079456655-06-24T08")),
        (-1000000000000, "h", Some("-114077489-05-18T08")),
        (-443482246696, "h", Some("-50590245-05-22T08")),
        (-17268696, "h", Some("-001-12-31T00")),
        (-17267232, "h", Some("0000-03-01T00")),
        (-17259888, "h", Some("0001-01-01T00")),
        (-3241932, "h", Some("1600-02-29T12")),
        (-1000000, "h", Some("1855-12-03T08")),
        (-967823, "h", Some("1859-08-05T01")),
        (-612192, "h", Some("1900-03-01T00")),
        (-250, "h", Some("1969-12-21T14")),
        (-2, "h", Some("1969-12-31T22")),
        (-1, "h", Some("1969-12-31T23")),
        (0, "h", Some("1970-01-01T00")),
        (1, "h", Some("1970-01-01T01")),
        (2, "h", Some("1970-01-01T02")),
        (264397, "h", Some("2000-02-29T13")),
        (438293, "h", Some("2020-01-01T05")),
        (1000000, "h", Some("2084-01-29T16")),
        (70389527, "h", Some("9999-12-31T23")),
        (70389528, "h", Some("10000-01-01T00")),
        (995842025, "h", Some("115575-02-13T17")),
        (42052994117, "h", Some("4799352-10-20T05")),
        (1000000000000, "h", Some("114081428-08-16T16")),
        (1000000000000000, "h", Some("114079460594-07-09T16")),
        (409846114754410873, "h", Some("46755022892516-07-25T01")),
        (1000000000000000000, "h", Some("114079458626491-02-24T16")),
        (1181347550919267118, "h", Some("134767489058243-12-05T22")),
        (4611686018427387904, "h", Some("526098644330439-11-20T16")),
        (5543227040095075316, "h", Some("632368339768822-12-29T20")),
        (9223372036854775806, "h", Some("1052197288658909-10-10T06")),
        (9223372036854775807, "h", Some("1052197288658909-10-10T07")),
        (
            -9223372036854775807,
            "m",
            Some("-17536621475646-05-04T05:53"),
        ),
        (
            -9223372036854775806,
            "m",
            Some("-17536621475646-05-04T05:54"),
        ),
        (
            -4939086421384388151,
            "m",
            Some("-9390805082218-06-04T08:09"),
        ),
        (
            -4611686018427387904,
            "m",
            Some("-8768310736838-03-03T14:56"),
        ),
        (
            -2723541989786341038,
            "m",
            Some("-5178336593630-05-21T14:42"),
        ),
        (
            -2145532694996371956,
            "m",
            Some("-4079353469804-09-24T19:24"),
        ),
        (
            -1045184354147991869,
            "m",
            Some("-1987234419431-08-15T07:31"),
        ),
        (
            -1000000000000000000,
            "m",
            Some("-1901324308439-04-25T13:20"),
        ),
        (-2443272920001763, "m", Some("-4645452230-03-28T05:17")),
        (-1000000000000000, "m", Some("-1901322341-08-04T13:20")),
        (-230552626277867, "m", Some("-438353344-10-30T06:13")),
        (-1000000000000, "m", Some("-1899355-09-09T13:20")),
        (-1036121760, "m", Some("-001-12-31T00:00")),
        (-1036033920, "m", Some("0000-03-01T00:00")),
        (-1035593280, "m", Some("0001-01-01T00:00")),
        (-194515920, "m", Some("1600-02-29T12:00")),
        (-36731520, "m", Some("1900-03-01T00:00")),
        (-1000000, "m", Some("1968-02-06T13:20")),
        (-411056, "m", Some("1969-03-21T13:04")),
        (-2, "m", Some("1969-12-31T23:58")),
        (-1, "m", Some("1969-12-31T23:59")),
        (0, "m", Some("1970-01-01T00:00")),
        (1, "m", Some("1970-01-01T00:01")),
        (2, "m", Some("1970-01-01T00:02")),
        (1000000, "m", Some("1971-11-26T10:40")),
        (15863834, "m", Some("2000-02-29T13:14")),
        (26297586, "m", Some("2020-01-01T05:06")),
        (4223371679, "m", Some("9999-12-31T23:59")),
        (4223371680, "m", Some("10000-01-01T00:00")),
        (245695363762, "m", Some("469116-07-27T09:22")),
        (1000000000000, "m", Some("1903294-04-23T10:40")),
        (50580241966721, "m", Some("96171413-09-05T10:41")),
        (1000000000000000, "m", Some("1901326280-05-29T10:40")),
        (989988018343379522, "m", Some("1882288288259-08-03T16:02")),
        (1000000000000000000, "m", Some("1901324312378-09-08T10:40")),
        (2412056595453236777, "m", Some("4586101844986-11-06T02:17")),
        (2463360233981794759, "m", Some("4683646700133-08-13T03:19")),
        (4611686018427387904, "m", Some("8768310740777-10-31T09:04")),
        (6327265557148202965, "m", Some("12030183824187-06-09T01:25")),
        (8742021841601002466, "m", Some("16621418651529-09-12T06:26")),
        (9223372036854775806, "m", Some("17536621479585-08-30T18:06")),
        (9223372036854775807, "m", Some("17536621479585-08-30T18:07")),
        (
            -9223372036854775807,
            "s",
            Some("-292277022657-01-27T08:29:53"),
        ),
        (
            -9223372036854775806,
            "s",
            Some("-292277022657-01-27T08:29:54"),
        ),
        (
            -7975612854165786900,
            "s",
            Some("-252737108198-10-11T20:05:00"),
        ),
        (
            -4611686018427387904,
            "s",
            Some("-146138510344-07-14T16:14:56"),
        ),
        (
            -1154762048202585032,
            "s",
            Some("-36592950614-12-01T18:49:28"),
        ),
        (
            -1000000000000000000,
            "s",
            Some("-31688736537-03-10T22:13:20"),
        ),
        (
            -649654097190949901,
            "s",
            Some("-20586716836-03-28T05:28:19"),
        ),
        (-35363761149276835, "s", Some("-1120631010-04-28T09:46:05")),
        (-1000000000000000, "s", Some("-31686769-06-29T22:13:20")),
        (-1000000000000, "s", Some("-29719-04-05T22:13:20")),
        (-62167305600, "s", Some("-001-12-31T00:00:00")),
        (-62162035200, "s", Some("0000-03-01T00:00:00")),
        (-62135596800, "s", Some("0001-01-01T00:00:00")),
        (-11670955200, "s", Some("1600-02-29T12:00:00")),
        (-2203891200, "s", Some("1900-03-01T00:00:00")),
        (-1000000, "s", Some("1969-12-20T10:13:20")),
        (-2, "s", Some("1969-12-31T23:59:58")),
        (-1, "s", Some("1969-12-31T23:59:59")),
        (0, "s", Some("1970-01-01T00:00:00")),
        (1, "s", Some("1970-01-01T00:00:01")),
        (2, "s", Some("1970-01-01T00:00:02")),
        (9, "s", Some("1970-01-01T00:00:09")),
        (1000000, "s", Some("1970-01-12T13:46:40")),
        (1538164, "s", Some("1970-01-18T19:16:04")),
        (130609856, "s", Some("1974-02-20T16:30:56")),
        (951830055, "s", Some("2000-02-29T13:14:15")),
        (1577855167, "s", Some("2020-01-01T05:06:07")),
        (253402300799, "s", Some("9999-12-31T23:59:59")),
        (253402300800, "s", Some("10000-01-01T00:00:00")),
        (1000000000000, "s", Some("33658-09-27T01:46:40")),
        (1000000000000000, "s", Some("31690708-07-05T01:46:40")),
        (9570358496457548, "s", Some("303274557-10-23T10:39:08")),
        (99364210116418402, "s", Some("3148728441-04-25T06:53:22")),
        (660356676815414279, "s", Some("20925872022-10-30T23:57:59")),
        (926137694163651784, "s", Some("29348137181-08-27T06:23:04")),
        (1000000000000000000, "s", Some("31688740476-10-23T01:46:40")),
        (2521613852111105602, "s", Some("79906763944-09-14T04:53:22")),
        (
            4611686018427387904,
            "s",
            Some("146138514283-06-19T07:45:04"),
        ),
        (
            6124728379016334517,
            "s",
            Some("194084917997-11-23T16:28:37"),
        ),
        (
            7956167573184895596,
            "s",
            Some("252120915713-01-11T03:26:36"),
        ),
        (
            9223372036854775806,
            "s",
            Some("292277026596-12-04T15:30:06"),
        ),
        (
            9223372036854775807,
            "s",
            Some("292277026596-12-04T15:30:07"),
        ),
        (
            -9223372036854775807,
            "ms",
            Some("-292275055-05-16T16:47:04.193"),
        ),
        (
            -9223372036854775806,
            "ms",
            Some("-292275055-05-16T16:47:04.194"),
        ),
        (
            -4611686018427387904,
            "ms",
            Some("-146136543-09-08T08:23:32.096"),
        ),
        (
            -4058725834730181312,
            "ms",
            Some("-128613932-05-08T11:23:38.688"),
        ),
        (
            -3448202441958235657,
            "ms",
            Some("-109267216-07-01T08:56:04.343"),
        ),
        (
            -1710181730827565251,
            "ms",
            Some("-54191532-05-01T06:33:54.749"),
        ),
        (
            -1000000000000000000,
            "ms",
            Some("-31686769-06-29T22:13:20.000"),
        ),
        (
            -502263641588664419,
            "ms",
            Some("-15914132-10-19T12:55:35.581"),
        ),
        (
            -332089976837032112,
            "ms",
            Some("-10521543-07-24T19:56:07.888"),
        ),
        (-1000000000000000, "ms", Some("-29719-04-05T22:13:20.000")),
        (-62167305600000, "ms", Some("-001-12-31T00:00:00.000")),
        (-62162035200000, "ms", Some("0000-03-01T00:00:00.000")),
        (-62135596800000, "ms", Some("0001-01-01T00:00:00.000")),
        (-11670955200000, "ms", Some("1600-02-29T12:00:00.000")),
        (-2203891200000, "ms", Some("1900-03-01T00:00:00.000")),
        (-1000000000000, "ms", Some("1938-04-24T22:13:20.000")),
        (-1000000, "ms", Some("1969-12-31T23:43:20.000")),
        (-707618, "ms", Some("1969-12-31T23:48:12.382")),
        (-46217, "ms", Some("1969-12-31T23:59:13.783")),
        (-7, "ms", Some("1969-12-31T23:59:59.993")),
        (-2, "ms", Some("1969-12-31T23:59:59.998")),
        (-1, "ms", Some("1969-12-31T23:59:59.999")),
        (0, "ms", Some("1970-01-01T00:00:00.000")),
        (1, "ms", Some("1970-01-01T00:00:00.001")),
        (2, "ms", Some("1970-01-01T00:00:00.002")),
        (1000000, "ms", Some("1970-01-01T00:16:40.000")),
        (31129402, "ms", Some("1970-01-01T08:38:49.402")),
        (50426091920, "ms", Some("1971-08-07T15:14:51.920")),
        (951830055123, "ms", Some("2000-02-29T13:14:15.123")),
        (1000000000000, "ms", Some("2001-09-09T01:46:40.000")),
        (1577855167123, "ms", Some("2020-01-01T05:06:07.123")),
        (253402300799000, "ms", Some("9999-12-31T23:59:59.000")),
        (253402300800000, "ms", Some("10000-01-01T00:00:00.000")),
        (1000000000000000, "ms", Some("33658-09-27T01:46:40.000")),
        (
            1000000000000000000,
            "ms",
            Some("31690708-07-05T01:46:40.000"),
        ),
        (
            2355681386917081579,
            "ms",
            Some("74650541-06-23T02:18:01.579"),
        ),
        (
            3018572038571078406,
            "ms",
            Some("95656709-12-30T08:24:38.406"),
        ),
        (
            4611686018427387904,
            "ms",
            Some("146140482-04-24T15:36:27.904"),
        ),
        (
            5840340805515116995,
            "ms",
            Some("185075002-07-30T20:51:56.995"),
        ),
        (
            7132669847420358566,
            "ms",
            Some("226027279-08-25T22:59:18.566"),
        ),
        (
            9223372036854775806,
            "ms",
            Some("292278994-08-17T07:12:55.806"),
        ),
        (
            9223372036854775807,
            "ms",
            Some("292278994-08-17T07:12:55.807"),
        ),
        (
            -9223372036854775807,
            "us",
            Some("-290308-12-21T19:59:05.224193"),
        ),
        (
            -9223372036854775806,
            "us",
            Some("-290308-12-21T19:59:05.224194"),
        ),
        (
            -7873994683589830630,
            "us",
            Some("-247547-01-15T06:33:30.169370"),
        ),
        (
            -5408258536427342121,
            "us",
            Some("-169411-02-09T02:06:12.657879"),
        ),
        (
            -5247862009914473415,
            "us",
            Some("-164329-11-15T08:48:05.526585"),
        ),
        (
            -4611686018427387904,
            "us",
            Some("-144169-06-28T09:59:32.612096"),
        ),
        (
            -2552294834437268015,
            "us",
            Some("-78910-12-30T12:39:22.731985"),
        ),
        (
            -1000000000000000000,
            "us",
            Some("-29719-04-05T22:13:20.000000"),
        ),
        (
            -922728337610463759,
            "us",
            Some("-27271-11-26T20:53:09.536241"),
        ),
        (
            -844735919178501311,
            "us",
            Some("-24799-05-20T21:33:41.498689"),
        ),
        (-62167305600000000, "us", Some("-001-12-31T00:00:00.000000")),
        (-62162035200000000, "us", Some("0000-03-01T00:00:00.000000")),
        (-62135596800000000, "us", Some("0001-01-01T00:00:00.000000")),
        (-32383862154083629, "us", Some("0943-10-18T18:44:05.916371")),
        (-11670955200000000, "us", Some("1600-02-29T12:00:00.000000")),
        (-2203891200000000, "us", Some("1900-03-01T00:00:00.000000")),
        (-1000000000000000, "us", Some("1938-04-24T22:13:20.000000")),
        (-774510097747955, "us", Some("1945-06-16T18:18:22.252045")),
        (-1000000000000, "us", Some("1969-12-20T10:13:20.000000")),
        (-1000000, "us", Some("1969-12-31T23:59:59.000000")),
        (-2, "us", Some("1969-12-31T23:59:59.999998")),
        (-1, "us", Some("1969-12-31T23:59:59.999999")),
        (0, "us", Some("1970-01-01T00:00:00.000000")),
        (1, "us", Some("1970-01-01T00:00:00.000001")),
        (2, "us", Some("1970-01-01T00:00:00.000002")),
        (66188, "us", Some("1970-01-01T00:00:00.066188")),
        (1000000, "us", Some("1970-01-01T00:00:01.000000")),
        (7470879, "us", Some("1970-01-01T00:00:07.470879")),
        (1000000000000, "us", Some("1970-01-12T13:46:40.000000")),
        (951830055123456, "us", Some("2000-02-29T13:14:15.123456")),
        (1000000000000000, "us", Some("2001-09-09T01:46:40.000000")),
        (1577855167123456, "us", Some("2020-01-01T05:06:07.123456")),
        (68865356463070609, "us", Some("4152-04-03T17:41:03.070609")),
        (253402300799000000, "us", Some("9999-12-31T23:59:59.000000")),
        (
            253402300800000000,
            "us",
            Some("10000-01-01T00:00:00.000000"),
        ),
        (
            371504649821116942,
            "us",
            Some("13742-07-07T08:03:41.116942"),
        ),
        (
            1000000000000000000,
            "us",
            Some("33658-09-27T01:46:40.000000"),
        ),
        (
            4611686018427387904,
            "us",
            Some("148108-07-06T14:00:27.387904"),
        ),
        (
            5447810634382937398,
            "us",
            Some("174604-03-31T19:46:22.937398"),
        ),
        (
            8068374654053590639,
            "us",
            Some("257646-08-12T21:40:53.590639"),
        ),
        (
            9223372036854775806,
            "us",
            Some("294247-01-10T04:00:54.775806"),
        ),
        (
            9223372036854775807,
            "us",
            Some("294247-01-10T04:00:54.775807"),
        ),
        (
            -9223372036854775807,
            "ns",
            Some("1677-09-21T00:12:43.145224193"),
        ),
        (
            -9223372036854775806,
            "ns",
            Some("1677-09-21T00:12:43.145224194"),
        ),
        (
            -6827073378871345152,
            "ns",
            Some("1753-08-28T22:43:41.128654848"),
        ),
        (
            -6821802978871345152,
            "ns",
            Some("1753-10-28T22:43:41.128654848"),
        ),
        (
            -6795364578871345152,
            "ns",
            Some("1754-08-30T22:43:41.128654848"),
        ),
        (
            -4852116232933722624,
            "ns",
            Some("1816-03-30T05:56:07.066277376"),
        ),
        (
            -4852116231933722624,
            "ns",
            Some("1816-03-30T05:56:08.066277376"),
        ),
        (
            -4611686018427387904,
            "ns",
            Some("1823-11-12T00:06:21.572612096"),
        ),
        (
            -4532185857874122943,
            "ns",
            Some("1826-05-20T03:29:02.125877057"),
        ),
        (
            -3782874387401329939,
            "ns",
            Some("1850-02-15T17:33:32.598670061"),
        ),
        (
            -2356450397154973717,
            "ns",
            Some("1895-04-30T06:26:42.845026283"),
        ),
        (
            -2203891200000000000,
            "ns",
            Some("1900-03-01T00:00:00.000000000"),
        ),
        (
            -1000000000000000000,
            "ns",
            Some("1938-04-24T22:13:20.000000000"),
        ),
        (
            -1000000000000000,
            "ns",
            Some("1969-12-20T10:13:20.000000000"),
        ),
        (
            -305544898960446,
            "ns",
            Some("1969-12-28T11:07:35.101039554"),
        ),
        (-1000000000000, "ns", Some("1969-12-31T23:43:20.000000000")),
        (-311249683943, "ns", Some("1969-12-31T23:54:48.750316057")),
        (-2081923, "ns", Some("1969-12-31T23:59:59.997918077")),
        (-1000000, "ns", Some("1969-12-31T23:59:59.999000000")),
        (-726, "ns", Some("1969-12-31T23:59:59.999999274")),
        (-2, "ns", Some("1969-12-31T23:59:59.999999998")),
        (-1, "ns", Some("1969-12-31T23:59:59.999999999")),
        (0, "ns", Some("1970-01-01T00:00:00.000000000")),
        (1, "ns", Some("1970-01-01T00:00:00.000000001")),
        (2, "ns", Some("1970-01-01T00:00:00.000000002")),
        (714662, "ns", Some("1970-01-01T00:00:00.000714662")),
        (1000000, "ns", Some("1970-01-01T00:00:00.001000000")),
        (608111848588, "ns", Some("1970-01-01T00:10:08.111848588")),
        (1000000000000, "ns", Some("1970-01-01T00:16:40.000000000")),
        (
            1000000000000000,
            "ns",
            Some("1970-01-12T13:46:40.000000000"),
        ),
        (
            24444551994610728,
            "ns",
            Some("1970-10-10T22:09:11.994610728"),
        ),
        (
            951830055123456789,
            "ns",
            Some("2000-02-29T13:14:15.123456789"),
        ),
        (
            1000000000000000000,
            "ns",
            Some("2001-09-09T01:46:40.000000000"),
        ),
        (
            1577855167123456789,
            "ns",
            Some("2020-01-01T05:06:07.123456789"),
        ),
        (
            4421262405204794782,
            "ns",
            Some("2110-02-08T00:26:45.204794782"),
        ),
        (
            4611686018427387904,
            "ns",
            Some("2116-02-20T23:53:38.427387904"),
        ),
        (
            4873220961006086591,
            "ns",
            Some("2124-06-05T00:29:21.006086591"),
        ),
        (
            6048803246558060490,
            "ns",
            Some("2161-09-05T07:07:26.558060490"),
        ),
        (
            6775788873709551616,
            "ns",
            Some("2184-09-18T11:34:33.709551616"),
        ),
        (
            7259305253204872636,
            "ns",
            Some("2200-01-14T17:40:53.204872636"),
        ),
        (
            9223372036854775806,
            "ns",
            Some("2262-04-11T23:47:16.854775806"),
        ),
        (
            9223372036854775807,
            "ns",
            Some("2262-04-11T23:47:16.854775807"),
        ),
        (
            -9223372036854775807,
            "ps",
            Some("1969-09-16T05:57:07.963145224193"),
        ),
        (
            -9223372036854775806,
            "ps",
            Some("1969-09-16T05:57:07.963145224194"),
        ),
        (
            -8728655228563357696,
            "ps",
            Some("1969-09-21T23:22:24.771436642304"),
        ),
        (
            -8564823215564649964,
            "ps",
            Some("1969-09-23T20:52:56.784435350036"),
        ),
        (
            -7400636709439895020,
            "ps",
            Some("1969-10-07T08:16:03.290560104980"),
        ),
        (
            -6962759746230157312,
            "ps",
            Some("1969-10-12T09:54:00.253769842688"),
        ),
        (
            -6706645274318279452,
            "ps",
            Some("1969-10-15T09:02:34.725681720548"),
        ),
        (
            -4818288939799423676,
            "ps",
            Some("1969-11-06T05:35:11.060200576324"),
        ),
        (
            -4611686018427387904,
            "ps",
            Some("1969-11-08T14:58:33.981572612096"),
        ),
        (
            -3327299476985577895,
            "ps",
            Some("1969-11-23T11:45:00.523014422105"),
        ),
        (
            -2108820399756194352,
            "ps",
            Some("1969-12-07T14:12:59.600243805648"),
        ),
        (
            -1778071598811054080,
            "ps",
            Some("1969-12-11T10:05:28.401188945920"),
        ),
        (
            -1200395695514586161,
            "ps",
            Some("1969-12-18T02:33:24.304485413839"),
        ),
        (
            -1000000000000000000,
            "ps",
            Some("1969-12-20T10:13:20.000000000000"),
        ),
        (
            -622541548110548992,
            "ps",
            Some("1969-12-24T19:04:18.451889451008"),
        ),
        (
            -622540548110548992,
            "ps",
            Some("1969-12-24T19:04:19.451889451008"),
        ),
        (
            -19349636882826097,
            "ps",
            Some("1969-12-31T18:37:30.363117173903"),
        ),
        (
            -1000000000000000,
            "ps",
            Some("1969-12-31T23:43:20.000000000000"),
        ),
        (
            -9158469012174,
            "ps",
            Some("1969-12-31T23:59:50.841530987826"),
        ),
        (
            -1000000000000,
            "ps",
            Some("1969-12-31T23:59:59.000000000000"),
        ),
        (-1000000, "ps", Some("1969-12-31T23:59:59.999999000000")),
        (-1000, "ps", Some("1969-12-31T23:59:59.999999999000")),
        (-2, "ps", Some("1969-12-31T23:59:59.999999999998")),
        (-1, "ps", Some("1969-12-31T23:59:59.999999999999")),
        (0, "ps", Some("1970-01-01T00:00:00.000000000000")),
        (1, "ps", Some("1970-01-01T00:00:00.000000000001")),
        (2, "ps", Some("1970-01-01T00:00:00.000000000002")),
        (1000000, "ps", Some("1970-01-01T00:00:00.000001000000")),
        (3279800, "ps", Some("1970-01-01T00:00:00.000003279800")),
        (
            1000000000000,
            "ps",
            Some("1970-01-01T00:00:01.000000000000"),
        ),
        (
            1000000000000000,
            "ps",
            Some("1970-01-01T00:16:40.000000000000"),
        ),
        (
            4317513879149850,
            "ps",
            Some("1970-01-01T01:11:57.513879149850"),
        ),
        (
            36492431137299759,
            "ps",
            Some("1970-01-01T10:08:12.431137299759"),
        ),
        (
            82906206567253707,
            "ps",
            Some("1970-01-01T23:01:46.206567253707"),
        ),
        (
            1000000000000000000,
            "ps",
            Some("1970-01-12T13:46:40.000000000000"),
        ),
        (
            1439845556850069692,
            "ps",
            Some("1970-01-17T15:57:25.556850069692"),
        ),
        (
            1827503447913780786,
            "ps",
            Some("1970-01-22T03:38:23.447913780786"),
        ),
        (
            3492328401188945920,
            "ps",
            Some("1970-02-10T10:05:28.401188945920"),
        ),
        (
            4611686018427387904,
            "ps",
            Some("1970-02-23T09:01:26.018427387904"),
        ),
        (
            5833798658146172928,
            "ps",
            Some("1970-03-09T12:29:58.658146172928"),
        ),
        (
            5866282019456035385,
            "ps",
            Some("1970-03-09T21:31:22.019456035385"),
        ),
        (
            9223372036854775806,
            "ps",
            Some("1970-04-17T18:02:52.036854775806"),
        ),
        (
            9223372036854775807,
            "ps",
            Some("1970-04-17T18:02:52.036854775807"),
        ),
        (
            -9223372036854775807,
            "fs",
            Some("1969-12-31T21:26:16.627963145224193"),
        ),
        (
            -9223372036854775806,
            "fs",
            Some("1969-12-31T21:26:16.627963145224194"),
        ),
        (
            -8337230441656352768,
            "fs",
            Some("1969-12-31T21:41:02.769558343647232"),
        ),
        (
            -7439301977726571411,
            "fs",
            Some("1969-12-31T21:56:00.698022273428589"),
        ),
        (
            -7184167734937124864,
            "fs",
            Some("1969-12-31T22:00:15.832265062875136"),
        ),
        (
            -6685264583944975386,
            "fs",
            Some("1969-12-31T22:08:34.735416055024614"),
        ),
        (
            -5706970503822058865,
            "fs",
            Some("1969-12-31T22:24:53.029496177941135"),
        ),
        (
            -5533965363418013831,
            "fs",
            Some("1969-12-31T22:27:46.034636581986169"),
        ),
        (
            -4611686018427387904,
            "fs",
            Some("1969-12-31T22:43:08.313981572612096"),
        ),
        (
            -3492335882364821639,
            "fs",
            Some("1969-12-31T23:01:47.664117635178361"),
        ),
        (
            -3345281698739781632,
            "fs",
            Some("1969-12-31T23:04:14.718301260218368"),
        ),
        (
            -1928653419956438177,
            "fs",
            Some("1969-12-31T23:27:51.346580043561823"),
        ),
        (
            -1000000000000000000,
            "fs",
            Some("1969-12-31T23:43:20.000000000000000"),
        ),
        (
            -372071659527625873,
            "fs",
            Some("1969-12-31T23:53:47.928340472374127"),
        ),
        (
            -63689390060639581,
            "fs",
            Some("1969-12-31T23:58:56.310609939360419"),
        ),
        (
            -1000000000000000,
            "fs",
            Some("1969-12-31T23:59:59.000000000000000"),
        ),
        (
            -1000000000000,
            "fs",
            Some("1969-12-31T23:59:59.999000000000000"),
        ),
        (
            -344895054763,
            "fs",
            Some("1969-12-31T23:59:59.999655104945237"),
        ),
        (-8807169, "fs", Some("1969-12-31T23:59:59.999999991192831")),
        (-1000000, "fs", Some("1969-12-31T23:59:59.999999999000000")),
        (-20881, "fs", Some("1969-12-31T23:59:59.999999999979119")),
        (-8, "fs", Some("1969-12-31T23:59:59.999999999999992")),
        (-2, "fs", Some("1969-12-31T23:59:59.999999999999998")),
        (-1, "fs", Some("1969-12-31T23:59:59.999999999999999")),
        (0, "fs", Some("1970-01-01T00:00:00.000000000000000")),
        (1, "fs", Some("1970-01-01T00:00:00.000000000000001")),
        (2, "fs", Some("1970-01-01T00:00:00.000000000000002")),
        (1000000, "fs", Some("1970-01-01T00:00:00.000000001000000")),
        (
            1000000000000,
            "fs",
            Some("1970-01-01T00:00:00.001000000000000"),
        ),
        (
            1000000000000000,
            "fs",
            Some("1970-01-01T00:00:01.000000000000000"),
        ),
        (
            1000000000000000000,
            "fs",
            Some("1970-01-01T00:16:40.000000000000000"),
        ),
        (
            1689115638031937521,
            "fs",
            Some("1970-01-01T00:28:09.115638031937521"),
        ),
        (
            2084211880712480310,
            "fs",
            Some("1970-01-01T00:34:44.211880712480310"),
        ),
        (
            3132411604827224905,
            "fs",
            Some("1970-01-01T00:52:12.411604827224905"),
        ),
        (
            3946475420453221718,
            "fs",
            Some("1970-01-01T01:05:46.475420453221718"),
        ),
        (
            4611686018427387904,
            "fs",
            Some("1970-01-01T01:16:51.686018427387904"),
        ),
        (
            4627530853954617344,
            "fs",
            Some("1970-01-01T01:17:07.530853954617344"),
        ),
        (
            4647750395575762944,
            "fs",
            Some("1970-01-01T01:17:27.750395575762944"),
        ),
        (
            4648750395575762944,
            "fs",
            Some("1970-01-01T01:17:28.750395575762944"),
        ),
        (
            5893771257840664576,
            "fs",
            Some("1970-01-01T01:38:13.771257840664576"),
        ),
        (
            9223372036854775806,
            "fs",
            Some("1970-01-01T02:33:43.372036854775806"),
        ),
        (
            9223372036854775807,
            "fs",
            Some("1970-01-01T02:33:43.372036854775807"),
        ),
        (
            -9223372036854775807,
            "as",
            Some("1969-12-31T23:59:50.776627963145224193"),
        ),
        (
            -9223372036854775806,
            "as",
            Some("1969-12-31T23:59:50.776627963145224194"),
        ),
        (
            -9186845746391941120,
            "as",
            Some("1969-12-31T23:59:50.813154253608058880"),
        ),
        (
            -8384290264109285376,
            "as",
            Some("1969-12-31T23:59:51.615709735890714624"),
        ),
        (
            -8052264639676862796,
            "as",
            Some("1969-12-31T23:59:51.947735360323137204"),
        ),
        (
            -6421021398352789504,
            "as",
            Some("1969-12-31T23:59:53.578978601647210496"),
        ),
        (
            -5901252433716382898,
            "as",
            Some("1969-12-31T23:59:54.098747566283617102"),
        ),
        (
            -4611686018427387904,
            "as",
            Some("1969-12-31T23:59:55.388313981572612096"),
        ),
        (
            -2601908546480111616,
            "as",
            Some("1969-12-31T23:59:57.398091453519888384"),
        ),
        (
            -1000000000000000000,
            "as",
            Some("1969-12-31T23:59:59.000000000000000000"),
        ),
        (
            -829110999044063232,
            "as",
            Some("1969-12-31T23:59:59.170889000955936768"),
        ),
        (
            -382645750638469272,
            "as",
            Some("1969-12-31T23:59:59.617354249361530728"),
        ),
        (
            -364110131196884978,
            "as",
            Some("1969-12-31T23:59:59.635889868803115022"),
        ),
        (
            -1000000000000000,
            "as",
            Some("1969-12-31T23:59:59.999000000000000000"),
        ),
        (
            -1000000000000,
            "as",
            Some("1969-12-31T23:59:59.999999000000000000"),
        ),
        (
            -3626886363,
            "as",
            Some("1969-12-31T23:59:59.999999996373113637"),
        ),
        (
            -1000000000,
            "as",
            Some("1969-12-31T23:59:59.999999999000000000"),
        ),
        (
            -9501584,
            "as",
            Some("1969-12-31T23:59:59.999999999990498416"),
        ),
        (
            -6022801,
            "as",
            Some("1969-12-31T23:59:59.999999999993977199"),
        ),
        (
            -1000000,
            "as",
            Some("1969-12-31T23:59:59.999999999999000000"),
        ),
        (-16, "as", Some("1969-12-31T23:59:59.999999999999999984")),
        (-2, "as", Some("1969-12-31T23:59:59.999999999999999998")),
        (-1, "as", Some("1969-12-31T23:59:59.999999999999999999")),
        (0, "as", Some("1970-01-01T00:00:00.000000000000000000")),
        (1, "as", Some("1970-01-01T00:00:00.000000000000000001")),
        (2, "as", Some("1970-01-01T00:00:00.000000000000000002")),
        (990, "as", Some("1970-01-01T00:00:00.000000000000000990")),
        (
            1000000,
            "as",
            Some("1970-01-01T00:00:00.000000000001000000"),
        ),
        (
            1000000000000,
            "as",
            Some("1970-01-01T00:00:00.000001000000000000"),
        ),
        (
            6365326756322,
            "as",
            Some("1970-01-01T00:00:00.000006365326756322"),
        ),
        (
            1000000000000000,
            "as",
            Some("1970-01-01T00:00:00.001000000000000000"),
        ),
        (
            57858694851654478,
            "as",
            Some("1970-01-01T00:00:00.057858694851654478"),
        ),
        (
            170889000955936768,
            "as",
            Some("1970-01-01T00:00:00.170889000955936768"),
        ),
        (
            697879660364562432,
            "as",
            Some("1970-01-01T00:00:00.697879660364562432"),
        ),
        (
            1000000000000000000,
            "as",
            Some("1970-01-01T00:00:01.000000000000000000"),
        ),
        (
            2685828671873872682,
            "as",
            Some("1970-01-01T00:00:02.685828671873872682"),
        ),
        (
            4611686018427387904,
            "as",
            Some("1970-01-01T00:00:04.611686018427387904"),
        ),
        (
            4703522645335827412,
            "as",
            Some("1970-01-01T00:00:04.703522645335827412"),
        ),
        (
            5492948368960622766,
            "as",
            Some("1970-01-01T00:00:05.492948368960622766"),
        ),
        (
            5750692192519613453,
            "as",
            Some("1970-01-01T00:00:05.750692192519613453"),
        ),
        (
            8798678361962098190,
            "as",
            Some("1970-01-01T00:00:08.798678361962098190"),
        ),
        (
            9223372036854775806,
            "as",
            Some("1970-01-01T00:00:09.223372036854775806"),
        ),
        (
            9223372036854775807,
            "as",
            Some("1970-01-01T00:00:09.223372036854775807"),
        ),
    ];
}
