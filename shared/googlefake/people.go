package googlefake

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"google.golang.org/api/people/v1"
)

// People is the People API v1 over HTTP as the gmail server's contacts toolset calls it: the
// user's contacts (people.searchContacts, people.get, people.connections.list) and "other
// contacts", the addresses the user has mailed without saving them (otherContacts.search). It
// keeps the API's quirks:
//   - a search answers from a cache that only a warm-up request (an empty query) fills, as of
//     that request, for each account: a search before any warm-up finds nothing, and a contact
//     added after the warm-up is not found until the next one;
//   - readMask (searches) and personFields (get, connections.list) are required, 400 without
//     them; otherContacts.search takes only names, emailAddresses, phoneNumbers and metadata;
//     the answer holds only the fields asked for;
//   - a query matches the start of any word of a name, nickname, address, phone number or
//     organization, phrases included ("ann l" matches "Ann Lee", "nn" matches nothing);
//     otherContacts match on names, addresses and phone numbers only;
//   - a search's pageSize is 10 unless given and at most 30; connections.list's is 100, at
//     most 1000, sorted by sortOrder (LAST_MODIFIED_ASCENDING, the default, is the order added).
//
// Its endpoint is URL+"/". The wording of its 400 messages is the fake's own.
type People struct {
	*Server
	contacts []*people.Person            // resourceName people/c…
	others   []*people.Person            // resourceName otherContacts/c…
	cache    map[string][]*people.Person // account token + "|" + source → the people as of its last warm-up
}

// NewPeople starts an empty People fake, closed when the test ends.
func NewPeople(t testing.TB) *People {
	p := &People{Server: newServer(t, "People"), cache: map[string][]*people.Person{}}
	p.handle("GET /v1/people:searchContacts", func(w http.ResponseWriter, r *http.Request, rq Request) {
		p.search(w, r, rq, "contacts", "names,nicknames,emailAddresses,phoneNumbers,organizations")
	})
	p.handle("GET /v1/otherContacts:search", func(w http.ResponseWriter, r *http.Request, rq Request) {
		p.search(w, r, rq, "other", "names,emailAddresses,phoneNumbers")
	})
	p.handle("GET /v1/people/me/connections", p.connections)
	p.handle("GET /v1/people/{id}", p.get)
	return p
}

// AddContact saves a contact (people/c…) and returns its resource name.
func (p *People) AddContact(person *people.Person) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	person.ResourceName = "people/c" + strconv.Itoa(len(p.contacts)+len(p.others)+1001)
	person.Etag = "%Eg" + strconv.Itoa(len(p.contacts))
	p.contacts = append(p.contacts, person)
	return person.ResourceName
}

// AddOther adds an "other contact" (otherContacts/c…), someone the user mailed, and returns its
// resource name.
func (p *People) AddOther(person *people.Person) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	person.ResourceName = "otherContacts/c" + strconv.Itoa(len(p.contacts)+len(p.others)+5001)
	p.others = append(p.others, person)
	return person.ResourceName
}

// otherFields are the only readMask paths otherContacts.search takes.
var otherFields = []string{"emailAddresses", "metadata", "names", "phoneNumbers"}

