//! The in-memory store: each instance counts its own requests.
//!
//! A request costs the same whatever the number of windows held: one keyed
//! hash of the token's key (which picks one of 16 shards, each behind its own
//! lock, and is the window's key in that shard's map, used as it is), one
//! probe of that map, and a pop and a push at the two ends of the window's
//! request times. Windows quiet for a whole minute are swept from a shard at
//! most once a minute (a pass over that shard, spread across requests).
//!
//! The times are milliseconds of the store's own clock, 4 bytes each (the
//! Redis store counts in milliseconds too): a window of 250 requests is
//! 1 KB, of 8 requests 32 bytes, so that many windows stay in the caches.
//! A `u32` of milliseconds wraps after 49.7 days; ages are taken modulo
//! 2^32 and read as signed, which is right while every time held is less
//! than 24.8 days old. Every time held is less than four minutes old: a
//! window's times are less than a minute older than its newest (older ones
//! are dropped when it counts one), a shard that counted nothing for a
//! minute is emptied before it counts again (so it is swept at least every
//! two minutes), and a sweep drops a window whose newest time is a minute
//! old: at most three minutes after that time.

use std::collections::hash_map::RandomState;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasher, BuildHasherDefault, Hasher};
use std::sync::Mutex;
use std::time::Instant;

use super::{Verdict, WINDOW};

const SHARDS: usize = 16;

/// The window in milliseconds of the store's clock.
const WINDOW_MS: i32 = WINDOW.as_millis() as i32;

/// Sliding windows of request times, per key.
pub struct MemoryStore {
    hasher: RandomState,
    /// Time zero of the store's millisecond clock.
    epoch: Instant,
    shards: Box<[Mutex<Shard>]>,
}

struct Shard {
    /// Request times of each key (milliseconds of the store's clock, oldest
    /// first), by the keyed hash of the key.
    windows: HashMap<u64, VecDeque<u32>, BuildHasherDefault<AlreadyHashed>>,
    swept: Instant,
    /// The latest time the shard counted a request at.
    last: Instant,
}

/// The maps' hasher: their keys are already keyed hashes of the tokens' keys
/// (SipHash with the store's random keys, so a client cannot choose tokens
/// that collide), which are used as they are instead of being hashed again.
#[derive(Default)]
struct AlreadyHashed(u64);

