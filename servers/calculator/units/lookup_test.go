package units

import (
	"math/big"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
)

func TestLookupAliases(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"m": "m", "meter": "m", "meters": "m", "metre": "m", "Metres": "m", "METERS": "m",
		"km": "km", "KM": "km", "kilometers": "km", "kilometre": "km", "Kilometres": "km",
		"Mm": "Mm", "mm": "mm", "millimeters": "mm", "megametre": "Mm",
		"µm": "µm", "μm": "µm", "um": "µm", "micron": "µm", "microns": "µm", "micrometer": "µm",
		"in": "in", "inch": "in", "inches": "in", "ft": "ft", "foot": "ft", "feet": "ft",
		"yards": "yd", "miles": "mi", "nautical miles": "nmi", "NM": "nmi", "nm": "nm",
		"light years": "ly", "light-years": "ly", "lightyear": "ly", "parsecs": "pc",
		"Å": "Å", "\u212b": "Å", "angstroms": "Å", "thou": "mil", "AU": "au",
		"lbs": "lb", "pounds": "lb", "Pound": "lb", "kilos": "kg", "kilograms": "kg", "mcg": "µg",
		"tonne": "t", "metric tons": "t", "tons": "short_ton", "short ton": "short_ton",
		"long tons": "long_ton", "stone": "st", "carats": "ct", "troy ounces": "ozt", "ounces": "oz",
		"L": "L", "l": "L", "liters": "L", "litres": "L", "ml": "mL", "mL": "mL", "ML": "mL",
		"cc": "cm³", "cm3": "cm³", "cm^3": "cm³", "m3": "m³", "cubic meters": "m³", "cu ft": "ft³",
		"cubic feet": "ft³", "gallons": "gal", "US gallon": "gal", "fl oz": "fl_oz", "floz": "fl_oz",
		"fl_oz": "fl_oz", "fl. oz.": "fl_oz", "fluid ounces": "fl_oz", "tablespoons": "tbsp",
		"Tbsp": "tbsp", "teaspoons": "tsp", "cups": "cup", "imp gal": "gal_imp", "gal_imp": "gal_imp",
		"imperial gallons": "gal_imp", "UK pints": "pt_imp", "imp fl oz": "fl_oz_imp",
		"m2": "m²", "m^2": "m²", "m²": "m²", "sq m": "m²", "square meters": "m²", "sqm": "m²",
		"sq ft": "ft²", "sqft": "ft²", "square feet": "ft²", "ft^2": "ft²", "ft²": "ft²",
		"square miles": "mi²", "acres": "acre", "hectares": "ha",
		"°C": "°C", "C": "°C", "c": "°C", "celsius": "°C", "Celsius": "°C", "degC": "°C",
		"deg C": "°C", "degrees Celsius": "°C", "centigrade": "°C",
		"°F": "°F", "F": "°F", "fahrenheit": "°F", "degrees Fahrenheit": "°F", "degF": "°F",
		"K": "K", "kelvin": "K", "kelvins": "K", "rankine": "°R", "°R": "°R",
		"sec": "s", "seconds": "s", "minutes": "min", "mins": "min", "hours": "h", "hrs": "h",
		"hr": "h", "days": "d", "weeks": "wk", "months": "month", "years": "yr", "yrs": "yr",
		"centuries": "century", "decades": "decade", "µs": "µs", "us": "µs", "milliseconds": "ms",
		"km/h": "km/h", "km per hour": "km/h", "kilometers per hour": "km/h", "kmh": "km/h",
		"kph": "km/h", "km / h": "km/h", "Kilometres Per Hour": "km/h", "mph": "mph",
		"miles per hour": "mph", "mi/h": "mph", "m/s": "m/s", "meters per second": "m/s",
		"feet per second": "ft/s", "knots": "kn", "kt": "kn",
		"b": "b", "bit": "b", "bits": "b", "B": "B", "byte": "B", "bytes": "B",
		"MB": "MB", "Mb": "Mbit", "Mbit": "Mbit", "megabytes": "MB", "megabits": "Mbit",
		"KB": "kB", "kB": "kB", "Kb": "kbit", "kbit": "kbit", "GiB": "GiB", "gibibytes": "GiB",
		"Gib": "Gibit", "MBIT": "Mbit", "Megabytes": "MB",
		"joules": "J", "kWh": "kWh", "kwh": "kWh", "kilowatt hours": "kWh", "kilowatt-hours": "kWh",
		"Cal": "kcal", "cal": "cal", "calories": "cal", "Calories": "kcal", "kilocalories": "kcal",
		"btu": "BTU", "Btu": "BTU", "ft-lb": "ft·lbf", "ft_lbf": "ft·lbf", "ftlb": "ft·lbf",
		"foot-pounds": "ft·lbf", "foot pounds": "ft·lbf", "electronvolts": "eV", "therms": "therm",
		"watts": "W", "kilowatts": "kW", "mW": "mW", "MW": "MW", "horsepower": "hp", "HP": "hp",
		"PS": "PS", "ps": "ps", "metric horsepower": "PS", "BTU per hour": "BTU/h", "Btu/h": "BTU/h",
		"btu/hr": "BTU/h",
		"psi":    "psi", "PSI": "psi", "pounds per square inch": "psi", "mm Hg": "mmHg",
		"inches of mercury": "inHg", "Torr": "torr", "hPa": "hPa", "HPA": "hPa", "millibars": "mbar",
		"atmospheres": "atm", "bars": "bar", "kilopascals": "kPa",
	}
	for spelling, want := range tests {
		d, err := knownUnits.lookup(spelling)
		if err != nil {
			t.Errorf("lookup(%q): %v", spelling, err)
			continue
		}
		if d.Symbol != want {
			t.Errorf("lookup(%q) = %q, want %q", spelling, d.Symbol, want)
		}
	}
}

