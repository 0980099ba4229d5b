package units

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestConvert(t *testing.T) {
	t.Parallel()
	tests := []struct {
		value, from, to string
		precision       int
		want            string
		exact           bool
	}{
		// length
		{"1", "in", "cm", 0, "2.54", true},
		{"1", "mi", "km", 0, "1.609344", true},
		{"1", "ft", "m", 0, "0.3048", true},
		{"12", "in", "ft", 0, "1", true},
		{"1", "yd", "in", 0, "36", true},
		{"5280", "ft", "mi", 0, "1", true},
		{"1", "nmi", "m", 0, "1852", true},
		{"1", "ly", "m", 0, "9460730472580800", true},
		{"1", "au", "km", 0, "149597870.7", true},
		{"1", "Å", "nm", 0, "0.1", true},
		{"1", "mil", "mm", 0, "0.0254", true},
		{"1", "furlong", "yd", 0, "220", true},
		{"1", "Mm", "km", 0, "1000", true},
		{"1", "mm", "µm", 0, "1000", true},
		{"1", "km", "mi", 0, "0.621371192237334", false},
		{"1", "km", "mi", 3, "0.621", false},
		{"1", "km", "mi", 1, "0.6", false},
		{"1", "pc", "ly", 0, "3.26156377716743", false},
		{"1", "pc", "au", 0, "206264.806247096", false},
		{"1", "pc", "m", 0, "30856775814913700", false},
		{"2.5", "pc", "pc", 0, "2.5", true},
		{"1e20", "ly", "nm", 0, "9.4607304725808e+44", true},
		{"1e-10", "Å", "ly", 0, "1.05700083402462e-36", false},
		{"1e1000", "in", "m", 0, "2.54e+998", true},
		// mass
		{"1", "lb", "kg", 0, "0.45359237", true},
		{"1", "kg", "lb", 0, "2.20462262184878", false},
		{"16", "oz", "lb", 0, "1", true},
		{"1", "st", "lb", 0, "14", true},
		{"1", "short_ton", "lb", 0, "2000", true},
		{"1", "long_ton", "kg", 0, "1016.0469088", true},
		{"1", "t", "kg", 0, "1000", true},
		{"1", "ct", "mg", 0, "200", true},
		{"7000", "gr", "lb", 0, "1", true},
		{"1", "ozt", "g", 0, "31.1034768", true},
		{"1", "mg", "µg", 0, "1000", true},
		// volume
		{"1", "gal", "L", 0, "3.785411784", true},
		{"1", "gal", "in³", 0, "231", true},
		{"1", "gal", "qt", 0, "4", true},
		{"1", "qt", "pt", 0, "2", true},
		{"1", "cup", "fl_oz", 0, "8", true},
		{"1", "fl_oz", "tbsp", 0, "2", true},
		{"1", "tbsp", "tsp", 0, "3", true},
		{"1", "gal_imp", "L", 0, "4.54609", true},
		{"1", "gal_imp", "pt_imp", 0, "8", true},
		{"1", "gal_imp", "fl_oz_imp", 0, "160", true},
		{"1", "qt_imp", "pt_imp", 0, "2", true},
		{"1", "m³", "L", 0, "1000", true},
		{"1", "cm³", "mL", 0, "1", true},
		{"1", "ft³", "L", 0, "28.316846592", true},
		{"1", "yd³", "ft³", 0, "27", true},
		{"1", "L", "gal", 0, "0.264172052358148", false},
		{"1", "dL", "cL", 0, "10", true},
		{"1000", "mm³", "cm³", 0, "1", true},
		// area
		{"1", "acre", "m²", 0, "4046.8564224", true},
		{"1", "acre", "ft²", 0, "43560", true},
		{"1", "mi²", "acre", 0, "640", true},
		{"1", "ha", "m²", 0, "10000", true},
		{"1", "km²", "ha", 0, "100", true},
		{"1", "a", "m²", 0, "100", true},
		{"1", "ft²", "in²", 0, "144", true},
		{"1", "yd²", "ft²", 0, "9", true},
		{"1", "m²", "cm²", 0, "10000", true},
		{"1", "cm²", "mm²", 0, "100", true},
		{"1", "m²", "ft²", 0, "10.7639104167097", false},
		// temperature
		{"-40", "C", "F", 0, "-40", true},
		{"100", "C", "F", 0, "212", true},
		{"0", "K", "C", 0, "-273.15", true},
		{"0", "C", "K", 0, "273.15", true},
		{"98.6", "F", "C", 0, "37", true},
		{"0", "F", "R", 0, "459.67", true},
		{"300", "K", "F", 0, "80.33", true},
		{"-459.67", "F", "K", 0, "0", true},
		{"0", "R", "K", 0, "0", true},
		{"1", "F", "C", 0, "-17.2222222222222", false},
		{"1", "F", "C", 3, "-17.2", false},
		// time
		{"1", "h", "s", 0, "3600", true},
		{"1", "d", "min", 0, "1440", true},
		{"1", "wk", "h", 0, "168", true},
		{"1", "yr", "d", 0, "365.2425", true},
		{"1", "month", "d", 0, "30.436875", true},
		{"1", "yr", "month", 0, "12", true},
		{"1", "decade", "yr", 0, "10", true},
		{"1", "century", "yr", 0, "100", true},
		{"90", "min", "h", 0, "1.5", true},
		{"1", "s", "ms", 0, "1000", true},
		{"1", "ms", "µs", 0, "1000", true},
		{"1", "µs", "ns", 0, "1000", true},
		{"1", "ns", "ps", 0, "1000", true},
		// speed
		{"1", "mph", "km/h", 0, "1.609344", true},
		{"60", "mph", "km/h", 0, "96.56064", true},
		{"1", "kn", "km/h", 0, "1.852", true},
		{"1", "m/s", "km/h", 0, "3.6", true},
		{"100", "km/h", "m/s", 0, "27.7777777777778", false},
		{"1", "ft/s", "mph", 0, "0.681818181818182", false},
		// data
		{"1", "GiB", "MB", 0, "1073.741824", true},
		{"1", "MB", "Mbit", 0, "8", true},
		{"1", "KiB", "B", 0, "1024", true},
		{"1", "B", "b", 0, "8", true},
		{"1", "GB", "GiB", 0, "0.931322574615478515625", true},
		{"1", "Gbit", "MB", 0, "125", true},
		{"1", "TiB", "GiB", 0, "1024", true},
		{"1", "kB", "B", 0, "1000", true},
		{"1", "Kibit", "b", 0, "1024", true},
		{"1", "EiB", "B", 0, "1152921504606846976", true},
		{"1", "PB", "TB", 0, "1000", true},
		// energy
		{"1", "kWh", "J", 0, "3600000", true},
		{"1", "kcal", "cal", 0, "1000", true},
		{"1", "cal", "J", 0, "4.184", true},
		{"1", "BTU", "J", 0, "1055.05585262", true},
		{"1", "therm", "BTU", 0, "99976.1289774968", false},
		{"1", "eV", "J", 0, "0.0000000000000000001602176634", true},
		{"1", "MeV", "keV", 0, "1000", true},
		{"1", "ft·lbf", "J", 0, "1.3558179483314004", true},
		{"550", "ft·lbf", "J", 0, "745.69987158227022", true},
		{"1", "Wh", "J", 0, "3600", true},
		{"1", "MJ", "kWh", 0, "0.277777777777778", false},
		{"1", "GJ", "MJ", 0, "1000", true},
		{"1", "MWh", "kWh", 0, "1000", true},
		// power
		{"1", "hp", "W", 0, "745.69987158227022", true},
		{"1", "hp", "kW", 0, "0.74569987158227022", true},
		{"1", "PS", "W", 0, "735.49875", true},
		{"1", "hp", "PS", 0, "1.013869665424", true},
		{"1", "kW", "W", 0, "1000", true},
		{"1", "BTU/h", "W", 0, "0.293071070172222", false},
		{"1", "GW", "MW", 0, "1000", true},
		{"1", "W", "mW", 0, "1000", true},
		// pressure
		{"1", "atm", "Pa", 0, "101325", true},
		{"1", "atm", "psi", 15, "14.6959487755134", false},
		{"1", "psi", "Pa", 40, "6894.757293168361336722673445346890693781", false},
		{"1", "torr", "Pa", 0, "133.322368421053", false},
		{"760", "torr", "atm", 0, "1", true},
		{"1", "bar", "kPa", 0, "100", true},
		{"1", "hPa", "mbar", 0, "1", true},
		{"1", "MPa", "bar", 0, "10", true},
		{"1", "mmHg", "Pa", 0, "133.322387415", true},
		{"1", "inHg", "Pa", 0, "3386.389", true},
		// value syntax
		{"+5", "m", "cm", 0, "500", true},
		{".5", "m", "cm", 0, "50", true},
		{"5.", "m", "cm", 0, "500", true},
		{"-0", "m", "cm", 0, "0", true},
		{" 12.5 ", "m", "cm", 0, "1250", true},
		{"1E3", "m", "km", 0, "1", true},
		{"2.5e-3", "km", "m", 0, "2.5", true},
		{"1e-0000000000000002", "m", "cm", 0, "1", true},
		{"-1.5e+2", "cm", "m", 0, "-1.5", true},
	}
	for _, tc := range tests {
		name := tc.value + " " + tc.from + "→" + tc.to
		got, err := Convert(tc.value, tc.from, tc.to, tc.precision)
		if err != nil {
			t.Errorf("%s: unexpected error: %v", name, err)
			continue
		}
		if got.Value != tc.want || got.Exact != tc.exact {
			t.Errorf("%s: got %q exact=%v, want %q exact=%v", name, got.Value, got.Exact, tc.want, tc.exact)
		}
		if got.From != tc.from && canonical(t, tc.from) != got.From {
			t.Errorf("%s: From = %q", name, got.From)
		}
		wantFloat := parseFloat(t, tc.want)
		digits := tc.precision
		if digits == 0 {
			digits = 15
		}
		tol := math.Pow(10, float64(1-min(digits, 15)))
		if rel := math.Abs(got.Float-wantFloat) / math.Max(math.Abs(wantFloat), 1e-300); rel > tol && got.Float != wantFloat {
			t.Errorf("%s: Float = %v, want about %v", name, got.Float, wantFloat)
		}
	}
}

