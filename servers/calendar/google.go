package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"google.golang.org/api/calendar/v3"
	"google.golang.org/api/option"
	"google.golang.org/api/tasks/v1"

	"github.com/jck411/mcp-servers/shared/googleserver"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/jck411/mcp-servers/shared/recipients"
)

// cal is the server's state: the Calendar API over the shared sign-in.
type cal struct {
	google    *googleserver.Account
	cs        *calendar.Service     // the generated client on the account's authorized HTTP client
	ts        *tasks.Service        // Google Tasks on the same sign-in
	tasksAcct *googleserver.Account // the sign-in, naming Google Tasks in its errors
	zone      *time.Location        // the server's zone, for get_current_time without the calendar's
	allowed   recipients.Allowlist  // whom events may reach (--allowed-recipients)
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
	if !strings.HasPrefix(st.tasksEndpoint, "http://") && !strings.HasPrefix(st.tasksEndpoint, "https://") {
		return nil, fmt.Errorf("--tasks-endpoint %q: give an http(s) URL", st.tasksEndpoint)
	}
	ts, err := tasks.NewService(context.Background(), option.WithHTTPClient(acct.HTTP), option.WithEndpoint(st.tasksEndpoint))
	if err != nil {
		return nil, fmt.Errorf("tasks client: %w", err)
	}
	return &cal{google: acct, cs: cs, ts: ts, tasksAcct: acct.For(tasksProduct), zone: zone, allowed: st.allowed}, nil
}
