package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/chromedp"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// useProfile binds the call's session to the caller's profile name: the saved cookies and
// local storage are loaded into the session's browser context, and the session saves back
// to the profile after every call and when it closes. It runs under the session lock.
func (c *call) useProfile(ctx context.Context, name string) (string, error) {
	if err := checkProfileName(name); err != nil {
		return "", err
	}
	if c.s.profile == name {
		return "", nil
	}
	if c.s.profile != "" {
		return "", kit.Errorf(kit.CodeInvalidInput, "session %q uses profile %q; end it (browser_tabs action end) or use another session for %q", c.s.name, c.s.profile, name)
	}
	st, ok, err := c.m.profiles.load(c.s.caller, name)
	if err != nil {
		return "", kit.Errorf(kit.CodeInternal, "%v", err)
	}
	// Claimed before loading, so no other session takes it meanwhile.
	if other := c.m.claimProfile(c.s, name); other != nil {
		return "", kit.Errorf(kit.CodeInvalidInput, "profile %q is in use by session %q; use that session, or end it first", name, other.name)
	}
	if !ok {
		return fmt.Sprintf("Profile %s is new; this session's logins will be saved to it.\n", name), nil
	}
	if err := c.s.restore(ctx, st); err != nil {
		c.m.claimProfile(c.s, "")
		return "", kit.Errorf(kit.CodeUnavailable, "loading profile %s: %v", name, err)
	}
	return fmt.Sprintf("Loaded profile %s (%d cookies, local storage of %d origins).\n", name, len(st.Cookies), len(st.Origins)), nil
}

// claimProfile binds s to the profile name ("" unbinds it) unless another session of its caller
// uses that profile, which it returns. s.profile is written under m.mu (and the session's lock),
// so profileUser may read it from other sessions' calls.
func (m *manager) claimProfile(s *session, name string) *session {
	m.mu.Lock()
	defer m.mu.Unlock()
	if name != "" {
		for _, o := range m.sessions {
			if o != s && o.caller == s.caller && o.profile == name {
				return o
			}
		}
	}
	s.profile, s.savedState = name, nil
	return nil
}

// profileUser returns the caller's session that uses profile name, if any.
func (m *manager) profileUser(caller, name string) *session {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.sessions {
		if s.caller == caller && s.profile == name {
			return s
		}
	}
	return nil
}

// restore puts a saved state into the session's browser context: the cookies directly, the
// local storage of each origin through a scratch tab that opens the origin with a blank page
// the browser answers itself (no request leaves it) and writes the items there.
func (s *session) restore(ctx context.Context, st *storageState) error {
	b := chromedp.FromContext(s.root).Browser
	if len(st.Cookies) > 0 {
		params := make([]*network.CookieParam, 0, len(st.Cookies))
		for _, c := range st.Cookies {
			params = append(params, cookieParam(c))
		}
		if _, err := cdp.Call(ctx, b, storage.SetCookies, storage.SetCookiesParams{Cookies: params, BrowserContextID: s.contextID}); err != nil {
			return fmt.Errorf("setting cookies: %w", err)
		}
	}
	var origins []stateOrigin
	for _, o := range st.Origins {
		if len(o.LocalStorage) > 0 {
			origins = append(origins, o)
		}
	}
	if len(origins) == 0 {
		return nil
	}
	var scratch atomic.Pointer[chromedp.Target]
	tctx, cancel := chromedp.NewContext(s.root, chromedp.WithExistingBrowserContext(s.contextID), chromedp.WithListener(func(ev any) {
		if e, ok := ev.(*fetch.EventRequestPaused); ok {
			tg := scratch.Load()
			if tg == nil {
				return
			}
			go func() {
				_, _ = cdp.Call(ctx, tg, fetch.FulfillRequest, fetch.FulfillRequestParams{
					RequestID:       e.RequestID,
					ResponseCode:    200,
					ResponseHeaders: []*fetch.HeaderEntry{{Name: "Content-Type", Value: "text/html"}},
					Body:            []byte("<!doctype html><title>restoring</title>"),
				})
			}()
		}
	}))
	defer cancel()
	if err := chromedp.Do(tctx); err != nil {
		return fmt.Errorf("opening a scratch tab: %w", err)
	}
	tg := chromedp.FromContext(tctx).Target
	scratch.Store(tg)
	if _, err := cdp.Call(ctx, tg, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}}); err != nil {
		return fmt.Errorf("intercepting the scratch tab: %w", err)
	}
	for _, o := range origins {
		nctx, ncancel := context.WithTimeout(ctx, 10*time.Second)
		_, err := chromedp.Navigate(strings.TrimRight(o.Origin, "/")+"/")(nctx, tg)
		ncancel()
		if err != nil {
			return fmt.Errorf("opening %s: %w", o.Origin, err)
		}
		items, _ := json.Marshal(o.LocalStorage)
		res, err := cdp.Call(ctx, tg, runtime.Evaluate, runtime.EvaluateParams{
			Expression: "for (const {name, value} of " + string(items) + ") localStorage.setItem(name, value)",
		})
		if err != nil {
			return fmt.Errorf("local storage of %s: %w", o.Origin, err)
		}
		if res.ExceptionDetails != nil {
			return fmt.Errorf("local storage of %s: %s", o.Origin, exceptionMessage(res.ExceptionDetails))
		}
	}
	return nil
}

