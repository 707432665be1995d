//! Game clocks: [`TimeControl`], the `BASE+INC` a match is played at (`--tc 10+0.1`: ten seconds
//! per game, a tenth of a second added after each move), and its parser.
//!
//! Both agents start a game with `base` on their clock. The runner (see [`crate::run_match`])
//! measures each move's wall time and charges it to the mover's clock (`GameClocks`), which
//! takes it off and then adds the increment (Fischer's rule: a move must be made within the time
//! left *before* its increment); a mover whose move took longer than its time left loses on
//! time. Agents see the clocks as a [`crate::MoveClock`].
//!
//! Times are written in seconds with at most three decimals (`60`, `0.5+0.05`): milliseconds are
//! what the engine protocols count in, and decimal text is read exactly rather than through a
//! float.

use crate::agent::MoveClock;
use engine::go::Clock;
use game::Side;
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// The longest base or increment accepted, in seconds (a week): more is a typo, not a match.
const MAX_SECONDS: u64 = 7 * 24 * 3600;

/// A Fischer clock: `base` per game for each side, `increment` added after each move.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// Each side's time for the whole game, at its start (more than zero).
    pub base: Duration,
    /// Added to the mover's clock after each move it makes in time (zero: none).
    pub increment: Duration,
}

impl TimeControl {
    /// The clock each side starts a game with.
    #[must_use]
    pub fn start(&self) -> Clock {
        Clock { left: self.base, increment: self.increment }
    }
}

/// Both sides' clocks through one game, as the runner keeps them.
#[derive(Clone, Debug)]
pub(crate) struct GameClocks {
    /// By side ([`Side::index`]).
    clocks: [Clock; 2],
}

/// A move that took longer than the mover's time left.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Flagged {
    /// How long the move took.
    pub took: Duration,
    /// The time the mover had.
    pub left: Duration,
}

impl GameClocks {
    /// Both sides at the start of a game on `tc`.
    pub(crate) fn new(tc: &TimeControl) -> GameClocks {
        GameClocks { clocks: [tc.start(); 2] }
    }

    /// The clocks `side` sees when asked for a move.
    pub(crate) fn for_move(&self, side: Side) -> MoveClock {
        MoveClock { own: self.clocks[side.index()], other: self.clocks[side.opponent().index()], moves_to_go: None }
    }

    /// Charges `side` the `took` its move took, then adds its increment.
    ///
    /// # Errors
    /// [`Flagged`] when `took` is more than the time `side` had (its clock is left as it was).
    pub(crate) fn charge(&mut self, side: Side, took: Duration) -> Result<(), Flagged> {
        let clock = &mut self.clocks[side.index()];
        let left = clock.left.checked_sub(took).ok_or(Flagged { took, left: clock.left })?;
        clock.left = left + clock.increment;
        Ok(())
    }
}

/// A time control that does not read, with the text and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeControlError {
    /// The text as given.
    pub text: String,
    /// What is wrong with it.
    pub reason: String,
}

impl fmt::Display for TimeControlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} is not a time control: {}; expected BASE+INC in seconds (at most 3 decimals), \
             e.g. 10+0.1, 60 or 0.5+0.05",
            self.text, self.reason
        )
    }
}

impl std::error::Error for TimeControlError {}

impl FromStr for TimeControl {
    type Err = TimeControlError;

    /// Reads `BASE+INC` or `BASE` (no increment), in seconds.
    ///
    /// # Errors
    /// Anything but one or two plain decimal numbers joined by `+`, a base of zero, more than
    /// three decimals, or a time over a week.
    fn from_str(text: &str) -> Result<TimeControl, TimeControlError> {
        let error = |reason: String| TimeControlError { text: text.to_string(), reason };
        let (base, increment) = match text.split_once('+') {
            Some((base, increment)) => (base, Some(increment)),
            None => (text, None),
        };
        let base = seconds(base).map_err(|e| error(format!("base: {e}")))?;
        let increment = match increment {
            Some(inc) => seconds(inc).map_err(|e| error(format!("increment: {e}")))?,
            None => Duration::ZERO,
        };
        if base.is_zero() {
            return Err(error("the base time must be more than zero".to_string()));
        }
        Ok(TimeControl { base, increment })
    }
}

impl fmt::Display for TimeControl {
    /// The form the parser reads: `10+0.1`, or `60` without an increment.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", Seconds(self.base))?;
        if !self.increment.is_zero() {
            write!(f, "+{}", Seconds(self.increment))?;
        }
        Ok(())
    }
}

/// A duration written as seconds with no trailing zeros (`10`, `0.1`, `1.25`).
struct Seconds(Duration);

impl fmt::Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let millis = self.0.subsec_millis();
        if millis == 0 {
            write!(f, "{}", self.0.as_secs())
        } else {
            let fraction = format!("{millis:03}");
            write!(f, "{}.{}", self.0.as_secs(), fraction.trim_end_matches('0'))
        }
    }
}

