package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"google.golang.org/api/docs/v1"
	"google.golang.org/api/option"
	"google.golang.org/api/sheets/v4"

	"github.com/jck411/mcp-servers/shared/gdrive"
	"github.com/jck411/mcp-servers/shared/googleserver"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/recipients"
	"github.com/jck411/mcp-servers/shared/rootdir"
)

// drv is the server's state: the Drive API over the shared sign-in.
type drv struct {
	svc          *gdrive.Client
	google       *googleserver.Account
	sheets       *sheets.Service       // the Sheets API on the same sign-in
	sheetsAcct   *googleserver.Account // names Sheets in its errors
	docs         *docs.Service         // the Docs API on the same sign-in
	docsAcct     *googleserver.Account // names Docs in its errors
	log          *slog.Logger
	readOnly     bool
	downloads    *os.Root // --downloads-dir, held open from the start
	downloadsDir string
	uploads      *os.Root // --uploads-dir; nil when local files are off
	uploadsDir   string   // as resolved
	uploadsArg   string   // as given
	allowPublic  bool
	allowed      recipients.Allowlist // whom shares may reach (--allowed-recipients)
	maxReadChars int
	maxBytes     int64
}

// newDrive validates the flags and connects the Drive API; no network is used.
func newDrive(s *kit.Server, st *settings) (*drv, error) {
	switch {
	case st.maxReadChars < 1000 || st.maxReadChars > 200000:
		return nil, fmt.Errorf("--max-read-chars %d: give 1000 to 200000", st.maxReadChars)
	case st.maxBytes < 1<<10 || st.maxBytes > 1<<30:
		return nil, fmt.Errorf("--max-file-bytes %d: give 1024 to 1073741824", st.maxBytes)
	}
	acct, err := googleserver.Open(s, &st.google, product)
	if err != nil {
		return nil, err
	}
	for flag, u := range map[string]string{"sheets-endpoint": st.sheetsEndpoint, "docs-endpoint": st.docsEndpoint} {
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			return nil, fmt.Errorf("--%s %q: give an http(s) URL", flag, u)
		}
	}
	downloads := st.downloadsDir
	if downloads == "" {
		downloads = filepath.Join(s.Config().StateDir, "downloads")
	}
	if !filepath.IsAbs(downloads) {
		return nil, fmt.Errorf("--downloads-dir %q: give an absolute path", downloads)
	}
	uploads := ""
	if st.uploadsDir != "" {
		if uploads, err = filepath.EvalSymlinks(st.uploadsDir); err != nil {
			return nil, fmt.Errorf("--uploads-dir: %w", err)
		}
		if uploads, err = filepath.Abs(uploads); err != nil {
			return nil, fmt.Errorf("--uploads-dir: %w", err)
		}
	}
	svc, err := gdrive.New(acct)
	if err != nil {
		return nil, err
	}
	// The generated clients take the shared sign-in, retries and metrics as their HTTP client.
	sh, err := sheets.NewService(context.Background(), option.WithHTTPClient(acct.HTTP), option.WithEndpoint(st.sheetsEndpoint))
	if err != nil {
		return nil, fmt.Errorf("sheets client: %w", err)
	}
	dc, err := docs.NewService(context.Background(), option.WithHTTPClient(acct.HTTP), option.WithEndpoint(st.docsEndpoint))
	if err != nil {
		return nil, fmt.Errorf("docs client: %w", err)
	}
	d := &drv{svc: svc, google: acct, sheets: sh, sheetsAcct: acct.For(sheetsProduct), docs: dc, docsAcct: acct.For(docsProduct), log: s.Logger(), readOnly: acct.ReadOnly,
		downloadsDir: downloads, uploadsDir: uploads, uploadsArg: st.uploadsDir, allowPublic: st.allowPublic, allowed: st.allowed, maxReadChars: st.maxReadChars, maxBytes: int64(st.maxBytes)}
	if d.downloads, err = rootdir.Open(downloads, true); err != nil {
		return nil, fmt.Errorf("--downloads-dir: %w", err)
	}
	if uploads != "" {
		if d.uploads, err = rootdir.Open(uploads, false); err != nil {
			d.close()
			return nil, fmt.Errorf("--uploads-dir: %w", err)
		}
	}
	return d, nil
}

// close closes the folders.
func (d *drv) close() {
	_ = d.downloads.Close()
	if d.uploads != nil {
		_ = d.uploads.Close()
	}
}

// fail turns an error from a Drive call into the tool error the model sees; what names the
// object for "not found".
func (d *drv) fail(err error, what string) error {
	if ge, ok := googleserver.AsAPIError(err); ok && ge.Code == http.StatusForbidden {
		msg := ge.Message
		switch {
		case ge.HasReason("insufficientFilePermissions", "cannotModifyViewersCanCopyContent", "teamDrivesFolderMoveInNotSupported"):
			return kit.Errorf(kit.CodeInvalidInput, "Google Drive refused: %s (your access to %s does not allow this)", msg, what)
		case ge.HasReason("exportSizeLimitExceeded"):
			return kit.Errorf(kit.CodeLimit, "%s is too large for Google to export (10 MB limit): download it with download_file in another format, e.g. pdf", what)
		case ge.HasReason("storageQuotaExceeded"):
			return kit.Errorf(kit.CodeLimit, "the Drive storage quota is full: free space, then try again")
		}
	}
	return d.google.Fail(err, what)
}
