package main

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"google.golang.org/api/people/v1"

	"github.com/jck411/mcp-servers/shared/googleserver"
	"github.com/jck411/mcp-servers/shared/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Contacts, the gmail server's contacts toolset: the user's saved contacts and "other
// contacts" (people they have mailed without saving them) through the People API's generated
// client on the same sign-in, which must grant the contacts service's read-only scopes. It
// only reads. A name becomes an address only through these tools, in a call the user sees:
// the send tools take addresses and never look a name up themselves.

// peopleProduct is the People API as this server uses it.
var peopleProduct = googleserver.Product{Server: "gmail", Name: "Google Contacts", EndpointFlag: "people-endpoint", Endpoint: "https://people.googleapis.com/"}

// contactsService is the sign-in service whose scopes the contacts tools need.
const contactsService = "contacts"

// Field masks: the People API answers only the fields asked for, and refuses a call without.
const (
	searchMask = "names,nicknames,emailAddresses,phoneNumbers,organizations"
	otherMask  = "names,emailAddresses,phoneNumbers" // all otherContacts.search takes
	detailMask = "names,nicknames,emailAddresses,phoneNumbers,organizations,addresses,birthdays,biographies,urls,relations,events"
)

// warmFor is how long a search cache counts as fresh after a warm-up. Google's searches answer
// from a per-user cache that an empty-query request refreshes; a search that finds no one in
// caches warmed before the call is warmed again and retried, so "no one" is never stale.
const warmFor = 10 * time.Minute

// warmups remembers when each account's two search caches were last warmed.
type warmups struct {
	mu sync.Mutex
	at map[string]time.Time // account label + "|" + contacts or other
}

func (w *warmups) fresh(key string, now time.Time) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return now.Sub(w.at[key]) < warmFor
}

func (w *warmups) mark(key string, at time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.at == nil {
		w.at = map[string]time.Time{}
	}
	w.at[key] = at
}

type contactValue struct {
	Value string `json:"value"`
	Type  string `json:"type,omitempty"`
}

type contactInfo struct {
	ResourceName string         `json:"resource_name" jsonschema:"people/… (get_contact reads it) or otherContacts/…"`
	Source       string         `json:"source" jsonschema:"contact (saved) or other (mailed, not saved)"`
	Name         string         `json:"name,omitempty"`
	Nicknames    []string       `json:"nicknames,omitempty"`
	Emails       []contactValue `json:"emails,omitempty"`
	Phones       []contactValue `json:"phones,omitempty"`
	Organization string         `json:"organization,omitempty" jsonschema:"title, company"`
	Addresses    []contactValue `json:"addresses,omitempty"`
	Birthday     string         `json:"birthday,omitempty" jsonschema:"YYYY-MM-DD, or --MM-DD without a year"`
	Notes        string         `json:"notes,omitempty"`
	URLs         []contactValue `json:"urls,omitempty"`
	Relations    []contactValue `json:"relations,omitempty"`
	Events       []contactValue `json:"events,omitempty" jsonschema:"dates such as anniversaries"`
}

func toContact(p *people.Person) contactInfo {
	out := contactInfo{ResourceName: p.ResourceName, Source: "contact"}
	if strings.HasPrefix(p.ResourceName, "otherContacts/") {
		out.Source = "other"
	}
	if len(p.Names) > 0 {
		out.Name = cmp.Or(p.Names[0].DisplayName, strings.TrimSpace(p.Names[0].GivenName+" "+p.Names[0].FamilyName), p.Names[0].UnstructuredName)
	}
	for _, n := range p.Nicknames {
		out.Nicknames = append(out.Nicknames, n.Value)
	}
	for _, e := range p.EmailAddresses {
		out.Emails = append(out.Emails, contactValue{e.Value, cmp.Or(e.FormattedType, e.Type)})
	}
	for _, ph := range p.PhoneNumbers {
		out.Phones = append(out.Phones, contactValue{ph.Value, cmp.Or(ph.FormattedType, ph.Type)})
	}
	if len(p.Organizations) > 0 {
		o := p.Organizations[0]
		out.Organization = strings.Trim(o.Title+", "+o.Name, ", ")
	}
	for _, a := range p.Addresses {
		out.Addresses = append(out.Addresses, contactValue{strings.ReplaceAll(a.FormattedValue, "\n", ", "), cmp.Or(a.FormattedType, a.Type)})
	}
	if len(p.Birthdays) > 0 {
		out.Birthday = dateText(p.Birthdays[0].Date, p.Birthdays[0].Text)
	}
	if len(p.Biographies) > 0 {
		out.Notes = p.Biographies[0].Value
	}
	for _, u := range p.Urls {
		out.URLs = append(out.URLs, contactValue{u.Value, cmp.Or(u.FormattedType, u.Type)})
	}
	for _, r := range p.Relations {
		out.Relations = append(out.Relations, contactValue{r.Person, cmp.Or(r.FormattedType, r.Type)})
	}
	for _, e := range p.Events {
		out.Events = append(out.Events, contactValue{dateText(e.Date, ""), cmp.Or(e.FormattedType, e.Type)})
	}
	return out
}

