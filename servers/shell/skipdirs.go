package main

import (
	"fmt"
	"strings"
)

// skippedDirs are the folders find_files and search_text do not enter unless asked
// (include_all_dirs): version control, dependencies and caches, which hold many files and
// almost never what a search is for.
var skippedDirs = map[string]bool{
	".git": true, ".hg": true, ".svn": true, ".jj": true,
	"node_modules": true, "bower_components": true, ".venv": true, "__pycache__": true,
	".mypy_cache": true, ".pytest_cache": true, ".ruff_cache": true, ".tox": true,
	".terraform": true, ".gradle": true, ".next": true,
}

// maxSkippedNames is how many skipped folders an answer names.
const maxSkippedNames = 5

// skips collects the folders a walk left out by default.
type skips struct {
	all   bool     // include_all_dirs: nothing is skipped
	names []string // paths below root of the first skipped folders
	n     int
}

// skip reports whether the walk leaves out the folder at rel (below root), noting it.
func (s *skips) skip(rel, name string) bool {
	if s.all || !skippedDirs[name] {
		return false
	}
	if s.n++; len(s.names) < maxSkippedNames {
		s.names = append(s.names, rel)
	}
	return true
}

// more is how many skipped folders are not among names.
func (s *skips) more() int { return s.n - len(s.names) }

// skipNote is a line saying which folders were left out and how to include them; "" if none.
func skipNote(names []string, more int) string {
	if len(names) == 0 {
		return ""
	}
	tail := ""
	if more > 0 {
		tail = fmt.Sprintf(" and %d more", more)
	}
	return fmt.Sprintf("[not entered: %s%s; include_all_dirs enters them]\n", strings.Join(names, ", "), tail)
}
