package netguard

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startTestProxy starts a proxy whose "browser" is the test process itself, so the test's own
// HTTP clients may use it.
func startTestProxy(t testing.TB, pol *Policy) *Proxy {
	t.Helper()
	px, err := StartProxy(pol, discardLogger())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = px.Close() })
	if err := px.AllowBrowser(os.Getpid()); err != nil {
		t.Fatal(err)
	}
	return px
}

// getVia sends one proxied GET for target from the test process and returns the status line.
func getVia(t *testing.T, proxy, target string) string {
	t.Helper()
	c, err := net.Dial("tcp", proxy)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", target)
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return "error: " + err.Error()
	}
	return strings.TrimSpace(line)
}

// startClient starts bash, which waits for a line on stdin and then, in a child process (a
// subshell), sends a proxied GET for target and prints the response. cred, when set, runs it as
// another user.
func startClient(t *testing.T, proxy, target string, cred *syscall.Credential) (*exec.Cmd, io.WriteCloser, *strings.Builder) {
	t.Helper()
	host, port, _ := net.SplitHostPort(proxy)
	script := fmt.Sprintf(`read go; ( exec 3<>/dev/tcp/%s/%s && printf 'GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' >&3 && cat <&3 ); exit 0`, host, port, target)
	cmd := exec.Command("bash", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd, in, out
}

func runClient(t *testing.T, cmd *exec.Cmd, in io.WriteCloser, out *strings.Builder) string {
	t.Helper()
	_, _ = io.WriteString(in, "go\n")
	_ = in.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the client failed: %v: %s", err, out)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the client did not finish")
	}
	return out.String()
}

func TestProxyServesOnlyTheBrowser(t *testing.T) {
	t.Parallel()
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "reached the target")
	}))
	defer target.Close()
	pol, _ := NewPolicy(false, []string{"127.0.0.1/32"})
	px, err := StartProxy(pol, discardLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = px.Close() }()
	url := target.URL + "/"

	// Before a browser is named, nobody gets through, the server's own process included.
	if got := getVia(t, px.Addr(), url); !strings.Contains(got, "403") {
		t.Fatalf("no browser yet: the test process got %q, want 403", got)
	}

	// The browser's descendant (bash's subshell) gets through; the test process does not.
	cmd, in, out := startClient(t, px.Addr(), url, nil)
	if err := px.AllowBrowser(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	if got := getVia(t, px.Addr(), url); !strings.Contains(got, "403") {
		t.Fatalf("the test process is not the browser but got %q", got)
	}
	if got := runClient(t, cmd, in, out); !strings.Contains(got, "200 OK") || !strings.Contains(got, "reached the target") {
		t.Fatalf("the browser's child was refused: %q", got)
	}

	// The browser is gone: its pid no longer counts.
	if err := px.AllowBrowser(cmd.Process.Pid); err == nil {
		t.Error("AllowBrowser accepted a pid that has exited")
	}
	if got := getVia(t, px.Addr(), url); !strings.Contains(got, "403") {
		t.Fatalf("after the browser exited the test process got %q", got)
	}
}

func TestProxyRefusesAnotherUser(t *testing.T) {
	t.Parallel()
	if os.Getuid() != 0 {
		t.Skip("running a client as another user needs root")
	}
	pol, _ := NewPolicy(false, []string{"127.0.0.1/32"})
	px, err := StartProxy(pol, discardLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = px.Close() }()
	// Even named as the browser, a process of another user is refused by its socket's uid.
	cmd, in, out := startClient(t, px.Addr(), "http://127.0.0.1:1/", &syscall.Credential{Uid: 65534, Gid: 65534})
	if err := px.AllowBrowser(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	if got := runClient(t, cmd, in, out); !strings.Contains(got, "403 Forbidden") || !strings.Contains(got, "only the browser") {
		t.Fatalf("a client running as nobody got %q, want the proxy's refusal", got)
	}
}

func TestPeersCheck(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = client.Close() }()
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = server.Close() }()

	sleeper := exec.Command("sleep", "30")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sleeper.Process.Kill(); _ = sleeper.Wait() }()

	tests := []struct {
		name string
		proc string
		root int
		want string // substring of the refusal; "" = allowed
	}{
		{"the holder is the browser", "/proc", os.Getpid(), ""},
		{"no browser", "/proc", 0, "no browser"},
		{"another process is the browser", "/proc", sleeper.Process.Pid, "not open in the browser"},
		{"no proc filesystem", t.TempDir(), os.Getpid(), ""}, // allow fails first
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newPeers(tt.proc)
			if err := c.allow(tt.root); err != nil {
				if tt.proc == "/proc" {
					t.Fatal(err)
				}
				// Without /proc nothing can be established: refused.
				if err := c.check(server); err == nil {
					t.Fatal("check passed without a proc filesystem")
				}
				return
			}
			err := c.check(server)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("check = %v, want a refusal naming %q", err, tt.want)
			}
		})
	}
	// The proxy's own end of the connection is not a client socket of the browser either way.
	c := newPeers("/proc")
	if err := c.allow(sleeper.Process.Pid); err != nil {
		t.Fatal(err)
	}
	if err := c.check(client); err == nil {
		t.Error("the reverse direction passed")
	}
}

