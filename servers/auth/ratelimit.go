package main

import (
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
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

// limiter limits one endpoint: a token bucket per client (perIP a minute, bursts of as many)
// and one for everyone (global a minute), so that rotating addresses, or a header naming them,
// cannot go around it. Requests the owner's side makes (see owner) draw on a budget of their
// own beside the shared one, of the same size, so others spending the shared budget cannot
// lock the owner out of signing in.
type limiter struct {
	perIP   int
	global  *rate.Limiter
	reserve *rate.Limiter // the owner's share, beside global
	owner   func(*http.Request) bool
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
	return &limiter{perIP: l.PerIP, global: rate.NewLimiter(perMinute(l.Global), l.Global), reserve: rate.NewLimiter(perMinute(l.Global), l.Global),
		owner: func(*http.Request) bool { return false }, proxies: l.Proxies, refused: refused, now: now,
		buckets: map[string]*bucket{}, overflow: rate.NewLimiter(perMinute(l.PerIP), l.PerIP)}
}

// forOwner makes the requests owner recognises draw on the owner's reserved budget.
func (l *limiter) forOwner(owner func(*http.Request) bool) *limiter {
	l.owner = owner
	return l
}

func perMinute(n int) rate.Limit { return rate.Limit(float64(n) / 60) }

// clientKey is the caller as the per-client budgets count it: its address, which is the TCP
// peer's or, when the peer is a trusted proxy (the tunnel's cloudflared), the one its single
// CF-Connecting-IP header names (parsed as an IP address; anything else is ignored and the
// peer counts). IPv4-mapped IPv6 addresses count as the IPv4 address, zones are dropped, and
// IPv6 addresses count per /64 — the block one subscriber gets — so that one host cannot hop
// through its 2^64 addresses.
func (l *limiter) clientKey(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	addr := peer.Unmap()
	for _, p := range l.proxies {
		if !p.Contains(addr) {
			continue
		}
		if v := r.Header.Values("Cf-Connecting-Ip"); len(v) == 1 {
			if named, err := netip.ParseAddr(strings.TrimSpace(v[0])); err == nil {
				addr = named.Unmap()
			}
		}
		break
	}
	return addrKey(addr)
}

// addrKey is an address's budget key: an IPv4 address itself, an IPv6 address's /64.
func addrKey(a netip.Addr) string {
	a = a.WithZone("")
	if a.Is6() {
		return netip.PrefixFrom(a, 64).Masked().String()
	}
	return a.String()
}

// allow takes one request from the client's bucket and the global one (the owner's reserve
// for an owner's request); when either is empty it reports how long until one is there.
func (l *limiter) allow(ip string, owner bool) (bool, time.Duration) {
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
	global := l.global
	if owner {
		global = l.reserve
	}
	all := global.ReserveN(now, 1)
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
		ok, wait := l.allow(l.clientKey(r), l.owner(r))
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
