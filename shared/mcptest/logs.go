package mcptest

import (
	"strings"
	"sync"
)

// safeBuilder collects the server's log lines from many goroutines.
type safeBuilder struct {
	mu sync.Mutex
	strings.Builder
}

func (b *safeBuilder) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.Builder.Write(p)
}

// String returns what was written so far.
func (b *safeBuilder) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.Builder.String()
}
