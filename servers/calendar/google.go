package main

import (
	"context"
	"fmt"
	"time"

	"github.com/jck411/mcp-servers/shared/googleserver"
	"github.com/jck411/mcp-servers/shared/kit"
	"google.golang.org/api/calendar/v3"
	"google.golang.org/api/option"
)

// cal is the server's state: the Calendar client over the shared sign-in.
type cal struct {
	svc    *calendar.Service
	google *googleserver.Account
	zone   *time.Location // the server's zone, for get_current_time without the calendar's
}

// newCal validates the flags and builds the Calendar client; no network is used.
func newCal(s *kit.Server, st *settings) (*cal, error) {
	zone, err := serverZone(st.timeZone, s.Config().Getenv, "/etc/localtime")
	if err != nil {
		return nil, fmt.Errorf("the server's time zone: %w", err)
	}
	acct, err := googleserver.Open(s, &st.google, product)
	if err != nil {
		return nil, err
	}
	svc, err := calendar.NewService(context.Background(), option.WithHTTPClient(acct.HTTP), option.WithEndpoint(acct.Endpoint))
	if err != nil {
		return nil, fmt.Errorf("calendar client: %w", err)
	}
	return &cal{svc: svc, google: acct, zone: zone}, nil
}
