package kit_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/health"
	"github.com/jck411/mcp-servers/shared/kit"
)

// TestHealthcheckCommand runs `NAME healthcheck` as a container's health check does, with the
// server's own environment: ready while the server serves on a wildcard address, not ready
// once it has stopped, and a failed dependency check is "not ready" but "alive".
func TestHealthcheckCommand(t *testing.T) {
	// Not parallel: it frees a port and binds it again, which another test could take between.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	env := map[string]string{"MCP_HOST": "0.0.0.0", "MCP_PORT": port, "MCP_INSECURE_NO_AUTH": "1"}
	getenv := func(k string) string { return env[k] }
	check := func(args ...string) (int, string) {
		var stdout, stderr bytes.Buffer
		code := kit.Run(t.Context(), testSpec(map[string]health.Result{"token": {Status: health.Fail}}), append([]string{"healthcheck"}, args...), getenv, &stdout, &stderr)
		return code, stdout.String() + stderr.String()
	}

	ctx, cancel := context.WithCancel(t.Context())
	exit := make(chan int, 1)
	go func() {
		exit <- kit.Run(ctx, testSpec(map[string]health.Result{"token": {Status: health.Fail}}), nil, getenv, io.Discard, io.Discard)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, out := check("--live")
		if code == 0 {
			if !strings.Contains(out, "kittest") || !strings.Contains(out, "unavailable") {
				t.Fatalf("healthcheck --live said %q", out)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("healthcheck --live never passed: %d %q", code, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if code, out := check(); code != 1 || !strings.Contains(out, `status "unavailable"`) {
		t.Errorf("healthcheck with a failed check = %d %q, want 1 and the status", code, out)
	}
	cancel()
	if code := <-exit; code != 0 {
		t.Fatalf("server exit %d", code)
	}
	if code, out := check("--live"); code != 1 || !strings.Contains(out, "connection refused") {
		t.Errorf("healthcheck after shutdown = %d %q, want 1 and connection refused", code, out)
	}
}
