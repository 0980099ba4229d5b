package units

import (
	"math/big"
	"strings"
)

// Dimension names.
const (
	dimArea        = "area"
	dimData        = "data"
	dimEnergy      = "energy"
	dimLength      = "length"
	dimMass        = "mass"
	dimPower       = "power"
	dimPressure    = "pressure"
	dimSpeed       = "speed"
	dimTemperature = "temperature"
	dimTime        = "time"
	dimVolume      = "volume"
)

// pi to 110 decimal places; only the parsec depends on it.
const pi = "3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706798214808651"

// spec is one row of the unit table. factor is the size of one unit in the
// dimension's base unit; offset, if set, is the base-unit value of the
// unit's zero point (temperatures). An alias ending in "+" also stands for
// its plural.
type spec struct {
	symbol  string
	name    string
	factor  string
	offset  string
	inexact bool
	aliases []string
}

func u(symbol, name, factor string, aliases ...string) spec {
	return spec{symbol: symbol, name: name, factor: factor, aliases: aliases}
}

// siPrefix is a decimal prefix usable with the metric units.
type siPrefix struct {
	symbol, name, factor string
}

// prefixed returns the units formed by putting each prefix before base.
// names are the spellings of the base unit's long name ("meter", "metre").
func prefixed(base spec, names []string, prefixes ...string) []spec {
	siPrefixes := [...]siPrefix{
		{"p", "pico", "1e-12"},
		{"n", "nano", "1e-9"},
		{"µ", "micro", "1e-6"},
		{"m", "milli", "1e-3"},
		{"c", "centi", "1e-2"},
		{"d", "deci", "1e-1"},
		{"h", "hecto", "1e2"},
		{"k", "kilo", "1e3"},
		{"M", "mega", "1e6"},
		{"G", "giga", "1e9"},
	}
	var out []spec
	for _, p := range prefixes {
		var pre siPrefix
		for _, sp := range siPrefixes {
			if sp.symbol == p {
				pre = sp
			}
		}
		if pre.symbol == "" {
			panic("units: unknown SI prefix " + p)
		}
		s := spec{
			symbol: p + base.symbol,
			name:   pre.name + base.name,
			factor: mulDecimal(pre.factor, base.factor),
		}
		if p == "µ" {
			s.aliases = append(s.aliases, "u"+base.symbol)
		}
		for _, n := range names {
			s.aliases = append(s.aliases, pre.name+n+"+")
		}
		out = append(out, s)
	}
	return out
}

// mulDecimal multiplies two plain decimal strings exactly.
func mulDecimal(a, b string) string {
	x, y := mustRat(a), mustRat(b)
	return x.Mul(x, y).RatString()
}

