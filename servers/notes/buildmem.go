package main

import "runtime/debug"

// buildHeapLimit is the soft memory limit the Go runtime keeps to while the index is built
// from nothing (a new or rebuilt index). A build allocates the text of every note once, and
// with Go's default collector the heap then grows to twice its live size between
// collections; at 100,000 notes that, beside SQLite's own caches, took the build's anonymous
// memory past the 96 MiB the server is meant to stay within. The live heap mid-build is about
// 25 MiB (the vocabulary, the folder's listing, a batch read and one being written), so
// the collector runs a little more often under this limit rather than letting the heap double.
const buildHeapLimit = 56 << 20

// limitBuildMemory lowers the runtime's soft memory limit to buildHeapLimit, unless a lower
// one is set (GOMEMLIMIT or the unit's), and returns what puts the previous limit back.
func limitBuildMemory() (restore func()) {
	prev := debug.SetMemoryLimit(-1) // -1 reads the limit without changing it
	if prev <= buildHeapLimit {
		return func() {}
	}
	debug.SetMemoryLimit(buildHeapLimit)
	return func() { debug.SetMemoryLimit(prev) }
}