// cookieParam turns a saved cookie back into one to set. A host-only cookie (no leading dot)
// is set through its URL, so it stays host-only.
func cookieParam(c stateCookie) *network.CookieParam {
	p := &network.CookieParam{Name: c.Name, Value: c.Value, Path: c.Path, Secure: c.Secure, HTTPOnly: c.HTTPOnly, SameSite: network.CookieSameSite(c.SameSite)}
	if p.Path == "" {
		p.Path = "/"
	}
	if strings.HasPrefix(c.Domain, ".") {
		p.Domain = c.Domain
	} else {
		scheme := "http"
		if c.Secure {
			scheme = "https"
		}
		p.URL = scheme + "://" + c.Domain + p.Path
	}
	if c.Expires > 0 {
		p.Expires = cdp.TimeSinceEpoch(c.Expires)
	}
	return p
}

// localStorageJS reads the page's origin and its local storage; null for an opaque origin.
const localStorageJS = `(() => { try {
  const o = location.origin; if (!o || o === 'null') return null;
  const items = []; for (let i = 0; i < localStorage.length; i++) { const k = localStorage.key(i); items.push({name: k, value: localStorage.getItem(k)}); }
  return {origin: o, localStorage: items};
} catch (e) { return null; } })()`

// saveProfile writes the session's cookies, and the local storage of the origins its tabs
// show, to its profile; the saved local storage of other origins is kept. It runs under the
// session lock (or with the session idle) and does nothing for a session without a profile.
func (s *session) saveProfile(ctx context.Context) error {
	if s.profile == "" || s.root.Err() != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	b := chromedp.FromContext(s.root).Browser
	res, err := cdp.Call(ctx, b, storage.GetCookies, storage.GetCookiesParams{BrowserContextID: s.contextID})
	if err != nil {
		return fmt.Errorf("reading cookies: %w", err)
	}
	st := &storageState{Cookies: []stateCookie{}, Origins: []stateOrigin{}}
	for _, c := range res.Cookies {
		exp := c.Expires
		if c.Session {
			exp = -1
		}
		st.Cookies = append(st.Cookies, stateCookie{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path, Expires: exp,
			HTTPOnly: c.HTTPOnly, Secure: c.Secure, SameSite: string(c.SameSite)})
	}
	seen := map[string]bool{}
	for _, t := range s.tabs {
		if t.gone() || t.openDialog() != nil {
			continue // a dialog blocks the page's JavaScript
		}
		r, err := cdp.Call(ctx, t.target(), runtime.Evaluate, runtime.EvaluateParams{Expression: localStorageJS, ReturnByValue: ptr(true)})
		if err != nil || r.ExceptionDetails != nil || r.Result == nil || len(r.Result.Value) == 0 {
			continue
		}
		var o *stateOrigin
		if json.Unmarshal(r.Result.Value, &o) != nil || o == nil || seen[o.Origin] {
			continue
		}
		seen[o.Origin] = true
		if len(o.LocalStorage) > 0 {
			st.Origins = append(st.Origins, *o)
		}
	}
	old, _, err := s.m.profiles.load(s.caller, s.profile)
	if err == nil {
		for _, o := range old.Origins {
			if !seen[o.Origin] {
				st.Origins = append(st.Origins, o)
			}
		}
	}
	// Most calls change no cookie and no storage: then the file is not written again.
	data, err := json.MarshalIndent(st, "", " ")
	if err != nil {
		return err
	}
	if bytes.Equal(data, s.savedState) {
		return nil
	}
	if err := writeAtomic(s.m.profiles.dir(s.caller), s.profile+".json", data); err != nil {
		return err
	}
	s.savedState = data
	return nil
}

type profileInput struct {
	Action string `json:"action,omitempty" jsonschema:"files are storageState JSON" schema:"enum=list|export|import|clear,default=list"`
	Name   string `json:"name,omitempty" jsonschema:"profile name"`
	File   string `json:"file,omitempty" jsonschema:"import: path in upload dir"`
}