func TestConvertResultFields(t *testing.T) {
	t.Parallel()
	got, err := Convert("1", "inches", "centimetres", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := Result{Value: "2.54", Exact: true, Float: 2.54, From: "in", To: "cm", Dimension: "length"}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	got, err = Convert("1e1000", "km", "m", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got.Value != "1e+1003" || !math.IsInf(got.Float, 1) {
		t.Errorf("huge value: got %q, Float %v", got.Value, got.Float)
	}
}

func TestConvertErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		value, from, to string
		precision       int
		want            []string // substrings of the message
	}{
		{"1", "kg", "m", 0, []string{`cannot convert "kg" (mass) to "m" (length): units must measure the same kind of quantity`}},
		{"1", "kilograms", "meters", 0, []string{`cannot convert "kg" (mass) to "m" (length)`}},
		{"1", "°C", "kg", 0, []string{`"°C" (temperature)`, `"kg" (mass)`}},
		{"abc", "m", "cm", 0, []string{`invalid value "abc"`, "must be a decimal number"}},
		{"1,000", "m", "cm", 0, []string{`invalid value "1,000"`, "thousands separators"}},
		{"1/2", "m", "cm", 0, []string{"must be a decimal number"}},
		{"", "m", "cm", 0, []string{"must be a decimal number"}},
		{"1e", "m", "cm", 0, []string{"must be a decimal number"}},
		{"--1", "m", "cm", 0, []string{"must be a decimal number"}},
		{"1.2.3", "m", "cm", 0, []string{"must be a decimal number"}},
		{"0x10", "m", "cm", 0, []string{"must be a decimal number"}},
		{"NaN", "m", "cm", 0, []string{"must be a decimal number"}},
		{"Inf", "m", "cm", 0, []string{"must be a decimal number"}},
		{"5 m", "m", "cm", 0, []string{"must be a decimal number"}},
		{"1e1001", "m", "cm", 0, []string{`invalid value "1e1001": the exponent must be between -1000 and 1000`}},
		{"1e-99999", "m", "cm", 0, []string{"the exponent must be between -1000 and 1000"}},
		{"1e99999x", "m", "cm", 0, []string{"must be a decimal number"}},

		{strings.Repeat("1", 101), "m", "cm", 0, []string{"value is too long", "at most 100 characters"}},
		{"1", "m", "cm", -1, []string{"precision -1 is out of range: use 1 to 100"}},
		{"1", "m", "cm", 101, []string{"precision 101 is out of range"}},
		{"1", "kilometrs", "m", 0, []string{`unknown unit "kilometrs": did you mean "km" (kilometre)?`, "Call again with a supported unit"}},
		{"1", "m", "fet", 0, []string{`unknown unit "fet": did you mean`, `"ft" (foot)`}},
		{"1", "m", "furlongz", 0, []string{`did you mean "furlong"`}},
		{"1", "m", "blargh", 0, []string{`unknown unit "blargh": no length unit is spelled like it`, "call again with a length unit symbol or name"}},
		{"1", "blargh", "blorgh", 0, []string{`unknown unit "blargh": call again with a supported unit symbol or name`, "area, data, energy, length"}},
		{"1", "", "m", 0, []string{"unit is empty"}},
		{"1", "5 km", "m", 0, []string{`unit "5 km" starts with a number: pass the number as the value`}},
		{"1", strings.Repeat("m", 101), "m", 0, []string{"unit is too long"}},
		{"1", "mb", "B", 0, []string{`unit "mb" is ambiguous`, `"MB" for megabyte`, `"Mbit" for megabit`, "B means byte and b means bit"}},
		{"1", "kb", "B", 0, []string{`unit "kb" is ambiguous`, `"kB" for kilobyte`, `"kbit" for kilobit`}},
		{"1", "gb", "B", 0, []string{`"GB"`, `"Gbit"`}},
		{"1", "tb", "B", 0, []string{`"TB"`, `"Tbit"`}},
		{"1", "mib", "B", 0, []string{`"MiB"`, `"Mibit"`}},
		{"1", "MM", "m", 0, []string{`unit "MM" is ambiguous`, `"Mm" for megametre`, `"mm" for millimetre`}},
		{"1", "mw", "W", 0, []string{`"MW" for megawatt`, `"mW" for milliwatt`}},
		{"1", "CAL", "J", 0, []string{`"cal" for calorie`, `"kcal" for kilocalorie`}},
		{"1", "Nm", "m", 0, []string{`"nm" for nanometre`, `"nmi" for nautical mile`}},
		{"-300", "°C", "K", 0, []string{"-300 °C is below absolute zero (0 K = -273.15 °C)"}},
		{"-1", "K", "C", 0, []string{"-1 K is below absolute zero"}},
		{"-459.68", "F", "K", 0, []string{"below absolute zero (0 K = -459.67 °F)"}},
		{"-0.000001", "R", "K", 0, []string{"below absolute zero (0 K = 0 °R)"}},
	}
	for _, tc := range tests {
		_, err := Convert(tc.value, tc.from, tc.to, tc.precision)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Convert(%q, %q, %q, %d): error %v is not *Error", tc.value, tc.from, tc.to, tc.precision, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(e.Msg, w) {
				t.Errorf("Convert(%q, %q, %q, %d): message %q does not contain %q", tc.value, tc.from, tc.to, tc.precision, e.Msg, w)
			}
		}
		if e.Error() != e.Msg {
			t.Errorf("Error() = %q, want Msg", e.Error())
		}
	}
}

