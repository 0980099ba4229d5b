package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/jck411/mcp-servers/shared/health"
	"github.com/jck411/mcp-servers/shared/netguard"
)

// startTimeout bounds how long Chromium may take to start and open its first tab.
const startTimeout = 45 * time.Second

// chromium is the browser process: started on first use, restarted when it has died.
type chromium struct {
	opts *options
	log  *slog.Logger

	mu          sync.Mutex
	proxy       *netguard.Proxy
	root        context.Context // chromedp context of the browser's first tab; done when the browser dies
	cancelRoot  context.CancelFunc
	cancelAlloc context.CancelFunc
	profileDir  string
	gen         int // increments on every launch
	listen      func(ev any)
}

func newChromium(opts *options, log *slog.Logger, listen func(ev any)) *chromium {
	return &chromium{opts: opts, log: log, listen: listen}
}

// running reports whether the browser process is up.
func (c *chromium) running() bool {
	return c.root != nil && c.root.Err() == nil
}

// ensure returns the root context of a running browser, starting one when there is none or
// the last one died, and the launch generation (which changes when the browser restarts).
func (c *chromium) ensure(ctx context.Context) (context.Context, int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running() {
		return c.root, c.gen, nil
	}
	if c.root != nil {
		c.log.Warn("chromium is gone; restarting it")
		c.stopLocked()
	}
	if err := c.startLocked(ctx); err != nil {
		c.stopLocked()
		return nil, 0, err
	}
	return c.root, c.gen, nil
}

func (c *chromium) startLocked(ctx context.Context) error {
	path, err := c.opts.findChromium()
	if err != nil {
		return err
	}
	if c.proxy == nil {
		if c.proxy, err = netguard.StartProxy(c.opts.policy, c.log); err != nil {
			return err
		}
	}
	base := filepath.Join(c.opts.stateDir, "chromium")
	if err := os.MkdirAll(base, 0o700); err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	if c.profileDir, err = os.MkdirTemp(base, "profile-"); err != nil {
		return fmt.Errorf("profile directory: %w", err)
	}
	allocOpts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.UserDataDir(c.profileDir),
		chromedp.WindowSize(1280, 800),
		chromedp.Env("HOME="+c.profileDir),
		// Every request goes through the guard proxy, loopback included.
		chromedp.Flag("proxy-server", "http://"+c.proxy.Addr()),
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.Flag("force-webrtc-ip-handling-policy", "disable_non_proxied_udp"),
		chromedp.Flag("webrtc-ip-handling-policy", "disable_non_proxied_udp"),
		// A closed network: no background traffic.
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("disable-features", "Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider,InterestFeedContentSuggestions"),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("js-flags", "--max-old-space-size=512"),
	)
	if c.opts.sitePerProcess {
		allocOpts = append(allocOpts, chromedp.Flag("site-per-process", true))
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), allocOpts...)
	logf := func(format string, args ...any) { c.log.Debug("chromedp", "msg", fmt.Sprintf(format, args...)) }
	root, cancelRoot := chromedp.NewContext(allocCtx, chromedp.WithLogf(logf), chromedp.WithErrorf(logf))
	c.root, c.cancelRoot, c.cancelAlloc = root, cancelRoot, cancelAlloc

	started := make(chan error, 1)
	go func() { started <- chromedp.Do(root) }()
	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	select {
	case err = <-started:
	case <-timer.C:
		err = fmt.Errorf("did not start within %s", startTimeout)
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("chromium (%s) failed to start: %w", path, err)
	}
	// Only this browser (its process and descendants) may use the guard proxy.
	pid := c.pidLocked()
	if pid == 0 {
		return fmt.Errorf("chromium (%s): its process id is unknown, so the guard proxy cannot admit it", path)
	}
	if err := c.proxy.AllowBrowser(pid); err != nil {
		return fmt.Errorf("chromium (%s): %w", path, err)
	}
	if c.listen != nil {
		if err := chromedp.ListenBrowser(root, c.listen); err != nil {
			return fmt.Errorf("chromium: %w", err)
		}
	}
	c.gen++
	c.log.Info("chromium started", "path", path, "pid", c.pidLocked(), "generation", c.gen)
	return nil
}

func (c *chromium) pidLocked() int {
	if c.root == nil {
		return 0
	}
	if cc := chromedp.FromContext(c.root); cc != nil && cc.Browser != nil && cc.Browser.Process() != nil {
		return cc.Browser.Process().Pid
	}
	return 0
}

// pid is the browser's process id, 0 when it is not running.
func (c *chromium) pid() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.running() {
		return 0
	}
	return c.pidLocked()
}

func (c *chromium) stopLocked() {
	if c.proxy != nil {
		_ = c.proxy.AllowBrowser(0)
	}
	if c.cancelRoot != nil {
		done := make(chan struct{})
		go func() {
			defer close(done)
			if c.root.Err() == nil {
				ctx, cancel := context.WithTimeout(c.root, 5*time.Second)
				_ = chromedp.Cancel(ctx)
				cancel()
			}
			c.cancelRoot()
			c.cancelAlloc()
		}()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			c.log.Warn("chromium did not stop in time")
		}
	}
	if c.profileDir != "" {
		_ = os.RemoveAll(c.profileDir)
	}
	c.root, c.cancelRoot, c.cancelAlloc, c.profileDir = nil, nil, nil, ""
}

// stop ends the browser (if running); the next ensure starts a new one.
func (c *chromium) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopLocked()
}

// close ends the browser and the guard proxy for good.
func (c *chromium) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopLocked()
	if c.proxy != nil {
		_ = c.proxy.Close()
		c.proxy = nil
	}
}

// guard returns the running guard proxy, or nil before the first start.
func (c *chromium) guard() *netguard.Proxy {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.proxy
}

// health is the /healthz check: ok when Chromium runs or can be started.
func (c *chromium) health(context.Context) health.Result {
	if pid := c.pid(); pid != 0 {
		return health.Result{Status: health.OK, Detail: fmt.Sprintf("running (pid %d)", pid)}
	}
	path, err := c.opts.findChromium()
	if err != nil {
		return health.Result{Status: health.Fail, Detail: err.Error()}
	}
	return health.Result{Status: health.OK, Detail: "starts on first use: " + path}
}
