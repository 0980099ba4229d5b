package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/jck411/mcp-servers/shared/googleauth"
	"github.com/jck411/mcp-servers/shared/health"
	"github.com/jck411/mcp-servers/shared/kit"
	"google.golang.org/api/calendar/v3"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
)

// cal is the server's state: the Calendar client over the shared sign-in.
type cal struct {
	svc      *calendar.Service
	auth     *googleauth.Source
	readOnly bool
}

// newCal validates the flags and builds the Calendar client; no network is used.
func newCal(s *kit.Server, st *settings) (*cal, error) {
	switch {
	case st.concurrent < 1 || st.concurrent > 50:
		return nil, fmt.Errorf("--max-concurrent %d: give 1 to 50", st.concurrent)
	case !strings.HasPrefix(st.endpoint, "http://") && !strings.HasPrefix(st.endpoint, "https://"):
		return nil, fmt.Errorf("--calendar-endpoint %q: give an http(s) URL", st.endpoint)
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
	fix := "calendar auth login"
	if readOnly {
		fix += " --read-only"
	}
	src := googleauth.NewSource(googleauth.SourceOptions{
		TokenFile: tokenFile, Client: client, ClientErr: clientErr, FixCommand: fix, Service: "calendar", ReadOnly: readOnly,
	})
	endpoint := st.endpoint
	if !strings.HasSuffix(endpoint, "/") {
		endpoint += "/"
	}
	httpClient := googleauth.NewHTTPClient(src, googleauth.ClientOptions{Concurrent: st.concurrent})
	svc, err := calendar.NewService(context.Background(), option.WithHTTPClient(httpClient), option.WithEndpoint(endpoint))
	if err != nil {
		return nil, fmt.Errorf("calendar client: %w", err)
	}
	return &cal{svc: svc, auth: src, readOnly: readOnly}, nil
}

// healthCheck reports the sign-in: missing or expiring warn, expired or revoked fail.
func (c *cal) healthCheck(context.Context) health.Result {
	st := c.auth.Status()
	switch st.State {
	case googleauth.StateOK:
		return health.Result{Status: health.OK, Detail: st.Detail()}
	case googleauth.StateExpiring, googleauth.StateMissing:
		return health.Result{Status: health.Warn, Detail: st.Detail()}
	}
	return health.Result{Status: health.Fail, Detail: st.Detail()}
}

// fail turns an error from a Calendar call into the tool error the model sees; what names the
// object for "not found".
func (c *cal) fail(err error, what string) error {
	var se *googleauth.SignInError
	var ge *googleapi.Error
	var ke *kit.Error
	switch {
	case errors.As(err, &ke):
		return err
	case errors.As(err, &se):
		return kit.Errorf(kit.CodeUnavailable, "%s", se.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return kit.Errorf(kit.CodeTimeout, "Google Calendar did not answer in time; try again")
	case errors.As(err, &ge):
		msg := ge.Message
		if msg == "" {
			msg = http.StatusText(ge.Code)
		}
		switch {
		case ge.Code == http.StatusNotFound || ge.Code == http.StatusGone:
			return kit.Errorf(kit.CodeNotFound, "%s not found", what)
		case ge.Code == http.StatusBadRequest:
			return kit.Errorf(kit.CodeInvalidInput, "Google Calendar refused the request: %s", msg)
		case ge.Code == http.StatusForbidden && (strings.Contains(strings.ToLower(msg), "insufficient") || strings.Contains(msg, "scope")):
			return kit.Errorf(kit.CodeUnavailable, "the Google sign-in does not allow this (granted read-only?): run `calendar auth login` without --read-only")
		case ge.Code == http.StatusTooManyRequests || ge.Code == http.StatusForbidden && strings.Contains(strings.ToLower(msg), "rate"):
			return kit.Errorf(kit.CodeLimit, "Google Calendar is rate-limiting this account (still after retries): wait a minute and try again")
		case ge.Code >= 500:
			return kit.Errorf(kit.CodeUnavailable, "Google Calendar failed (%d %s) after retries; try again later", ge.Code, msg)
		}
		return kit.Errorf(kit.CodeUnavailable, "Google Calendar answered %d: %s", ge.Code, msg)
	}
	return kit.Errorf(kit.CodeUnavailable, "Google Calendar call failed: %v", err)
}
