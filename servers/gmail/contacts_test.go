package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jck411/mcp-servers/shared/googlefake"
	"github.com/jck411/mcp-servers/shared/googleserver/googletest"
	"github.com/jck411/mcp-servers/shared/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/api/people/v1"
)

var (
	gmailScopes    = []string{"https://www.googleapis.com/auth/gmail.modify", "https://www.googleapis.com/auth/gmail.settings.basic"}
	contactsScopes = []string{"https://www.googleapis.com/auth/contacts.readonly", "https://www.googleapis.com/auth/contacts.other.readonly"}
)

// newFakePeople holds two saved contacts and two people Ada has mailed, one of whom (Bob) is
// also saved.
func newFakePeople(t *testing.T) *googlefake.People {
	f := googlefake.NewPeople(t)
	f.AddContact(&people.Person{Names: []*people.Name{{DisplayName: "Ann Lee", GivenName: "Ann", FamilyName: "Lee"}},
		Nicknames:      []*people.Nickname{{Value: "Annie"}},
		EmailAddresses: []*people.EmailAddress{{Value: "ann.lee@example.com", Type: "home", FormattedType: "Home"}, {Value: "ann@acme.example", Type: "work", FormattedType: "Work"}},
		PhoneNumbers:   []*people.PhoneNumber{{Value: "+1 555 0100", Type: "mobile", FormattedType: "Mobile"}},
		Organizations:  []*people.Organization{{Name: "Acme", Title: "CFO"}},
		Addresses:      []*people.Address{{FormattedValue: "1 Main St\nSpringfield", Type: "home"}},
		Birthdays:      []*people.Birthday{{Date: &people.Date{Month: 4, Day: 1}}},
		Biographies:    []*people.Biography{{Value: "Met at the conference"}},
		Relations:      []*people.Relation{{Person: "Tom", Type: "spouse"}}})
	f.AddContact(&people.Person{Names: []*people.Name{{DisplayName: "Bob Stone", GivenName: "Bob", FamilyName: "Stone"}},
		EmailAddresses: []*people.EmailAddress{{Value: "bob@example.com"}}})
	f.AddOther(&people.Person{Names: []*people.Name{{DisplayName: "Annika Berg"}}, EmailAddresses: []*people.EmailAddress{{Value: "annika@shop.example"}}})
	f.AddOther(&people.Person{Names: []*people.Name{{DisplayName: "Bob"}}, EmailAddresses: []*people.EmailAddress{{Value: "bob@example.com"}}})
	return f
}

// startContacts starts gmail with the contacts toolset, signed in with scopes (gmail and
// contacts when nil), pointed at a Gmail fake and the People fake.
func startContacts(t *testing.T, scopes []string, extra ...string) (*googlefake.People, *googlefake.Gmail, *mcp.ClientSession) {
	t.Helper()
	p, g := newFakePeople(t), newFakeGmail(t)
	if scopes == nil {
		scopes = append(slices.Clone(gmailScopes), contactsScopes...)
	}
	args := append(googletest.SignIn(t, "http://127.0.0.1:1/token", time.Now().Add(time.Hour), scopes...),
		"--gmail-endpoint", g.URL+"/", "--people-endpoint", p.URL+"/", "--toolsets", "all")
	return p, g, mcptest.Start(t, spec(), append(args, extra...)...).Connect(t, "")
}

func contactNames(cs []contactInfo) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}

