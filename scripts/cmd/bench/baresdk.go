package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/jck411/mcp-servers/servers/calculator/expression"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveBareSDK serves evaluate on addr with nothing but the go-sdk: its typed mcp.AddTool
// (schema validation of input and output, defaults) and its stateless streamable HTTP handler,
// without the kit's guards, middleware, logs or metrics. It is the baseline the kit's overhead
// is measured against.
func serveBareSDK(addr string) {
	server := mcp.NewServer(&mcp.Implementation{Name: "bare-sdk", Version: "bench"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "evaluate", Description: "Evaluate math."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in sdkInput) (*mcp.CallToolResult, expression.Result, error) {
			res, err := expression.Evaluate(ctx, in.Expression, expression.Options{Precision: in.Precision, Degrees: in.Degrees})
			if res.Variables == nil {
				res.Variables = map[string]string{} // its schema says object, which null is not
			}
			return nil, res, err
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: true})
	srv := &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	if err := srv.ListenAndServe(); err != nil {
		fmt.Fprintln(os.Stderr, "bare sdk:", err)
		os.Exit(1)
	}
}

// sdkInput is the calculator's evaluate arguments; the answer is the engine's own Result, so the
// bare SDK server does the same work with the same engine and a schema of the same size.
type sdkInput struct {
	Expression string `json:"expression" jsonschema:"the expression"`
	Precision  int    `json:"precision,omitempty" jsonschema:"significant digits for irrational results"`
	Degrees    bool   `json:"degrees,omitempty" jsonschema:"trig functions take and return degrees"`
}