func addProfile(s *kit.Server, m *manager, opts *options) {
	addTool(s, m, kit.Tool{
		Name:        "browser_profile",
		Toolset:     toolsetProfile,
		Description: "Saved logins (navigate's profile): list, export, import, clear.",
		Destructive: true,
		Timeout:     actionTimeout,
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in profileInput) (*mcp.CallToolResult, struct{}, error) {
		text, err := m.profileAction(ctx, opts, in)
		if err != nil {
			return nil, struct{}{}, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, struct{}{}, nil
	})
}

func (m *manager) profileAction(ctx context.Context, opts *options, in profileInput) (string, error) {
	caller := kit.Caller(ctx)
	if in.Action == "list" || in.Action == "" {
		list, err := m.profiles.list(caller)
		if err != nil {
			return "", kit.Errorf(kit.CodeInternal, "%v", err)
		}
		if len(list) == 0 {
			return "No saved profiles. Pass profile to browser_navigate to start one.", nil
		}
		var b strings.Builder
		for _, p := range list {
			fmt.Fprintf(&b, "%s: %d cookies, local storage of %d origins, saved %s", p.name, p.cookies, p.origins, p.modified.UTC().Format(time.RFC3339))
			if s := m.profileUser(caller, p.name); s != nil {
				fmt.Fprintf(&b, " (in use by session %s)", s.name)
			}
			b.WriteString("\n")
		}
		return strings.TrimSpace(b.String()), nil
	}
	if in.Name == "" {
		return "", kit.Errorf(kit.CodeInvalidInput, "give the profile's name")
	}
	if err := checkProfileName(in.Name); err != nil {
		return "", err
	}
	user := m.profileUser(caller, in.Name)
	switch in.Action {
	case "export":
		if user != nil {
			if err := m.withSession(ctx, user, user.saveProfile); err != nil {
				return "", kit.Errorf(kit.CodeUnavailable, "saving session %s first: %v", user.name, err)
			}
		}
		st, ok, err := m.profiles.load(caller, in.Name)
		if err != nil {
			return "", kit.Errorf(kit.CodeInternal, "%v", err)
		}
		if !ok {
			return "", kit.Errorf(kit.CodeNotFound, "no profile %q; browser_profile lists them", in.Name)
		}
		b, err := json.MarshalIndent(st, "", "  ")
		if err != nil {
			return "", kit.Errorf(kit.CodeInternal, "%v", err)
		}
		dir := "profiles-" + base64.RawURLEncoding.EncodeToString([]byte(caller))
		name := in.Name + ".storage-state.json"
		if err := m.folders.export(dir, name, b); err != nil {
			return "", kit.Errorf(kit.CodeInternal, "exporting profile %s: %v", in.Name, err)
		}
		return fmt.Sprintf("Exported profile %s (%d cookies, local storage of %d origins) to %s. It holds login secrets.", in.Name, len(st.Cookies), len(st.Origins), filepath.Join(m.folders.downloadsDir, dir, name)), nil
	case "import":
		if user != nil {
			return "", kit.Errorf(kit.CodeInvalidInput, "profile %q is in use by session %q; end that session (browser_tabs action end) first", in.Name, user.name)
		}
		if in.File == "" {
			return "", kit.Errorf(kit.CodeInvalidInput, "give file: a storageState JSON in the upload directory %s", opts.uploadDir)
		}
		file, err := m.folders.openUpload(in.File)
		if err != nil {
			return "", err
		}
		st, err := readStorageState(file)
		_ = file.Close()
		if err != nil {
			return "", kit.Errorf(kit.CodeInvalidInput, "%s: %v", in.File, err)
		}
		if err := m.profiles.save(caller, in.Name, st); err != nil {
			return "", kit.Errorf(kit.CodeInternal, "%v", err)
		}
		return fmt.Sprintf("Imported profile %s: %d cookies, local storage of %d origins. Pass profile %q to browser_navigate to use it.", in.Name, len(st.Cookies), len(st.Origins), in.Name), nil
	default: // clear; the schema admits only these actions
		ended := ""
		if user != nil {
			if err := m.withSession(ctx, user, func(context.Context) error { m.claimProfile(user, ""); return nil }); err != nil {
				return "", kit.Errorf(kit.CodeUnavailable, "%v", err)
			}
			m.closeSession(user)
			ended = fmt.Sprintf(" Session %s, which used it, was closed.", user.name)
		}
		ok, err := m.profiles.remove(caller, in.Name)
		if err != nil {
			return "", kit.Errorf(kit.CodeInternal, "%v", err)
		}
		if !ok && user == nil {
			return "", kit.Errorf(kit.CodeNotFound, "no profile %q; browser_profile lists them", in.Name)
		}
		return "Cleared profile " + in.Name + "." + ended, nil
	}
}

// withSession runs fn holding the session's call lock.
func (m *manager) withSession(ctx context.Context, s *session, fn func(context.Context) error) error {
	select {
	case s.lock <- struct{}{}:
	case <-ctx.Done():
		return kit.Errorf(kit.CodeTimeout, "session %q is busy with another call", s.name)
	}
	defer func() { <-s.lock }()
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return nil
	}
	return fn(ctx)
}

// readStorageState reads and checks an open storageState file.
func readStorageState(f *os.File) (*storageState, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxStateBytes {
		return nil, fmt.Errorf("%d bytes is over the %d byte limit", fi.Size(), maxStateBytes)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxStateBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxStateBytes {
		return nil, fmt.Errorf("it grew over the %d byte limit while being read", maxStateBytes)
	}
	st := &storageState{}
	if err := json.Unmarshal(b, st); err != nil {
		return nil, fmt.Errorf("not a storageState JSON ({\"cookies\": [...], \"origins\": [...]}): %w", err)
	}
	if err := st.check(); err != nil {
		return nil, err
	}
	if st.Cookies == nil {
		st.Cookies = []stateCookie{}
	}
	if st.Origins == nil {
		st.Origins = []stateOrigin{}
	}
	return st, nil
}
