package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// search_text limits.
const (
	maxSearchFileBytes = 8 << 20 // larger files are skipped
	maxSearchLineBytes = 400     // a matching line is cut to this many bytes
	maxSearchVisits    = 500000
)

func addSearchTool(s *kit.Server, sh *shell) {
	kit.AddTool(s, kit.Tool{
		Name:        "search_text",
		Toolset:     toolsetFiles,
		Title:       "Search text in files",
		Description: "Search text files under a directory for a literal or regex; matching lines with numbers, paged.",
		ReadOnly:    true,
		Timeout:     45 * time.Second,
	}, sh.searchText)
}

type searchTextInput struct {
	Pattern        string   `json:"pattern" jsonschema:"text to find on one line" schema:"minLength=1,maxLength=1000"`
	Root           string   `json:"root,omitempty" jsonschema:"directory; default the work directory"`
	Regex          bool     `json:"regex,omitempty" jsonschema:"pattern is an RE2 regular expression"`
	IgnoreCase     bool     `json:"ignore_case,omitempty" schema:"bare=true"`
	Include        []string `json:"include,omitempty" jsonschema:"globs of files to search" schema:"maxItems=20"`
	Exclude        []string `json:"exclude,omitempty" jsonschema:"globs to skip, e.g. 'dist' or '*.min.js'" schema:"maxItems=20"`
	MaxResults     int      `json:"max_results,omitempty" jsonschema:"at most this many matching lines" schema:"minimum=1,maximum=1000,default=100"`
	Offset         int      `json:"offset,omitempty" jsonschema:"from next_offset" schema:"minimum=0"`
	TimeoutSeconds int      `json:"timeout_seconds,omitempty" jsonschema:"stop then with what was found" schema:"minimum=1,maximum=40,default=20"`
	AllDirs        bool     `json:"include_all_dirs,omitempty" jsonschema:"also search .git, node_modules and the like"`
}

type textMatch struct {
	Path string `json:"path" jsonschema:"relative to root"`
	Line int    `json:"line" jsonschema:"1-based"`
	Text string `json:"text" jsonschema:"the line, cut at 400 bytes"`
}

type searchTextOutput struct {
	Root         string      `json:"root"`
	Matches      []textMatch `json:"matches"`
	FilesScanned int         `json:"files_scanned"`
	NextOffset   int         `json:"next_offset,omitempty" jsonschema:"pass as offset for the next page; absent when there are no more"`
	Truncated    bool        `json:"truncated" jsonschema:"more matches than this page, or the search stopped at its time or visit limit"`
	TimedOut     bool        `json:"timed_out,omitempty" jsonschema:"the time limit stopped the search; the results are partial"`
	Skipped      []string    `json:"skipped_dirs,omitempty" jsonschema:"folders not entered (at most 5 named), as .git and node_modules are by default"`
	MoreSkip     int         `json:"more_skipped_dirs,omitempty" jsonschema:"further folders not entered"`
}

// Text is grep-like: path:line:text.
func (o searchTextOutput) Text() string {
	var b strings.Builder
	for _, m := range o.Matches {
		fmt.Fprintf(&b, "%s:%d:%s\n", m.Path, m.Line, m.Text)
	}
	if len(o.Matches) == 0 {
		b.WriteString("no matches\n")
	}
	switch {
	case o.NextOffset != 0:
		fmt.Fprintf(&b, "[more matches; continue with offset %d]\n", o.NextOffset)
	case o.TimedOut:
		b.WriteString("[stopped at the time limit; narrow root or include]\n")
	case o.Truncated:
		b.WriteString("[stopped at the visit limit; narrow root or include]\n")
	}
	b.WriteString(skipNote(o.Skipped, o.MoreSkip))
	return b.String()
}

