module github.com/jck411/mcp-servers/servers/calculator

go 1.26.0

require github.com/jck411/mcp-servers/shared v0.0.0

require (
	github.com/cockroachdb/apd/v3 v3.2.3
	github.com/modelcontextprotocol/go-sdk v1.8.0
)

require (
	github.com/VictoriaMetrics/metrics v1.44.0 // indirect
	github.com/go-jose/go-jose/v4 v4.1.9 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/valyala/fastrand v1.1.0 // indirect
	github.com/valyala/histogram v1.2.0 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/oauth2 v0.38.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)

replace github.com/jck411/mcp-servers/shared => ../../shared
