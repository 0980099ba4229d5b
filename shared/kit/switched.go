package kit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/jck411/mcp-servers/shared/health"
	"github.com/jck411/mcp-servers/shared/kit/switches"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// switchWatchEvery is how often the server looks at its switches file for a state another
// process wrote (a stdio instance on the same state folder, a replica on a shared volume).
const switchWatchEvery = 2 * time.Second

// registration is an offered tool as it was given to the go-sdk, kept so that a tool switched
// on again is given back, and listed again when its common arguments' listing changes.
type registration struct {
	tool    *mcp.Tool
	handler mcp.ToolHandler
	relist  func() (*jsonschema.Schema, error) // its input schema as tools/list shows it now; nil when that cannot change
}

// addToSDK registers an offered tool with the go-sdk and keeps it for the switches.
func (s *Server) addToSDK(t *mcp.Tool, relist func() (*jsonschema.Schema, error), h mcp.ToolHandler) {
	s.registered[t.Name] = &registration{t, h, relist}
	s.mcp.AddTool(t, h)
}

// RelistTools builds the input schema of every offered tool again, for a common argument whose
// listing changed (CommonArg.Show), and gives the go-sdk the tools whose schema changed: it
// tells every session that listens that the list changed. It reports whether any did.
func (s *Server) RelistTools() bool {
	s.switchMu.Lock()
	defer s.switchMu.Unlock()
	changed := false
	for _, name := range slices.Sorted(maps.Keys(s.registered)) {
		r := s.registered[name]
		if r.relist == nil {
			continue
		}
		in, err := r.relist()
		if err != nil {
			s.log.Error("tool not listed again", "tool", name, "error", err.Error())
			continue
		}
		was, _ := json.Marshal(r.tool.InputSchema)
		now, _ := json.Marshal(in)
		if bytes.Equal(was, now) {
			continue
		}
		t := *r.tool
		t.InputSchema = in
		r.tool, changed = &t, true
		if !s.sdkOff[name] {
			s.mcp.AddTool(r.tool, r.handler)
		}
	}
	return changed
}

// switchesPath is where the server keeps its switches: switches.json in its state folder.
func (s *Server) switchesPath() string { return filepath.Join(s.cfg.StateDir, switches.File) }

// loadSwitches applies the switches the server kept, when it starts. A missing file switches
// nothing off. A file that cannot be read, parsed or understood fails closed: every tool that
// changes something is off (the fleet read-only switch), the health check says why, and the
// console's next push replaces it.
func (s *Server) loadSwitches() {
	path := s.switchesPath()
	st, err := switches.Read(path)
	s.switchStamp = switches.StampOf(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return
	case err != nil:
		s.switchErr = err
		s.log.Error("run-time switches unreadable: only the tools that change nothing are offered until the console sets them again", "file", path, "error", err.Error())
		st = switches.State{Format: switches.Format, ReadOnly: true, By: "the server: its switches file is unreadable"}
	}
	s.applySwitches(st)
}

// SetSwitches puts a state of the run-time switches in force at once and keeps it in the state
// folder, so the server starts with it again; the switches file is written before anything is
// applied, and a state that cannot be kept is not applied. It returns the entries that name no
// toolset or tool of this server.
func (s *Server) SetSwitches(st switches.State) ([]string, error) {
	if err := st.Validate(); err != nil {
		return nil, err
	}
	s.switchMu.Lock()
	defer s.switchMu.Unlock()
	path := s.switchesPath()
	if err := switches.Write(path, st); err != nil {
		return nil, err
	}
	s.switchStamp = switches.StampOf(path)
	s.switchErr = nil
	return s.applySwitches(st), nil
}

// applySwitches puts st in force: the inventory's views decide by it from now on, and the
// go-sdk's tool list loses the tools it turns off and gets back those it turns on, which tells
// every session that listens (stdio, and any stateful transport) that the list changed.
func (s *Server) applySwitches(st switches.State) []string {
	before := s.inv.Switches()
	unknown := s.inv.SetSwitches(st)
	s.switchUnknown = unknown
	var off, on []string
	for _, name := range slices.Sorted(maps.Keys(s.registered)) {
		switch is := s.inv.SwitchedOff(name); {
		case is && !s.sdkOff[name]:
			off = append(off, name)
			s.sdkOff[name] = true
		case !is && s.sdkOff[name]:
			on = append(on, name)
			delete(s.sdkOff, name)
		}
	}
	if len(off) > 0 {
		s.mcp.RemoveTools(off...)
	}
	for _, name := range on {
		r := s.registered[name]
		s.mcp.AddTool(r.tool, r.handler)
	}
	if len(off)+len(on) > 0 || st.Version != before.Version {
		attrs := []any{"version", st.Version, "off", off, "on", on, "server_off", st.Server, "read_only", st.ReadOnly, "by", st.By}
		if len(unknown) > 0 {
			attrs = append(attrs, "unknown", unknown)
		}
		s.log.Info("run-time switches applied", attrs...)
	}
	return unknown
}

// watchSwitches rereads the switches file when another process replaced it.
func (s *Server) watchSwitches(ctx context.Context) {
	t := time.NewTicker(switchWatchEvery)
	defer t.Stop()
	path := s.switchesPath()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.switchMu.Lock()
		if stamp := switches.StampOf(path); stamp != s.switchStamp {
			s.switchStamp = stamp
			if st, err := switches.Read(path); err == nil && st.Version != s.inv.Switches().Version {
				s.applySwitches(st)
			}
		}
		s.switchMu.Unlock()
	}
}

// switchesHealth is the "switches" health check: what the run-time switches turn off, as a
// warning, so that /healthz and the fleet's status show a switched-off server or tool.
func (s *Server) switchesHealth(context.Context) health.Result {
	s.switchMu.Lock()
	err := s.switchErr
	s.switchMu.Unlock()
	if err != nil {
		return health.Result{Status: health.Warn, Detail: "switches file unreadable, only read tools offered: " + err.Error()}
	}
	st := s.inv.Switches()
	switch {
	case st.Server:
		return health.Result{Status: health.Warn, Detail: "server switched off by the owner"}
	case st.IsZero():
		return health.Result{Status: health.OK, Detail: "nothing switched off"}
	}
	// Tools switched off are the owner's choice, not a fault: the server is still ok.
	n := len(s.sdkOffNow())
	detail := strconv.Itoa(n) + " tool(s) switched off"
	if st.ReadOnly {
		detail = "fleet read-only: " + detail
	}
	return health.Result{Status: health.OK, Detail: detail}
}

// sdkOffNow lists the offered tools the switches in force turn off.
func (s *Server) sdkOffNow() []string {
	var out []string
	for name := range s.registered {
		if s.inv.SwitchedOff(name) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
