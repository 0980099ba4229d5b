package units

import (
	"regexp"
	"strings"
	"testing"
)

// TestSuggestedUnitsConvert: a misspelt or ambiguous unit suggests only units that convert
// with the other unit, whichever side is misspelt.
func TestSuggestedUnitsConvert(t *testing.T) {
	t.Parallel()
	quoted := regexp.MustCompile(`"([^"]+)"`)
	tests := []struct {
		from, to string
		want     string // in the error
	}{
		{"metr", "ft", `did you mean "m"`},
		{"ft", "metr", `did you mean "m"`},
		{"kg", "lbz", `did you mean "lb"`},
		{"mb", "kB", `"MB" for megabyte`},
		{"metr", "kg", "no mass unit is spelled like it"},
		{"m", "mb", "none of the units it may mean measures length"},
		{"xyzzy", "m", "call again with a length unit"},
	}
	for _, tt := range tests {
		t.Run(tt.from+" to "+tt.to, func(t *testing.T) {
			_, err := Convert("5", tt.from, tt.to, 0)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
			msg := err.Error()
			// Every quoted unit after the first (the misspelling itself) is a suggestion.
			for _, m := range quoted.FindAllStringSubmatch(msg, -1)[1:] {
				from, to := m[1], tt.to
				if _, bad := knownUnits.lookup(tt.to); bad != nil {
					from, to = tt.from, m[1]
				}
				if _, err := Convert("5", from, to, 0); err != nil {
					t.Errorf("suggestion %q: converting %s to %s fails: %v", m[1], from, to, err)
				}
			}
		})
	}

	// Over every unit of the catalog misspelt by one letter, against a unit of its own
	// dimension and one of another: every suggestion converts.
	other := map[string]string{}
	for _, u := range Units("") {
		for _, v := range Units("") {
			if v.Dimension != u.Dimension {
				other[u.Dimension] = v.Symbol
				break
			}
		}
	}
	checked := 0
	for _, u := range Units("") {
		if len(u.Symbol) < 2 {
			continue
		}
		typo := u.Symbol + "x"
		for _, to := range []string{u.Symbol, other[u.Dimension]} {
			_, err := Convert("1", typo, to, 0)
			if err == nil {
				continue
			}
			_, hint, ok := strings.Cut(err.Error(), "did you mean ")
			if !ok {
				continue
			}
			for _, m := range regexp.MustCompile(`"([^"]+)" \(`).FindAllStringSubmatch(hint, -1) {
				checked++
				if _, err := Convert("1", m[1], to, 0); err != nil {
					t.Errorf("%s to %s suggests %q, which fails: %v", typo, to, m[1], err)
				}
			}
		}
	}
	if checked < 30 {
		t.Errorf("only %d suggestions checked", checked)
	}
}