// BenchmarkPeersCheck measures the accept-time check for a client whose socket is open in the
// browser process, with extra open files standing in for Chromium's file table.
func BenchmarkPeersCheck(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	c := newPeers("/proc")
	if err := c.allow(os.Getpid()); err != nil {
		b.Fatal(err)
	}
	open := 0
	for _, fds := range []int{0, 100, 300} {
		for ; open < fds; open++ {
			f, err := os.Open(os.DevNull)
			if err != nil {
				b.Fatal(err)
			}
			defer func() { _ = f.Close() }()
		}
		b.Run(fmt.Sprintf("fds=%d", fds), func(b *testing.B) {
			// The client socket is the newest file, as the browser's new connection is.
			client, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				b.Fatal(err)
			}
			defer func() { _ = client.Close() }()
			server, err := ln.Accept()
			if err != nil {
				b.Fatal(err)
			}
			defer func() { _ = server.Close() }()
			for b.Loop() {
				if err := c.check(server); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestSocketLookups finds both ends of a connection through sock_diag and through
// /proc/net/tcp, and checks the two agree on uid and inode, and that the inode is the socket
// the test process holds.
func TestSocketLookups(t *testing.T) {
	t.Parallel()
	for _, network := range []string{"tcp4", "tcp6"} {
		t.Run(network, func(t *testing.T) {
			addr := "127.0.0.1:0"
			if network == "tcp6" {
				addr = "[::1]:0"
			}
			ln, err := net.Listen(network, addr)
			if err != nil {
				t.Skipf("no %s loopback: %v", network, err)
			}
			defer func() { _ = ln.Close() }()
			client, err := net.Dial(network, ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = client.Close() }()
			server, err := ln.Accept()
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = server.Close() }()
			src := netip.MustParseAddrPort(client.LocalAddr().String())
			dst := netip.MustParseAddrPort(client.RemoteAddr().String())

			uid1, inode1, err := diagSocket(src, dst)
			if err != nil {
				t.Fatalf("sock_diag: %v", err)
			}
			c := newPeers("/proc")
			uid2, inode2, err := c.procSocket(src, dst)
			if err != nil {
				t.Fatalf("/proc/net: %v", err)
			}
			if uid1 != uint64(os.Getuid()) || uid1 != uid2 || inode1 != inode2 {
				t.Fatalf("sock_diag says uid %d inode %d, /proc/net says uid %d inode %d", uid1, inode1, uid2, inode2)
			}
			sc, _ := client.(*net.TCPConn).SyscallConn()
			var st syscall.Stat_t
			_ = sc.Control(func(fd uintptr) { err = syscall.Fstat(int(fd), &st) })
			if err != nil || st.Ino != inode1 {
				t.Fatalf("the client socket's inode is %d (%v), the lookups say %d", st.Ino, err, inode1)
			}
			// A pair nobody holds is not found.
			gone := netip.AddrPortFrom(src.Addr(), src.Port()+1)
			if _, _, err := diagSocket(gone, dst); err == nil {
				t.Error("sock_diag found a socket that does not exist")
			}
			if _, _, err := c.procSocket(gone, dst); err == nil {
				t.Error("/proc/net found a socket that does not exist")
			}
		})
	}
}
