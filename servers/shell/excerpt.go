package main

import (
	"bytes"
	"unicode/utf8"
)

// start_process answers with what was asked for rather than everything from the start: with
// wait_for, the matching line with a few lines around it and the last lines so far; without
// it, output beyond wholeBytes as its first lines and its last. read_process_output pages
// through the rest.
const (
	contextLines = 3       // lines shown on each side of the matching line
	contextBytes = 1 << 10 // at most this much context on each side
	lineBytes    = 2 << 10 // at most this much of the matching line, around the match
	tailLines    = 10      // lines shown of the end of the output
	tailBytes    = 2 << 10 // at most this much of the end
	wholeBytes   = 8 << 10 // output up to this size is shown whole
)

// aroundMatch returns the span of data around the match at [ms, me) (indexes into data): the
// matching line, bounded to lineBytes around the match, with up to contextLines lines before
// and after it, each side at most contextBytes.
func aroundMatch(data []byte, ms, me int) (start, end int) {
	lineStart := bytes.LastIndexByte(data[:ms], '\n') + 1
	lineEnd := len(data)
	if i := bytes.IndexByte(data[me:], '\n'); i >= 0 {
		lineEnd = me + i + 1
	}
	if lineEnd-lineStart > lineBytes {
		half := max(lineBytes-(me-ms), 0) / 2
		lineStart = max(lineStart, ms-half)
		lineEnd = min(lineEnd, me+half)
		return runeStart(data, lineStart), runeStart(data, lineEnd)
	}
	start, end = lineStart, lineEnd
	for range contextLines {
		if start == 0 {
			break
		}
		prev := bytes.LastIndexByte(data[:start-1], '\n') + 1
		if lineStart-prev > contextBytes {
			break
		}
		start = prev
	}
	for range contextLines {
		if end == len(data) {
			break
		}
		next := len(data)
		if i := bytes.IndexByte(data[end:], '\n'); i >= 0 {
			next = end + i + 1
		}
		if next-lineEnd > contextBytes {
			break
		}
		end = next
	}
	return start, end
}

// headEnd returns where the first tailLines lines of data end, at most tailBytes in.
func headEnd(data []byte) int {
	end := 0
	for range tailLines {
		i := bytes.IndexByte(data[end:], '\n')
		if i < 0 || end+i+1 > tailBytes {
			break
		}
		end += i + 1
	}
	if end == 0 {
		end = runeStart(data, min(len(data), tailBytes))
	}
	return end
}

// tailStart returns where the last tailLines lines of data begin, at most tailBytes back.
func tailStart(data []byte) int {
	body := bytes.TrimSuffix(data, []byte("\n"))
	start, pos := len(data), len(body)
	for range tailLines {
		i := bytes.LastIndexByte(body[:pos], '\n')
		if len(data)-(i+1) > tailBytes {
			break
		}
		start, pos = i+1, i
		if i < 0 {
			break
		}
	}
	if start == len(data) && len(data) > 0 {
		start = runeStart(data, len(data)-tailBytes)
	}
	return start
}

// runeStart moves i back to the start of the UTF-8 sequence it falls in.
func runeStart(data []byte, i int) int {
	for k := 0; k < utf8.UTFMax && i > 0 && i < len(data) && !utf8.RuneStart(data[i]); k++ {
		i--
	}
	return i
}
