package units

import (
	"strings"
	"testing"
)

func TestParseDecimal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want string // RatString, "" for rejected
	}{
		{"0", "0"}, {"-0", "0"}, {"12.5", "25/2"}, {"-40", "-40"}, {"+7", "7"},
		{".5", "1/2"}, {"5.", "5"}, {"1e3", "1000"}, {"1E-3", "1/1000"}, {"2.5e+2", "250"},
		{"0001.2500", "5/4"}, {"1e1000", "1" + strings.Repeat("0", 1000)},
		{"", ""}, {".", ""}, {"-", ""}, {"e5", ""}, {"1e", ""}, {"1e+", ""}, {"1.2.3", ""},
		{"1,5", ""}, {"1_000", ""}, {" 1", ""}, {"0x1p3", ""}, {"inf", ""}, {"1e1001", ""},
		{"1/2", ""}, {"١", ""},
	}
	for _, tc := range tests {
		r, ok := parseDecimal(tc.in)
		switch {
		case tc.want == "" && ok:
			t.Errorf("parseDecimal(%q) = %s, want rejection", tc.in, r.RatString())
		case tc.want != "" && !ok:
			t.Errorf("parseDecimal(%q) rejected, want %s", tc.in, tc.want)
		case ok && r.RatString() != tc.want:
			t.Errorf("parseDecimal(%q) = %s, want %s", tc.in, r.RatString(), tc.want)
		}
	}
}

func TestFormatExact(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"0", "0"}, {"1", "1"}, {"-2.54", "-2.54"}, {"1234500", "1234500"},
		{"0.000125", "0.000125"}, {"1/8", "0.125"}, {"-1/1024", "-0.0009765625"},
		{"1e30", "1000000000000000000000000000000"}, {"1e31", "1e+31"},
		{"1.5e-30", "0.0000000000000000000000000000015"}, {"1.5e-31", "1.5e-31"},
		{"-2.25e40", "-2.25e+40"}, {"123456789e-40", "1.23456789e-32"},
	}
	for _, tc := range tests {
		if got := formatExact(mustRat(tc.in)); got != tc.want {
			t.Errorf("formatExact(%s) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFormatRounded(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		sig  int
		want string
	}{
		{"2/3", 3, "0.667"}, {"-2/3", 3, "-0.667"}, {"200/3", 1, "70"}, {"1/3", 15, "0.333333333333333"},
		{"0.9999999/3", 3, "0.333"}, {"2999999/3000000", 3, "1"}, {"-29999999/3", 2, "-10000000"},
		{"1/7e40", 4, "1.429e-41"}, {"1e40/7", 4, "1.429e+39"}, {"1e30/3", 2, "330000000000000000000000000000"},
		{"1e31/3", 2, "3300000000000000000000000000000"}, {"1e32/3", 2, "3.3e+31"}, {"1/3", 100, "0." + strings.Repeat("3", 100)},
		{"1234567/1000", 4, "1235"}, {"12345/1000", 4, "12.35"}, {"-12345/1000", 4, "-12.35"},
		{"0", 5, "0"}, {"5", 3, "5"}, {"999.5", 3, "1000"},
	}
	for _, tc := range tests {
		if got := formatRounded(mustRat(tc.in), tc.sig); got != tc.want {
			t.Errorf("formatRounded(%s, %d) = %q, want %q", tc.in, tc.sig, got, tc.want)
		}
	}
}

func TestIsTerminating(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		"1": true, "1/2": true, "1/1024": true, "3/1250": true, "0": true, "-7/40": true,
		"1/3": false, "1/760": false, "5/18": false, "1/6": false,
	}
	for in, want := range tests {
		if got := isTerminating(mustRat(in)); got != want {
			t.Errorf("isTerminating(%s) = %v, want %v", in, got, want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b  string
		limit int
		want  int
	}{
		{"km", "km", 2, 0}, {"kilometrs", "kilometers", 2, 1}, {"mn", "nm", 2, 1},
		{"fet", "ft", 2, 1}, {"abc", "xyz", 2, 3}, {"m", "kilometre", 2, 3}, {"µm", "um", 2, 1},
	}
	for _, tc := range tests {
		if got := editDistance(tc.a, tc.b, tc.limit); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestPlural(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"meter": "meters", "foot": "feet", "inch": "inches", "century": "centuries", "day": "days",
		"square foot": "square feet", "foot per second": "feet per second", "foot-pound": "foot-pounds",
		"mile per hour": "miles per hour", "gas": "gases",
	}
	for in, want := range tests {
		if got := plural(in); got != want {
			t.Errorf("plural(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParsecPrecision(t *testing.T) {
	t.Parallel()
	// 1 pc = 96939420213600000/π m, to 60 significant digits (computed
	// independently with a 200-digit π).
	got, err := Convert("1", "pc", "m", 60)
	if err != nil {
		t.Fatal(err)
	}
	if want := "30856775814913672.7891393795779647161073192116040917980140402"; got.Value != want {
		t.Errorf("1 pc = %s m, want %s", got.Value, want)
	}
	if got.Exact {
		t.Error("parsec conversions must not be exact")
	}
}
