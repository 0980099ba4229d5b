package main

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/jck411/mcp-servers/shared/mcptest"
)

// BenchmarkEvaluateHTTP measures one evaluate call through the whole server stack over loopback
// HTTP: guards, the go-sdk's stateless streamable handler, the tool middleware and the engine.
func BenchmarkEvaluateHTTP(b *testing.B) {
	h := mcptest.Start(b, spec())
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"evaluate","arguments":{"expression":"2+3*4"}}}`)
	client := &http.Client{}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if out := h.Post(b, client, body); !bytes.Contains(out, []byte(`"14"`)) {
			b.Fatalf("unexpected answer: %s", out)
		}
	}
}
