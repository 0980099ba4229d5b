package googlefake

import (
	"net/http"
	"slices"
	"testing"

	"google.golang.org/api/option"
	"google.golang.org/api/people/v1"
)

func names(res *people.SearchResponse) []string {
	var out []string
	for _, r := range res.Results {
		out = append(out, r.Person.Names[0].DisplayName)
	}
	return out
}

// TestPeopleWithGeneratedClient drives the fake with the generated people/v1 client through
// the API's quirks: the warm-up, prefix phrases, required masks, other contacts' narrow mask.
func TestPeopleWithGeneratedClient(t *testing.T) {
	t.Parallel()
	f := NewPeople(t)
	ann := f.AddContact(&people.Person{Names: []*people.Name{{DisplayName: "Ann Lee", GivenName: "Ann", FamilyName: "Lee"}},
		EmailAddresses: []*people.EmailAddress{{Value: "ann.lee@example.com", Type: "home"}}, Organizations: []*people.Organization{{Name: "Acme", Title: "CFO"}},
		Birthdays: []*people.Birthday{{Date: &people.Date{Month: 4, Day: 1}}}})
	f.AddOther(&people.Person{Names: []*people.Name{{DisplayName: "Annika Berg"}}, EmailAddresses: []*people.EmailAddress{{Value: "annika@shop.example"}}})
	svc, err := people.NewService(t.Context(), option.WithHTTPClient(Client()), option.WithEndpoint(f.URL+"/"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	search := func(q string) *people.SearchResponse {
		t.Helper()
		res, err := svc.People.SearchContacts().Query(q).ReadMask("names,emailAddresses").Context(ctx).Do()
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if cold := search("ann"); len(cold.Results) != 0 {
		t.Errorf("a search before the warm-up found %v", names(cold))
	}
	search("") // the warm-up
	for q, want := range map[string][]string{"ann": {"Ann Lee"}, "ann l": {"Ann Lee"}, "lee": {"Ann Lee"}, "nn": nil, "acme": {"Ann Lee"}, "example": {"Ann Lee"}, "annika": nil} {
		if got := names(search(q)); !slices.Equal(got, want) {
			t.Errorf("search %q = %v, want %v", q, got, want)
		}
	}
	if got := search("ann").Results[0].Person; got.Organizations != nil || got.Birthdays != nil || got.EmailAddresses[0].Value != "ann.lee@example.com" {
		t.Errorf("fields outside the mask came back: %+v", got)
	}
	// A contact added after the warm-up is found only after the next.
	f.AddContact(&people.Person{Names: []*people.Name{{DisplayName: "Anne Roy", GivenName: "Anne", FamilyName: "Roy"}}})
	if got := names(search("anne")); len(got) != 0 {
		t.Errorf("stale cache found %v", got)
	}
	search("")
	if got := names(search("anne")); !slices.Equal(got, []string{"Anne Roy"}) {
		t.Errorf("after warm-up %v", got)
	}
	// Other contacts: their own warm-up, and a narrow mask.
	_, _ = svc.OtherContacts.Search().Query("").ReadMask("names").Context(ctx).Do()
	other, err := svc.OtherContacts.Search().Query("anni").ReadMask("names,emailAddresses").Context(ctx).Do()
	if err != nil || !slices.Equal(names(other), []string{"Annika Berg"}) {
		t.Errorf("other contacts %v, %v", other, err)
	}
	if _, err := svc.OtherContacts.Search().Query("anni").ReadMask("names,organizations").Context(ctx).Do(); apiError(t, err).Code != http.StatusBadRequest {
		t.Error("organizations accepted for other contacts")
	}
	if _, err := svc.People.SearchContacts().Query("ann").Context(ctx).Do(); apiError(t, err).Code != http.StatusBadRequest {
		t.Error("a search without readMask was answered")
	}
	// get and connections need personFields.
	got, err := svc.People.Get(ann).PersonFields("names,birthdays").Context(ctx).Do()
	if err != nil || got.Birthdays[0].Date.Month != 4 || got.EmailAddresses != nil {
		t.Errorf("get %+v, %v", got, err)
	}
	if _, err := svc.People.Get(ann).Context(ctx).Do(); apiError(t, err).Code != http.StatusBadRequest {
		t.Error("get without personFields was answered")
	}
	conn, err := svc.People.Connections.List("people/me").PersonFields("names").SortOrder("LAST_NAME_ASCENDING").PageSize(1).Context(ctx).Do()
	if err != nil || len(conn.Connections) != 1 || conn.Connections[0].Names[0].DisplayName != "Ann Lee" || conn.NextPageToken == "" || conn.TotalPeople != 2 {
		t.Errorf("connections %+v, %v", conn, err)
	}
}
