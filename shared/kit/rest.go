package kit

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/jck411/mcp-servers/shared/guard"
	"github.com/jck411/mcp-servers/shared/kit/inventory"
	"github.com/jck411/mcp-servers/shared/kit/openapi"
	"github.com/jck411/mcp-servers/shared/routes"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Plain REST for the tools, for clients that speak OpenAPI rather than MCP: POST
// {prefix}/tools/{name} with the arguments as a JSON object, and GET {prefix}/openapi.json,
// where {prefix} is the MCP URL without /mcp ("" for /mcp, "/x/notes" for /mcp/x/notes,
// "/readonly" for /mcp/readonly). A REST request is turned into the JSON-RPC request an MCP
// client would send and served in-process by the MCP route of its URL (mcpRoute and the
// go-sdk's streamable handler): the same gate, view, validation, timeouts, logs, metrics,
// recent calls and cancellation, with nothing of the dispatch written twice.

// restMaxName bounds a tool name in a REST path; no tool has a longer one.
const restMaxName = 128

// restEnvelopeBytes is what the JSON-RPC envelope adds to a REST body (restMaxName included).
const restEnvelopeBytes = 512

// restStatus is the HTTP status of a REST error code; a code it does not know is a tool's own,
// a failure: 422.
func restStatus(code string) int {
	switch code {
	case "invalid":
		return http.StatusBadRequest
	case "unauthorized":
		return http.StatusUnauthorized
	case "forbidden", "insufficient_scope", CodeDeclined:
		return http.StatusForbidden
	case CodeNotFound:
		return http.StatusNotFound
	case "method_not_allowed":
		return http.StatusMethodNotAllowed
	case CodeDisabled:
		return http.StatusConflict
	case "too_large":
		return http.StatusRequestEntityTooLarge
	case CodeInternal:
		return http.StatusInternalServerError
	case CodeUnavailable, CodeCancelled:
		return http.StatusServiceUnavailable
	case CodeTimeout:
		return http.StatusGatewayTimeout
	}
	return http.StatusUnprocessableEntity // codeTool, CodeLimit and any code of a server's own
}

// restCode is the REST error code of a call's code in logs and metrics.
func restCode(code string) string {
	switch code {
	case CodeInvalidInput, codeArguments:
		return "invalid"
	case codeNotOffered, codeNarrowed:
		return CodeNotFound
	case "":
		return codeTool
	}
	return code
}

// restRoutes adds the REST routes of every MCP URL to mux, behind the gate with that URL's
// credential scheme.
func (s *Server) restRoutes(mux *routes.Mux, gate *guard.Gate, creds credentials) {
	inner := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		Stateless:                  true,
		JSONResponse:               true, // one JSON-RPC answer, no event stream to parse
		DisableLocalhostProtection: true,
		MaxRequestBodyBytes:        s.cfg.MaxBodyBytes + restEnvelopeBytes,
		Logger:                     s.sdkLog,
	})
	for path, n := range s.mcpRoutes() {
		auth := creds.at(path)
		route := s.mcpRoute(path, n, auth, inner)
		prefix := strings.TrimPrefix(path, "/mcp")
		mux.Handle(prefix+"/tools/{name}", gate.Require(auth, s.restCall(route)))
		mux.Handle(prefix+"/openapi.json", gate.Require(auth, s.restOpenAPI(prefix, auth != nil, route)))
	}
	ids := make([]string, 0, len(s.inv.ToolsetIDs())+1)
	for _, id := range append(s.inv.ToolsetIDs(), inventory.All) {
		ids = append(ids, string(id))
	}
	msg := fmt.Sprintf("%s serves REST at /tools/NAME and /openapi.json, under /readonly, /x/TOOLSET and /x/TOOLSET/readonly too, TOOLSET one of %s", s.spec.Name, strings.Join(ids, ", "))
	mux.Handle("/x/", gate.Require(creds.at("/mcp"), http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeRESTError(w, http.StatusNotFound, CodeNotFound, msg)
	})))
}