// dateText renders a People API date, which may lack its year.
func dateText(d *people.Date, text string) string {
	switch {
	case d == nil || d.Month == 0:
		return text
	case d.Year == 0:
		return fmt.Sprintf("--%02d-%02d", d.Month, d.Day)
	}
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day)
}

func values(vs []contactValue) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.Value
		if v.Type != "" {
			parts[i] += " (" + v.Type + ")"
		}
	}
	return strings.Join(parts, ", ")
}

// line renders a contact in one line: name, addresses, phones, organization, resource name.
func (c contactInfo) line() string {
	s := cmp.Or(c.Name, "(no name)")
	if len(c.Emails) > 0 {
		s += ": " + values(c.Emails)
	} else {
		s += ": no email address"
	}
	if len(c.Phones) > 0 {
		s += "; phone " + values(c.Phones)
	}
	if c.Organization != "" {
		s += "; " + c.Organization
	}
	if c.Source == "other" {
		return s + " — mailed before, not saved (" + c.ResourceName + ")"
	}
	return s + " — contact " + c.ResourceName
}

func addContactTools(s *kit.Server, m *mailbox) {
	kit.AddTool(s, kit.Tool{Name: "search_contacts", Toolset: toolsetContacts, Title: "Search contacts", ReadOnly: true, Idempotent: true, OpenWorld: true,
		Description: "Find people's email addresses and phones by name, address, phone or company, in contacts and people mailed."}, m.searchContacts)
	kit.AddTool(s, kit.Tool{Name: "get_contact", Toolset: toolsetContacts, Title: "Get a contact", ReadOnly: true, Idempotent: true, OpenWorld: true,
		Description: "One saved contact in full: emails, phones, addresses, birthday, notes, links."}, m.getContact)
	kit.AddTool(s, kit.Tool{Name: "list_contacts", Toolset: toolsetContacts, Title: "List contacts", ReadOnly: true, Idempotent: true, OpenWorld: true,
		Description: "Page through the user's saved contacts, sorted by name."}, m.listContacts)
}

type searchContactsInput struct {
	Query      string `json:"query" jsonschema:"start of a name, address, phone or company" schema:"minLength=1"`
	Sources    string `json:"sources,omitempty" jsonschema:"contacts: saved ones; other: people mailed but not saved" schema:"enum=all|contacts|other,default=all"`
	MaxResults int64  `json:"max_results,omitempty" schema:"minimum=1,maximum=30,default=10,bare=true"`
}

type contactsOutput struct {
	Query         string        `json:"query,omitempty"`
	Contacts      []contactInfo `json:"contacts"`
	NextPageToken string        `json:"next_page_token,omitempty"`
	Total         int64         `json:"total,omitempty"`
}

func (o contactsOutput) Text() string {
	var b strings.Builder
	switch {
	case o.Query != "" && len(o.Contacts) == 0:
		return fmt.Sprintf("No contact matches %q (saved contacts and people mailed before). Ask the user for the address; do not guess one.", o.Query)
	case o.Query != "":
		fmt.Fprintf(&b, "%d people match %q; use an address exactly as listed:", len(o.Contacts), o.Query)
	default:
		fmt.Fprintf(&b, "%d of %d contacts:", len(o.Contacts), o.Total)
	}
	for _, c := range o.Contacts {
		b.WriteString("\n- " + c.line())
	}
	if o.NextPageToken != "" {
		fmt.Fprintf(&b, "\nMore: call again with page_token %q.", o.NextPageToken)
	}
	return b.String()
}

func (m *mailbox) searchContacts(ctx context.Context, _ *mcp.CallToolRequest, in searchContactsInput) (*mcp.CallToolResult, contactsOutput, error) {
	if err := m.peopleAcct.Require(ctx, contactsService); err != nil {
		return nil, contactsOutput{}, err
	}
	sources := []string{"contacts", "other"}
	if in.Sources != "all" {
		sources = []string{in.Sources}
	}
	warmed := false
	for _, source := range sources {
		w, err := m.warmUp(ctx, source, false)
		if err != nil {
			return nil, contactsOutput{}, err
		}
		warmed = warmed || w
	}
	out, err := m.searchAll(ctx, sources, in)
	if err != nil || len(out.Contacts) > 0 || warmed {
		return nil, out, err
	}
	// Nothing from caches warmed before this call: someone saved or mailed since may be missing.
	for _, source := range sources {
		if _, err := m.warmUp(ctx, source, true); err != nil {
			return nil, contactsOutput{}, err
		}
	}
	out, err = m.searchAll(ctx, sources, in)
	return nil, out, err
}

// searchAll searches each source, saved contacts first; someone saved is not listed again
// from the people mailed.
func (m *mailbox) searchAll(ctx context.Context, sources []string, in searchContactsInput) (contactsOutput, error) {
	out := contactsOutput{Query: in.Query, Contacts: []contactInfo{}}
	seen := map[string]bool{}
	for _, source := range sources {
		found, err := m.searchSource(ctx, source, in.Query, in.MaxResults)
		if err != nil {
			return contactsOutput{}, err
		}
		for _, p := range found {
			c := toContact(p)
			if source == "other" && len(c.Emails) > 0 && seen[strings.ToLower(c.Emails[0].Value)] {
				continue
			}
			for _, e := range c.Emails {
				seen[strings.ToLower(e.Value)] = true
			}
			out.Contacts = append(out.Contacts, c)
		}
	}
	return out, nil
}

