package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/servers/notes/drivesync"
	"github.com/jck411/mcp-servers/servers/notes/drivesync/drivetest"
)

// benchSyncer is a syncer over the store and a fresh fake Drive.
func benchSyncer(b *testing.B, n *store, state string) (*drivesync.Syncer, *drivetest.Fake) {
	b.Helper()
	fake := drivetest.New(b)
	sy, err := drivesync.New(drivesync.NewRemote(fake.API(b)), syncFolder{n}, drivesync.Options{Folder: "Notes", StateFile: filepath.Join(state, "sync.json"), Interval: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	return sy, fake
}

// BenchmarkSyncFirst1k measures a first sync that uploads 1,000 notes in 50 folders to a
// fake Drive on loopback HTTP (so: the sync's own cost plus one local round trip per file).
func BenchmarkSyncFirst1k(b *testing.B) {
	state := b.TempDir()
	corpus(b, filepath.Join(state, "notes"), 1_000)
	n := benchStore(b, state)
	defer n.close()
	for range b.N {
		b.StopTimer()
		sy, _ := benchSyncer(b, n, b.TempDir())
		b.StartTimer()
		rep, err := sy.Sync(b.Context())
		if err != nil || len(rep.Uploaded) != 1_000 {
			b.Fatalf("uploaded %d: %v", len(rep.Uploaded), err)
		}
	}
}

// BenchmarkSyncIdle10k measures a cycle with nothing to do over 10,000 synced notes: the walk
// comparing stamps and one changes call.
func BenchmarkSyncIdle10k(b *testing.B) {
	state := b.TempDir()
	corpus(b, filepath.Join(state, "notes"), 10_000)
	n := benchStore(b, state)
	defer n.close()
	sy, _ := benchSyncer(b, n, state)
	if rep, err := sy.Sync(b.Context()); err != nil || rep.Notes != 10_000 {
		b.Fatalf("first sync: %d notes, %v", rep.Notes, err)
	}
	if _, err := sy.Sync(b.Context()); err != nil { // lists once more: the first cycle's own uploads
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		rep, err := sy.Sync(b.Context())
		if err != nil || !rep.Idle {
			b.Fatalf("idle cycle = %+v, %v", rep, err)
		}
	}
}
