package schema

import (
	"encoding"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
)

// The arguments of a call over HTTP arrive already decoded into an any (the request's envelope
// read them, once); an assigner fills the tool's input struct from that value directly instead
// of encoding/json decoding the JSON again. It fills a value as json.Unmarshal would from that
// value's JSON, with one difference: a number whose float64 is whole (written 2.0 or 1e2) is
// taken for an integer argument, as the schema's validator already takes it, where
// json.Unmarshal would refuse the literal. Anything it cannot fill exactly so is errInexact, and
// the caller decodes the JSON as before.

// errInexact says the assigner cannot fill a value exactly as encoding/json would.
var errInexact = errors.New("not assigned exactly as encoding/json would")

// maxExactInt bounds the whole numbers taken from a float64: below 2^53 each is exactly the
// number sent, at and past it the decoded value may be another number's rounding.
const maxExactInt = 1 << 53

// assigner fills v, which is settable, from x, a value encoding/json decoded into an any.
type assigner func(v reflect.Value, x any) error

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// assignerFor returns the assigner of type t, nil when t holds anything it cannot fill exactly
// whatever the value: a type with its own UnmarshalJSON or UnmarshalText (time.Time, a
// json.RawMessage), a ",string" field, float32 (decoded from the text at 32 bits, not from a
// float64), []byte (base64), arrays, interfaces with methods, maps whose keys are not strings,
// pointers to embedded structs, or two fields of one JSON name (encoding/json's dominance rules).
func assignerFor(t reflect.Type) assigner {
	return (&assigners{done: map[reflect.Type]assigner{}, building: map[reflect.Type]*assigner{}}).of(t)
}

// assigners builds the assigners of a type and of the types within it, once each.
type assigners struct {
	done     map[reflect.Type]assigner  // built; nil for a type that cannot be filled exactly
	building map[reflect.Type]*assigner // being built: a type that contains itself
}

func (b *assigners) of(t reflect.Type) assigner {
	if a, ok := b.done[t]; ok {
		return a
	}
	if slot, ok := b.building[t]; ok {
		return func(v reflect.Value, x any) error {
			if *slot == nil {
				return errInexact
			}
			return (*slot)(v, x)
		}
	}
	slot := new(assigner)
	b.building[t] = slot
	a := b.build(t)
	*slot = a
	delete(b.building, t)
	b.done[t] = a
	return a
}

func (b *assigners) build(t reflect.Type) assigner {
	if t.Implements(jsonUnmarshaler) || t.Implements(textUnmarshaler) ||
		reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) {
		return nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return scalar(func(v reflect.Value, x any) bool {
			b, ok := x.(bool)
			if ok {
				v.SetBool(b)
			}
			return ok
		})
	case reflect.String:
		return scalar(func(v reflect.Value, x any) bool {
			s, ok := x.(string)
			if ok {
				v.SetString(s)
			}
			return ok
		})
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return scalar(func(v reflect.Value, x any) bool {
			f, ok := x.(float64)
			if !ok || f != math.Trunc(f) || math.Abs(f) >= maxExactInt || v.OverflowInt(int64(f)) {
				return false
			}
			v.SetInt(int64(f))
			return true
		})
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return scalar(func(v reflect.Value, x any) bool {
			f, ok := x.(float64)
			if !ok || f != math.Trunc(f) || f < 0 || f >= maxExactInt || v.OverflowUint(uint64(f)) {
				return false
			}
			v.SetUint(uint64(f))
			return true
		})
	case reflect.Float64:
		return scalar(func(v reflect.Value, x any) bool {
			f, ok := x.(float64)
			if ok {
				v.SetFloat(f)
			}
			return ok
		})
	case reflect.Interface:
		if t.NumMethod() > 0 {
			return nil
		}
		return func(v reflect.Value, x any) error {
			if x == nil {
				v.SetZero()
				return nil
			}
			v.Set(reflect.ValueOf(x))
			return nil
		}
	case reflect.Pointer:
		return b.pointer(t)
	case reflect.Slice:
		return b.slice(t)
	case reflect.Map:
		return b.mapOf(t)
	case reflect.Struct:
		return b.structOf(t)
	}
	return nil
}

// scalar makes an assigner of a value that JSON null leaves as it is.
func scalar(set func(v reflect.Value, x any) bool) assigner {
	return func(v reflect.Value, x any) error {
		if x == nil || set(v, x) {
			return nil
		}
		return errInexact
	}
}

func (b *assigners) pointer(t reflect.Type) assigner {
	elem := b.of(t.Elem())
	if elem == nil {
		return nil
	}
	return func(v reflect.Value, x any) error {
		if x == nil {
			v.SetZero()
			return nil
		}
		if v.IsNil() {
			v.Set(reflect.New(t.Elem()))
		}
		return elem(v.Elem(), x)
	}
}

func (b *assigners) slice(t reflect.Type) assigner {
	if t.Elem().Kind() == reflect.Uint8 {
		return nil
	}
	elem := b.of(t.Elem())
	if elem == nil {
		return nil
	}
	return func(v reflect.Value, x any) error {
		if x == nil {
			v.SetZero()
			return nil
		}
		items, ok := x.([]any)
		if !ok {
			return errInexact
		}
		s := reflect.MakeSlice(t, len(items), len(items))
		for i, item := range items {
			if err := elem(s.Index(i), item); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	}
}

func (b *assigners) mapOf(t reflect.Type) assigner {
	if t.Key().Kind() != reflect.String || reflect.PointerTo(t.Key()).Implements(textUnmarshaler) {
		return nil
	}
	elem := b.of(t.Elem())
	if elem == nil {
		return nil
	}
	return func(v reflect.Value, x any) error {
		if x == nil {
			v.SetZero()
			return nil
		}
		obj, ok := x.(map[string]any)
		if !ok {
			return errInexact
		}
		m := reflect.MakeMapWithSize(t, len(obj))
		for k, item := range obj {
			e := reflect.New(t.Elem()).Elem()
			if err := elem(e, item); err != nil {
				return err
			}
			m.SetMapIndex(reflect.ValueOf(k).Convert(t.Key()), e)
		}
		v.Set(m)
		return nil
	}
}

// structField is one JSON field of a struct and how to fill it.
type structField struct {
	index  []int
	assign assigner
}

func (b *assigners) structOf(t reflect.Type) assigner {
	fields := map[string]structField{}
	for _, f := range jsonFields(t) {
		_, opts, _ := strings.Cut(f.tag.Get("json"), ",")
		if _, dup := fields[f.name]; dup || f.viaPointer || slices.Contains(strings.Split(opts, ","), "string") {
			return nil
		}
		a := b.of(f.typ)
		if a == nil {
			return nil
		}
		fields[f.name] = structField{index: f.index, assign: a}
	}
	return func(v reflect.Value, x any) error {
		if x == nil {
			return nil
		}
		obj, ok := x.(map[string]any)
		if !ok {
			return errInexact
		}
		for k, item := range obj {
			f, ok := fields[k]
			if !ok {
				return errInexact // encoding/json would match it without regard to case, or skip it
			}
			if err := f.assign(v.FieldByIndex(f.index), item); err != nil {
				return err
			}
		}
		return nil
	}
}
