package units

import (
	"fmt"
	"math/big"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/jck411/mcp-servers/shared/editdist"
)

// unitDef is a resolved table row.
type unitDef struct {
	Unit
	factor *big.Rat // size of one unit in the base unit of its dimension
	offset *big.Rat // base-unit value of the unit's zero; zero for non-affine units
	exact  bool     // factor and offset are exact
}

// catalog indexes the unit table; it is built once and never modified.
type catalog struct {
	units  []*unitDef            // sorted by dimension, then symbol
	exact  map[string]*unitDef   // normalized spelling → unit
	folded map[string][]*unitDef // lower-cased normalized spelling → units
	dims   []string              // sorted
}

var knownUnits = newCatalog()

func newCatalog() *catalog {
	c := &catalog{exact: map[string]*unitDef{}, folded: map[string][]*unitDef{}}
	for dim, specs := range table() {
		c.dims = append(c.dims, dim)
		for _, s := range specs {
			c.units = append(c.units, newUnitDef(dim, s))
		}
	}
	sort.Strings(c.dims)
	sort.Slice(c.units, func(i, j int) bool {
		a, b := c.units[i], c.units[j]
		if a.Dimension != b.Dimension {
			return a.Dimension < b.Dimension
		}
		return a.Symbol < b.Symbol
	})
	for _, d := range c.units {
		for _, spelling := range append([]string{d.Symbol}, d.Aliases...) {
			key := normalizeKey(spelling)
			if other, ok := c.exact[key]; ok {
				if other != d {
					panic(fmt.Sprintf("units: spelling %q is used by both %q and %q", spelling, other.Symbol, d.Symbol))
				}
				continue
			}
			c.exact[key] = d
			lower := strings.ToLower(key)
			if !containsUnit(c.folded[lower], d) {
				c.folded[lower] = append(c.folded[lower], d)
			}
		}
	}
	return c
}

func newUnitDef(dim string, s spec) *unitDef {
	d := &unitDef{
		Unit:   Unit{Symbol: s.symbol, Name: s.name, Dimension: dim},
		factor: mustRat(s.factor),
		offset: new(big.Rat),
		exact:  !s.inexact,
	}
	if s.offset != "" {
		d.offset = mustRat(s.offset)
	}
	seen := map[string]bool{s.symbol: true}
	add := func(a string) {
		if !seen[a] {
			seen[a] = true
			d.Aliases = append(d.Aliases, a)
		}
	}
	for _, a := range s.aliases {
		if base, ok := strings.CutSuffix(a, "+"); ok {
			add(base)
			add(plural(base))
		} else {
			add(a)
		}
	}
	return d
}

func containsUnit(list []*unitDef, d *unitDef) bool {
	for _, x := range list {
		if x == d {
			return true
		}
	}
	return false
}

// plural returns the plural of an English unit name; for "X per Y" it
// pluralizes X.
func plural(s string) string {
	head, tail, hasPer := strings.Cut(s, " per ")
	i := strings.LastIndexAny(head, " -") + 1
	word := head[i:]
	switch {
	case word == "foot":
		word = "feet"
	case strings.HasSuffix(word, "s"), strings.HasSuffix(word, "x"),
		strings.HasSuffix(word, "ch"), strings.HasSuffix(word, "sh"):
		word += "es"
	case len(word) > 1 && strings.HasSuffix(word, "y") && !strings.ContainsRune("aeiou", rune(word[len(word)-2])):
		word = word[:len(word)-1] + "ies"
	default:
		word += "s"
	}
	out := head[:i] + word
	if hasPer {
		out += " per " + tail
	}
	return out
}

// keyReplacer folds the spelling variants that never change a unit's meaning.
var keyReplacer = strings.NewReplacer(
	"^2", "2", "^3", "3", "²", "2", "³", "3",
	"µ", "u", "μ", "u", // micro sign and Greek mu
	"°", "", "º", "",
	"·", "", "⋅", "", "*", "",
	"-", "", "_", "", ".", "",
)

// normalizeKey maps a unit spelling to its lookup key: "per" becomes "/",
// whitespace, degree signs, dots, dashes and underscores are dropped,
// superscripts and "^n" become digits, and µ becomes u. Case is kept.
func normalizeKey(s string) string {
	fields := strings.Fields(s)
	for i, f := range fields {
		if strings.EqualFold(f, "per") {
			fields[i] = "/"
		}
	}
	return keyReplacer.Replace(strings.Join(fields, ""))
}

// maxUnitLen bounds the unit spellings accepted by lookup.
const maxUnitLen = 100

