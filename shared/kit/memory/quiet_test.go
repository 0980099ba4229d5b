package memory

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// The free heap goes back once after each quiet spell that follows requests: not before the
// first request, not while requests keep coming, and not again during the same spell.
func TestQuietRelease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n atomic.Int32
		q := &QuietRelease{release: func() { n.Add(1) }}
		h := q.Track(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
		call := func() { h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/mcp", nil)) }
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go q.Run(ctx, time.Minute)

		steps := []struct {
			name  string
			do    func()
			wait  time.Duration
			wantN int32
		}{
			{"idle from start", nil, 5 * time.Minute, 0},
			{"a call, then half a period", call, 30 * time.Second, 0},
			{"a whole quiet period", nil, 45 * time.Second, 1},
			{"the same spell goes on", nil, 5 * time.Minute, 1},
			{"calls every 20 s", func() {
				for range 6 {
					call()
					time.Sleep(20 * time.Second)
				}
			}, 0, 1},
			{"quiet after them", nil, 90 * time.Second, 2},
		}
		for _, st := range steps {
			if st.do != nil {
				st.do()
			}
			time.Sleep(st.wait)
			synctest.Wait()
			if got := n.Load(); got != st.wantN {
				t.Fatalf("%s: %d releases, want %d", st.name, got, st.wantN)
			}
		}
	})
}
