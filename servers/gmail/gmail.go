package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/jck411/mcp-servers/servers/gmail/mime"
	"github.com/jck411/mcp-servers/shared/googleauth"
	"github.com/jck411/mcp-servers/shared/health"
	"github.com/jck411/mcp-servers/shared/kit"
	"google.golang.org/api/gmail/v1"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
)

// me is the Gmail API's name for the signed-in user.
const me = "me"

// mailbox is the server's state: the Gmail client over the shared sign-in, and the limits.
type mailbox struct {
	svc            *gmail.Service
	auth           *googleauth.Source
	readOnly       bool
	downloadsDir   string
	attachmentsDir string
	allowed        []string // lower-case addresses and @domains; empty allows anyone
	maxBodyChars   int
	inlineBytes    int
	maxAttachBytes int

	labelsMu sync.Mutex
	address  string // the account's address, for reply-all
}

// newMailbox validates the flags and builds the Gmail client; no network is used.
func newMailbox(s *kit.Server, st *settings) (*mailbox, error) {
	switch {
	case st.maxBodyChars < 1000 || st.maxBodyChars > 200000:
		return nil, fmt.Errorf("--max-body-chars %d: give 1000 to 200000", st.maxBodyChars)
	case st.maxAttachBytes < 1<<10 || st.maxAttachBytes > 35<<20:
		return nil, fmt.Errorf("--max-attachment-bytes %d: give 1024 to 36700160", st.maxAttachBytes)
	case st.inlineBytes < 0 || st.inlineBytes > st.maxAttachBytes || st.inlineBytes > 4<<20:
		return nil, fmt.Errorf("--inline-attachment-bytes %d: give 0 to 4194304, at most --max-attachment-bytes", st.inlineBytes)
	case st.concurrent < 1 || st.concurrent > 50:
		return nil, fmt.Errorf("--max-concurrent %d: give 1 to 50", st.concurrent)
	case !strings.HasPrefix(st.endpoint, "http://") && !strings.HasPrefix(st.endpoint, "https://"):
		return nil, fmt.Errorf("--gmail-endpoint %q: give an http(s) URL", st.endpoint)
	}
	tokenFile := st.tokenFile
	if tokenFile == "" {
		tokenFile = googleauth.DefaultTokenFile(os.Getenv)
	}
	clientFile := st.clientFile
	if clientFile == "" {
		clientFile = googleauth.DefaultClientFile(os.Getenv, tokenFile)
	}
	client, clientErr := googleauth.LoadClient(clientFile)
	if clientErr != nil {
		s.Logger().Warn("Google OAuth client not loaded; tools will say so", "error", clientErr.Error())
	}
	readOnly := s.Config().ReadOnly
	fix := "gmail auth login"
	if readOnly {
		fix += " --read-only"
	}
	src := googleauth.NewSource(googleauth.SourceOptions{
		TokenFile: tokenFile, Client: client, ClientErr: clientErr, FixCommand: fix, Service: "gmail", ReadOnly: readOnly,
	})
	endpoint := st.endpoint
	if !strings.HasSuffix(endpoint, "/") {
		endpoint += "/"
	}
	httpClient := googleauth.NewHTTPClient(src, googleauth.ClientOptions{Concurrent: st.concurrent})
	svc, err := gmail.NewService(context.Background(), option.WithHTTPClient(httpClient), option.WithEndpoint(endpoint))
	if err != nil {
		return nil, fmt.Errorf("gmail client: %w", err)
	}
	downloads := st.downloadsDir
	if downloads == "" {
		downloads = filepath.Join(s.Config().StateDir, "downloads")
	}
	if !filepath.IsAbs(downloads) {
		return nil, fmt.Errorf("--downloads-dir %q: give an absolute path", downloads)
	}
	attachDir := ""
	if st.attachmentsDir != "" {
		if attachDir, err = filepath.EvalSymlinks(st.attachmentsDir); err != nil {
			return nil, fmt.Errorf("--attachments-dir: %w", err)
		}
	}
	var allowed []string
	for _, a := range strings.Split(st.allowedRecipients, ",") {
		a = strings.ToLower(strings.TrimSpace(a))
		if a == "" {
			continue
		}
		if !strings.Contains(a, "@") {
			return nil, fmt.Errorf("--allowed-recipients: %q is neither an address nor an @domain", a)
		}
		allowed = append(allowed, a)
	}
	return &mailbox{
		svc: svc, auth: src, readOnly: readOnly, downloadsDir: downloads, attachmentsDir: attachDir, allowed: allowed,
		maxBodyChars: st.maxBodyChars, inlineBytes: st.inlineBytes, maxAttachBytes: st.maxAttachBytes,
	}, nil
}