// lookup resolves a unit spelling: an exact (case-sensitive) match wins,
// otherwise a case-insensitive match is used when it is unique.
func (c *catalog) lookup(spelling string) (*unitDef, error) {
	return c.lookupFor(spelling, "")
}

// lookupFor is lookup for a unit that must measure dim ("" for any): when the
// spelling is ambiguous or unknown, the units it suggests are only those of dim,
// so that calling again with one of them converts.
func (c *catalog) lookupFor(spelling, dim string) (*unitDef, error) {
	s := strings.TrimSpace(spelling)
	switch {
	case s == "":
		return nil, errorf(`unit is empty: pass a unit symbol or name such as "m", "kg", "°C" or "km/h"`)
	case len(s) > maxUnitLen:
		return nil, errorf(fmt.Sprintf("unit is too long (%d characters, at most %d): pass a unit symbol or name such as \"m\" or \"kg\"", len(s), maxUnitLen))
	case startsWithNumber(s):
		return nil, errorf(fmt.Sprintf("unit %q starts with a number: pass the number as the value and only the unit here (for example value \"5\", unit \"km\")", s))
	}
	key := normalizeKey(s)
	if d, ok := c.exact[key]; ok {
		return d, nil
	}
	matches := c.folded[strings.ToLower(key)]
	switch len(matches) {
	case 0:
		return nil, c.unknownUnitError(s, key, dim)
	case 1:
		return matches[0], nil
	}
	if fit := ofDimension(matches, dim); len(fit) > 0 {
		matches = fit
	} else if dim != "" {
		return nil, errorf(fmt.Sprintf("unit %q is ambiguous, and none of the units it may mean measures %s as the other unit does: call again with a %s unit", s, dim, dim))
	}
	options := make([]string, len(matches))
	data := false
	for i, d := range matches {
		options[i] = fmt.Sprintf("%q for %s", d.Symbol, d.Name)
		data = data || d.Dimension == dimData
	}
	sort.Strings(options)
	msg := fmt.Sprintf("unit %q is ambiguous because it matches several units when case is ignored: call again with %s", s, strings.Join(options, " or "))
	if data {
		msg += " (in data units B means byte and b means bit)"
	}
	return nil, errorf(msg)
}

func startsWithNumber(s string) bool {
	s = strings.TrimLeft(s, "+-.")
	return s != "" && isDigit(s[0])
}

// maxSuggestions caps the did-you-mean list.
const maxSuggestions = 5

// ofDimension is the units of ds that measure dim; all of them when dim is "".
func ofDimension(ds []*unitDef, dim string) []*unitDef {
	if dim == "" {
		return ds
	}
	var out []*unitDef
	for _, d := range ds {
		if d.Dimension == dim {
			out = append(out, d)
		}
	}
	return out
}

func (c *catalog) unknownUnitError(spelling, key, dim string) *Error {
	lower := strings.ToLower(key)
	limit := 2
	if utf8.RuneCountInString(lower) <= 3 {
		limit = 1
	}
	best := map[*unitDef]int{}
	for k, ds := range c.folded {
		dist := editDistance(lower, k, limit)
		if dist > limit {
			continue
		}
		for _, d := range ofDimension(ds, dim) {
			if old, ok := best[d]; !ok || dist < old {
				best[d] = dist
			}
		}
	}
	cands := make([]*unitDef, 0, len(best))
	for d := range best {
		cands = append(cands, d)
	}
	sort.Slice(cands, func(i, j int) bool {
		if best[cands[i]] != best[cands[j]] {
			return best[cands[i]] < best[cands[j]]
		}
		return cands[i].Symbol < cands[j].Symbol
	})
	if len(cands) > maxSuggestions {
		cands = cands[:maxSuggestions]
	}
	if len(cands) == 0 && dim != "" {
		return errorf(fmt.Sprintf("unknown unit %q: no %s unit is spelled like it, and the other unit measures %s: call again with a %s unit symbol or name", spelling, dim, dim, dim))
	}
	if len(cands) == 0 {
		return errorf(fmt.Sprintf("unknown unit %q: call again with a supported unit symbol or name (for example \"m\", \"kg\", \"°C\", \"km/h\", \"MB\"); supported dimensions are %s",
			spelling, strings.Join(c.dims, ", ")))
	}
	options := make([]string, len(cands))
	for i, d := range cands {
		options[i] = fmt.Sprintf("%q (%s)", d.Symbol, d.Name)
	}
	return errorf(fmt.Sprintf("unknown unit %q: did you mean %s? Call again with a supported unit symbol or name",
		spelling, strings.Join(options, " or ")))
}

// editDistance is editdist.OSA of a and b, or limit+1 once it exceeds limit.
func editDistance(a, b string, limit int) int { return editdist.OSA([]rune(a), []rune(b), limit) }