func TestSearchContacts(t *testing.T) {
	t.Parallel()
	f, _, cs := startContacts(t, nil)
	out, res := mcptest.CallFor[contactsOutput](t, cs, "search_contacts", map[string]any{"query": "ann"})
	if got := contactNames(out.Contacts); !slices.Equal(got, []string{"Ann Lee", "Annika Berg"}) || out.Contacts[1].Source != "other" {
		t.Fatalf("search ann: %+v", out.Contacts)
	}
	text := mcptest.Text(res)
	for _, want := range []string{`2 people match "ann"; use an address exactly as listed:`,
		"- Ann Lee: ann.lee@example.com (Home), ann@acme.example (Work); phone +1 555 0100 (Mobile); CFO, Acme — contact people/c1001",
		"- Annika Berg: annika@shop.example — mailed before, not saved (otherContacts/c5003)"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	// Each search cache was warmed (an empty query) before its first search, with the masks the
	// API requires; a second search within minutes does not warm again.
	warmups := func(path string) int {
		n := 0
		for _, c := range f.Calls("GET", path) {
			if c.Query.Get("query") == "" {
				n++
			}
		}
		return n
	}
	mcptest.CallFor[contactsOutput](t, cs, "search_contacts", map[string]any{"query": "annie"})
	if warmups("/people:searchContacts") != 1 || warmups("/otherContacts:search") != 1 {
		t.Errorf("warm-ups: %d, %d", warmups("/people:searchContacts"), warmups("/otherContacts:search"))
	}
	if q := f.Calls("GET", "/otherContacts:search")[1].Query; q.Get("readMask") != "names,emailAddresses,phoneNumbers" || q.Get("pageSize") != "10" {
		t.Errorf("other search query %v", q)
	}
	// Someone saved since the warm-up: the miss warms again and finds them.
	f.AddContact(&people.Person{Names: []*people.Name{{DisplayName: "Zoe Park"}}, EmailAddresses: []*people.EmailAddress{{Value: "zoe@example.com"}}})
	zoe, _ := mcptest.CallFor[contactsOutput](t, cs, "search_contacts", map[string]any{"query": "zoe", "sources": "contacts"})
	if len(zoe.Contacts) != 1 || warmups("/people:searchContacts") != 2 {
		t.Errorf("a contact saved after the warm-up: %+v (warm-ups %d)", zoe.Contacts, warmups("/people:searchContacts"))
	}
	// A person both saved and mailed is listed once, as the saved contact.
	bob, _ := mcptest.CallFor[contactsOutput](t, cs, "search_contacts", map[string]any{"query": "bob"})
	if got := contactNames(bob.Contacts); !slices.Equal(got, []string{"Bob Stone"}) {
		t.Errorf("bob: %v", got)
	}
	// Nothing found says not to guess.
	if _, res := mcptest.CallFor[contactsOutput](t, cs, "search_contacts", map[string]any{"query": "xavier"}); !strings.Contains(mcptest.Text(res), "Ask the user for the address; do not guess one.") {
		t.Errorf("no match: %s", mcptest.Text(res))
	}
}

func TestGetAndListContacts(t *testing.T) {
	t.Parallel()
	f, _, cs := startContacts(t, nil)
	one, res := mcptest.CallFor[contactOutput](t, cs, "get_contact", map[string]any{"resource_name": "people/c1001"})
	if one.Contact.Birthday != "--04-01" || one.Contact.Notes != "Met at the conference" {
		t.Errorf("contact %+v", one.Contact)
	}
	for _, want := range []string{"nicknames: Annie", "postal: 1 Main St, Springfield (home)", "birthday: --04-01", "relations: Tom (spouse)", "notes: Met at the conference"} {
		if !strings.Contains(mcptest.Text(res), want) {
			t.Errorf("get_contact text lacks %q:\n%s", want, mcptest.Text(res))
		}
	}
	if pf := f.Calls("GET", "/people/c1001")[0].Query.Get("personFields"); !strings.Contains(pf, "birthdays") || !strings.Contains(pf, "biographies") {
		t.Errorf("personFields %q", pf)
	}
	for args, want := range map[string]string{
		"otherContacts/c5003": "otherContacts/c5003 is someone the user mailed, not a saved contact",
		"people/me":           `resource_name "people/me": give a people/… name`,
		"people/c9":           "contact people/c9 not found",
	} {
		if msg := mcptest.CallError(t, cs, "get_contact", map[string]any{"resource_name": args}); !strings.HasPrefix(msg, want) {
			t.Errorf("get_contact %s: %s", args, msg)
		}
	}
	page, res := mcptest.CallFor[contactsOutput](t, cs, "list_contacts", map[string]any{"page_size": 1, "sort": "last_name"})
	if got := contactNames(page.Contacts); !slices.Equal(got, []string{"Ann Lee"}) || page.Total != 2 || !strings.Contains(mcptest.Text(res), `page_token "`+page.NextPageToken+`"`) {
		t.Errorf("page 1 %+v", page)
	}
	rest, _ := mcptest.CallFor[contactsOutput](t, cs, "list_contacts", map[string]any{"page_size": 1, "sort": "last_name", "page_token": page.NextPageToken})
	if got := contactNames(rest.Contacts); !slices.Equal(got, []string{"Bob Stone"}) || rest.NextPageToken != "" {
		t.Errorf("page 2 %+v", rest)
	}
}

// TestContactsSignInAndNames: without the contacts scopes the tools say which login adds them
// (keeping gmail); a read-only server offers them; a name is never an address — the model
// looks it up, and what it finds is still checked against the recipient allowlist.
func TestContactsSignInAndNames(t *testing.T) {
	t.Parallel()
	f, _, cs := startContacts(t, gmailScopes)
	msg := mcptest.CallError(t, cs, "search_contacts", map[string]any{"query": "ann"})
	if msg != "the Google sign-in of ada@example.com does not grant Google Contacts: run `gmail auth login --services contacts,gmail` (the services it has, plus contacts) and call again" || f.Requests() != 0 {
		t.Errorf("no contacts scope: %s (%d calls)", msg, f.Requests())
	}
	_, _, ro := startContacts(t, append([]string{"https://www.googleapis.com/auth/gmail.readonly"}, contactsScopes...), "--read-only")
	names := googletest.ReadOnlyTools(t, ro)
	for _, want := range []string{"search_contacts", "get_contact", "list_contacts"} {
		if !slices.Contains(names, want) {
			t.Errorf("read-only tools %v lack %s", names, want)
		}
	}
	_, g, cs := startContacts(t, nil, "--allowed-recipients", "@example.com")
	if msg := mcptest.CallError(t, cs, "send_message", map[string]any{"to": []string{"Ann"}, "text": "hi"}); !strings.Contains(msg, "search_contacts finds a person's") {
		t.Errorf("a name as recipient: %s", msg)
	}
	found, _ := mcptest.CallFor[contactsOutput](t, cs, "search_contacts", map[string]any{"query": "ann"})
	mcptest.CallFor[sentOutput](t, cs, "send_message", map[string]any{"to": []string{found.Contacts[0].Emails[0].Value}, "text": "hi"})
	if msg := mcptest.CallError(t, cs, "send_message", map[string]any{"to": []string{found.Contacts[1].Emails[0].Value}, "text": "hi"}); !strings.HasPrefix(msg, "annika@shop.example is not an allowed recipient") {
		t.Errorf("a looked-up outsider: %s", msg)
	}
	if len(g.Sent) != 1 {
		t.Errorf("sent %d", len(g.Sent))
	}
}