// healthCheck reports the sign-in: missing or expiring warn (the server runs and every tool
// says how to sign in; deploys accept it), expired or revoked fail.
func (m *mailbox) healthCheck(context.Context) health.Result {
	st := m.auth.Status()
	switch st.State {
	case googleauth.StateOK:
		return health.Result{Status: health.OK, Detail: st.Detail()}
	case googleauth.StateExpiring, googleauth.StateMissing:
		return health.Result{Status: health.Warn, Detail: st.Detail()}
	}
	return health.Result{Status: health.Fail, Detail: st.Detail()}
}

// fail turns an error from a Gmail call into the tool error the model sees; what names the
// object for "not found".
func (m *mailbox) fail(err error, what string) error {
	var se *googleauth.SignInError
	var ge *googleapi.Error
	var ke *kit.Error
	switch {
	case errors.As(err, &ke):
		return err
	case errors.As(err, &se):
		return kit.Errorf(kit.CodeUnavailable, "%s", se.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return kit.Errorf(kit.CodeTimeout, "Gmail did not answer in time; try again")
	case errors.As(err, &ge):
		msg := ge.Message
		if msg == "" {
			msg = http.StatusText(ge.Code)
		}
		switch {
		case ge.Code == http.StatusNotFound:
			return kit.Errorf(kit.CodeNotFound, "%s not found", what)
		case ge.Code == http.StatusBadRequest:
			return kit.Errorf(kit.CodeInvalidInput, "Gmail refused the request: %s", msg)
		case ge.Code == http.StatusForbidden && (strings.Contains(strings.ToLower(msg), "insufficient") || strings.Contains(msg, "scope")):
			return kit.Errorf(kit.CodeUnavailable, "the Google sign-in does not allow this (granted read-only?): run `gmail auth login` without --read-only")
		case ge.Code == http.StatusTooManyRequests || ge.Code == http.StatusForbidden && strings.Contains(strings.ToLower(msg), "rate"):
			return kit.Errorf(kit.CodeLimit, "Gmail is rate-limiting this account (still after retries): wait a minute and try again")
		case ge.Code >= 500:
			return kit.Errorf(kit.CodeUnavailable, "Gmail failed (%d %s) after retries; try again later", ge.Code, msg)
		}
		return kit.Errorf(kit.CodeUnavailable, "Gmail answered %d: %s", ge.Code, msg)
	}
	return kit.Errorf(kit.CodeUnavailable, "Gmail call failed: %v", err)
}

// checkRecipients enforces --allowed-recipients on every address.
func (m *mailbox) checkRecipients(lists ...[]string) error {
	var all []string
	for _, l := range lists {
		addrs, err := mime.ParseAddresses(l)
		if err != nil {
			return kit.Errorf(kit.CodeInvalidInput, "%v", err)
		}
		all = append(all, addrs...)
	}
	if len(m.allowed) == 0 {
		return nil
	}
	for _, a := range all {
		ok := false
		for _, p := range m.allowed {
			if a == p || strings.HasPrefix(p, "@") && strings.HasSuffix(a, p) {
				ok = true
				break
			}
		}
		if !ok {
			return kit.Errorf(kit.CodeInvalidInput, "%s is not an allowed recipient on this server (--allowed-recipients)", a)
		}
	}
	return nil
}

// myAddress is the account's address (cached), to leave it out of reply-all.
func (m *mailbox) myAddress(ctx context.Context) string {
	m.labelsMu.Lock()
	defer m.labelsMu.Unlock()
	if m.address == "" {
		if p, err := m.svc.Users.GetProfile(me).Context(ctx).Do(); err == nil {
			m.address = strings.ToLower(p.EmailAddress)
		}
	}
	return m.address
}