func TestLookupAmbiguous(t *testing.T) {
	t.Parallel()
	for _, spelling := range []string{"mb", "kb", "gb", "tb", "pb", "eb", "mB", "gB", "kib", "mib", "MM", "mw", "Mw", "CAL", "CALORIES", "Nm"} {
		_, err := knownUnits.lookup(spelling)
		if err == nil || !strings.Contains(err.Error(), "is ambiguous") {
			t.Errorf("lookup(%q) = %v, want an ambiguity error", spelling, err)
		}
	}
}

func TestEveryUnitResolves(t *testing.T) {
	t.Parallel()
	for _, u := range Units("") {
		for _, spelling := range append([]string{u.Symbol}, u.Aliases...) {
			d, err := knownUnits.lookup(spelling)
			if err != nil {
				t.Errorf("%s: lookup(%q): %v", u.Symbol, spelling, err)
				continue
			}
			if d.Symbol != u.Symbol {
				t.Errorf("lookup(%q) = %q, want %q", spelling, d.Symbol, u.Symbol)
			}
		}
		got, err := Convert("1.5", u.Symbol, u.Symbol, 0)
		if err != nil || got.Value != "1.5" || !got.Exact {
			t.Errorf("%s → itself: %+v, %v", u.Symbol, got, err)
		}
	}
}