// table lists every unit by dimension. Definitions follow NIST SP 811 and
// the international yard and pound agreement (1959).
func table() map[string][]spec {
	t := map[string][]spec{}

	metre := u("m", "metre", "1", "meter+", "metre+")
	t[dimLength] = append([]spec{metre},
		prefixed(metre, []string{"meter", "metre"}, "n", "µ", "m", "c", "d", "k", "M")...)
	t[dimLength] = append(t[dimLength],
		u("in", "inch", "0.0254", "inch+"),
		u("ft", "foot", "0.3048", "foot+"),
		u("yd", "yard", "0.9144", "yard+"),
		u("mi", "mile (international)", "1609.344", "mile+", "statute mile+"),
		u("nmi", "nautical mile", "1852", "nautical mile+", "NM"),
		u("au", "astronomical unit", "149597870700", "AU", "astronomical unit+"),
		u("ly", "light-year", "9460730472580800", "light-year+", "lightyear+"),
		spec{symbol: "pc", name: "parsec (648000/π au; irrational, so never exact)",
			factor: "96939420213600000/" + pi, inexact: true, aliases: []string{"parsec+"}},
		u("Å", "ångström", "1e-10", "\u212b", "angstrom+", "ångström+"),
		u("mil", "mil (thou, 0.001 in)", "0.0000254", "mils", "thou"),
		u("furlong", "furlong (660 ft)", "201.168", "furlong+"),
	)
	for i := range t[dimLength] {
		if t[dimLength][i].symbol == "µm" {
			t[dimLength][i].aliases = append(t[dimLength][i].aliases, "micron+")
		}
	}

	gram := u("g", "gram", "1", "gram+", "gramme+")
	t[dimMass] = append([]spec{gram}, prefixed(gram, []string{"gram", "gramme"}, "µ", "m", "k")...)
	for i := range t[dimMass] {
		switch t[dimMass][i].symbol {
		case "µg":
			t[dimMass][i].aliases = append(t[dimMass][i].aliases, "mcg")
		case "kg":
			t[dimMass][i].aliases = append(t[dimMass][i].aliases, "kilo+", "kgs")
		}
	}
	t[dimMass] = append(t[dimMass],
		u("t", "tonne (metric ton, 1000 kg)", "1000000", "tonne+", "metric ton+"),
		u("oz", "ounce (avoirdupois)", "28.349523125", "ounce+"),
		u("ozt", "troy ounce", "31.1034768", "troy ounce+", "oz t"),
		u("lb", "pound (avoirdupois)", "453.59237", "pound+", "lbs", "lbm"),
		u("st", "stone (14 lb)", "6350.29318", "stone+"),
		u("short_ton", "short ton (US ton, 2000 lb)", "907184.74", "short ton+", "US ton+", "ton+"),
		u("long_ton", "long ton (imperial ton, 2240 lb)", "1016046.9088", "long ton+", "imperial ton+", "UK ton+"),
		u("ct", "carat (metric, 200 mg)", "0.2", "carat+"),
		u("gr", "grain", "0.06479891", "grain+"),
	)

	t[dimVolume] = []spec{
		u("L", "litre", "1", "l", "liter+", "litre+"),
		u("mL", "millilitre", "0.001", "ml", "milliliter+", "millilitre+"),
		u("cL", "centilitre", "0.01", "cl", "centiliter+", "centilitre+"),
		u("dL", "decilitre", "0.1", "dl", "deciliter+", "decilitre+"),
		u("m³", "cubic metre", "1000", "m3", "cu m", "cubic meter+", "cubic metre+"),
		u("cm³", "cubic centimetre", "0.001", "cm3", "cc", "cu cm", "cubic centimeter+", "cubic centimetre+"),
		u("mm³", "cubic millimetre", "0.000001", "mm3", "cu mm", "cubic millimeter+", "cubic millimetre+"),
		u("in³", "cubic inch", "0.016387064", "in3", "cu in", "cubic inch+"),
		u("ft³", "cubic foot", "28.316846592", "ft3", "cu ft", "cubic foot+"),
		u("yd³", "cubic yard", "764.554857984", "yd3", "cu yd", "cubic yard+"),
		u("gal", "US gallon (231 in³)", "3.785411784", "gallon+", "US gallon+", "gal_us"),
		u("qt", "US quart", "0.946352946", "quart+", "US quart+", "qt_us"),
		u("pt", "US pint", "0.473176473", "pint+", "US pint+", "pt_us"),
		u("cup", "US cup (1/16 US gal)", "0.2365882365", "cup+", "US cup+"),
		u("fl_oz", "US fluid ounce", "0.0295735295625", "fl oz", "fluid ounce+", "US fluid ounce+", "fl_oz_us"),
		u("tbsp", "US tablespoon", "0.01478676478125", "Tbsp", "tbs", "tablespoon+"),
		u("tsp", "US teaspoon", "0.00492892159375", "teaspoon+"),
		u("gal_imp", "imperial gallon", "4.54609", "imp gal", "imperial gallon+", "UK gallon+"),
		u("qt_imp", "imperial quart", "1.1365225", "imp qt", "imperial quart+", "UK quart+"),
		u("pt_imp", "imperial pint", "0.56826125", "imp pt", "imperial pint+", "UK pint+"),
		u("fl_oz_imp", "imperial fluid ounce", "0.0284130625", "imp fl oz", "imperial fluid ounce+", "UK fluid ounce+"),
	}

	t[dimArea] = []spec{
		u("m²", "square metre", "1", "m2", "sq m", "square meter+", "square metre+"),
		u("cm²", "square centimetre", "0.0001", "cm2", "sq cm", "square centimeter+", "square centimetre+"),
		u("mm²", "square millimetre", "0.000001", "mm2", "sq mm", "square millimeter+", "square millimetre+"),
		u("km²", "square kilometre", "1000000", "km2", "sq km", "square kilometer+", "square kilometre+"),
		u("ha", "hectare", "10000", "hectare+"),
		u("a", "are", "100", "are+"),
		u("in²", "square inch", "0.00064516", "in2", "sq in", "square inch+"),
		u("ft²", "square foot", "0.09290304", "ft2", "sq ft", "square foot+"),
		u("yd²", "square yard", "0.83612736", "yd2", "sq yd", "square yard+"),
		u("mi²", "square mile", "2589988.110336", "mi2", "sq mi", "square mile+"),
		u("acre", "acre (international)", "4046.8564224", "acre+", "ac"),
	}

	t[dimTemperature] = []spec{
		u("K", "kelvin", "1", "kelvin+"),
		{symbol: "°C", name: "degree Celsius", factor: "1", offset: "273.15", aliases: []string{
			"C", "degC", "celsius", "centigrade", "degree celsius", "degrees celsius", "degrees C"}},
		{symbol: "°F", name: "degree Fahrenheit", factor: "5/9", offset: "2298.35/9", aliases: []string{
			"F", "degF", "fahrenheit", "degree fahrenheit", "degrees fahrenheit", "degrees F"}},
		{symbol: "°R", name: "degree Rankine", factor: "5/9", aliases: []string{
			"R", "degR", "rankine", "degree rankine", "degrees rankine", "degrees R"}},
	}

	second := u("s", "second", "1", "sec", "secs", "second+")
	t[dimTime] = append(prefixed(second, []string{"second"}, "p", "n", "µ", "m"), second)
	t[dimTime] = append(t[dimTime],
		u("min", "minute", "60", "mins", "minute+"),
		u("h", "hour", "3600", "hr", "hrs", "hour+"),
		u("d", "day", "86400", "day+"),
		u("wk", "week", "604800", "wks", "week+"),
		u("month", "month (30.436875 days, 1/12 of a mean Gregorian year)", "2629746", "mo", "mos", "month+"),
		u("yr", "year (365.2425 days, mean Gregorian year)", "31556952", "y", "yrs", "year+"),
		u("decade", "decade (10 mean Gregorian years)", "315569520", "decade+"),
		u("century", "century (100 mean Gregorian years)", "3155695200", "century+"),
	)

	t[dimSpeed] = []spec{
		u("m/s", "metre per second", "1", "m/sec", "meter per second+", "metre per second+"),
		u("km/h", "kilometre per hour", "1000/3600", "kph", "kmh", "kmph", "km/hr", "km/hour",
			"kilometer per hour+", "kilometre per hour+"),
		u("mph", "mile per hour", "0.44704", "mi/h", "mi/hr", "mile per hour+"),
		u("ft/s", "foot per second", "0.3048", "ft/sec", "foot per second+"),
		u("kn", "knot (1 nautical mile per hour)", "1852/3600", "kt", "kts", "knot+", "nmi/h"),
	}

	joule := u("J", "joule", "1", "joule+")
	t[dimEnergy] = append([]spec{joule}, prefixed(joule, []string{"joule"}, "k", "M", "G")...)
	t[dimEnergy] = append(t[dimEnergy],
		u("cal", "calorie (thermochemical, 4.184 J)", "4.184", "calorie+", "cal_th"),
		u("kcal", "kilocalorie (food Calorie)", "4184", "Cal", "Calorie+", "kilocalorie+", "food calorie+"),
		u("Wh", "watt-hour", "3600", "watt hour+"),
		u("kWh", "kilowatt-hour", "3600000", "kilowatt hour+"),
		u("MWh", "megawatt-hour", "3600000000", "megawatt hour+"),
		u("eV", "electronvolt", "1.602176634e-19", "electronvolt+", "electron volt+"),
		u("keV", "kiloelectronvolt", "1.602176634e-16", "kiloelectronvolt+"),
		u("MeV", "megaelectronvolt", "1.602176634e-13", "megaelectronvolt+"),
		u("BTU", "British thermal unit (International Table)", "1055.05585262",
			"Btu", "BTUs", "BTU_IT", "British thermal unit+"),
		u("therm", "therm (US, 105480400 J)", "105480400", "thm", "therm+"),
		u("ft·lbf", "foot-pound (force)", "1.3558179483314004",
			"ft_lbf", "ft lbf", "ftlb", "ft lb", "foot-pound+", "foot-pound force", "lbf·ft", "lbf ft"),
	)

	watt := u("W", "watt", "1", "watt+")
	t[dimPower] = append([]spec{watt}, prefixed(watt, []string{"watt"}, "m", "k", "M", "G")...)
	t[dimPower] = append(t[dimPower],
		// 550 ft·lbf/s = 550 × 0.3048 m × 4.4482216152605 N per second.
		u("hp", "horsepower (mechanical, 550 ft·lbf/s)", "745.69987158227022", "horsepower", "mechanical horsepower"),
		// 75 kgf·m/s = 75 × 9.80665 W.
		u("PS", "metric horsepower", "735.49875", "metric horsepower", "metric hp", "hp_metric"),
		u("BTU/h", "BTU per hour", "1055.05585262/3600", "Btu/h", "BTU/hr", "Btu/hr", "BTU per hour", "BTUs per hour"),
	)

	pascal := u("Pa", "pascal", "1", "pascal+")
	t[dimPressure] = append([]spec{pascal}, prefixed(pascal, []string{"pascal"}, "h", "k", "M")...)
	t[dimPressure] = append(t[dimPressure],
		u("bar", "bar", "100000", "bar+"),
		u("mbar", "millibar", "100", "millibar+"),
		u("atm", "standard atmosphere", "101325", "atmosphere+"),
		// 1 lbf / 1 in² = 4.4482216152605 N / 0.00064516 m².
		u("psi", "pound-force per square inch", "4.4482216152605/0.00064516",
			"lbf/in2", "lb/in2", "pound per square inch+", "pound-force per square inch+"),
		u("mmHg", "millimetre of mercury", "133.322387415",
			"millimeter of mercury", "millimetre of mercury", "millimeters of mercury", "millimetres of mercury"),
		u("inHg", "inch of mercury (conventional)", "3386.389", "inch of mercury", "inches of mercury"),
		u("torr", "torr (1/760 atm)", "101325/760", "Torr"),
	)

	t[dimData] = []spec{
		u("b", "bit", "1", "bit+"),
		u("B", "byte (8 bits)", "8", "byte+", "octet+"),
	}
	decimalData := []struct{ p, name, factor, shown string }{
		{"k", "kilo", "1e3", "1000"}, {"M", "mega", "1e6", "10^6"}, {"G", "giga", "1e9", "10^9"},
		{"T", "tera", "1e12", "10^12"}, {"P", "peta", "1e15", "10^15"}, {"E", "exa", "1e18", "10^18"},
	}
	for _, d := range decimalData {
		upper := strings.ToUpper(d.p)
		byteSpec := u(d.p+"B", d.name+"byte ("+d.shown+" bytes)", mulDecimal(d.factor, "8"), d.name+"byte+")
		if upper != d.p {
			byteSpec.aliases = append(byteSpec.aliases, upper+"B")
		}
		bitSpec := u(d.p+"bit", d.name+"bit ("+d.shown+" bits)", d.factor, upper+"b", d.name+"bit+")
		if upper != d.p {
			bitSpec.aliases = append(bitSpec.aliases, upper+"bit")
		}
		t[dimData] = append(t[dimData], byteSpec, bitSpec)
	}
	binaryData := []struct{ p, name, factor string }{
		{"Ki", "kibi", "1024"}, {"Mi", "mebi", "1048576"}, {"Gi", "gibi", "1073741824"},
		{"Ti", "tebi", "1099511627776"}, {"Pi", "pebi", "1125899906842624"}, {"Ei", "exbi", "1152921504606846976"},
	}
	for _, d := range binaryData {
		t[dimData] = append(t[dimData],
			u(d.p+"B", d.name+"byte (2^"+binaryExponent(d.factor)+" bytes)", mulDecimal(d.factor, "8"), d.name+"byte+"),
			u(d.p+"bit", d.name+"bit (2^"+binaryExponent(d.factor)+" bits)", d.factor, d.p+"b", d.name+"bit+"),
		)
	}
	return t
}

// binaryExponent returns log2 of a power of two written in decimal.
func binaryExponent(s string) string {
	n, _ := new(big.Int).SetString(s, 10)
	return big.NewInt(int64(n.BitLen() - 1)).String()
}

// mustRat parses a table factor: a decimal or a quotient of two decimals.
func mustRat(s string) *big.Rat {
	num, den, isQuo := strings.Cut(s, "/")
	r, ok := parseDecimal(num)
	if !ok {
		panic("units: bad table number " + s)
	}
	if isQuo {
		d, ok := parseDecimal(den)
		if !ok || d.Sign() == 0 {
			panic("units: bad table number " + s)
		}
		r.Quo(r, d)
	}
	return r
}
