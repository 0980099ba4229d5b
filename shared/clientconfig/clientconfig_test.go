package clientconfig_test

import (
	"encoding/json"
	"errors"
	"os/exec"
	"reflect"
	"testing"

	"github.com/jck411/mcp-servers/shared/clientconfig"
)

// script is gen-client-config.sh, the generator the host runs; this package must write what
// it writes.
const script = "../../scripts/gen-client-config.sh"

func decode(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	return v
}

// TestSameAsScript compares every client both write with gen-client-config.sh's output, for
// the tunnel with OAuth and the LAN with token references.
func TestSameAsScript(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatal("bash is needed to run gen-client-config.sh")
	}
	tunnel := []clientconfig.Server{{"calculator", "https://mcp-calculator.example.com/mcp"}, {"notes", "https://mcp-notes.example.com/mcp"}}
	lan := []clientconfig.Server{{"calculator", "http://192.168.1.110:9003/mcp"}, {"notes", "http://192.168.1.110:9009/mcp"}}
	cases := []struct {
		client  string
		servers []clientconfig.Server
		auth    clientconfig.Auth
		args    []string
	}{
		{"claude-code", tunnel, clientconfig.OAuth, []string{"--base-url", "https://mcp-{id}.example.com", "--oauth"}},
		{"vscode", tunnel, clientconfig.OAuth, []string{"--base-url", "https://mcp-{id}.example.com", "--oauth"}},
		{"cursor", tunnel, clientconfig.OAuth, []string{"--base-url", "https://mcp-{id}.example.com", "--oauth"}},
		{"claude-desktop", tunnel, clientconfig.OAuth, []string{"--base-url", "https://mcp-{id}.example.com", "--oauth"}},
		{"claude-code", lan, clientconfig.TokenRef, []string{"--base-url", "http://192.168.1.110", "--token-env"}},
		{"vscode", lan, clientconfig.TokenRef, []string{"--base-url", "http://192.168.1.110", "--token-env"}},
		{"cursor", lan, clientconfig.TokenRef, []string{"--base-url", "http://192.168.1.110", "--token-env"}},
	}
	for _, c := range cases {
		t.Run(c.client+"-"+string(c.auth), func(t *testing.T) {
			args := append([]string{script, "--servers", "calculator,notes", "--client", c.client}, c.args...)
			want, err := exec.Command("bash", args...).Output()
			if err != nil {
				t.Fatalf("gen-client-config.sh %v: %v", args, err)
			}
			got, err := clientconfig.Generate(c.client, c.servers, c.auth)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := decode(t, got), decode(t, want); !reflect.DeepEqual(g, w) {
				t.Errorf("Generate wrote\n%s\ngen-client-config.sh wrote\n%s", got, want)
			}
		})
	}
}

func TestGeneric(t *testing.T) {
	servers := []clientconfig.Server{{"notes", "https://mcp-notes.example.com/mcp"}}
	for _, c := range []struct {
		auth clientconfig.Auth
		want string
	}{
		{clientconfig.OAuth, `{"servers":[{"name":"notes","url":"https://mcp-notes.example.com/mcp","transport":"streamable-http","auth":"oauth"}]}`},
		{clientconfig.TokenRef, `{"servers":[{"name":"notes","url":"https://mcp-notes.example.com/mcp","transport":"streamable-http","auth":"bearer","token_env":"MCP_TOKEN_NOTES"}]}`},
	} {
		got, err := clientconfig.Generate("generic", servers, c.auth)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := decode(t, got), decode(t, []byte(c.want)); !reflect.DeepEqual(g, w) {
			t.Errorf("%s: got %s, want %s", c.auth, got, c.want)
		}
	}
}

func TestRefusals(t *testing.T) {
	s := []clientconfig.Server{{"notes", "http://192.168.1.110:9009/mcp"}}
	if _, err := clientconfig.Generate("claude-desktop", s, clientconfig.TokenRef); !errors.Is(err, clientconfig.ErrNeedsLiteral) {
		t.Errorf("claude-desktop with token references: %v, want ErrNeedsLiteral", err)
	}
	for _, c := range []struct {
		client  string
		servers []clientconfig.Server
		auth    clientconfig.Auth
	}{
		{"emacs", s, clientconfig.OAuth},
		{"cursor", nil, clientconfig.OAuth},
		{"cursor", s, "literal"},
	} {
		if b, err := clientconfig.Generate(c.client, c.servers, c.auth); err == nil {
			t.Errorf("Generate(%q, %v, %q) = %s, want an error", c.client, c.servers, c.auth, b)
		}
	}
	for _, c := range clientconfig.Clients {
		if got, ok := clientconfig.Lookup(c.ID); !ok || got != c {
			t.Errorf("Lookup(%q) = %v, %v", c.ID, got, ok)
		}
	}
	if _, ok := clientconfig.Lookup("emacs"); ok {
		t.Error("Lookup(emacs) found a client")
	}
}