func TestUnitsAndDimensions(t *testing.T) {
	t.Parallel()
	dims := Dimensions()
	want := []string{"area", "data", "energy", "length", "mass", "power", "pressure", "speed", "temperature", "time", "volume"}
	if !slices.Equal(dims, want) {
		t.Errorf("Dimensions() = %v, want %v", dims, want)
	}
	all := Units("")
	if !sort.SliceIsSorted(all, func(i, j int) bool {
		if all[i].Dimension != all[j].Dimension {
			return all[i].Dimension < all[j].Dimension
		}
		return all[i].Symbol < all[j].Symbol
	}) {
		t.Error("Units(\"\") is not sorted by dimension then symbol")
	}
	total := 0
	for _, dim := range dims {
		us := Units(dim)
		if len(us) == 0 {
			t.Errorf("Units(%q) is empty", dim)
		}
		for _, u := range us {
			if u.Dimension != dim || u.Name == "" {
				t.Errorf("Units(%q) contains %+v", dim, u)
			}
		}
		total += len(us)
	}
	if total != len(all) {
		t.Errorf("per-dimension units add up to %d, Units(\"\") has %d", total, len(all))
	}
	symbols := func(us []Unit) []string {
		var out []string
		for _, u := range us {
			out = append(out, u.Symbol)
		}
		return out
	}
	wantSymbols := map[string][]string{
		"length":      {"m", "nm", "µm", "mm", "cm", "dm", "km", "Mm", "in", "ft", "yd", "mi", "nmi", "au", "ly", "pc", "Å", "mil", "furlong"},
		"mass":        {"g", "µg", "mg", "kg", "t", "oz", "ozt", "lb", "st", "short_ton", "long_ton", "ct", "gr"},
		"volume":      {"L", "mL", "cL", "dL", "m³", "cm³", "mm³", "in³", "ft³", "yd³", "gal", "qt", "pt", "cup", "fl_oz", "tbsp", "tsp", "gal_imp", "qt_imp", "pt_imp", "fl_oz_imp"},
		"area":        {"m²", "cm²", "mm²", "km²", "ha", "a", "in²", "ft²", "yd²", "mi²", "acre"},
		"temperature": {"K", "°C", "°F", "°R"},
		"time":        {"ps", "ns", "µs", "ms", "s", "min", "h", "d", "wk", "month", "yr", "decade", "century"},
		"speed":       {"m/s", "km/h", "mph", "ft/s", "kn"},
		"data": {"b", "B", "kB", "MB", "GB", "TB", "PB", "EB", "kbit", "Mbit", "Gbit", "Tbit", "Pbit", "Ebit",
			"KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "Kibit", "Mibit", "Gibit", "Tibit", "Pibit", "Eibit"},
		"energy":   {"J", "kJ", "MJ", "GJ", "cal", "kcal", "Wh", "kWh", "MWh", "eV", "keV", "MeV", "BTU", "therm", "ft·lbf"},
		"power":    {"W", "mW", "kW", "MW", "GW", "hp", "PS", "BTU/h"},
		"pressure": {"Pa", "hPa", "kPa", "MPa", "bar", "mbar", "atm", "psi", "mmHg", "inHg", "torr"},
	}
	for dim, want := range wantSymbols {
		got := symbols(Units(dim))
		want = slices.Clone(want)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("Units(%q) symbols = %v, want %v", dim, got, want)
		}
	}
	if got := Units("LENGTH"); len(got) != len(Units("length")) {
		t.Error("Units should match the dimension case-insensitively")
	}
	if got := Units("colour"); got != nil {
		t.Errorf("Units(unknown) = %v, want nil", got)
	}
	// Callers get copies.
	us := Units("length")
	us[0].Aliases[0] = "changed"
	if Units("length")[0].Aliases[0] == "changed" {
		t.Error("Units returned shared alias slices")
	}
}

// The package documentation lists every unit.
func TestDocListsEveryUnit(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range Units("") {
		if !strings.Contains(string(doc), " "+u.Symbol) {
			t.Errorf("doc.go does not mention %q", u.Symbol)
		}
	}
}

