package policy

import (
	"path"
	"strings"
)

// protectedOperand returns the first operand that names a protected directory or its
// contents, or whose path cannot be known (relative after a cd the checker cannot follow,
// through another process's cwd or an open descriptor). An operand of rm (entry) names the
// directory entry itself: a symbolic link it ends in is followed only with a slash after it.
func (c *checker) protectedOperand(ops []operand, entry bool) (string, bool) {
	for _, o := range ops {
		for _, v := range o.vals {
			ps := c.resolve(v)
			if entry {
				ps = c.resolveOperand(v)
			}
			if ps == nil {
				return o.text + " (a path the checker cannot resolve: relative after a cd it cannot follow, or through /proc/PID/cwd or an open descriptor; use an absolute path)", true
			}
			for _, p := range ps {
				if !c.protected(p) {
					continue
				}
				if o.text != p && path.Clean(o.text) != p {
					return o.text + " (" + strings.ReplaceAll(p, unknownComponent, "…") + ")", true
				}
				return o.text, true
			}
		}
	}
	return "", false
}

// ProtectedDir reports whether p (absolute and clean) is a directory that rm -r and chmod -R may
// not target: /, a top-level system directory, a home directory under /home, or the home
// directory; the file tools refuse to delete or move them too.
func ProtectedDir(p, home string) bool {
	return (home != "" && p == path.Clean(home)) || matchesProtected(p)
}

// protected reports whether p, as resolve gives it, is a protected directory or, as a glob,
// the entries of one.
func (c *checker) protected(p string) bool {
	if ProtectedDir(p, c.p.home) {
		return true
	}
	return hasGlob(path.Base(p)) && ProtectedDir(path.Dir(p), c.p.home)
}

func matchesProtected(p string) bool {
	if path.Dir(p) == "/home" && p != "/home" {
		return true // a user's home directory, or a glob over them
	}
	for _, d := range protectedDirs {
		if p == d {
			return true
		}
		if hasGlob(p) {
			if ok, _ := path.Match(p, d); ok {
				return true
			}
		}
	}
	return false
}

func hasGlob(s string) bool { return strings.ContainsAny(s, "*?[") }

func device(p string) bool {
	if !strings.HasPrefix(p, "/dev/") || contains(harmlessDevices, p) {
		return false
	}
	for _, dir := range []string{"/dev/fd/", "/dev/shm/", "/dev/pts/", "/dev/mqueue/"} {
		if strings.HasPrefix(p, dir) {
			return false
		}
	}
	return true
}

func authFile(p string) bool {
	return contains(authFiles, p) || strings.HasPrefix(p, "/etc/sudoers.d/")
}

func authFileName(t string) bool {
	for _, f := range authFiles {
		if path.Base(t) == path.Base(f) {
			return true
		}
	}
	return false
}

// opaque reports whether the absolute path p goes on through a link only the running command
// can follow: an open descriptor (/dev/fd/3/…, /proc/self/fd/3/…) or another process's working
// directory or executable.
func opaque(p string) bool {
	if !path.IsAbs(p) {
		return false
	}
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
		switch magicLink(stack) {
		case linkRoot:
			stack = stack[:0]
		case linkDescriptor, linkOther:
			if i < len(comps)-1 {
				return true
			}
		}
	}
	return false
}
