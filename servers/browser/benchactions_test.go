package main

import (
	"context"
	"regexp"
	"testing"
)

// What the benchmark's form fills in.
const (
	newOrderDate  = "2026-12-24"
	benchCustomer = "Mary Somerville"
)

// tableFact is the long table's row 3721 as a pattern: its host, status and CPU, close together.
func tableFact() string {
	name, status, cpu, _ := tableHost(3721)
	return regexp.QuoteMeta(name) + `\b(?s:.{0,300}?)\b` + status + `\b(?s:.{0,300}?)\b` + cpu
}

func openPage(path string) func(ctx context.Context, c *benchClient, base string) error {
	return func(ctx context.Context, c *benchClient, base string) error { return c.d.open(ctx, c, base+path) }
}

func clickOn(role, name string) func(ctx context.Context, c *benchClient, base string) error {
	return func(ctx context.Context, c *benchClient, _ string) error { return c.d.click(ctx, c, role, name) }
}

// openThenClick opens a page and clicks a link on it: where "go back" starts.
func openThenClick(path, link string) func(ctx context.Context, c *benchClient, base string) error {
	return func(ctx context.Context, c *benchClient, base string) error {
		if err := c.d.open(ctx, c, base+path); err != nil {
			return err
		}
		return c.d.click(ctx, c, "link", link)
	}
}

func goBack(ctx context.Context, c *benchClient, _ string) error { return c.d.back(ctx, c) }

// benchActions are the actions users wait on, on the benchmark's pages.
func benchActions() []benchAction {
	return []benchAction{
		{name: "open and read", page: "login", act: openPage("/login.html"), want: `Forgot your password\?`},
		{name: "open and read", page: "article", act: openPage("/article.html"), want: `© Garden Notes`},
		{name: "open and read", page: "dashboard", act: openPage("/dashboard.html"), want: `hotel-199`},
		{name: "open and read", page: "single-page app", act: openPage("/app"), want: `Order 1012`},
		{name: "open and read", page: "5,000-row table", act: openPage("/table"), want: `host-00020`},
		{name: "click a link and read", page: "article", prep: openPage("/article.html"), act: clickOn("link", "Drip irrigation on a budget"), want: `printed in the spring edition`},
		{name: "click a link and read", page: "dashboard", prep: openPage("/dashboard.html"), act: clickOn("link", "Details"), want: `Kernel 6\.1\.0`},
		{name: "click a link and read", page: "single-page app", prep: openPage("/app"), act: clickOn("link", "Order 1003"), want: `Ships to: 24 Harbour Street`},
		{name: "fill and submit a form", page: "login", prep: openPage("/login.html"), act: func(ctx context.Context, c *benchClient, _ string) error {
			return c.d.fill(ctx, c, []benchField{{"textbox", "Username", "alice"}, {"textbox", "Password", "s3cret!"},
				{"combobox", "Role", "Editor"}, {"checkbox", "Remember me", "true"}}, "Sign in")
		}, want: `Welcome back, alice`},
		{name: "fill and submit a form", page: "single-page app", prep: openPage("/app/new"), act: func(ctx context.Context, c *benchClient, _ string) error {
			return c.d.fill(ctx, c, []benchField{{"textbox", "Customer", benchCustomer}, {"date", "Delivery date", newOrderDate},
				{"number", "Quantity", "3"}}, "Place order")
		}, want: `placed for ` + newOrderDate},
		{name: "find a fact", page: "article", prep: openPage("/article.html"), act: func(ctx context.Context, c *benchClient, _ string) error {
			return c.d.find(ctx, c, "leafy greens")
		}, want: `cool of the morning`},
		{name: "find a fact", page: "5,000-row table", prep: openPage("/table"), act: func(ctx context.Context, c *benchClient, _ string) error {
			return c.d.find(ctx, c, "host-03721")
		}, want: tableFact()},
		{name: "go back", page: "article", prep: openThenClick("/article.html", "Drip irrigation on a budget"), act: goBack, want: `A year in the kitchen garden`},
		{name: "go back", page: "single-page app", prep: openThenClick("/app", "Order 1003"), act: goBack, want: `Order 1012`},
	}
}

// TestBenchActions runs every benchmark action once against this server and checks that each
// takes one call and brings back its fact (how long each takes is TestBenchPeers' to measure).
func TestBenchActions(t *testing.T) {
	s := newSite(t)
	_, cs := startServer(t)
	c := &benchClient{name: "ours", cs: cs, d: ours{}}
	ctx := t.Context()
	if err := c.d.open(ctx, c, s.URL+"/login.html"); err != nil { // starts Chromium
		t.Fatal(err)
	}
	for _, a := range benchActions() {
		r := a.run(ctx, c, s.URL)
		t.Logf("%-22s %-16s %4d ms %6d bytes %d calls", a.name, a.page, r.took.Milliseconds(), r.bytes, r.calls)
		switch {
		case r.err != nil:
			t.Errorf("%s, %s: %v", a.name, a.page, r.err)
		case r.missed:
			t.Errorf("%s, %s: the answer lacks %q:\n%.3000s", a.name, a.page, a.want, c.got.String())
		case r.calls != 1:
			t.Errorf("%s, %s: %d calls, want 1", a.name, a.page, r.calls)
		}
	}
}