func (sh *shell) searchText(ctx context.Context, _ *mcp.CallToolRequest, in searchTextInput) (*mcp.CallToolResult, searchTextOutput, error) {
	var out searchTextOutput
	expr := in.Pattern
	if !in.Regex {
		expr = regexp.QuoteMeta(expr)
	}
	if in.IgnoreCase {
		expr = "(?i)" + expr
	}
	// Lines are matched one at a time; a whole file is first checked in multi-line mode,
	// where ^ and $ match at every line, unless the pattern anchors to the whole text.
	prefilter := !strings.Contains(expr, `\A`) && !strings.Contains(expr, `\z`)
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, out, kit.Errorf(kit.CodeInvalidInput, "pattern is not a valid regular expression: %v", err)
	}
	for _, g := range append(append([]string(nil), in.Include...), in.Exclude...) {
		if _, err := filepath.Match(g, ""); err != nil || g == "" {
			return nil, out, kit.Errorf(kit.CodeInvalidInput, "%q is not a valid glob", g)
		}
	}
	root, dir, err := sh.dir(in.Root)
	if err != nil {
		return nil, out, err
	}
	defer dir.Close()
	out.Root, out.Matches = root.Abs, []textMatch{}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(in.TimeoutSeconds)*time.Second)
	defer cancel()
	s := searcher{dir: dir, re: re, offset: in.Offset, limit: in.MaxResults, out: &out}
	if prefilter {
		s.whole = regexp.MustCompile("(?m)" + expr)
	}
	visits := 0
	skip := skips{all: in.AllDirs}
	err = fs.WalkDir(dir.FS(), ".", func(rel string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() && rel != "." {
				return fs.SkipDir
			}
			return err
		}
		if rel == "." {
			return nil
		}
		if visits++; visits > maxSearchVisits {
			out.Truncated = true
			return errStopSearch
		}
		if err := ctx.Err(); err != nil {
			out.Truncated, out.TimedOut = true, true
			return errStopSearch
		}
		if matchAny(in.Exclude, rel, d.Name()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() && skip.skip(rel, d.Name()) {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() || (len(in.Include) > 0 && !matchAny(in.Include, rel, d.Name())) {
			return nil
		}
		return s.file(ctx, rel)
	})
	out.Skipped, out.MoreSkip = skip.names, skip.more()
	switch {
	case errors.Is(err, errStopSearch):
	case errors.Is(err, context.DeadlineExceeded):
		out.Truncated, out.TimedOut = true, true
	case errors.Is(err, context.Canceled):
		return nil, out, err
	case err != nil:
		return nil, out, fileError(root.Abs, err)
	}
	return nil, out, nil
}

var errStopSearch = errors.New("stop")

func matchAny(globs []string, rel, name string) bool {
	for _, g := range globs {
		subject := name
		if strings.Contains(g, "/") {
			subject = rel
		}
		if ok, _ := filepath.Match(g, subject); ok {
			return true
		}
	}
	return false
}

// searcher collects the matching lines of one page across files.
type searcher struct {
	dir    *os.Root // the directory searched
	re     *regexp.Regexp
	whole  *regexp.Regexp // matches a whole file that has a matching line; nil to skip the check
	offset int            // matches still to skip
	limit  int
	seen   int
	out    *searchTextOutput
	buf    []byte
}

// file searches one file, rel below the directory searched; unreadable, binary and oversized
// files are skipped.
func (s *searcher) file(ctx context.Context, rel string) error {
	f, err := s.dir.Open(rel)
	if err != nil {
		return nil
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || info.Size() > maxSearchFileBytes {
		return nil
	}
	if cap(s.buf) < int(info.Size())+1 {
		s.buf = make([]byte, 0, info.Size()+1)
	}
	buf := bytes.NewBuffer(s.buf[:0])
	if _, err := io.Copy(buf, io.LimitReader(f, maxSearchFileBytes+1)); err != nil {
		return nil
	}
	data := buf.Bytes()
	s.buf = data[:0]
	s.out.FilesScanned++
	if len(data) > maxSearchFileBytes || bytes.IndexByte(data[:min(len(data), 8<<10)], 0) >= 0 || (s.whole != nil && !s.whole.Match(data)) {
		return nil
	}
	line := 0
	for len(data) > 0 {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		line++
		end := bytes.IndexByte(data, '\n')
		if end < 0 {
			end = len(data)
		}
		text := data[:end]
		data = data[min(end+1, len(data)):]
		if !s.re.Match(text) {
			continue
		}
		s.seen++
		if s.seen <= s.offset {
			continue
		}
		if len(s.out.Matches) >= s.limit {
			s.out.Truncated, s.out.NextOffset = true, s.seen-1
			return errStopSearch
		}
		text = bytes.TrimSuffix(text, []byte("\r"))
		if len(text) > maxSearchLineBytes {
			text = text[:maxSearchLineBytes]
		}
		s.out.Matches = append(s.out.Matches, textMatch{Path: rel, Line: line, Text: strings.ToValidUTF8(string(text), "\uFFFD")})
	}
	return nil
}
