package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/shared/kit/switches"
)

// maxAnswer bounds what the console reads of one answer.
const maxAnswer = 4 << 20

// Client talks to one server's admin surface with the console token.
type Client struct {
	Base  string       // the server's base URL as the console reaches it: http://127.0.0.1:9005
	Token string       // the console token
	HTTP  *http.Client // nil: one with a 15 s timeout
}

// Error is an answer other than 200: the status and the server's words.
type Error struct {
	Status int
	Msg    string
}

func (e *Error) Error() string { return fmt.Sprintf("HTTP %d: %s", e.Status, e.Msg) }

// Status asks the server for its status.
func (c *Client) Status(ctx context.Context) (Status, error) {
	var st Status
	return st, c.do(ctx, http.MethodGet, PathStatus, nil, &st)
}

// SetSwitches puts a state of the run-time switches in force and returns the status after it.
func (c *Client) SetSwitches(ctx context.Context, s switches.State) (Status, error) {
	var st Status
	return st, c.do(ctx, http.MethodPut, PathSwitches, s, &st)
}

// Calls returns the calls the server's ring holds after seq.
func (c *Client) Calls(ctx context.Context, after int64) (Calls, error) {
	var out Calls
	return out, c.do(ctx, http.MethodGet, PathCalls+"?after="+strconv.FormatInt(after, 10), nil, &out)
}

func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("admin %s: %w", path, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(c.Base, "/")+path, rd)
	if err != nil {
		return fmt.Errorf("admin %s: %w", path, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 15 * time.Second}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return fmt.Errorf("admin %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		var p Problem
		if json.Unmarshal(data, &p) != nil || p.Error == "" {
			p.Error = strings.TrimSpace(string(data))
			if len(p.Error) > 300 {
				p.Error = p.Error[:300] + "…"
			}
		}
		return &Error{Status: resp.StatusCode, Msg: p.Error}
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("admin %s: the answer is not understood: %w", path, err)
	}
	return nil
}
