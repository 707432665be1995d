//! Where self-play's randomness comes from.
//!
//! Every random choice of a worker (which games play without resignation, which moves get a
//! full search, root noise, sampling the move) derives from one **worker seed**:
//!
//! ```text
//! worker_seed = mix(mix(mix(run_seed) ^ instance) ^ worker_index)
//! game_seed   = mix(worker_seed ^ mix(game_index + 1))     game_index counts the worker's games from 0
//! ```
//!
//! `mix` is SplitMix64's finaliser. The **instance** is the process-unique part: the `qizero`
//! binary draws one at random per process (so parallel self-play processes writing into one
//! run never play the same games) and prints it; passing it back (`--instance`) replays a
//! process's games exactly, given the same binary, model and thread count. Each game's tree and
//! its own choices use only its game seed, so with a deterministic evaluator a game does not
//! depend on which other games share its batches. The shard header's seed is the worker seed,
//! and a game's id is its game seed.

/// SplitMix64's finaliser: a bijection of `u64` that spreads every input bit over the output.
#[must_use]
pub fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The seed of worker `worker` of the process `instance` in the run seeded `run_seed`.
#[must_use]
pub fn worker_seed(run_seed: u64, instance: u64, worker: usize) -> u64 {
    mix(mix(mix(run_seed) ^ instance) ^ worker as u64)
}

/// The seed of the worker's game number `index` (0-based); also the game's id in its shard.
#[must_use]
pub fn game_seed(worker_seed: u64, index: u64) -> u64 {
    mix(worker_seed ^ mix(index.wrapping_add(1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_differ_per_worker_instance_and_game() {
        let a = worker_seed(1, 0, 0);
        assert_eq!(a, worker_seed(1, 0, 0));
        assert_ne!(a, worker_seed(1, 0, 1));
        assert_ne!(a, worker_seed(1, 1, 0));
        assert_ne!(a, worker_seed(2, 0, 0));
        assert_ne!(game_seed(a, 0), game_seed(a, 1));
        assert_ne!(game_seed(a, 0), a);
    }
}
