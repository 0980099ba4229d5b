package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"google.golang.org/api/gmail/v1"
	"google.golang.org/api/option"
	"google.golang.org/api/people/v1"

	"github.com/jck411/mcp-servers/servers/gmail/mime"
	"github.com/jck411/mcp-servers/shared/googleserver"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/recipients"
	"github.com/jck411/mcp-servers/shared/rootdir"
)

// me is the Gmail API's name for the signed-in user.
const me = "me"

// mailbox is the server's state: the Gmail API over the shared sign-in, and the limits.
type mailbox struct {
	google         *googleserver.Account
	gm             *gmail.Service // the generated client on the account's authorized HTTP client
	downloads      *os.Root       // --downloads-dir, held open from the start
	downloadsDir   string
	attachments    *os.Root             // --attachments-dir; nil when local files are off
	attachmentsDir string               // as resolved
	attachmentsArg string               // as given
	allowed        recipients.Allowlist // whom mail may reach (--allowed-recipients)
	maxBodyChars   int
	inlineBytes    int
	maxAttachBytes int
	people         *people.Service       // Google Contacts (the People API) on the same sign-in
	peopleAcct     *googleserver.Account // the sign-in, naming Google Contacts in its errors
	warm           warmups               // when each account's contact searches were warmed

	correspondents correspondents // addresses found in Sent, for confirmStrangers

	labelsMu sync.Mutex
	address  map[string]string // each account's address by label, for reply-all
}

// newMailbox validates the flags and opens the Gmail account; no network is used.
func newMailbox(s *kit.Server, st *settings) (*mailbox, error) {
	switch {
	case st.maxBodyChars < 1000 || st.maxBodyChars > 200000:
		return nil, fmt.Errorf("--max-body-chars %d: give 1000 to 200000", st.maxBodyChars)
	case st.maxAttachBytes < 1<<10 || st.maxAttachBytes > 35<<20:
		return nil, fmt.Errorf("--max-attachment-bytes %d: give 1024 to 36700160", st.maxAttachBytes)
	case st.inlineBytes < 0 || st.inlineBytes > st.maxAttachBytes || st.inlineBytes > 4<<20:
		return nil, fmt.Errorf("--inline-attachment-bytes %d: give 0 to 4194304, at most --max-attachment-bytes", st.inlineBytes)
	}
	acct, err := googleserver.Open(s, &st.google, product)
	if err != nil {
		return nil, err
	}
	gm, err := gmail.NewService(context.Background(), option.WithHTTPClient(acct.HTTP), option.WithEndpoint(acct.Endpoint))
	if err != nil {
		return nil, fmt.Errorf("gmail client: %w", err)
	}
	if !strings.HasPrefix(st.peopleEndpoint, "http://") && !strings.HasPrefix(st.peopleEndpoint, "https://") {
		return nil, fmt.Errorf("--people-endpoint %q: give an http(s) URL", st.peopleEndpoint)
	}
	pp, err := people.NewService(context.Background(), option.WithHTTPClient(acct.HTTP), option.WithEndpoint(st.peopleEndpoint))
	if err != nil {
		return nil, fmt.Errorf("people client: %w", err)
	}
	downloadsDir := st.downloadsDir
	if downloadsDir == "" {
		downloadsDir = filepath.Join(s.Config().StateDir, "downloads")
	}
	if !filepath.IsAbs(downloadsDir) {
		return nil, fmt.Errorf("--downloads-dir %q: give an absolute path", downloadsDir)
	}
	m := &mailbox{downloadsDir: downloadsDir, attachmentsArg: st.attachmentsDir}
	if m.downloads, err = rootdir.Open(downloadsDir, true); err != nil {
		return nil, fmt.Errorf("--downloads-dir: %w", err)
	}
	if st.attachmentsDir != "" {
		if m.attachmentsDir, err = filepath.EvalSymlinks(st.attachmentsDir); err == nil {
			if m.attachmentsDir, err = filepath.Abs(m.attachmentsDir); err == nil {
				m.attachments, err = rootdir.Open(m.attachmentsDir, false)
			}
		}
		if err != nil {
			m.close()
			return nil, fmt.Errorf("--attachments-dir: %w", err)
		}
	}
	m.google, m.gm, m.people, m.peopleAcct, m.allowed = acct, gm, pp, acct.For(peopleProduct), st.allowed
	m.maxBodyChars, m.inlineBytes, m.maxAttachBytes = st.maxBodyChars, st.inlineBytes, st.maxAttachBytes
	return m, nil
}

// close closes the folders.
func (m *mailbox) close() {
	_ = m.downloads.Close()
	if m.attachments != nil {
		_ = m.attachments.Close()
	}
}

// checkRecipients enforces the fleet's recipient allowlist (--allowed-recipients) on every
// address of the header lists (each entry may hold several, as a To header does).
func (m *mailbox) checkRecipients(lists ...[]string) error {
	var all []string
	for _, l := range lists {
		addrs, err := mime.ParseAddresses(l)
		if err != nil {
			return kit.Errorf(kit.CodeInvalidInput, "%v: give an address (search_contacts finds a person's)", err)
		}
		all = append(all, addrs...)
	}
	_, err := m.allowed.Check(all...)
	return err
}

// myAddress is the account's address (cached), to leave it out of reply-all.
func (m *mailbox) myAddress(ctx context.Context) string {
	m.labelsMu.Lock()
	defer m.labelsMu.Unlock()
	label := m.google.Label(ctx)
	if m.address[label] == "" {
		if p, err := m.gm.Users.GetProfile(me).Context(ctx).Do(); err == nil {
			if m.address == nil {
				m.address = map[string]string{}
			}
			m.address[label] = strings.ToLower(p.EmailAddress)
		}
	}
	return m.address[label]
}
