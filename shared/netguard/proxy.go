package netguard

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"sync"
	"time"
)

// BlockedHeader marks a response the proxy made up because it refused the request.
const BlockedHeader = "X-Browser-Server-Blocked"

// Block is one refused request.
type Block struct {
	Seq    uint64
	Target string // host:port or URL
	Reason string
}

// Proxy is an HTTP forward proxy (plain requests and CONNECT tunnels) on a loopback port that
// dials through a Policy. The browser is started with it as its only way out, and only that
// browser may use it: see AllowBrowser.
type Proxy struct {
	policy *Policy
	log    *slog.Logger
	ln     net.Listener
	peers  *peers
	srv    *http.Server
	rp     *httputil.ReverseProxy

	mu     sync.Mutex
	seq    uint64
	blocks []Block // the last maxBlocks refusals
}

const maxBlocks = 64

// StartProxy listens on 127.0.0.1 on a free port and serves until Close. It refuses every
// connection until AllowBrowser names the browser.
func StartProxy(policy *Policy, log *slog.Logger) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("netguard proxy: %w", err)
	}
	p := &Proxy{policy: policy, log: log, ln: ln, peers: newPeers("/proc")}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL = pr.In.URL
			pr.Out.Host = pr.In.Host
			pr.Out.Header.Del("Proxy-Connection")
			pr.Out.Header.Del("Proxy-Authorization")
		},
		Transport: &http.Transport{
			DialContext:           p.dial,
			Proxy:                 nil,
			MaxIdleConns:          64,
			IdleConnTimeout:       60 * time.Second,
			TLSHandshakeTimeout:   15 * time.Second,
			ResponseHeaderTimeout: 60 * time.Second,
		},
		ErrorHandler: p.fail,
		ErrorLog:     slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug)}
	go func() { _ = p.srv.Serve(&guardedListener{Listener: ln, peers: p.peers, log: log}) }()
	return p, nil
}

// AllowBrowser lets the process pid (the browser the server started) and its descendants use
// the proxy, and nobody else: each connection's client socket must belong to the server's uid
// and be open in one of those processes. pid 0 refuses everyone (no browser running).
func (p *Proxy) AllowBrowser(pid int) error { return p.peers.allow(pid) }

// refusedReply is what a client that is not the browser reads before the proxy hangs up.
var refusedReply = func() string {
	const body = "this proxy serves only the browser started by the MCP browser server\n"
	return fmt.Sprintf("HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
}()

// guardedListener hands the HTTP server only the connections that come from the browser.
type guardedListener struct {
	net.Listener
	peers *peers
	log   *slog.Logger
}

func (l *guardedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		start := time.Now()
		err = l.peers.check(c)
		if err == nil {
			l.log.Debug("proxy connection admitted", "client", c.RemoteAddr().String(), "check", time.Since(start))
			return c, nil
		}
		l.log.Warn("proxy connection refused: not the browser", "client", c.RemoteAddr().String(), "reason", err.Error())
		go turnAway(c)
	}
}

// turnAway answers 403 and hangs up gracefully: it reads what the client sends for up to a
// second, so the kernel does not reset the connection and discard the answer unread.
func turnAway(c net.Conn) {
	defer func() { _ = c.Close() }()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := io.WriteString(c, refusedReply); err != nil {
		return
	}
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
	}
	_, _ = io.CopyN(io.Discard, c, 64<<10)
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Close stops the proxy and its tunnels' listener.
func (p *Proxy) Close() error { return p.srv.Close() }

// Seq is the sequence number of the last refusal; pass it to BlocksSince.
func (p *Proxy) Seq() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.seq
}

// BlocksSince returns the refusals after seq (at most the last 64).
func (p *Proxy) BlocksSince(seq uint64) []Block {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []Block
	for _, b := range p.blocks {
		if b.Seq > seq {
			out = append(out, b)
		}
	}
	return out
}

func (p *Proxy) record(target string, err error) {
	var be *BlockedError
	if !errors.As(err, &be) {
		return
	}
	p.mu.Lock()
	p.seq++
	p.blocks = append(p.blocks, Block{Seq: p.seq, Target: target, Reason: be.Error()})
	if len(p.blocks) > maxBlocks {
		p.blocks = p.blocks[len(p.blocks)-maxBlocks:]
	}
	p.mu.Unlock()
	p.log.Info("browser request refused", "reason", be.Reason)
}

func (p *Proxy) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if addr == p.Addr() {
		return nil, &BlockedError{Host: addr, Reason: "the browser server's own proxy"}
	}
	return p.policy.DialContext(ctx, network, addr)
}

// ServeHTTP proxies one request: CONNECT opens a checked tunnel, anything else must carry an
// absolute http URL.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		p.connect(w, r)
		return
	}
	if r.URL.Scheme != "http" || r.URL.Host == "" {
		http.Error(w, "this proxy serves only absolute http URLs and CONNECT", http.StatusBadRequest)
		return
	}
	p.rp.ServeHTTP(w, r)
}

func (p *Proxy) fail(w http.ResponseWriter, r *http.Request, err error) {
	var be *BlockedError
	if errors.As(err, &be) {
		p.record(r.URL.String(), err)
		w.Header().Set(BlockedHeader, be.Error())
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusForbidden)
		_, _ = fmt.Fprintf(w, "<!doctype html><title>Blocked</title><p>Blocked by the browser server: %s.</p>", html.EscapeString(be.Error()))
		return
	}
	w.WriteHeader(http.StatusBadGateway)
	_, _ = fmt.Fprintf(w, "<!doctype html><title>Bad gateway</title><p>%s</p>", html.EscapeString(err.Error()))
}

func (p *Proxy) connect(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 20*time.Second)
	up, err := p.dial(ctx, "tcp", r.Host)
	cancel()
	if err != nil {
		p.record(r.Host, err)
		w.Header().Set(BlockedHeader, err.Error())
		http.Error(w, err.Error(), http.StatusForbidden)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		_ = up.Close()
		http.Error(w, "tunnelling not supported", http.StatusInternalServerError)
		return
	}
	down, rw, err := hj.Hijack()
	if err != nil {
		_ = up.Close()
		return
	}
	if _, err := io.WriteString(down, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		_ = up.Close()
		_ = down.Close()
		return
	}
	go func() {
		defer func() { _ = up.Close() }()
		if n := rw.Reader.Buffered(); n > 0 {
			buf, _ := rw.Peek(n)
			if _, err := up.Write(buf); err != nil {
				return
			}
		}
		_, _ = io.Copy(up, down)
	}()
	go func() {
		defer func() { _ = down.Close() }()
		_, _ = io.Copy(down, up)
	}()
}