// warmUp sends the empty query that refreshes one of Google's search caches for the account,
// unless it was sent within warmFor (or force). It reports whether it sent it.
func (m *mailbox) warmUp(ctx context.Context, source string, force bool) (bool, error) {
	key := m.google.Label(ctx) + "|" + source
	now := time.Now()
	if !force && m.warm.fresh(key, now) {
		return false, nil
	}
	if _, err := m.searchSource(ctx, source, "", 1); err != nil {
		return false, err
	}
	m.warm.mark(key, now)
	return true, nil
}

// searchSource runs one of Google's two searches (saved contacts, or people mailed) with the read
// mask it takes.
func (m *mailbox) searchSource(ctx context.Context, source, query string, size int64) ([]*people.Person, error) {
	var res *people.SearchResponse
	var err error
	if source == "other" {
		res, err = m.people.OtherContacts.Search().Query(query).ReadMask(otherMask).PageSize(size).Context(ctx).Do()
	} else {
		res, err = m.people.People.SearchContacts().Query(query).ReadMask(searchMask).PageSize(size).Context(ctx).Do()
	}
	if err != nil {
		return nil, m.peopleAcct.Fail(err, "contacts")
	}
	var out []*people.Person
	for _, r := range res.Results {
		if r.Person != nil {
			out = append(out, r.Person)
		}
	}
	return out, nil
}

type getContactInput struct {
	ResourceName string `json:"resource_name" jsonschema:"people/… from search or list_contacts" schema:"minLength=1"`
}

type contactOutput struct {
	Contact contactInfo `json:"contact"`
}

func (o contactOutput) Text() string {
	c := o.Contact
	var b strings.Builder
	b.WriteString(c.line())
	for _, f := range []struct{ label, value string }{
		{"nicknames", strings.Join(c.Nicknames, ", ")}, {"postal", values(c.Addresses)}, {"birthday", c.Birthday},
		{"links", values(c.URLs)}, {"relations", values(c.Relations)}, {"dates", values(c.Events)}, {"notes", c.Notes},
	} {
		if f.value != "" {
			fmt.Fprintf(&b, "\n%s: %s", f.label, f.value)
		}
	}
	return b.String()
}

func (m *mailbox) getContact(ctx context.Context, _ *mcp.CallToolRequest, in getContactInput) (*mcp.CallToolResult, contactOutput, error) {
	name := strings.TrimSpace(in.ResourceName)
	switch {
	case strings.HasPrefix(name, "otherContacts/"):
		return nil, contactOutput{}, kit.Errorf(kit.CodeInvalidInput, "%s is someone the user mailed, not a saved contact: Google keeps only their name, address and phone, which search_contacts showed", name)
	case !strings.HasPrefix(name, "people/") || name == "people/me":
		return nil, contactOutput{}, kit.Errorf(kit.CodeInvalidInput, "resource_name %q: give a people/… name from search_contacts or list_contacts", name)
	}
	if err := m.peopleAcct.Require(ctx, contactsService); err != nil {
		return nil, contactOutput{}, err
	}
	p, err := m.people.People.Get(name).PersonFields(detailMask).Context(ctx).Do()
	if err != nil {
		return nil, contactOutput{}, m.peopleAcct.Fail(err, "contact "+name)
	}
	return nil, contactOutput{Contact: toContact(p)}, nil
}

type listContactsInput struct {
	Sort      string `json:"sort,omitempty" schema:"enum=first_name|last_name|last_modified,default=first_name,bare=true"`
	PageSize  int64  `json:"page_size,omitempty" schema:"minimum=1,maximum=100,default=50,bare=true"`
	PageToken string `json:"page_token,omitempty" schema:"bare=true"`
}

var sortOrders = map[string]string{"first_name": "FIRST_NAME_ASCENDING", "last_name": "LAST_NAME_ASCENDING", "last_modified": "LAST_MODIFIED_DESCENDING"}

func (m *mailbox) listContacts(ctx context.Context, _ *mcp.CallToolRequest, in listContactsInput) (*mcp.CallToolResult, contactsOutput, error) {
	if err := m.peopleAcct.Require(ctx, contactsService); err != nil {
		return nil, contactsOutput{}, err
	}
	call := m.people.People.Connections.List("people/me").PersonFields(searchMask).SortOrder(sortOrders[in.Sort]).PageSize(in.PageSize).Context(ctx)
	if in.PageToken != "" {
		call.PageToken(in.PageToken)
	}
	res, err := call.Do()
	if err != nil {
		return nil, contactsOutput{}, m.peopleAcct.Fail(err, "contacts")
	}
	out := contactsOutput{Contacts: []contactInfo{}, NextPageToken: res.NextPageToken, Total: res.TotalPeople}
	for _, p := range res.Connections {
		out.Contacts = append(out.Contacts, toContact(p))
	}
	return nil, out, nil
}
