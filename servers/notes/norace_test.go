//go:build !race

package main

// raceEnabled: the race detector slows SQLite (Go code) several times over.
const raceEnabled = false
