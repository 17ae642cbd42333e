// SPDX-License-Identifier: MIT
// A Rust program: its runtime gives every thread an 8 KiB alternate signal
// stack with a guard page, and handles SIGSEGV and SIGBUS on it.  Three
// threads and main each do a fixed amount of recursive integer work and
// print its result, the same in every run.
use std::thread;

#[inline(never)]
fn leaf(mut x: u64) -> u64 {
    for i in 0..60_000u64 {
        x = (x ^ (x >> 17)).wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(i);
    }
    x
}

#[inline(never)]
fn recurse(depth: u32, x: u64) -> u64 {
    if depth == 0 {
        leaf(x)
    } else {
        recurse(depth - 1, x.wrapping_mul(31).wrapping_add(depth as u64)).wrapping_add(1)
    }
}

fn work(seed: u64, rounds: u64) -> u64 {
    (0..rounds).fold(0u64, |sum, i| sum.wrapping_add(recurse(8 + (i % 8) as u32, seed + i)))
}

fn main() {
    let rounds: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(2000);
    let handles: Vec<_> = (1..=3u64).map(|k| thread::spawn(move || work(k, rounds))).collect();
    let main_sum = work(0, rounds);
    let mut sums = vec![main_sum];
    for h in handles {
        sums.push(h.join().expect("thread"));
    }
    for (k, s) in sums.iter().enumerate() {
        println!("thread {} sum {}", k, s);
    }
}