// restCall answers POST {prefix}/tools/{name} through route, the MCP route of its URL.
func (s *Server) restCall(route http.Handler) http.Handler {
	var ids atomic.Uint64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			writeRESTError(w, http.StatusMethodNotAllowed, "method_not_allowed", "POST the tool's arguments as a JSON object")
			return
		}
		name := r.PathValue("name")
		if name == "" || len(name) > restMaxName {
			writeRESTError(w, http.StatusNotFound, CodeNotFound, fmt.Sprintf("no tool %q: GET openapi.json lists the tools", name))
			return
		}
		args, err := readArguments(r)
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			writeRESTError(w, http.StatusRequestEntityTooLarge, "too_large", guard.TooLarge(tooLarge.Limit, "--max-body-bytes"))
			return
		case err != nil:
			writeRESTError(w, http.StatusBadRequest, "invalid", err.Error())
			return
		}
		body, err := json.Marshal(map[string]any{
			"jsonrpc": "2.0", "id": "rest-" + strconv.FormatUint(ids.Add(1), 10), "method": "tools/call",
			"params": map[string]any{"name": name, "arguments": args},
		})
		if err != nil {
			writeRESTError(w, http.StatusInternalServerError, CodeInternal, "encoding the call: "+err.Error())
			return
		}
		out := &restOutcome{}
		resp := serveInProcess(context.WithValue(r.Context(), restOutcomeKey{}, out), r, route, body)
		if resp.status != http.StatusOK {
			relayRefusal(w, resp)
			return
		}
		var msg struct {
			Result *struct {
				Content []struct {
					Type string `json:"type"`
					Text string `json:"text"`
				} `json:"content"`
				StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
				IsError           bool            `json:"isError"`
			} `json:"result"`
			Error *jsonrpc.Error `json:"error"`
		}
		if err := json.Unmarshal(resp.body.Bytes(), &msg); err != nil || (msg.Result == nil && msg.Error == nil) {
			writeRESTError(w, http.StatusInternalServerError, CodeInternal, fmt.Sprintf("the MCP layer answered something unreadable (%v)", err))
			return
		}
		if e := msg.Error; e != nil {
			code := CodeInternal
			switch {
			case out.get() == codeNarrowed || strings.HasPrefix(e.Message, "unknown tool"):
				code = CodeNotFound
			case e.Code == jsonrpc.CodeInvalidParams:
				code = "invalid"
			}
			writeRESTError(w, restStatus(code), code, e.Message)
			return
		}
		texts := make([]string, 0, len(msg.Result.Content))
		for _, c := range msg.Result.Content {
			if c.Type == "text" {
				texts = append(texts, c.Text)
			}
		}
		text := strings.Join(texts, "\n")
		if msg.Result.IsError {
			code := restCode(out.get())
			writeRESTError(w, restStatus(code), code, text)
			return
		}
		writeJSON(w, http.StatusOK, struct {
			Result json.RawMessage `json:"result,omitempty"`
			Text   string          `json:"text"`
		}{msg.Result.StructuredContent, text})
	})
}

