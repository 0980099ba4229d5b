package main

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/jck411/mcp-servers/shared/kit"
)

// storageState is a saved login: Playwright's storageState JSON, the shape people export and
// import (cookies, and local storage per origin).
type storageState struct {
	Cookies []stateCookie `json:"cookies"`
	Origins []stateOrigin `json:"origins"`
}

// stateCookie is one cookie of a storageState. Expires is in Unix seconds, -1 for a cookie
// that lasts the browser session; Domain starts with a dot for a cookie of a domain and its
// subdomains and is the host itself for a host-only cookie.
type stateCookie struct {
	Name     string  `json:"name"`
	Value    string  `json:"value"`
	Domain   string  `json:"domain"`
	Path     string  `json:"path"`
	Expires  float64 `json:"expires"`
	HTTPOnly bool    `json:"httpOnly"`
	Secure   bool    `json:"secure"`
	SameSite string  `json:"sameSite,omitempty"`
}

// stateOrigin is the local storage of one origin ("https://example.com").
type stateOrigin struct {
	Origin       string      `json:"origin"`
	LocalStorage []nameValue `json:"localStorage"`
}

type nameValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// maxStateBytes bounds a profile file, and an imported one.
const maxStateBytes = 8 << 20

// check validates a storage state read from a file someone gave.
func (st *storageState) check() error {
	for i, c := range st.Cookies {
		if c.Name == "" && c.Value == "" || c.Domain == "" {
			return fmt.Errorf("cookie %d: needs a name or value, and a domain", i+1)
		}
		switch c.SameSite {
		case "", "Strict", "Lax", "None":
		default:
			return fmt.Errorf("cookie %q: sameSite %q is not Strict, Lax or None", c.Name, c.SameSite)
		}
	}
	for _, o := range st.Origins {
		if !strings.HasPrefix(o.Origin, "http://") && !strings.HasPrefix(o.Origin, "https://") {
			return fmt.Errorf("origin %q: give scheme and host, such as https://example.com", o.Origin)
		}
	}
	return nil
}

// isProfileName reports whether name may name a profile: it becomes a file name, so 1-64
// letters, digits, '_' and '-', starting with a letter or digit (no dots, no slashes).
func isProfileName(name string) bool {
	return len(name) > 0 && isAlnum(name[0]) && isName(name, 64, "_-")
}

// isName reports whether s has at most max bytes, each an ASCII letter or digit or one of
// extra. (A regexp with {1,64} compiles into a 64-fold program kept in memory for good.)
func isName(s string, max int, extra string) bool {
	if len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isAlnum(s[i]) && strings.IndexByte(extra, s[i]) < 0 {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func checkProfileName(name string) error {
	if !isProfileName(name) {
		return kit.Errorf(kit.CodeInvalidInput, "profile %q: use 1-64 letters, digits, '_' or '-', starting with a letter or digit", name)
	}
	return nil
}

// profileStore keeps the saved logins under <state-dir>/profiles, one directory per token
// label, so a caller reaches only its own. Folders are 0700, files 0600, written atomically.
type profileStore struct{ root string }

// dir is the caller's folder. The label is encoded so that no label can name a path.
func (p profileStore) dir(caller string) string {
	return filepath.Join(p.root, base64.RawURLEncoding.EncodeToString([]byte(caller)))
}

func (p profileStore) path(caller, name string) string {
	return filepath.Join(p.dir(caller), name+".json")
}

// load reads a profile; a profile never saved is empty, with ok false.
func (p profileStore) load(caller, name string) (st *storageState, ok bool, err error) {
	b, err := os.ReadFile(p.path(caller, name))
	if errors.Is(err, fs.ErrNotExist) {
		return &storageState{}, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading profile %s: %w", name, err)
	}
	st = &storageState{}
	if err := json.Unmarshal(b, st); err != nil {
		return nil, false, fmt.Errorf("profile %s is damaged (%w); clear it with browser_profile", name, err)
	}
	return st, true, nil
}

// save writes a profile atomically: a temporary file in the same folder, synced, renamed.
func (p profileStore) save(caller, name string, st *storageState) error {
	b, err := json.MarshalIndent(st, "", " ")
	if err != nil {
		return err
	}
	return writeAtomic(p.dir(caller), name+".json", b)
}

// writeAtomic writes data to dir/name (0600) through a synced temporary file, creating dir
// (0700) and its parent when needed.
func writeAtomic(dir, name string, data []byte) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("profile folder: %w", err)
	}
	// MkdirAll leaves an existing folder's mode alone, and the umask may have narrowed it.
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o700); err != nil {
			return fmt.Errorf("profile folder: %w", err)
		}
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("saving %s: %w", name, err)
	}
	tmp := f.Name()
	defer func() { _ = os.Remove(tmp) }() // gone after the rename; the leftover of a failure otherwise
	if err := f.Chmod(0o600); err != nil {
		_ = f.Close()
		return fmt.Errorf("saving %s: %w", name, err)
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		return fmt.Errorf("saving %s: %w", name, err)
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return fmt.Errorf("saving %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("saving %s: %w", name, err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		return fmt.Errorf("saving %s: %w", name, err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// remove deletes a profile; ok is false when there was none.
func (p profileStore) remove(caller, name string) (bool, error) {
	err := os.Remove(p.path(caller, name))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("clearing profile %s: %w", name, err)
	}
	return true, nil
}

// profileInfo describes a saved profile for the list.
type profileInfo struct {
	name             string
	cookies, origins int
	modified         time.Time
}

// list returns the caller's profiles by name.
func (p profileStore) list(caller string) ([]profileInfo, error) {
	entries, err := os.ReadDir(p.dir(caller))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing profiles: %w", err)
	}
	var out []profileInfo
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !isProfileName(name) || !e.Type().IsRegular() {
			continue
		}
		info := profileInfo{name: name}
		if fi, err := e.Info(); err == nil {
			info.modified = fi.ModTime()
		}
		if st, _, err := p.load(caller, name); err == nil {
			info.cookies, info.origins = len(st.Cookies), len(st.Origins)
		}
		out = append(out, info)
	}
	slices.SortFunc(out, func(a, b profileInfo) int { return strings.Compare(a.name, b.name) })
	return out, nil
}