func TestExactDefinitions(t *testing.T) {
	t.Parallel()
	factor := func(symbol string) *big.Rat {
		d, err := knownUnits.lookup(symbol)
		if err != nil {
			t.Fatal(err)
		}
		return d.factor
	}
	rat := func(s string) *big.Rat { return mustRat(s) }
	mul := func(xs ...*big.Rat) *big.Rat {
		out := big.NewRat(1, 1)
		for _, x := range xs {
			out.Mul(out, x)
		}
		return out
	}
	quo := func(x, y *big.Rat) *big.Rat { return new(big.Rat).Quo(x, y) }
	g0 := rat("9.80665")      // standard gravity, m/s²
	lbKg := rat("0.45359237") // pound, kg
	inM := rat("0.0254")      // inch, m
	lbf := mul(lbKg, g0)      // pound-force, N
	tests := []struct {
		name      string
		got, want *big.Rat
	}{
		{"ft", factor("ft"), mul(rat("12"), factor("in"))},
		{"yd", factor("yd"), mul(rat("3"), factor("ft"))},
		{"mi", factor("mi"), mul(rat("5280"), factor("ft"))},
		{"mil", factor("mil"), quo(factor("in"), rat("1000"))},
		{"furlong", factor("furlong"), mul(rat("660"), factor("ft"))},
		{"oz", factor("oz"), quo(factor("lb"), rat("16"))},
		{"st", factor("st"), mul(rat("14"), factor("lb"))},
		{"short_ton", factor("short_ton"), mul(rat("2000"), factor("lb"))},
		{"long_ton", factor("long_ton"), mul(rat("2240"), factor("lb"))},
		{"gr", factor("gr"), quo(factor("lb"), rat("7000"))},
		{"in³", factor("in³"), mul(inM, inM, inM, rat("1000"))},
		{"gal", factor("gal"), mul(rat("231"), factor("in³"))},
		{"qt", factor("qt"), quo(factor("gal"), rat("4"))},
		{"pt", factor("pt"), quo(factor("gal"), rat("8"))},
		{"cup", factor("cup"), quo(factor("gal"), rat("16"))},
		{"fl_oz", factor("fl_oz"), quo(factor("gal"), rat("128"))},
		{"tbsp", factor("tbsp"), quo(factor("fl_oz"), rat("2"))},
		{"tsp", factor("tsp"), quo(factor("tbsp"), rat("3"))},
		{"ft³", factor("ft³"), mul(rat("1728"), factor("in³"))},
		{"yd³", factor("yd³"), mul(rat("27"), factor("ft³"))},
		{"qt_imp", factor("qt_imp"), quo(factor("gal_imp"), rat("4"))},
		{"pt_imp", factor("pt_imp"), quo(factor("gal_imp"), rat("8"))},
		{"fl_oz_imp", factor("fl_oz_imp"), quo(factor("gal_imp"), rat("160"))},
		{"ft²", factor("ft²"), mul(rat("144"), factor("in²"))},
		{"in²", factor("in²"), mul(inM, inM)},
		{"mi²", factor("mi²"), mul(rat("640"), factor("acre"))},
		{"month", factor("month"), quo(factor("yr"), rat("12"))},
		{"yr", factor("yr"), mul(rat("365.2425"), factor("d"))},
		{"mph", factor("mph"), quo(factor("mi"), factor("h"))},
		{"km/h", factor("km/h"), quo(factor("km"), factor("h"))},
		{"kn", factor("kn"), quo(factor("nmi"), factor("h"))},
		{"ft·lbf", factor("ft·lbf"), mul(rat("0.3048"), lbf)},
		{"hp", factor("hp"), mul(rat("550"), factor("ft·lbf"))},
		{"PS", factor("PS"), mul(rat("75"), g0)},
		{"BTU/h", factor("BTU/h"), quo(factor("BTU"), factor("h"))},
		{"kWh", factor("kWh"), mul(factor("kW"), factor("h"))},
		{"psi", factor("psi"), quo(lbf, mul(inM, inM))},
		{"torr", factor("torr"), quo(factor("atm"), rat("760"))},
		{"KiB", factor("KiB"), mul(rat("1024"), factor("B"))},
		{"EiB", factor("EiB"), mul(rat("1024"), factor("PiB"))},
	}
	for _, tc := range tests {
		if tc.got.Cmp(tc.want) != 0 {
			t.Errorf("%s: factor %s, want %s", tc.name, tc.got.RatString(), tc.want.RatString())
		}
	}
}
