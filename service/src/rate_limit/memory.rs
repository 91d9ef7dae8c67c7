//! The in-memory store: each instance counts its own requests.
//!
//! Windows are kept in 16 shards, each behind its own lock, keyed by a keyed
//! hash of the token's key. A request touches only its own window, so its
//! cost does not grow with the number of tokens; windows quiet for a whole
//! minute are swept from a shard at most once a minute (a pass over that
//! shard, spread across requests).

use std::collections::hash_map::RandomState;
use std::collections::{HashMap, VecDeque};
use std::hash::BuildHasher;
use std::sync::Mutex;
use std::time::Instant;

use super::{Verdict, WINDOW};

const SHARDS: usize = 16;

/// Sliding windows of request times, per key.
pub struct MemoryStore {
    hasher: RandomState,
    shards: Box<[Mutex<Shard>]>,
}

struct Shard {
    windows: HashMap<u64, VecDeque<Instant>>,
    swept: Instant,
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
            shards: (0..SHARDS)
                .map(|_| {
                    Mutex::new(Shard {
                        windows: HashMap::new(),
                        swept: now,
                    })
                })
                .collect(),
        }
    }

    /// Counts a request of `key` at `now` against `per_minute`.
    pub fn hit(&self, key: &str, per_minute: u32, now: Instant) -> Verdict {
        let hash = self.hasher.hash_one(key);
        let mut shard = self.shards[(hash as usize) % SHARDS]
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if now.saturating_duration_since(shard.swept) >= WINDOW {
            // Forget keys that have been quiet for a whole window.
            shard.windows.retain(|_, times| {
                times
                    .back()
                    .is_some_and(|t| now.saturating_duration_since(*t) < WINDOW)
            });
            shard.swept = now;
        }
        let times = shard.windows.entry(hash).or_default();
        while times
            .front()
            .is_some_and(|t| now.saturating_duration_since(*t) >= WINDOW)
        {
            times.pop_front();
        }
        let limit = per_minute as usize;
        if times.len() >= limit {
            let oldest = times[times.len() - limit];
            let wait = WINDOW.saturating_sub(now.saturating_duration_since(oldest));
            return Verdict::Refused {
                retry_after: wait.as_secs() + u64::from(wait.subsec_nanos() > 0),
            };
        }
        times.push_back(now);
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
