package schema

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

type assignInner struct {
	Days  int      `json:"days"`
	Names []string `json:"names,omitempty"`
}

type assignPaging struct {
	Limit  int `json:"limit,omitempty"`
	Offset int `json:"offset,omitempty"`
}

type assignNode struct {
	Name     string        `json:"name"`
	Children []*assignNode `json:"children,omitempty"`
}

// assignIn has a field of every kind the assigner fills.
type assignIn struct {
	Query   string            `json:"query"`
	Count   int               `json:"count,omitempty"`
	Small   int8              `json:"small,omitempty"`
	Size    uint32            `json:"size,omitempty"`
	Ratio   float64           `json:"ratio,omitempty"`
	Exact   *bool             `json:"exact,omitempty"`
	Labels  []string          `json:"labels,omitempty"`
	Window  *assignInner      `json:"window,omitempty"`
	Inner   assignInner       `json:"inner,omitempty"`
	Fields  map[string]string `json:"fields,omitempty"`
	Nested  map[string][]int  `json:"nested,omitempty"`
	Any     any               `json:"any,omitempty"`
	Tree    *assignNode       `json:"tree,omitempty"`
	NoTag   string
	Skipped string `json:"-"`
	assignPaging
}

// TestAssignMatchesJSON: for every input, the assigner fills what json.Unmarshal fills, or says
// it cannot (errInexact) where json.Unmarshal would do otherwise.
func TestAssignMatchesJSON(t *testing.T) {
	a := assignerFor(reflect.TypeFor[assignIn]())
	if a == nil {
		t.Fatal("no assigner for a struct of plain fields")
	}
	for _, tc := range []struct {
		name, json string
		inexact    bool
	}{
		{"strings and numbers", `{"query":"q","count":3,"small":-7,"size":42,"ratio":0.25,"NoTag":"x"}`, false},
		{"pointers", `{"query":"q","exact":false,"window":{"days":7,"names":["a","b"]}}`, false},
		{"null pointer and slice", `{"query":"q","exact":null,"window":null,"labels":null}`, false},
		{"empty slice stays non-nil", `{"query":"q","labels":[]}`, false},
		{"maps", `{"query":"q","fields":{"a":"1","b":"2"},"nested":{"x":[1,2],"y":[]}}`, false},
		{"any", `{"query":"q","any":{"k":[1,"two",null,true]}}`, false},
		{"any null", `{"query":"q","any":null}`, false},
		{"promoted fields", `{"query":"q","limit":20,"offset":40}`, false},
		{"a tree", `{"query":"q","tree":{"name":"root","children":[{"name":"a"},{"name":"b","children":[{"name":"c"}]}]}}`, false},
		{"null for a value", `{"query":null,"count":null,"inner":null}`, false},
		{"empty", `{}`, false},
		{"a fraction for an integer", `{"count":2.5}`, true},
		{"past what a float holds exactly", `{"count":9007199254740993}`, true},
		{"overflow", `{"small":300}`, true},
		{"negative unsigned", `{"size":-1}`, true},
		{"a string for a number", `{"count":"3"}`, true},
		{"a number for a string", `{"query":3}`, true},
		{"an object for a list", `{"labels":{"a":1}}`, true},
		{"a key in another case", `{"Query":"q"}`, true},
		{"an unknown key", `{"qurey":"q"}`, true},
		{"a skipped field's key", `{"Skipped":"x"}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var generic any
			if err := json.Unmarshal([]byte(tc.json), &generic); err != nil {
				t.Fatal(err)
			}
			var got, want assignIn
			err := a(reflect.ValueOf(&got).Elem(), generic)
			if tc.inexact {
				if !errors.Is(err, errInexact) {
					t.Fatalf("assigned %+v (%v), want errInexact", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(tc.json), &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("assigned %+v\njson.Unmarshal %+v", got, want)
			}
		})
	}
}

// TestAssignWholeNumbers: a whole number written with a fraction or an exponent fills an
// integer, as the schema's validator takes it (encoding/json would refuse the literal).
func TestAssignWholeNumbers(t *testing.T) {
	a := assignerFor(reflect.TypeFor[assignIn]())
	for _, lit := range []string{"2.0", "2e0", "0.2e1"} {
		var generic any
		if err := json.Unmarshal([]byte(`{"count":`+lit+`}`), &generic); err != nil {
			t.Fatal(err)
		}
		var got assignIn
		if err := a(reflect.ValueOf(&got).Elem(), generic); err != nil || got.Count != 2 {
			t.Errorf("%s: %d %v, want 2", lit, got.Count, err)
		}
	}
}

// TestAssignerRefuses: types whose decoding encoding/json does in its own way get no assigner.
func TestAssignerRefuses(t *testing.T) {
	for name, typ := range map[string]reflect.Type{
		"time.Time":       reflect.TypeFor[struct{ At time.Time }](),
		"json.RawMessage": reflect.TypeFor[struct{ Raw json.RawMessage }](),
		"[]byte":          reflect.TypeFor[struct{ Data []byte }](),
		"float32":         reflect.TypeFor[struct{ F float32 }](),
		"an array":        reflect.TypeFor[struct{ A [2]int }](),
		",string": reflect.TypeFor[struct {
			N int `json:"n,string"`
		}](),
		"a non-empty interface": reflect.TypeFor[struct{ E error }](),
		"int keys":              reflect.TypeFor[struct{ M map[int]string }](),
		"an embedded pointer":   reflect.TypeFor[struct{ *assignPaging }](),
		"two fields of one name": reflect.TypeFor[struct {
			assignPaging
			Limit int `json:"limit"`
		}](),
	} {
		if assignerFor(typ) != nil {
			t.Errorf("%s: an assigner, want none", name)
		}
	}
}

// FuzzAssign: whatever JSON object arrives, the assigner fills what json.Unmarshal fills, or
// declines; it never fills something else. Whole numbers written with a fraction or exponent
// are the one allowed difference: json.Unmarshal refuses them.
func FuzzAssign(f *testing.F) {
	for _, s := range []string{`{"query":"q","count":3}`, `{"window":{"days":1}}`, `{"tree":{"name":"a","children":[null]}}`,
		`{"fields":{"":""},"labels":["",""]}`, `{"any":[{}]}`, `{"count":1e2}`, `{"limit":-0}`, `{"size":4294967296}`} {
		f.Add(s)
	}
	a := assignerFor(reflect.TypeFor[assignIn]())
	f.Fuzz(func(t *testing.T, in string) {
		var generic any
		if err := json.Unmarshal([]byte(in), &generic); err != nil {
			return
		}
		if _, ok := generic.(map[string]any); !ok {
			return
		}
		var got, want assignIn
		if err := a(reflect.ValueOf(&got).Elem(), generic); err != nil {
			if !errors.Is(err, errInexact) {
				t.Fatalf("%s: %v", in, err)
			}
			return
		}
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			if strings.Contains(err.Error(), "cannot unmarshal number") {
				return // a whole number with a fraction or exponent: taken on purpose
			}
			t.Fatalf("%s: assigned %+v, but json.Unmarshal refuses it: %v", in, got, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: assigned %+v\njson.Unmarshal %+v", in, got, want)
		}
	})
}
