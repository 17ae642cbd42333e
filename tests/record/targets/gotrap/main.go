// SPDX-License-Identifier: MIT
// gotrap: a Go program as Go builds them with cgo (dynamically linked, so
// that the profiler's agent is loaded into it).  Go's runtime installs a
// handler for every signal at start, SIGTRAP and the sampling signal
// included, through the C library's sigaction (cgo).  It spins for 0.4 s
// of CPU time in gotrapSpin, 0.2 s in the main goroutine then 0.2 s in
// another one, then sends itself a SIGTRAP that it waits for with signal.Notify, and
// prints "gotrap ok trap received" (or "... trap lost") and exits 0.
// The test builds it with Debian's golang-go when that is installed.
package main

// #include <stdlib.h>
import "C"

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func cpuSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

//go:noinline
func gotrapSpin(seconds float64) uint64 {
	x := uint64(7)
	end := cpuSeconds() + seconds
	for cpuSeconds() < end {
		for i := 0; i < 100000; i++ {
			x = (x ^ (x >> 17)) * 0x9E3779B97F4A7C15
		}
	}
	return x
}

func main() {
	C.free(C.malloc(16)) // a cgo call: the C library is in use
	traps := make(chan os.Signal, 1)
	signal.Notify(traps, syscall.SIGTRAP)
	x := gotrapSpin(0.2)
	done := make(chan uint64)
	go func() { done <- gotrapSpin(0.2) }()
	x ^= <-done
	syscall.Kill(os.Getpid(), syscall.SIGTRAP)
	what := "trap lost"
	select {
	case <-traps:
		what = "trap received"
	case <-time.After(5 * time.Second):
	}
	fmt.Println("gotrap ok", what, x%2 < 2)
}
