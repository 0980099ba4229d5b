package main

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/servers/notes/vaultgen"
)

// generatedVault returns a vault of count notes written by vaultgen, kept between runs in the
// temporary folder (it takes a while to write).
func generatedVault(b *testing.B, count int) string {
	b.Helper()
	dir := filepath.Join(os.TempDir(), "notes-vaultgen-"+strconv.Itoa(count)+"-1")
	marker := filepath.Join(dir, ".vaultgen")
	if _, err := os.Stat(marker); err == nil {
		return dir
	}
	_ = os.RemoveAll(dir)
	if _, err := vaultgen.Generate(dir, vaultgen.Options{Notes: count, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(marker, []byte("notes "+strconv.Itoa(count)+" seed 1\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkBuildVault10k measures the cold index build over a generated vault of 10,000 notes,
// in wall time and in the CPU time of the process (cpu-s/op, which a busy machine inflates less).
func BenchmarkBuildVault10k(b *testing.B) {
	vault := generatedVault(b, 10_000)
	var cpu time.Duration
	for range b.N {
		state := b.TempDir()
		cfg := storeConfig{notesDir: vault, indexFile: filepath.Join(state, "index.sqlite"), scanInterval: 2 * time.Second}
		cpu0 := processCPU(b)
		b.StartTimer()
		n := openTestStore(b, cfg)
		b.StopTimer()
		cpu += processCPU(b) - cpu0
		n.close()
	}
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
}

// processCPU is the CPU time the process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSearchVault10k measures list_notes with a query (the handler, without HTTP) over a
// generated vault of 10,000 notes and 300 varied searches, reporting p50 and p99.
func BenchmarkSearchVault10k(b *testing.B) {
	vault := generatedVault(b, 10_000)
	cfg := storeConfig{notesDir: vault, indexFile: filepath.Join(b.TempDir(), "index.sqlite"), scanInterval: 2 * time.Second}
	n := openTestStore(b, cfg)
	defer n.close()
	qs := vaultgen.Queries(vaultgen.Options{Notes: 10_000, Seed: 1}, 300)
	durs := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		t0 := time.Now()
		if _, _, err := n.findNotes(b.Context(), nil, findInput{Query: qs[i%len(qs)].Text}); err != nil {
			b.Fatal(err)
		}
		durs = append(durs, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(durs)
	b.ReportMetric(float64(durs[len(durs)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(durs[len(durs)*99/100].Microseconds())/1000, "p99-ms")
}

func openTestStore(b *testing.B, cfg storeConfig) *store {
	b.Helper()
	n, err := openStore(b.Context(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		b.Fatal(err)
	}
	return n
}
