// Package admin is the wire between the owner's console (on the auth server) and each server's
// admin surface, /admin/: what a server reports of itself (Status, Calls), and the run-time switches
// the console sets. The console holds one token (the console token); a server
// holds only its SHA-256 (--admin-token-sha256), so reading a server's settings, or anything a
// server's tools can read, gives nobody the token.
package admin

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/jck411/mcp-servers/shared/health"
	"github.com/jck411/mcp-servers/shared/kit/switches"
	"github.com/jck411/mcp-servers/shared/metrics"
)

// Paths of the admin surface.
const (
	PathStatus   = "/admin/status"   // GET: Status
	PathSwitches = "/admin/switches" // PUT: a switches.State; answers the Status after it
	PathCalls    = "/admin/calls"    // GET ?after=SEQ: Calls
)

// Status is what a server reports of itself to the console.
type Status struct {
	Name     string         `json:"name"`
	Title    string         `json:"title,omitempty"`
	Version  string         `json:"version"`
	Boot     string         `json:"boot"` // a random id of this run of the process: a new one means it restarted
	Started  time.Time      `json:"started"`
	Health   health.Report  `json:"health"`
	Toolsets []Toolset      `json:"toolsets"`
	Switches switches.State `json:"switches"`          // the switches in force
	Unknown  []string       `json:"unknown,omitempty"` // their entries that name no toolset or tool of this server (ignored)
	Totals   metrics.Totals `json:"totals"`
	LastCall int64          `json:"last_call"` // the sequence number of the last call in Calls
	Errors   []Call         `json:"errors,omitempty"`
	ReadOnly bool           `json:"read_only"` // started with --read-only
}

// Toolset is one of the server's toolsets with every tool it has.
type Toolset struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Optional    bool   `json:"optional,omitempty"` // off by default
	Tools       []Tool `json:"tools"`
}

// Tool is one tool: whether it changes nothing, whether the flags offer it, and whether a
// run-time switch turns it off.
type Tool struct {
	Name     string `json:"name"`
	ReadOnly bool   `json:"read_only,omitempty"`
	Offered  bool   `json:"offered"`
	Off      bool   `json:"off,omitempty"`
}

// Call is one finished tool call as the server's audit ring keeps it: never its arguments or
// its result.
type Call struct {
	Seq        int64     `json:"seq"`
	At         time.Time `json:"at"`
	Tool       string    `json:"tool"`
	Caller     string    `json:"caller"`
	Outcome    string    `json:"outcome"` // ok or error
	Code       string    `json:"code,omitempty"`
	DurationMS float64   `json:"duration_ms"`
}

// Calls answers GET /admin/calls?after=SEQ: the calls after SEQ still in the ring, oldest
// first. Boot names the run of the server: sequence numbers start again at 1 when it changes.
type Calls struct {
	Boot  string `json:"boot"`
	Calls []Call `json:"calls"`
	// Lost is how many calls after SEQ the ring no longer holds.
	Lost int64 `json:"lost,omitempty"`
}

// Problem is the body of an error answer.
type Problem struct {
	Error string `json:"error"`
}

// HashToken is how a server knows the console token: its SHA-256 in hex, as sha256sum prints it.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}
