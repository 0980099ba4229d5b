package health

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"
)

// CheckCommand is the subcommand that asks a running server for its /healthz: `NAME healthcheck`.
// A container image has no curl, so its health check is the server binary itself.
const CheckCommand = "healthcheck"

// Probe asks url (a /healthz) for its report and returns it when the server that answers is
// name. A 200 is ready (ok or degraded); a 503 with a well-formed report is a server that
// answers but is not ready: Probe returns the report and an error, and live accepts it.
func Probe(ctx context.Context, client *http.Client, url, name string, live bool) (Summary, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return Summary{}, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return Summary{}, err
	}
	defer resp.Body.Close()
	var sum Summary
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&sum); err != nil {
		return Summary{}, fmt.Errorf("%s answered %s without a health report: %w", url, resp.Status, err)
	}
	switch {
	case sum.Name != name:
		return sum, fmt.Errorf("%s is %q, not %s", url, sum.Name, name)
	case resp.StatusCode == http.StatusOK && (sum.Status == "ok" || sum.Status == "degraded"):
		return sum, nil
	case live && resp.StatusCode == http.StatusServiceUnavailable && sum.Status == "unavailable":
		return sum, nil
	}
	return sum, fmt.Errorf("%s answered %s, status %q", url, resp.Status, sum.Status)
}

// RunCheck is the healthcheck subcommand of the server name whose fixed port is port: it probes
// the server on this machine at the address its environment (MCP_HOST, MCP_PORT) or --host and
// --port give, prints one line and returns 0 when it is ready (with --live: when it answers at
// all), 1 when not, 2 on bad usage.
func RunCheck(ctx context.Context, name string, port int, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(name+" "+CheckCommand, flag.ContinueOnError)
	fs.SetOutput(stderr)
	host := fs.String("host", "", "the server's --host (default $MCP_HOST; a wildcard such as 0.0.0.0 is asked on 127.0.0.1)")
	p := fs.Int("port", 0, "the server's --port (default $MCP_PORT, else "+strconv.Itoa(port)+")")
	timeout := fs.Duration("timeout", 10*time.Second, "give up after this long")
	live := fs.Bool("live", false, "succeed when the server answers at all, also when a dependency check fails (for a liveness probe)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: %s %s [--live] [--host H] [--port P]\nExits 0 when the %s server on this machine answers /healthz ready (200, ok or degraded), else 1.\n", name, CheckCommand, name)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s %s: unexpected argument %q\n", name, CheckCommand, fs.Arg(0))
		return 2
	}
	addr, err := checkAddr(*host, *p, port, getenv)
	if err != nil {
		fmt.Fprintf(stderr, "%s %s: %v\n", name, CheckCommand, err)
		return 2
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	url := "http://" + addr + "/healthz"
	client := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	sum, err := Probe(ctx, client, url, name, *live)
	if err != nil {
		fmt.Fprintf(stderr, "%s %s: %v\n", name, CheckCommand, err)
		return 1
	}
	fmt.Fprintf(stdout, "%s %s: %s\n", sum.Name, sum.Version, sum.Status)
	return 0
}

// checkAddr is where the server listens, as seen from this machine.
func checkAddr(host string, port, defaultPort int, getenv func(string) string) (string, error) {
	if host == "" {
		host = getenv("MCP_HOST")
	}
	switch host {
	case "", "0.0.0.0":
		host = "127.0.0.1"
	case "::", "[::]":
		host = "::1"
	}
	if port == 0 {
		if v := getenv("MCP_PORT"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return "", fmt.Errorf("invalid MCP_PORT %q: %w", v, err)
			}
			port = n
		}
	}
	if port == 0 {
		port = defaultPort
	}
	if port < 1 || port > 65535 {
		return "", fmt.Errorf("invalid port %d: must be 1 to 65535", port)
	}
	return net.JoinHostPort(host, strconv.Itoa(port)), nil
}
