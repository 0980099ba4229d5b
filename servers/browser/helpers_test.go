package main

import (
	"crypto/sha256"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// requireChromium fails (not skips) the test when no Chromium is installed: CI installs it.
func requireChromium(t testing.TB) {
	t.Helper()
	if _, err := (&options{}).findChromium(); err != nil {
		t.Fatalf("these tests need a real Chromium: %v", err)
	}
}

// site serves the test pages and a few dynamic endpoints.
type site struct {
	*httptest.Server
	privateHits atomic.Int32 // requests that reached the "private" server
	private     *httptest.Server
}

func newSite(t testing.TB) *site {
	t.Helper()
	s := &site{}
	// The "private" server listens on 127.0.0.2, which the tests do not allow.
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatalf("listen on 127.0.0.2: %v", err)
	}
	s.private = &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.privateHits.Add(1)
		_, _ = io.WriteString(w, "<title>Router admin</title><p>secret router page</p>")
	})}}
	s.private.Start()
	t.Cleanup(s.private.Close)

	mux := http.NewServeMux()
	mux.Handle("GET /", http.FileServer(http.Dir("testdata")))
	benchRoutes(mux)
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		if r.Form.Get("username") != "alice" || r.Form.Get("password") != "s3cret!" {
			http.Error(w, "bad credentials", http.StatusUnauthorized)
			return
		}
		// A session cookie and a lasting one, and a preference in local storage: what a
		// saved profile must bring back.
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: "alice-session", Path: "/", HttpOnly: true})
		http.SetCookie(w, &http.Cookie{Name: "remember", Value: "1", Path: "/", MaxAge: 3600})
		fmt.Fprintf(w, "<!doctype html><title>Welcome</title><h1>Welcome back, alice</h1><p>Role: %s. Remember me: %s.</p><script>localStorage.setItem('theme', 'dark')</script>",
			r.Form.Get("role"), map[bool]string{true: "on", false: "off"}[r.Form.Get("remember") == "on"])
	})
	mux.HandleFunc("GET /account", func(w http.ResponseWriter, r *http.Request) {
		who := "Not signed in"
		if c, err := r.Cookie("sid"); err == nil && c.Value == "alice-session" {
			who = "Signed in as alice"
		}
		fmt.Fprintf(w, "<!doctype html><title>Account</title><h1>%s</h1><p id=theme>theme unknown</p><script>document.getElementById('theme').textContent = 'theme: ' + localStorage.getItem('theme')</script>", who)
	})
	mux.HandleFunc("GET /ua", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "<!doctype html><title>UA</title><p>UA: %s</p>", html.EscapeString(r.UserAgent()))
	})
	mux.HandleFunc("GET /blob.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(append([]byte("\x89PNG\r\n\x1a\n\x00\x00"), make([]byte, 3000)...))
	})
	mux.HandleFunc("GET /big.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, strings.Repeat("x", 20000))
	})
	mux.HandleFunc("GET /report.csv", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/csv")
		w.Header().Set("Content-Disposition", `attachment; filename="report.csv"`)
		_, _ = io.WriteString(w, strings.Repeat("host,cpu\nalpha,12\n", 100))
	})
	mux.HandleFunc("GET /to-private", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, s.private.URL+"/admin", http.StatusFound)
	})
	mux.HandleFunc("GET /to-private-decimal", func(w http.ResponseWriter, r *http.Request) {
		_, port, _ := net.SplitHostPort(s.private.Listener.Addr().String())
		http.Redirect(w, r, "http://2130706434:"+port+"/admin", http.StatusFound) // 127.0.0.2
	})
	mux.HandleFunc("GET /dialogs", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `<!doctype html><title>Dialogs</title>
<button onclick="alert('Saved!')">Alert</button>
<button onclick="document.getElementById('out').textContent = 'Hello, ' + prompt('Your name?', 'guest')">Prompt</button>
<p id="out">nobody yet</p>`)
	})
	mux.HandleFunc("GET /popup", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `<!doctype html><title>Opener</title><a href="/login.html" target="_blank">Open login in a new tab</a>
<a href="/report.csv">Download report</a>`)
	})
	mux.HandleFunc("POST /echo", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		keys := make([]string, 0, len(r.PostForm))
		for k := range r.PostForm {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprint(w, "<!doctype html><title>Saved</title><h1>Saved</h1><ul>")
		for _, k := range keys {
			fmt.Fprintf(w, "<li>%s = %s</li>", html.EscapeString(k), html.EscapeString(strings.Join(r.PostForm[k], "|")))
		}
		fmt.Fprint(w, "</ul>")
	})
	mux.HandleFunc("POST /upload", func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		fmt.Fprint(w, "<!doctype html><title>Received</title><h1>Received</h1><ul>")
		for _, field := range []string{"resume", "attachments"} {
			for _, fh := range r.MultipartForm.File[field] {
				f, err := fh.Open()
				if err != nil {
					http.Error(w, err.Error(), http.StatusBadRequest)
					return
				}
				sum := sha256.New()
				n, _ := io.Copy(sum, f)
				_ = f.Close()
				fmt.Fprintf(w, "<li>%s: %s, %d bytes, sha256 %x</li>", field, html.EscapeString(fh.Filename), n, sum.Sum(nil)[:4])
			}
		}
		fmt.Fprint(w, "</ul>")
	})
	mux.HandleFunc("GET /api/items", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `[{"sku":"a1"},{"sku":"b2"},{"sku":"c3"}]`)
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// startServer starts the browser server allowing 127.0.0.1 only (not 127.0.0.2).
func startServer(t testing.TB, extra ...string) (*mcptest.Harness, *mcp.ClientSession) {
	t.Helper()
	return startServerArgs(t, append([]string{"--allow-private-hosts", "127.0.0.1/32"}, extra...)...)
}

// lastHarness is the server startServerArgs started last, for tests that reconnect.
var lastHarness *mcptest.Harness

// startServerArgs starts the browser server with exactly these flags (and a temporary state).
func startServerArgs(t testing.TB, extra ...string) (*mcptest.Harness, *mcp.ClientSession) {
	t.Helper()
	requireChromium(t)
	dir := t.TempDir()
	if err := os.MkdirAll(dir+"/uploads", 0o755); err != nil {
		t.Fatal(err)
	}
	h := mcptest.Start(t, spec(), append([]string{"--state-dir", dir}, extra...)...)
	lastHarness = h
	return h, h.Connect(t, "")
}

// callTool calls a tool and returns its text, failing the test on a tool error.
func callTool(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res := mcptest.Call(t, cs, name, args)
	text := mcptest.Text(res)
	if res.IsError {
		t.Fatalf("%s(%v) failed: %s", name, args, text)
	}
	return text
}

// ref finds the ref of the first snapshot line that starts with prefix (after indentation).
func ref(t testing.TB, snapshot, prefix string) string {
	t.Helper()
	for _, l := range strings.Split(snapshot, "\n") {
		l = strings.TrimPrefix(strings.TrimSpace(l), "- ")
		if strings.HasPrefix(l, prefix) {
			if m := refRE.FindStringSubmatch(l); m != nil {
				return m[1]
			}
		}
	}
	t.Fatalf("no line starting with %q and a ref in:\n%s", prefix, snapshot)
	return ""
}

// callToolErr calls a tool that must fail and returns its error text.
func callToolErr(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res := mcptest.Call(t, cs, name, args)
	text := mcptest.Text(res)
	if !res.IsError {
		t.Fatalf("%s(%v) should fail; it answered: %s", name, args, text)
	}
	return text
}
