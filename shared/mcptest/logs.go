package mcptest

import (
	"strings"
	"sync"
)

// LogBuffer collects a server's log lines written from many goroutines.
type LogBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

// Write appends p.
func (b *LogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what was written so far.
func (b *LogBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
