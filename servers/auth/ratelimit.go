package main

import (
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// maxBuckets bounds the per-address buckets of one endpoint: past it, idle buckets are
// dropped, and if none is idle, new addresses share one overflow bucket.
const maxBuckets = 4096

// bucketIdle is how long a bucket is kept unused; a full bucket refills within a minute.
const bucketIdle = time.Minute

// limits are the rate limits of the endpoints that check secrets or create state.
type limits struct {
	PerIP   int            // requests a minute per client address, per endpoint
	Global  int            // requests a minute per endpoint, all clients together
	Proxies []netip.Prefix // peers whose CF-Connecting-IP header names the client
}

// limiter limits one endpoint: a token bucket per client address (perIP a minute, bursts of
// as many) and one for everyone (global a minute), so that rotating addresses, or a header
// naming them, cannot go around it.
type limiter struct {
	perIP   int
	global  *rate.Limiter
	proxies []netip.Prefix
	refused func(reason string)
	now     func() time.Time

	mu       sync.Mutex
	buckets  map[string]*bucket
	overflow *rate.Limiter // shared by the addresses that find the map full
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

func newLimiter(l limits, refused func(string), now func() time.Time) *limiter {
	if now == nil {
		now = time.Now
	}
	return &limiter{perIP: l.PerIP, global: rate.NewLimiter(perMinute(l.Global), l.Global), proxies: l.Proxies,
		refused: refused, now: now,
		buckets: map[string]*bucket{}, overflow: rate.NewLimiter(perMinute(l.PerIP), l.PerIP)}
}

func perMinute(n int) rate.Limit { return rate.Limit(float64(n) / 60) }

// clientIP is the caller's address: the peer, or, when the peer is a configured proxy (the
// tunnel's cloudflared), the address its CF-Connecting-IP header names.
func (l *limiter) clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	peer = peer.Unmap()
	for _, p := range l.proxies {
		if p.Contains(peer) {
			if cf, err := netip.ParseAddr(r.Header.Get("Cf-Connecting-Ip")); err == nil {
				return cf.Unmap().String()
			}
			break
		}
	}
	return peer.String()
}

// allow takes one request from ip's bucket and the global one; when either is empty it
// reports how long until one is there.
func (l *limiter) allow(ip string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	own := l.overflow
	if b, ok := l.buckets[ip]; ok {
		b.seen, own = now, b.lim
	} else {
		if len(l.buckets) >= maxBuckets {
			for k, old := range l.buckets {
				if now.Sub(old.seen) > bucketIdle {
					delete(l.buckets, k)
				}
			}
		}
		if len(l.buckets) < maxBuckets {
			b := &bucket{lim: rate.NewLimiter(perMinute(l.perIP), l.perIP), seen: now}
			l.buckets[ip] = b
			own = b.lim
		}
	}
	mine := own.ReserveN(now, 1)
	if d := mine.DelayFrom(now); d > 0 {
		mine.CancelAt(now)
		return false, d
	}
	all := l.global.ReserveN(now, 1)
	if d := all.DelayFrom(now); d > 0 {
		all.CancelAt(now)
		mine.CancelAt(now)
		return false, d
	}
	return true, 0
}

// size is how many buckets are kept.
func (l *limiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

// wrap answers 429 with Retry-After and the wait in words once the budget is used: JSON
// ({"error", "error_description"}) to scripts and OAuth clients, text to a page load.
func (l *limiter) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ok, wait := l.allow(l.clientIP(r))
		if ok {
			next.ServeHTTP(w, r)
			return
		}
		l.refused("rate_limited")
		secs := int(math.Ceil(wait.Seconds()))
		msg := "Too many attempts: wait " + inWords(secs) + " and try again."
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		w.Header().Set("Cache-Control", "no-store")
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			http.Error(w, msg, http.StatusTooManyRequests)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": "rate_limited", "error_description": msg})
	})
}

// inWords says a wait of secs seconds as a person would: "1 second", "40 seconds",
// "2 minutes" (rounded up).
func inWords(secs int) string {
	switch {
	case secs <= 1:
		return "1 second"
	case secs < 60:
		return fmt.Sprintf("%d seconds", secs)
	case secs <= 60:
		return "1 minute"
	}
	return fmt.Sprintf("%d minutes", (secs+59)/60)
}

// parseProxies reads --trusted-proxies: IP addresses or CIDR prefixes, comma-separated.
func parseProxies(list []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range list {
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("invalid --trusted-proxies entry %q: give IP addresses or CIDR prefixes, e.g. 127.0.0.1,::1", s)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}
