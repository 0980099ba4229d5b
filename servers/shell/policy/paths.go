package policy

import (
	"path"
	"strings"
)

// maxLinkSteps bounds how many symbolic links one path is followed through.
const maxLinkSteps = 8

// resolve returns the absolute paths p may name, following every symbolic link the rules know
// of, the last component's too; nil when that cannot be known (a relative path after a cd the
// checker cannot follow, a path through /proc/PID/cwd of another process or through an open
// descriptor such as /dev/fd/3/..).
func (c *checker) resolve(p string) []string { return c.paths(p, true, 0) }

// resolveOperand is resolve for an operand that names a directory entry itself, as rm's do:
// a symbolic link in the last component is followed only when a slash follows it.
func (c *checker) resolveOperand(p string) []string {
	return c.paths(p, strings.HasSuffix(p, "/") || strings.HasSuffix(p, "/."), 0)
}

// paths resolves p: ~ and ~user are the home directory (spelled "~", and also as the home
// directory the policy was given), ~+ the working directory; a relative path is taken from
// every directory the line may be in; an absolute one is walked component by component as
// the kernel does, /proc/PID/root leading back to / and .. taken after the link before it.
func (c *checker) paths(p string, followLast bool, depth int) []string {
	if depth > 4 {
		return nil
	}
	if strings.HasPrefix(p, "~") {
		user, rest, _ := strings.Cut(p, "/")
		switch user {
		case "~+":
			return c.paths(path.Join(".", rest)+trailing(p), followLast, depth+1)
		case "~-":
			return nil
		}
		var out []string
		if home := c.p.home; home != "" {
			out = append(out, c.paths(home+"/"+rest, followLast, depth+1)...)
		}
		switch clean := path.Clean("~/" + rest); {
		case clean == "~" || strings.HasPrefix(clean, "~/"):
			out = append(out, clean)
		case c.p.home == "":
			return nil // ~/.. leads somewhere only the home directory tells
		}
		return out
	}
	if !path.IsAbs(p) {
		if c.cwdUnknown || len(c.cwds) == 0 {
			return nil
		}
		var out []string
		for _, d := range c.cwds {
			ps := c.paths(d+"/"+p, followLast, depth+1)
			if ps == nil {
				return nil
			}
			out = append(out, ps...)
		}
		return out
	}
	abs, ok := c.walkPath(p, followLast, depth)
	if !ok {
		return nil
	}
	var out []string
	for _, a := range abs {
		out = append(out, c.followLinks(a, followLast)...)
	}
	return out
}

// trailing is "/" when p ends in one, so that joining keeps it.
func trailing(p string) string {
	if strings.HasSuffix(p, "/") {
		return "/"
	}
	return ""
}

// walkPath cleans an absolute path the way the kernel walks it: the magic links of /proc
// (/proc/self/root, /proc/1/root, /proc/thread-self/root, /proc/PID/task/TID/root) lead to /,
// /proc/self/cwd to the working directory, and a path that goes on through another process's
// cwd or through an open descriptor (/dev/fd/N/…, /proc/self/fd/N/…, /dev/stdin/…) is
// unknown (ok false).
func (c *checker) walkPath(p string, followLast bool, depth int) ([]string, bool) {
	comps := strings.Split(p, "/")
	var stack []string
	for i, comp := range comps {
		switch comp {
		case "", ".":
			continue
		case "..":
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			continue
		}
		stack = append(stack, comp)
		last := i == len(comps)-1
		switch magicLink(stack) {
		case linkRoot:
			stack = stack[:0]
		case linkOwnCwd:
			if c.cwdUnknown || len(c.cwds) == 0 {
				return nil, false
			}
			rest := strings.Join(comps[i+1:], "/")
			var out []string
			for _, d := range c.cwds {
				ps := c.paths(d+"/"+rest, followLast, depth+1)
				if ps == nil {
					return nil, false
				}
				out = append(out, ps...)
			}
			return out, true
		case linkOther:
			return nil, false
		case linkDescriptor:
			if !last {
				return nil, false
			}
		}
	}
	return []string{"/" + strings.Join(stack, "/")}, true
}

// link kinds of /proc and /dev that walkPath knows.
const (
	linkNone       = iota
	linkRoot       // a process's root directory: /
	linkOwnCwd     // this process's working directory
	linkOther      // another process's working directory or executable
	linkDescriptor // an open descriptor, whose target only the running process knows
)

// magicLink says what the path components so far name in /proc or /dev.
func magicLink(stack []string) int {
	if len(stack) == 2 && stack[0] == "dev" && (stack[1] == "stdin" || stack[1] == "stdout" || stack[1] == "stderr") {
		return linkDescriptor
	}
	if len(stack) == 3 && stack[0] == "dev" && stack[1] == "fd" {
		return linkDescriptor
	}
	if len(stack) < 3 || stack[0] != "proc" || !procName(stack[1]) {
		return linkNone
	}
	own := stack[1] == "self" || stack[1] == "thread-self"
	rest := stack[2:]
	if len(rest) >= 2 && rest[0] == "task" && digits(rest[1]) {
		rest = rest[2:]
	}
	switch {
	case len(rest) == 1 && rest[0] == "root":
		return linkRoot
	case len(rest) == 1 && rest[0] == "cwd" && own:
		return linkOwnCwd
	case len(rest) == 1 && (rest[0] == "cwd" || rest[0] == "exe"):
		return linkOther
	case len(rest) == 2 && (rest[0] == "fd" || rest[0] == "map_files"):
		return linkDescriptor
	}
	return linkNone
}

// procName reports whether s names a process in /proc: self, thread-self or a number.
func procName(s string) bool { return s == "self" || s == "thread-self" || digits(s) }

func digits(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }

// followLinks returns p and what it leads to through the symbolic links the line makes
// itself (ln -s) and, with FollowSymlinks, those on the file system.
func (c *checker) followLinks(p string, followLast bool) []string {
	out := []string{p}
	add := func(q string) {
		q = path.Clean(q)
		if !contains(out, q) {
			out = append(out, q)
		}
	}
	for i := 0; i < len(out) && i < maxLinkSteps; i++ {
		cur := out[i]
		for l, t := range c.defs.links {
			switch {
			case cur == l && followLast:
				add(t)
			case strings.HasPrefix(cur, l+"/"):
				add(t + cur[len(l):])
			}
		}
		if c.p.links == nil || hasGlob(cur) {
			continue
		}
		if followLast {
			if r, err := c.p.links(cur); err == nil {
				add(r)
			}
		}
		if dir := path.Dir(cur); dir != cur {
			if r, err := c.p.links(dir); err == nil {
				add(path.Join(r, path.Base(cur)))
			}
		}
	}
	return out
}

// learnLink records a link that ln makes: name, taken from the working directory, leads to
// target, which a symbolic link takes from the link's own directory.
func (c *checker) learnLink(target, name string, symbolic bool) {
	if c.cwdUnknown && !path.IsAbs(name) || len(c.defs.links) > 64 {
		return
	}
	for _, n := range c.paths(name, false, 0) {
		t := target
		if !path.IsAbs(t) && !strings.HasPrefix(t, "~") {
			base := n
			if symbolic {
				base = path.Dir(n)
			}
			t = base + "/" + t
		}
		for _, tt := range c.resolve(t) {
			if path.IsAbs(n) && path.IsAbs(tt) {
				c.defs.links[n] = tt
				c.defs.changed = true
			}
		}
	}
}
