package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/jck411/mcp-servers/servers/calculator/expression"
	mgo "github.com/mark3labs/mcp-go/mcp"
	mgoserver "github.com/mark3labs/mcp-go/server"
)

// serveMcpGo serves evaluate on addr with github.com/mark3labs/mcp-go: its typed input and
// output schemas, its structured tool handler and its stateless streamable HTTP server, nothing
// else. It is the third point of comparison, another SDK doing the same work with the same
// engine.
func serveMcpGo(addr string) {
	s := mgoserver.NewMCPServer("bare-mcp-go", "bench", mgoserver.WithToolCapabilities(false))
	tool := mgo.NewTool("evaluate", mgo.WithDescription("Evaluate math."),
		mgo.WithInputSchema[sdkInput](), mgo.WithOutputSchema[expression.Result]())
	s.AddTool(tool, mgo.NewStructuredToolHandler(func(ctx context.Context, _ mgo.CallToolRequest, in sdkInput) (expression.Result, error) {
		return expression.Evaluate(ctx, in.Expression, expression.Options{Precision: in.Precision, Degrees: in.Degrees})
	}))
	h := mgoserver.NewStreamableHTTPServer(s, mgoserver.WithStateLess(true))
	srv := &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	if err := srv.ListenAndServe(); err != nil {
		fmt.Fprintln(os.Stderr, "mcp-go:", err)
		os.Exit(1)
	}
}
