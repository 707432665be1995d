//! The transposition table: buckets of four entries, replaced by depth and age, shared between
//! search threads without locks.
//!
//! Each entry is two `AtomicU64`: the data word and the key xored with the data word. A reader
//! accepts an entry only if `stored key ^ data == key`, so an entry torn by two threads writing
//! at once (one word from each) fails the test and reads as a miss. That race is accepted on
//! purpose, as in most engines: it costs a rare lost entry, never a wrong one (beyond a 2^-64
//! key collision), and needs no locks.
//!
//! Data word: move id (32 bits) | score (16, signed) | depth (8) | bound (2) | age (6).

use std::sync::atomic::{AtomicU64, Ordering};

/// What a stored score means relative to the true value.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The true score is at most this (every move failed low).
    Upper = 1,
    /// The true score is at least this (a move failed high).
    Lower = 2,
    /// The true score.
    Exact = 3,
}

/// A decoded entry.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The best move found, by [`crate::SearchGame::move_id`] (0 for none).
    pub move_id: u32,
    /// The score, mate distances measured from this position.
    pub score: i32,
    /// Depth searched.
    pub depth: i32,
    /// How to read the score.
    pub bound: Bound,
}

const BUCKET: usize = 4;

struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

/// A shared transposition table.
pub struct TranspositionTable {
    slots: Vec<Slot>,
    buckets: usize,
    age: AtomicU64,
}

fn pack(e: &Entry, age: u64) -> u64 {
    u64::from(e.move_id)
        | (u64::from(e.score.clamp(-32_768, 32_767) as i16 as u16)) << 32
        | (e.depth.clamp(0, 255) as u64) << 48
        | (e.bound as u64) << 56
        | (age & 63) << 58
}

fn unpack(data: u64) -> Option<(Entry, u64)> {
    let bound = match (data >> 56) & 3 {
        1 => Bound::Upper,
        2 => Bound::Lower,
        3 => Bound::Exact,
        _ => return None,
    };
    let entry = Entry {
        move_id: data as u32,
        score: i32::from((data >> 32) as u16 as i16),
        depth: ((data >> 48) & 255) as i32,
        bound,
    };
    Some((entry, data >> 58))
}

impl TranspositionTable {
    /// A table of about `mb` mebibytes (at least one bucket).
    #[must_use]
    pub fn new(mb: usize) -> TranspositionTable {
        let bytes = mb.max(1) * 1024 * 1024;
        let buckets = (bytes / (BUCKET * 16)).max(1);
        let slots = (0..buckets * BUCKET).map(|_| Slot { check: AtomicU64::new(0), data: AtomicU64::new(0) }).collect();
        TranspositionTable { slots, buckets, age: AtomicU64::new(0) }
    }

    /// Forgets everything.
    pub fn clear(&self) {
        for s in &self.slots {
            s.check.store(0, Ordering::Relaxed);
            s.data.store(0, Ordering::Relaxed);
        }
    }

    /// Marks the start of a new search: older entries become preferred victims.
    pub fn new_search(&self) {
        self.age.fetch_add(1, Ordering::Relaxed);
    }

    fn bucket(&self, key: u64) -> &[Slot] {
        let i = ((u128::from(key) * self.buckets as u128) >> 64) as usize;
        &self.slots[i * BUCKET..(i + 1) * BUCKET]
    }

    /// The entry for `key`, if stored.
    #[must_use]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        for slot in self.bucket(key) {
            let data = slot.data.load(Ordering::Relaxed);
            if data != 0 && slot.check.load(Ordering::Relaxed) ^ data == key {
                return unpack(data).map(|(e, _)| e);
            }
        }
        None
    }

    /// Stores `entry` for `key`, replacing the same key, else the shallowest or oldest entry.
    pub fn store(&self, key: u64, entry: Entry) {
        let age = self.age.load(Ordering::Relaxed) & 63;
        let bucket = self.bucket(key);
        let mut victim = 0;
        let mut worst = i32::MAX;
        for (i, slot) in bucket.iter().enumerate() {
            let data = slot.data.load(Ordering::Relaxed);
            if data == 0 || slot.check.load(Ordering::Relaxed) ^ data == key {
                // Same position: keep the older move if the new search found none.
                let mut entry = entry;
                if entry.move_id == 0 {
                    if let Some((old, _)) = unpack(data) {
                        entry.move_id = old.move_id;
                    }
                }
                return write(slot, key, &entry, age);
            }
            let Some((old, old_age)) = unpack(data) else { continue };
            // Worth of keeping: depth, minus a penalty for each search it has sat through.
            let stale = ((age + 64 - old_age) & 63) as i32;
            let worth = old.depth - 4 * stale;
            if worth < worst {
                worst = worth;
                victim = i;
            }
        }
        write(&bucket[victim], key, &entry, age);
    }

    /// Per mille of the first thousand buckets' entries written in the current search (UCI
    /// `hashfull`).
    #[must_use]
    pub fn hashfull(&self) -> u32 {
        let age = self.age.load(Ordering::Relaxed) & 63;
        let n = self.slots.len().min(1000);
        let used = self.slots[..n]
            .iter()
            .filter(|s| {
                let d = s.data.load(Ordering::Relaxed);
                d != 0 && (d >> 58) == age
            })
            .count();
        (used * 1000 / n.max(1)) as u32
    }
}

fn write(slot: &Slot, key: u64, entry: &Entry, age: u64) {
    let data = pack(entry, age);
    slot.data.store(data, Ordering::Relaxed);
    slot.check.store(key ^ data, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_and_probe() {
        let tt = TranspositionTable::new(1);
        let e = Entry { move_id: 1234, score: -29_990, depth: 7, bound: Bound::Lower };
        tt.store(42, e);
        assert_eq!(tt.probe(42), Some(e));
        assert_eq!(tt.probe(43), None);
        // Same key, no move: the old move is kept.
        tt.store(42, Entry { move_id: 0, score: 5, depth: 8, bound: Bound::Exact });
        assert_eq!(tt.probe(42), Some(Entry { move_id: 1234, score: 5, depth: 8, bound: Bound::Exact }));
        tt.clear();
        assert_eq!(tt.probe(42), None);
    }

    #[test]
    fn replacement_prefers_shallow_entries() {
        let tt = TranspositionTable::new(1);
        // Small keys all land in bucket 0: the top bits pick the bucket.
        let keys: Vec<u64> = (0..5).collect();
        for (i, &k) in keys.iter().take(4).enumerate() {
            tt.store(k, Entry { move_id: 1, score: 0, depth: 10 - i as i32, bound: Bound::Exact });
        }
        tt.store(keys[4], Entry { move_id: 1, score: 0, depth: 9, bound: Bound::Exact });
        // The shallowest (depth 7, key 3) went.
        assert!(tt.probe(keys[3]).is_none());
        assert!(tt.probe(keys[0]).is_some() && tt.probe(keys[4]).is_some());
    }
}