impl Hasher for AlreadyHashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u64` is used (the keys are `u64`); folded for completeness.
        for &byte in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(byte);
        }
    }

    fn write_u64(&mut self, hash: u64) {
        self.0 = hash;
    }
}

impl Default for MemoryStore {
    fn default() -> Self {
        MemoryStore::new()
    }
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> MemoryStore {
        let now = Instant::now();
        MemoryStore {
            hasher: RandomState::new(),
            epoch: now,
            shards: (0..SHARDS)
                .map(|_| {
                    Mutex::new(Shard {
                        windows: HashMap::default(),
                        swept: now,
                        last: now,
                    })
                })
                .collect(),
        }
    }

    /// `now` on the store's millisecond clock (modulo 2^32).
    fn milliseconds(&self, now: Instant) -> u32 {
        let since = now.saturating_duration_since(self.epoch);
        (since.as_secs() * 1000 + u64::from(since.subsec_millis())) as u32
    }

    /// Counts a request of `key` at `now` against `per_minute`.
    pub fn hit(&self, key: &str, per_minute: u32, now: Instant) -> Verdict {
        let hash = self.hasher.hash_one(key);
        let at = self.milliseconds(now);
        // The shard from bits the map does not use: it takes its bucket from
        // the low bits and its tag from the top seven.
        let mut shard = self.shards[(hash >> 32) as usize % SHARDS]
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if now.saturating_duration_since(shard.last) >= WINDOW {
            // Every window has been quiet for a whole window.
            shard.windows.clear();
            shard.swept = now;
        } else if now.saturating_duration_since(shard.swept) >= WINDOW {
            // Forget keys that have been quiet for a whole window.
            shard
                .windows
                .retain(|_, times| times.back().is_some_and(|&t| age(at, t) < WINDOW_MS));
            shard.swept = now;
        }
        shard.last = shard.last.max(now);
        let times = shard.windows.entry(hash).or_default();
        while times.front().is_some_and(|&t| age(at, t) >= WINDOW_MS) {
            times.pop_front();
        }
        let limit = per_minute as usize;
        if times.len() >= limit {
            let oldest = times[times.len() - limit];
            let wait = WINDOW_MS - age(at, oldest).max(0);
            return Verdict::Refused {
                retry_after: super::whole_seconds(i64::from(wait)),
            };
        }
        times.push_back(at);
        Verdict::Allowed {
            remaining: (limit - times.len()) as u64,
        }
    }

    /// How many keys have a window (for tests and benchmarks).
    pub fn keys(&self) -> usize {
        self.shards
            .iter()
            .map(|shard| {
                shard
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner())
                    .windows
                    .len()
            })
            .sum()
    }
}

/// How long before `now` a request at `then` was, in milliseconds; negative
/// for a request counted at a later time by another thread (which took its
/// time before this one, but the lock after it).
fn age(now: u32, then: u32) -> i32 {
    now.wrapping_sub(then) as i32
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn the_window_slides() {
        let store = MemoryStore::new();
        let start = Instant::now();
        let at = |seconds: u64| start + Duration::from_secs(seconds);
        assert_eq!(store.hit("a", 3, at(0)), Verdict::Allowed { remaining: 2 });
        assert_eq!(store.hit("a", 3, at(10)), Verdict::Allowed { remaining: 1 });
        assert_eq!(store.hit("a", 3, at(20)), Verdict::Allowed { remaining: 0 });
        assert_eq!(
            store.hit("a", 3, at(30)),
            Verdict::Refused { retry_after: 30 }
        );
        assert_eq!(
            store.hit("b", 3, at(30)),
            Verdict::Allowed { remaining: 2 },
            "keys are counted apart"
        );
        // The first request leaves the window at 60 s.
        assert_eq!(store.hit("a", 3, at(60)), Verdict::Allowed { remaining: 0 });
        assert_eq!(
            store.hit("a", 3, at(61)),
            Verdict::Refused { retry_after: 9 }
        );
    }

    #[test]
    fn quiet_keys_are_swept_after_a_window() {
        let store = MemoryStore::new();
        let start = Instant::now();
        for n in 0..1000 {
            store.hit(&format!("k{n}"), 10, start);
        }
        assert_eq!(store.keys(), 1000);
        // A minute later each shard is swept by the first request it sees.
        let later = start + WINDOW + Duration::from_secs(1);
        for n in 0..100 {
            store.hit(&format!("new{n}"), 10, later);
        }
        assert!(store.keys() <= 100 + 1000 / 4, "{} keys kept", store.keys());
        assert!(store.keys() >= 100);
    }

    // What keeps a check's cost independent of the number of windows
    // (issue 18, defect 7): no pass over a shard more than once a window,
    // keys spread over the shards' locks, and the maps taking the keyed hash
    // as it is. None changes a verdict, so each is pinned down here.

    #[test]
    fn a_shard_is_swept_at_most_once_a_window() {
        let store = MemoryStore::new();
        let created = store.epoch;
        for seconds in [1, 30, 59] {
            store.hit("k", 1000, created + Duration::from_secs(seconds));
        }
        for shard in store.shards.iter() {
            assert_eq!(
                shard.lock().unwrap().swept,
                created,
                "a shard was swept within a window of the last sweep"
            );
        }
    }

    #[test]
    fn a_sweep_drops_a_window_whose_newest_time_is_a_window_old() {
        let store = MemoryStore::new();
        let shard_of = |key: &str| (store.hasher.hash_one(key) >> 32) as usize % SHARDS;
        // Two keys of one shard: the second keeps the shard from being
        // emptied whole, so that the sweep is what drops the first.
        let quiet = "quiet".to_owned();
        let busy = (0..)
            .map(|n| format!("busy{n}"))
            .find(|key| shard_of(key) == shard_of(&quiet))
            .unwrap();
        let created = store.epoch;
        store.hit(&quiet, 10, created);
        store.hit(&busy, 10, created + Duration::from_secs(30));
        store.hit(&busy, 10, created + WINDOW);
        assert_eq!(store.keys(), 1, "the quiet window, a minute old, is kept");
    }

    #[test]
    fn keys_are_spread_over_every_shard() {
        let store = MemoryStore::new();
        let now = Instant::now();
        for n in 0..1000 {
            store.hit(&format!("k{n}"), 10, now);
        }
        for (index, shard) in store.shards.iter().enumerate() {
            let held = shard.lock().unwrap().windows.len();
            // 1000 keys over 16 shards: 62.5 each on average; none empty.
            assert!(held > 0, "shard {index} holds none of 1000 keys");
        }
    }

    #[test]
    fn the_maps_use_the_keyed_hash_as_it_is() {
        let maps = BuildHasherDefault::<AlreadyHashed>::default();
        for hash in [1_u64, 0xdead_beef, u64::MAX, 1 << 63] {
            assert_eq!(maps.hash_one(hash), hash);
        }
    }

    #[test]
    fn a_time_taken_before_the_latest_one_held_is_counted_not_dropped() {
        // Two threads take their times, then the lock in the other order.
        let store = MemoryStore::new();
        let start = Instant::now();
        let at = |ms: u64| start + Duration::from_millis(ms);
        assert_eq!(
            store.hit("a", 2, at(10_000)),
            Verdict::Allowed { remaining: 1 }
        );
        assert_eq!(
            store.hit("a", 2, at(9_999)),
            Verdict::Allowed { remaining: 0 }
        );
        assert_eq!(
            store.hit("a", 2, at(10_000)),
            Verdict::Refused { retry_after: 60 }
        );
    }

    #[test]
    fn a_window_is_not_mistaken_for_a_new_one_when_the_clock_wraps() {
        // 2^32 ms later the store's u32 clock reads the same again; the shard
        // had counted nothing since, so the old window is gone.
        let store = MemoryStore::new();
        let start = Instant::now();
        assert_eq!(store.hit("a", 1, start), Verdict::Allowed { remaining: 0 });
        let wrapped = start + Duration::from_millis(1 << 32);
        assert_eq!(
            store.hit("a", 1, wrapped),
            Verdict::Allowed { remaining: 0 }
        );
        assert_eq!(
            store.hit("a", 1, wrapped),
            Verdict::Refused { retry_after: 60 }
        );
    }
}

/// `Retry-After` is a whole number of seconds, and a client relies on it
/// both ways: waiting that long is enough, and it is not longer than needed.
#[cfg(test)]
mod retry_after_tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn waiting_retry_after_seconds_is_enough_and_a_second_less_is_not() {
        // Refusals at whole seconds and between them (the wait is rounded up).
        for refused_after in [0, 1, 500, 999, 30_000, 30_250, 59_999] {
            let store = MemoryStore::new();
            let start = Instant::now();
            assert!(matches!(
                store.hit("k", 1, start),
                Verdict::Allowed { remaining: 0 }
            ));
            let at = start + Duration::from_millis(refused_after);
            let Verdict::Refused { retry_after } = store.hit("k", 1, at) else {
                panic!("a second request within the window was allowed");
            };
            let wait = Duration::from_secs(retry_after);
            let needed = WINDOW - Duration::from_millis(refused_after);
            assert!(
                wait >= needed && wait < needed + Duration::from_secs(1),
                "refused {refused_after} ms after the first request: Retry-After {retry_after} s, \
                 the window frees up in {needed:?}"
            );
            assert!(
                matches!(
                    store.hit("k", 1, at + wait - Duration::from_secs(1)),
                    Verdict::Refused { .. }
                ),
                "allowed a second before Retry-After ({refused_after} ms)"
            );
            assert!(
                matches!(store.hit("k", 1, at + wait), Verdict::Allowed { .. }),
                "still refused after waiting Retry-After ({refused_after} ms)"
            );
        }
    }
}
