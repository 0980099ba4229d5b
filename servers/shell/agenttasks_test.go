package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/jck411/mcp-servers/shared/agenttask"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAgentTasks runs the shell server's part of the agent task suite (docs/agent-tasks.md),
// each task in a fresh work directory holding a small project.
func TestAgentTasks(t *testing.T) {
	t.Parallel()
	agenttask.Run(t, "shell", func(t *testing.T) *mcp.ClientSession {
		_, cs, work := start(t)
		for rel, body := range shellProject {
			path := filepath.Join(work, rel)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return cs
	}, shellTasks)
}

// shellProject is the work directory every task starts from: a small app, its dependencies
// and its history, which searches should skip.
var shellProject = map[string]string{
	"app/config.yaml":                "name: shop\nserver:\n  host: 0.0.0.0\n  port: 8080\nlog_level: info\n",
	"app/main.py":                    "import yaml\n\n# TODO: read the port from config.yaml\nPORT = 8080\n",
	"app/test_main.sh":               "#!/bin/sh\necho 'ok 1 - loads config'\necho 'not ok 2 - port is 9090' >&2\nexit 1\n",
	"node_modules/left-pad/index.js": "// TODO: port to ES modules\nmodule.exports = pad;\n",
	".git/config":                    "[core]\n\t# TODO port\n",
	"app/server.sh":                  "#!/bin/sh\necho 'compiling'\nsleep 0.2\necho 'listening on http://127.0.0.1:5173'\nwhile true; do sleep 1; done\n",
}

var shellTasks = []agenttask.Task{
	{Name: "change-config-port", Ask: "Change the app's port from 8080 to 9090 in its config.",
		Run: func(a *agenttask.Agent) {
			hits := a.Call("search_text", map[string]any{"pattern": "port: 8080", "include": []string{"*.yaml"}})
			path := a.Find(hits, "the config's path", `(\S*config\.yaml)`)
			file := a.Call("read_text_file", map[string]any{"path": path})
			sha := a.Find(file, "the file's sha256", `([0-9a-f]{64})`)
			diff := a.Call("edit_file", map[string]any{"path": path, "expected_sha256": sha,
				"edits": []map[string]any{{"old_text": "port: 8080", "new_text": "port: 9090"}}})
			a.Has(diff, "+  port: 9090")
		}},
	{Name: "find-todos", Ask: "List the TODOs in my code (not in dependencies) and show me the first one in context.",
		Run: func(a *agenttask.Agent) {
			hits := a.Call("search_text", map[string]any{"pattern": "TODO"})
			a.Lacks(hits, "left-pad", ".git/config")
			path := a.Find(hits, "the file with the TODO", `(\S*main\.py)`)
			line := a.Int(hits, "the TODO's line number", `main\.py:(\d+)`)
			file := a.Call("read_text_file", map[string]any{"path": path, "offset": line, "limit": 2})
			a.Has(file, "PORT = 8080")
		}},
	{Name: "why-tests-fail", Ask: "Run the app's tests and tell me what fails.",
		Run: func(a *agenttask.Agent) {
			out := a.Call("run_command", map[string]any{"command": "sh app/test_main.sh"})
			a.Find(out, "the exit code", `\[exit (1)\]`)
			a.Has(out, "not ok 2 - port is 9090")
		}},
	{Name: "dev-server", Ask: "Start the dev server, tell me its URL once it's up, then stop it.",
		Run: func(a *agenttask.Agent) {
			started := a.Call("start_process", map[string]any{"command": "sh app/server.sh", "wait_for": "listening on"})
			handle := a.Find(started, "the process handle", `\[(proc-[0-9a-f]+) `)
			a.Has(started, "wait_for matched")
			a.Find(started, "the URL", `(http://127\.0\.0\.1:\d+)`)
			stopped := a.Call("stop_process", map[string]any{"handle": handle})
			a.Find(stopped, "the signal that ended it", `signal (\w+)`)
		}},
	{Name: "build-log-error", Ask: "Run the long build and show me where it first fails.",
		Run: func(a *agenttask.Agent) {
			started := a.Call("start_process", map[string]any{"command": "seq -f 'step %g ok' 12345; echo 'error: missing symbol foo'; sleep 30",
				"wait_for": "^error:", "wait_seconds": 30})
			a.Has(started, "error: missing symbol foo", "step 12345 ok")
			if len(started) > 8<<10 {
				a.T.Errorf("wait_for answered %d bytes for one matched line; want at most 8 KiB", len(started))
			}
			handle := a.Find(started, "the process handle", `\[(proc-[0-9a-f]+) `)
			a.Call("stop_process", map[string]any{"handle": handle})
		}},
	{Name: "write-report-new-folder", Ask: "Save a summary of today's work to reports/2026/summary.md.",
		Run: func(a *agenttask.Agent) {
			written := a.Call("write_text_file", map[string]any{"path": "reports/2026/summary.md", "content": "# Summary\n\nMoved the app to port 9090.\n", "create_parents": true})
			a.Has(written, "summary.md")
			a.Find(written, "the new file's sha256", `([0-9a-f]{64})`)
		}},
}
