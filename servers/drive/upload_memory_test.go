package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/gdrive"
	"github.com/jck411/mcp-servers/shared/googlefake"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"google.golang.org/api/drive/v3"
)

// An upload larger than the server's whole memory budget streams from the file chunk by chunk:
// the Go heap (the server runs in this process) grows by a few chunks, not by the file. The
// fake takes the chunks as Drive does and only counts them, so that it holds nothing either.
// Not parallel: other tests' allocations would blur the heap it watches.
func TestUploadStreamsLargeFile(t *testing.T) {
	const size = 96 << 20   // over the 24 MiB a server may use right after a burst
	const budget = 16 << 20 // what the heap may grow by: a few 2 MiB chunks and their copies
	dir := t.TempDir()
	path := filepath.Join(dir, "big.bin")
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := fh.Truncate(size); err != nil { // sparse: costs no disk
		t.Fatal(err)
	}
	_ = fh.Close()

	f := newFakeDrive(t)
	var received, chunks atomic.Int64
	f.Intercept = func(w http.ResponseWriter, r *http.Request, next http.Handler) {
		if r.URL.Query().Get("upload_id") == "" {
			next.ServeHTTP(w, r)
			return
		}
		n, err := io.Copy(io.Discard, r.Body)
		if err != nil {
			googlefake.WriteError(w, http.StatusBadRequest, err.Error(), "badRequest")
			return
		}
		chunks.Add(1)
		total := received.Add(n)
		if cr := r.Header.Get("Content-Range"); strings.HasSuffix(cr, "/*") {
			w.Header().Set("Range", fmt.Sprintf("bytes=0-%d", total-1))
			w.Header().Set("X-Http-Status-Code-Override", "308")
			return
		}
		googlefake.WriteJSON(w, &drive.File{Id: "big1", Name: "big.bin", MimeType: "application/octet-stream", Size: total})
	}
	h := mcptest.Start(t, spec(), append(signIn(t, f), "--uploads-dir", dir, "--max-file-bytes", fmt.Sprint(size+1))...)
	cs := h.Connect(t, "")

	runtime.GC()
	base := heapBytes()
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			if b := heapBytes(); b > peak.Load() {
				peak.Store(b)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	})
	out, _ := mcptest.CallFor[fileOutput](t, cs, "upload_file", map[string]any{"path": "big.bin"})
	close(stop)
	wg.Wait()

	if out.Size != size || received.Load() != size {
		t.Fatalf("uploaded %d bytes (Drive got %d), want %d", out.Size, received.Load(), size)
	}
	if want := int64(size / gdrive.ChunkSize); chunks.Load() < want {
		t.Errorf("%d upload requests, want at least %d chunks", chunks.Load(), want)
	}
	grew := int64(peak.Load()) - int64(base)
	t.Logf("heap %d KiB before, peak %d KiB during a %d MiB upload in %d chunks", base>>10, peak.Load()>>10, size>>20, chunks.Load())
	if grew > budget {
		t.Errorf("the heap grew by %d MiB during the upload, over %d MiB: the file is being buffered", grew>>20, budget>>20)
	}
}

// heapBytes is the memory held by live and not yet swept heap objects.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
