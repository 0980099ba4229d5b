package kit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/jck411/mcp-servers/shared/kit/memory"
	"github.com/jck411/mcp-servers/shared/kit/stdio"
	"github.com/jck411/mcp-servers/shared/sdnotify"
)

// Serve answers HTTP on ln until ctx is done, then drains in-flight calls (bounded) and returns.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	h, err := s.Handler()
	if err != nil {
		return err
	}
	return s.serve(ctx, ln, h)
}

func (s *Server) serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		// No WriteTimeout: it would cut SSE responses; every tool has its own timeout.
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	qctx, stopQuiet := context.WithCancel(ctx)
	defer stopQuiet()
	go s.quiet.Run(qctx, memory.QuietPeriod)
	s.log.Info("serving", "url", "http://"+ln.Addr().String()+"/mcp", "version", s.version, "tools", len(s.tools),
		"auth", s.cfg.AuthTokensFile != "", "oauth_issuer", s.cfg.OAuthIssuer, "read_only", s.cfg.ReadOnly)
	if err := sdnotify.Notify(s.notify, sdnotify.Ready); err != nil {
		s.log.Warn("systemd readiness not reported", "error", err.Error())
	}
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	_ = sdnotify.Notify(s.notify, sdnotify.Stopping)
	s.log.Info("shutting down", "grace", ShutdownGrace.String())
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
	defer cancel()
	// Calls in flight may finish within ShutdownDrain; then their contexts are cancelled and
	// the server waits for them to return and their answers to go out.
	stopped := make(chan error, 1)
	go func() { stopped <- srv.Shutdown(sctx) }()
	drain := time.NewTimer(ShutdownDrain)
	defer drain.Stop()
	var err error
	select {
	case err = <-stopped:
	case <-drain.C:
		s.StopCalls()
		err = <-stopped
	}
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// RunStdio serves MCP over stdin and stdout until ctx is done or stdin closes; requests read
// before stdin closed are answered first (see ServeIO).
func (s *Server) RunStdio(ctx context.Context) error {
	err := s.ServeIO(ctx, os.Stdin, os.Stdout)
	select {
	case <-ctx.Done():
		return nil // stopped by a signal: a clean exit
	default:
		return err
	}
}

// ServeIO serves MCP over newline-delimited JSON on in and out until ctx is done or in ends.
// When in ends, every request read so far is answered before the server stops, bounded by the
// longest tool timeout (see package stdio).
func (s *Server) ServeIO(ctx context.Context, in io.ReadCloser, out io.Writer) error {
	wait := DefaultTimeout
	for _, t := range s.tools {
		wait = max(wait, t.Timeout)
	}
	wait += stopGrace + eofGrace
	stop := context.AfterFunc(ctx, s.StopCalls) // a signal: the calls still running stop too
	defer stop()
	held, err := stdio.Serve(ctx, s.mcp, in, out, wait)
	if held > 0 {
		s.log.Warn("stdin closed with requests unanswered", "requests", held, "waited", wait.String())
	}
	return err
}

// eofGrace is how long past the longest tool timeout (and stopGrace) the end of stdin is held
// back, for the answer to reach stdout.
const eofGrace = 2 * time.Second
