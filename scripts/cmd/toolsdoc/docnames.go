package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
)

// toolLike is a snake_case word, not part of a path or a flag.
var toolLike = regexp.MustCompile(`(?:^|[^\w./-])([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b`)

// notTools are words the docs use that start as a tool's name does but name no tool.
var notTools = map[string]bool{
	"read_only":   true, // a compose key (docs/containers.md)
	"quick_check": true, // SQLite's PRAGMA quick_check (docs/notes.md)
	// prompts, which docs name beside the tools (docs/protocol.md)
	"daily_review":   true,
	"weekly_summary": true,
	"diagnose_unit":  true,
	"triage_inbox":   true,
	"plan_my_day":    true,
	"play_playlist":  true,
	"music_for":      true,
}

// CheckDocNames fails when a document names a tool the fleet does not have: a snake_case word
// that starts as some tool's name does (get_, list_, search_, browser_ …) and is neither a
// tool, a tool without its server's prefix (get_text for browser_get_text), an argument nor
// one of an argument's values. Renamed or removed tools then cannot linger in the docs.
func CheckDocNames(servers []Server, files []string) error {
	known, verbs := maps.Clone(notTools), map[string]bool{}
	for _, s := range servers {
		for _, t := range s.Tools {
			known[t.Name] = true
			known[strings.TrimPrefix(t.Name, s.Server+"_")] = true
			verb, _, _ := strings.Cut(t.Name, "_")
			verbs[verb] = true
			schemaNames(t.InputSchema, known)
		}
	}
	var stale []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("read %s: %w", f, err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, m := range toolLike.FindAllStringSubmatch(line, -1) {
				w := m[1]
				verb, _, _ := strings.Cut(w, "_")
				if verbs[verb] && !known[w] {
					stale = append(stale, fmt.Sprintf("%s:%d: %s", f, i+1, w))
				}
			}
		}
	}
	if len(stale) > 0 {
		return fmt.Errorf("the docs name tools no server has (renamed or removed? fix the docs; a word that is no tool goes in notTools, scripts/cmd/toolsdoc/docnames.go):\n  %s", strings.Join(slices.Compact(stale), "\n  "))
	}
	return nil
}

// schemaNames adds the argument names of s, at every depth, and their string values to known.
func schemaNames(s Schema, known map[string]bool) {
	for name, p := range s.Properties {
		known[name] = true
		schemaNames(p, known)
	}
	if s.Items != nil {
		schemaNames(*s.Items, known)
	}
	for _, raw := range s.Enum {
		var v string
		if json.Unmarshal(raw, &v) == nil {
			known[v] = true
		}
	}
}