/// A plain decimal number of seconds (`10`, `0.5`, `.5`), exact to the millisecond.
fn seconds(text: &str) -> Result<Duration, String> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (whole.is_empty() && fraction.is_empty()) || !digits(whole) || !digits(fraction) {
        return Err(format!("{text:?} is not a number of seconds"));
    }
    if fraction.len() > 3 {
        return Err(format!("{text:?} has more than 3 decimals"));
    }
    let too_long = || format!("{text:?} is more than a week");
    let secs: u64 = if whole.is_empty() { 0 } else { whole.parse().map_err(|_| too_long())? };
    // Three digits of milliseconds: "5" is 500, "05" is 50.
    let millis: u64 = format!("{fraction:0<3}").parse().map_err(|_| format!("{text:?} is not a number of seconds"))?;
    if secs > MAX_SECONDS || (secs == MAX_SECONDS && millis > 0) {
        return Err(too_long());
    }
    Ok(Duration::from_secs(secs) + Duration::from_millis(millis))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tc(text: &str) -> Result<TimeControl, TimeControlError> {
        text.parse()
    }

    fn ms(base: u64, increment: u64) -> TimeControl {
        TimeControl { base: Duration::from_millis(base), increment: Duration::from_millis(increment) }
    }

    #[test]
    fn reads_base_and_increment() {
        for (text, expected) in [
            ("10+0.1", ms(10_000, 100)),
            ("60", ms(60_000, 0)),
            ("0.5+0.05", ms(500, 50)),
            ("2+0", ms(2_000, 0)),
            (".5+.25", ms(500, 250)),
            ("1.125+2.", ms(1_125, 2_000)),
            ("604800", ms(604_800_000, 0)),
        ] {
            assert_eq!(tc(text), Ok(expected), "{text}");
        }
    }

    #[test]
    fn writes_what_it_reads() {
        for text in ["10+0.1", "60", "0.5+0.05", "1.125+2", "3+0.001"] {
            assert_eq!(tc(text).expect("valid").to_string(), text);
        }
        assert_eq!(tc("2+0").expect("valid").to_string(), "2");
    }

    #[test]
    fn refuses_bad_text_naming_what_is_wrong() {
        for (text, why) in [
            ("", "base: \"\" is not a number of seconds"),
            ("abc", "base: \"abc\" is not a number"),
            ("10+", "increment: \"\" is not a number"),
            ("+0.1", "base: \"\" is not a number"),
            ("10+0.1+1", "increment: \"0.1+1\" is not a number"),
            ("-1", "base: \"-1\" is not a number"),
            ("10+-1", "increment: \"-1\" is not a number"),
            ("1e3", "base: \"1e3\" is not a number"),
            ("inf", "base: \"inf\" is not a number"),
            ("NaN+1", "base: \"NaN\" is not a number"),
            ("10 +0.1", "base: \"10 \" is not a number"),
            ("1.2.3", "base: \"1.2.3\" is not a number"),
            (".", "base: \".\" is not a number"),
            ("0.0001", "more than 3 decimals"),
            ("0", "the base time must be more than zero"),
            ("0+1", "the base time must be more than zero"),
            ("604800.001", "more than a week"),
            ("99999999999999999999999", "more than a week"),
            ("10+700000", "increment: \"700000\" is more than a week"),
        ] {
            let e = tc(text).expect_err(text);
            let message = e.to_string();
            assert!(message.contains(why), "{text}: {message}");
            assert!(message.contains("expected BASE+INC in seconds"), "{text}: {message}");
            assert_eq!(e.text, text);
        }
    }

    #[test]
    fn each_side_starts_with_the_base() {
        let clock = ms(1_500, 20).start();
        assert_eq!((clock.left, clock.increment), (Duration::from_millis(1_500), Duration::from_millis(20)));
    }

    #[test]
    fn a_move_costs_its_time_and_earns_the_increment() {
        let millis = Duration::from_millis;
        let mut clocks = GameClocks::new(&ms(1_000, 100));
        clocks.charge(Side::First, millis(300)).expect("in time");
        let red = clocks.for_move(Side::First);
        assert_eq!((red.own.left, red.other.left), (millis(800), millis(1_000)));
        let black = clocks.for_move(Side::Second);
        assert_eq!((black.own, black.other, black.moves_to_go), (red.other, red.own, None));
        // All the time left is still in time; a moment more is not, and leaves the clock alone.
        clocks.charge(Side::First, millis(800)).expect("exactly in time");
        assert_eq!(clocks.for_move(Side::First).own.left, millis(100));
        assert_eq!(clocks.charge(Side::First, millis(101)), Err(Flagged { took: millis(101), left: millis(100) }));
        assert_eq!(clocks.for_move(Side::First).own.left, millis(100));
        assert_eq!(clocks.for_move(Side::Second).own.left, millis(1_000));
    }
}