func (p *People) search(w http.ResponseWriter, r *http.Request, rq Request, source, searched string) {
	q := r.URL.Query()
	mask := fields(q.Get("readMask"))
	if len(mask) == 0 {
		WriteError(w, http.StatusBadRequest, "readMask is required. Please specify one or more valid paths.", "badRequest")
		return
	}
	if source == "other" {
		for _, f := range mask {
			if !slices.Contains(otherFields, f) {
				WriteError(w, http.StatusBadRequest, "Invalid readMask path for other contacts: "+f, "badRequest")
				return
			}
		}
	}
	if !q.Has("query") {
		WriteError(w, http.StatusBadRequest, "query is required.", "badRequest")
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	key := rq.Auth + "|" + source
	query := strings.ToLower(strings.TrimSpace(q.Get("query")))
	if query == "" { // the warm-up: refresh the cache, answer nothing
		all := p.contacts
		if source == "other" {
			all = p.others
		}
		p.cache[key] = slices.Clone(all)
		WriteJSON(w, &people.SearchResponse{})
		return
	}
	size, _ := strconv.Atoi(q.Get("pageSize"))
	if size <= 0 {
		size = 10
	}
	size = min(size, 30)
	res := &people.SearchResponse{}
	for _, person := range p.cache[key] {
		if len(res.Results) < size && personMatches(person, query, searched) {
			res.Results = append(res.Results, &people.SearchResult{Person: masked(person, mask)})
		}
	}
	WriteJSON(w, res)
}

func (p *People) get(w http.ResponseWriter, r *http.Request, _ Request) {
	mask := fields(r.URL.Query().Get("personFields"))
	if len(mask) == 0 {
		WriteError(w, http.StatusBadRequest, "personFields mask is required. Please specify one or more valid paths.", "badRequest")
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	name := "people/" + r.PathValue("id")
	for _, person := range p.contacts {
		if person.ResourceName == name {
			WriteJSON(w, masked(person, mask))
			return
		}
	}
	notFound(w, "Requested entity was not found.")
}

func (p *People) connections(w http.ResponseWriter, r *http.Request, _ Request) {
	q := r.URL.Query()
	mask := fields(q.Get("personFields"))
	if len(mask) == 0 {
		WriteError(w, http.StatusBadRequest, "personFields mask is required. Please specify one or more valid paths.", "badRequest")
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	list := slices.Clone(p.contacts)
	key := func(person *people.Person, family bool) string {
		if len(person.Names) == 0 {
			return "\uffff"
		}
		n := person.Names[0]
		switch {
		case n.GivenName == "" && n.FamilyName == "":
			return strings.ToLower(n.DisplayName)
		case family:
			return strings.ToLower(n.FamilyName + " " + n.GivenName)
		}
		return strings.ToLower(n.GivenName + " " + n.FamilyName)
	}
	switch q.Get("sortOrder") {
	case "FIRST_NAME_ASCENDING", "LAST_NAME_ASCENDING":
		family := q.Get("sortOrder") == "LAST_NAME_ASCENDING"
		slices.SortStableFunc(list, func(a, b *people.Person) int { return strings.Compare(key(a, family), key(b, family)) })
	case "LAST_MODIFIED_DESCENDING":
		slices.Reverse(list)
	}
	if size, _ := strconv.Atoi(q.Get("pageSize")); size > 1000 {
		q.Set("pageSize", "1000")
	}
	start, end, next := page(q, "pageSize", 100, len(list))
	res := &people.ListConnectionsResponse{NextPageToken: next, TotalItems: int64(len(list)), TotalPeople: int64(len(list))}
	for _, person := range list[start:end] {
		res.Connections = append(res.Connections, masked(person, mask))
	}
	WriteJSON(w, res)
}

// fields splits a field mask ("names,emailAddresses" or "person.names").
func fields(mask string) []string {
	var out []string
	for _, f := range strings.Split(mask, ",") {
		if f = strings.TrimPrefix(strings.TrimSpace(f), "person."); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// masked is a copy of person with only the fields of mask (and its resource name and etag).
func masked(person *people.Person, mask []string) *people.Person {
	raw, _ := json.Marshal(person)
	var all map[string]json.RawMessage
	_ = json.Unmarshal(raw, &all)
	for k := range all {
		if k != "resourceName" && k != "etag" && !slices.Contains(mask, k) {
			delete(all, k)
		}
	}
	raw, _ = json.Marshal(all)
	var out people.Person
	_ = json.Unmarshal(raw, &out)
	return &out
}

// personMatches reports whether query is a prefix phrase of one of the searched fields of person.
func personMatches(person *people.Person, query, searched string) bool {
	var values []string
	for _, f := range fields(searched) {
		switch f {
		case "names":
			for _, n := range person.Names {
				values = append(values, n.DisplayName, n.GivenName+" "+n.FamilyName)
			}
		case "nicknames":
			for _, n := range person.Nicknames {
				values = append(values, n.Value)
			}
		case "emailAddresses":
			for _, e := range person.EmailAddresses {
				values = append(values, e.Value)
			}
		case "phoneNumbers":
			for _, ph := range person.PhoneNumbers {
				values = append(values, ph.Value, ph.CanonicalForm)
			}
		case "organizations":
			for _, o := range person.Organizations {
				values = append(values, o.Name, o.Title)
			}
		}
	}
	return slices.ContainsFunc(values, func(v string) bool { return prefixPhrase(strings.ToLower(v), query) })
}

// prefixPhrase reports whether query starts at a word start of v.
func prefixPhrase(v, query string) bool {
	for i, r := range v {
		prev, _ := utf8.DecodeLastRuneInString(v[:i])
		atWord := i == 0 || !isWordRune(prev)
		if atWord && isWordRune(r) && strings.HasPrefix(v[i:], query) {
			return true
		}
	}
	return false
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
