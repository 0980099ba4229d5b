package main

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/api/calendar/v3"
	"google.golang.org/api/option"

	"github.com/jck411/mcp-servers/shared/googleserver"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/recipients"
)

// cal is the server's state: the Calendar API over the shared sign-in.
type cal struct {
	google  *googleserver.Account
	cs      *calendar.Service    // the generated client on the account's authorized HTTP client
	zone    *time.Location       // the server's zone, for get_current_time without the calendar's
	allowed recipients.Allowlist // whom events may reach (--allowed-recipients)
}

// newCal validates the flags and opens the sign-in; no network is used.
func newCal(s *kit.Server, st *settings) (*cal, error) {
	zone, err := serverZone(st.timeZone, s.Config().Getenv, "/etc/localtime")
	if err != nil {
		return nil, fmt.Errorf("the server's time zone: %w", err)
	}
	acct, err := googleserver.Open(s, &st.google, product)
	if err != nil {
		return nil, err
	}
	cs, err := calendar.NewService(context.Background(), option.WithHTTPClient(acct.HTTP), option.WithEndpoint(acct.Endpoint))
	if err != nil {
		return nil, fmt.Errorf("calendar client: %w", err)
	}
	return &cal{google: acct, cs: cs, zone: zone, allowed: st.allowed}, nil
}
