package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/jck411/mcp-servers/shared/googleauth"
	"github.com/jck411/mcp-servers/shared/health"
	"github.com/jck411/mcp-servers/shared/kit"
	"google.golang.org/api/drive/v3"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
)

// drv is the server's state: the Drive client over the shared sign-in.
type drv struct {
	svc          *drive.Service
	auth         *googleauth.Source
	readOnly     bool
	downloadsDir string
	uploadsDir   string
	allowPublic  bool
	maxReadChars int
	maxBytes     int64
}

// newDrive validates the flags and builds the Drive client; no network is used.
func newDrive(s *kit.Server, st *settings) (*drv, error) {
	switch {
	case st.concurrent < 1 || st.concurrent > 50:
		return nil, fmt.Errorf("--max-concurrent %d: give 1 to 50", st.concurrent)
	case st.maxReadChars < 1000 || st.maxReadChars > 200000:
		return nil, fmt.Errorf("--max-read-chars %d: give 1000 to 200000", st.maxReadChars)
	case st.maxBytes < 1<<10 || st.maxBytes > 1<<30:
		return nil, fmt.Errorf("--max-file-bytes %d: give 1024 to 1073741824", st.maxBytes)
	case !strings.HasPrefix(st.endpoint, "http://") && !strings.HasPrefix(st.endpoint, "https://"):
		return nil, fmt.Errorf("--drive-endpoint %q: give an http(s) URL", st.endpoint)
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
	fix := "drive auth login"
	if readOnly {
		fix += " --read-only"
	}
	src := googleauth.NewSource(googleauth.SourceOptions{
		TokenFile: tokenFile, Client: client, ClientErr: clientErr, FixCommand: fix, Service: "drive", ReadOnly: readOnly,
	})
	endpoint := st.endpoint
	if !strings.HasSuffix(endpoint, "/") {
		endpoint += "/"
	}
	httpClient := googleauth.NewHTTPClient(src, googleauth.ClientOptions{Concurrent: st.concurrent})
	svc, err := drive.NewService(context.Background(), option.WithHTTPClient(httpClient), option.WithEndpoint(endpoint))
	if err != nil {
		return nil, fmt.Errorf("drive client: %w", err)
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
	return &drv{svc: svc, auth: src, readOnly: readOnly, downloadsDir: downloads, uploadsDir: uploads, allowPublic: st.allowPublic,
		maxReadChars: st.maxReadChars, maxBytes: int64(st.maxBytes)}, nil
}

// healthCheck reports the sign-in: missing or expiring warn, expired or revoked fail.
func (d *drv) healthCheck(context.Context) health.Result {
	st := d.auth.Status()
	switch st.State {
	case googleauth.StateOK:
		return health.Result{Status: health.OK, Detail: st.Detail()}
	case googleauth.StateExpiring, googleauth.StateMissing:
		return health.Result{Status: health.Warn, Detail: st.Detail()}
	}
	return health.Result{Status: health.Fail, Detail: st.Detail()}
}

// fail turns an error from a Drive call into the tool error the model sees; what names the
// object for "not found".
func (d *drv) fail(err error, what string) error {
	var se *googleauth.SignInError
	var ge *googleapi.Error
	var ke *kit.Error
	switch {
	case errors.As(err, &ke):
		return err
	case errors.As(err, &se):
		return kit.Errorf(kit.CodeUnavailable, "%s", se.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return kit.Errorf(kit.CodeTimeout, "Google Drive did not answer in time; try again")
	case errors.As(err, &ge):
		msg := ge.Message
		if msg == "" {
			msg = http.StatusText(ge.Code)
		}
		switch {
		case ge.Code == http.StatusNotFound || ge.Code == http.StatusGone:
			return kit.Errorf(kit.CodeNotFound, "%s not found", what)
		case ge.Code == http.StatusBadRequest:
			return kit.Errorf(kit.CodeInvalidInput, "Google Drive refused the request: %s", msg)
		case ge.Code == http.StatusForbidden && hasReason(ge, "insufficientFilePermissions", "cannotModifyViewersCanCopyContent", "teamDrivesFolderMoveInNotSupported"):
			return kit.Errorf(kit.CodeInvalidInput, "Google Drive refused: %s (your access to %s does not allow this)", msg, what)
		case ge.Code == http.StatusForbidden && hasReason(ge, "exportSizeLimitExceeded"):
			return kit.Errorf(kit.CodeLimit, "%s is too large for Google to export (10 MB limit): download it with download_file in another format, e.g. pdf", what)
		case ge.Code == http.StatusForbidden && hasReason(ge, "storageQuotaExceeded"):
			return kit.Errorf(kit.CodeLimit, "the Drive storage quota is full: free space, then try again")
		case ge.Code == http.StatusForbidden && (strings.Contains(strings.ToLower(msg), "insufficient") || strings.Contains(msg, "scope")):
			return kit.Errorf(kit.CodeUnavailable, "the Google sign-in does not allow this (granted read-only?): run `drive auth login` without --read-only")
		case ge.Code == http.StatusTooManyRequests || ge.Code == http.StatusForbidden && strings.Contains(strings.ToLower(msg), "rate"):
			return kit.Errorf(kit.CodeLimit, "Google Drive is rate-limiting this account (still after retries): wait a minute and try again")
		case ge.Code >= 500:
			return kit.Errorf(kit.CodeUnavailable, "Google Drive failed (%d %s) after retries; try again later", ge.Code, msg)
		}
		return kit.Errorf(kit.CodeUnavailable, "Google Drive answered %d: %s", ge.Code, msg)
	}
	return kit.Errorf(kit.CodeUnavailable, "Google Drive call failed: %v", err)
}

// hasReason reports whether a Google error carries one of the reasons.
func hasReason(ge *googleapi.Error, reasons ...string) bool {
	for _, e := range ge.Errors {
		for _, r := range reasons {
			if e.Reason == r {
				return true
			}
		}
	}
	return false
}
