package main

import (
	"bytes"
	"io"
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
		req, err := http.NewRequest(http.MethodPost, h.URL+"/mcp", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", mcptest.ProtocolVersion)
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !bytes.Contains(out, []byte(`"14"`)) {
			b.Fatalf("status %d: %s", resp.StatusCode, out)
		}
	}
}