// restOpenAPI answers GET {prefix}/openapi.json: the tools tools/list shows this request,
// asked through route, as OpenAPI 3.1.
func (s *Server) restOpenAPI(prefix string, bearer bool, route http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeRESTError(w, http.StatusMethodNotAllowed, "method_not_allowed", "GET the document")
			return
		}
		var tools []openapi.Tool
		cursor := ""
		for page := 0; page == 0 || cursor != ""; page++ {
			params := map[string]any{}
			if cursor != "" {
				params["cursor"] = cursor
			}
			body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": page, "method": "tools/list", "params": params})
			if err != nil {
				writeRESTError(w, http.StatusInternalServerError, CodeInternal, "encoding tools/list: "+err.Error())
				return
			}
			resp := serveInProcess(r.Context(), r, route, body)
			if resp.status != http.StatusOK {
				relayRefusal(w, resp)
				return
			}
			var msg struct {
				Result *struct {
					Tools      []openapi.Tool `json:"tools"`
					NextCursor string         `json:"nextCursor"`
				} `json:"result"`
			}
			if err := json.Unmarshal(resp.body.Bytes(), &msg); err != nil || msg.Result == nil {
				writeRESTError(w, http.StatusInternalServerError, CodeInternal, fmt.Sprintf("tools/list answered something unreadable (%v)", err))
				return
			}
			tools = append(tools, msg.Result.Tools...)
			cursor = msg.Result.NextCursor
		}
		doc, err := openapi.Build(openapi.Info{
			Title:   cmp.Or(s.spec.Title, s.spec.Name),
			Version: s.version,
			Description: fmt.Sprintf("The tools of %s over plain REST: POST a tool's arguments as a JSON object; "+
				"the answer is {\"result\", \"text\"}, or {\"error\":{\"code\",\"message\"}}. The list is what this caller may call now.", s.spec.Name),
			Base:   prefix,
			Bearer: bearer,
		}, tools)
		if err != nil {
			writeRESTError(w, http.StatusInternalServerError, CodeInternal, err.Error())
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store") // it depends on the caller and the switches
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(doc)
	})
}

// readArguments reads a REST body: a JSON object, or nothing for a tool without arguments.
func readArguments(r *http.Request) (json.RawMessage, error) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, fmt.Errorf("reading the body: %w", err)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return json.RawMessage("{}"), nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil || obj == nil {
		return nil, errors.New(`the body must be the tool's arguments as one JSON object, e.g. {"expression":"2+2"}`)
	}
	return b, nil
}

// serveInProcess serves body as a JSON-RPC request to route, the MCP route of r's URL, with ctx
// (r's context: its caller, its end) and r's headers (narrowing), and returns the answer.
func serveInProcess(ctx context.Context, r *http.Request, route http.Handler, body []byte) *bufferedResponse {
	in := r.Clone(ctx)
	in.Method = http.MethodPost
	in.Body = io.NopCloser(bytes.NewReader(body))
	in.ContentLength = int64(len(body))
	in.GetBody = nil
	in.Header.Set("Content-Type", "application/json")
	in.Header.Set("Accept", "application/json, text/event-stream")
	in.Header.Set("Mcp-Protocol-Version", restProtocolVersion)
	in.Header.Del("Mcp-Session-Id")
	resp := &bufferedResponse{header: http.Header{}, status: http.StatusOK}
	route.ServeHTTP(resp, in)
	return resp
}

// restProtocolVersion is the protocol the in-process requests speak: the one today's clients
// do, whose stateless calls need no initialize.
const restProtocolVersion = "2025-11-25"

// relayRefusal answers with a refusal of the MCP route (a 403 for want of the write scope with
// its WWW-Authenticate, a 400 for a bad narrowing header) as a REST error.
func relayRefusal(w http.ResponseWriter, resp *bufferedResponse) {
	if ch := resp.header.Get("WWW-Authenticate"); ch != "" {
		w.Header().Set("WWW-Authenticate", ch)
	}
	code := statusCode(resp.status)
	if resp.status == http.StatusForbidden && resp.header.Get("WWW-Authenticate") != "" {
		code = "insufficient_scope"
	}
	writeRESTError(w, resp.status, code, strings.TrimSpace(resp.body.String()))
}

// restOutcome carries a REST call's code in logs and metrics from the call wrapper back to the
// REST route, through the call's context.
type restOutcome struct {
	mu   sync.Mutex
	code string
}

type restOutcomeKey struct{}

func (o *restOutcome) set(code string) {
	o.mu.Lock()
	o.code = code
	o.mu.Unlock()
}

func (o *restOutcome) get() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.code
}

// reportOutcome tells the REST route, if the call came through one, the call's code.
func reportOutcome(ctx context.Context, code string) {
	if o, ok := ctx.Value(restOutcomeKey{}).(*restOutcome); ok {
		o.set(code)
	}
}
