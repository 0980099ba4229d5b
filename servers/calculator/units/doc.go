// Package units converts quantities between units of the same dimension
// using exact rational arithmetic.
//
// Every unit is defined by an exact rational factor relative to one base
// unit of its dimension (temperatures also by an exact offset), so a
// conversion is exact whenever the result is a terminating decimal
// (1 in = 2.54 cm, -40 °C = -40 °F, 1 GiB = 1073.741824 MB). Other results
// are rounded to the requested number of significant digits. The parsec is
// the only unit whose definition is irrational (648000/π au); it uses a
// 110-digit value of π and its conversions are never reported as exact.
//
// Supported units by dimension (canonical symbols):
//
//   - length: m, nm, µm (um, micron), mm, cm, dm, km, Mm,
//     in, ft, yd, mi, nmi (nautical mile), au, ly, pc, Å (angstrom),
//     mil (thou), furlong
//   - mass: g, µg (mcg), mg, kg, t (tonne), oz, ozt (troy ounce), lb,
//     st (stone), short_ton (US ton), long_ton (imperial ton), ct (carat),
//     gr (grain)
//   - volume: L, mL, cL, dL, m³, cm³ (cc), mm³, in³, ft³, yd³; US gal, qt,
//     pt, cup, fl_oz, tbsp, tsp; imperial gal_imp, qt_imp, pt_imp, fl_oz_imp
//   - area: m², cm², mm², km², ha, a (are), in², ft², yd², mi², acre
//   - temperature: K, °C, °F, °R (Rankine); these are absolute readings,
//     converted with offsets, and may not be below absolute zero
//   - time: ps, ns, µs, ms, s, min, h, d, wk, month (1/12 year), yr (mean
//     Gregorian year of 365.2425 days), decade, century
//   - speed: m/s, km/h, mph, ft/s, kn (knot)
//   - data: b (bit), B (byte); decimal kB, MB, GB, TB, PB, EB and kbit,
//     Mbit, Gbit, Tbit, Pbit, Ebit; binary KiB, MiB, GiB, TiB, PiB, EiB and
//     Kibit, Mibit, Gibit, Tibit, Pibit, Eibit
//   - energy: J, kJ, MJ, GJ, cal (4.184 J), kcal (food Calorie), Wh, kWh,
//     MWh, eV, keV, MeV, BTU (International Table), therm (US), ft·lbf
//   - power: W, mW, kW, MW, GW, hp (mechanical), PS (metric horsepower),
//     BTU/h
//   - pressure: Pa, hPa, kPa, MPa, bar, mbar, atm, psi, mmHg, inHg, torr
//
// Units may also be written as long names, plurals and common variants:
// "meters", "metre", "square feet", "sq ft", "ft^2", "km per hour", "kph",
// "degC", "celsius", "fl oz", "imp gal". Matching ignores spaces, dots,
// dashes and underscores. An exact-case match wins; otherwise a
// case-insensitive match is used only when it is unique, so "Mm"
// (megametre) and "mm" (millimetre) stay distinct, and spellings such as
// "mb" or "kb" that could mean a byte or a bit unit are rejected with the
// choices listed.
//
// Errors are *Error values whose messages say how to fix the request.
package units