func TestPrecision(t *testing.T) {
	t.Parallel()
	// 2/3 m in cm is 66.666…; check rounding at several precisions.
	tests := []struct {
		precision int
		want      string
	}{
		{1, "70"}, {2, "67"}, {3, "66.7"}, {15, "66.6666666666667"},
		{30, "66.6666666666666666666666666667"},
	}
	for _, tc := range tests {
		got, err := Convert("2", "ft", "in", tc.precision) // exact: 24
		if err != nil || got.Value != "24" || !got.Exact {
			t.Fatalf("exact results must ignore precision: %+v %v", got, err)
		}
		got, err = Convert("2", "tsp", "tbsp", tc.precision) // 2/3 tbsp
		if err != nil {
			t.Fatal(err)
		}
		want := "0." + strings.Repeat("6", tc.precision-1) + "7"
		if tc.precision == 1 {
			want = "0.7"
		}
		if got.Value != want {
			t.Errorf("precision %d: got %q, want %q", tc.precision, got.Value, want)
		}
		got, err = Convert("200", "tsp", "tbsp", tc.precision) // 66.666… tbsp
		if err != nil {
			t.Fatal(err)
		}
		if got.Value != tc.want {
			t.Errorf("precision %d: got %q, want %q", tc.precision, got.Value, tc.want)
		}
	}
}

func parseFloat(t *testing.T, s string) float64 {
	t.Helper()
	r, ok := parseDecimal(s)
	if !ok {
		t.Fatalf("bad expected value %q", s)
	}
	f, _ := r.Float64()
	return f
}

func canonical(t *testing.T, spelling string) string {
	t.Helper()
	d, err := knownUnits.lookup(spelling)
	if err != nil {
		t.Fatalf("lookup(%q): %v", spelling, err)
	}
	return d.Symbol
}
