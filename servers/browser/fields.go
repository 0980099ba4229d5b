package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/jck411/mcp-servers/shared/kit"
)

// field is a form field as the page describes it.
type field struct {
	Kind      string `json:"kind"` // text, editable, select, check, file, value (see valueTypes) or other
	Type      string `json:"type"` // an input's type
	Multiple  bool   `json:"multiple"`
	MaxLength int    `json:"maxLength"`
	Min       string `json:"min"`
	Max       string `json:"max"`
	Step      string `json:"step"`
	Password  bool   `json:"password"`
}

// fieldJS describes a field. Inputs whose value has a format of its own (valueTypes) are set
// as a whole, as picking in their control does; text is typed.
const fieldJS = `function(){
  const tag = this.localName, type = (this.type || '').toLowerCase(), role = this.getAttribute && this.getAttribute('role');
  if (tag === 'select') return {kind: 'select', multiple: this.multiple};
  if (type === 'checkbox' || type === 'radio' || role === 'checkbox' || role === 'radio' || role === 'switch') return {kind: 'check'};
  if (tag === 'input' && type === 'file') return {kind: 'file'};
  if (tag === 'input' && ['date', 'time', 'datetime-local', 'month', 'week', 'color', 'range'].includes(type))
    return {kind: 'value', type, min: this.min, max: this.max, step: this.step};
  if (tag === 'input' || tag === 'textarea') return {kind: 'text', type, maxLength: this.maxLength, password: type === 'password'};
  if (this.isContentEditable) return {kind: 'editable'};
  return {kind: 'other', type: tag};
}`

// readJS reads what a field holds: its value, its selected options, its state, its text.
const readJS = `function(){
  if (this.localName === 'select') return Array.from(this.selectedOptions, o => o.label.trim()).join('\n');
  if (this.type === 'checkbox' || this.type === 'radio') return String(this.checked);
  if ('value' in this && (this.localName === 'input' || this.localName === 'textarea')) return this.value;
  if (this.getAttribute('aria-checked') !== null) return this.getAttribute('aria-checked');
  return this.isContentEditable ? this.innerText : (this.textContent || '');
}`

// setValueJS sets an input's value as its picker does: the value, then input and change events.
// It runs in the server's world, so the setter is the browser's own even where a framework
// replaced the element's value property in the page's world (and sees the change).
const setValueJS = `function(v){
  this.focus();
  this.value = v;
  this.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
  this.dispatchEvent(new Event('change', {bubbles: true}));
  return this.value;
}`

// fieldTarget is a field to set: where it is, and how errors name it.
type fieldTarget struct {
	tg    *chromedp.Target
	n     nodeRef
	label string // its ref and what the snapshot calls it
	// hidden keeps what is typed out of every message (a secret, or any password field).
	hidden bool
}

// describeField reads what kind of field f is.
func describeField(ctx context.Context, f fieldTarget) (field, error) {
	raw, err := callServer(ctx, f.tg, f.n, fieldJS)
	if err != nil {
		return field{}, err
	}
	var fd field
	if err := json.Unmarshal(raw, &fd); err != nil {
		return field{}, fmt.Errorf("reading the field: %w", err)
	}
	return fd, nil
}

// readField returns what the field holds now.
func readField(ctx context.Context, f fieldTarget) (string, error) {
	raw, err := callServer(ctx, f.tg, f.n, readJS)
	if err != nil {
		return "", err
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("reading the field: %w", err)
	}
	return s, nil
}

// setField sets a field as a user would — types text, picks options, ticks boxes, picks a date
// or colour or slides a range as a whole value — and reads it back. A value that did not take
// is an error that names the field; a value the page reformatted comes back as a note.
// values are the options of a select (several for a multiple select); other fields take the
// last. appendText adds typed text to the end of what a text field holds.
func setField(ctx context.Context, f fieldTarget, values []string, appendText bool) (note string, err error) {
	fd, err := describeField(ctx, f)
	if err != nil {
		return "", err
	}
	f.hidden = f.hidden || fd.Password
	value := values[len(values)-1]
	if appendText && fd.Kind != "text" && fd.Kind != "editable" {
		return "", kit.Errorf(kit.CodeInvalidInput, "%s: append adds text to a text field; this is a %s field", f.label, kindName(fd))
	}
	switch fd.Kind {
	case "select":
		return "", setSelect(ctx, f, fd, values)
	case "check":
		want, err := parseBool(value)
		if err != nil {
			return "", kit.Errorf(kit.CodeInvalidInput, "%s: %v", f.label, err)
		}
		return "", setChecked(ctx, f, want)
	case "file":
		return "", kit.Errorf(kit.CodeInvalidInput, "%s is a file input: use browser_upload_file", f.label)
	case "value":
		return "", setFormatted(ctx, f, fd, value)
	}
	before := ""
	if appendText {
		if before, err = readField(ctx, f); err != nil {
			return "", err
		}
	}
	if err := typeText(ctx, f, value, appendText); err != nil {
		return "", err
	}
	if fd.Kind == "other" {
		return "", nil // not a field the page can read back (a widget that takes keys)
	}
	got, err := readField(ctx, f)
	if err != nil {
		return "", err
	}
	return checkTyped(f, fd, before+value, got)
}

// checkTyped compares what a text field holds with what was typed into it.
func checkTyped(f fieldTarget, fd field, want, got string) (string, error) {
	norm := func(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }
	want, got = norm(want), norm(got)
	if fd.Kind == "editable" {
		want, got = squash(want), squash(got)
	}
	switch {
	case got == want:
		return "", nil
	case want != "" && got == "":
		if fd.Type == "number" || fd.Type == "email" || fd.Type == "url" {
			return "", kit.Errorf(kit.CodeInvalidInput, "%s: the %s field did not take the value typed (it is not a valid %s) and is empty", f.label, fd.Type, fd.Type)
		}
		return "", kit.Errorf(kit.CodeInvalidInput, "%s: the field is empty after typing; the page did not take the text", f.label)
	case fd.MaxLength > 0 && strings.HasPrefix(want, got):
		return "", kit.Errorf(kit.CodeInvalidInput, "%s: the field keeps at most %d characters; it took only the first %d", f.label, fd.MaxLength, len([]rune(got)))
	case f.hidden:
		return fmt.Sprintf("%s: the page changed what was typed.", f.label), nil
	}
	return fmt.Sprintf("%s now reads %q (the page changed what was typed).", f.label, got), nil
}

func kindName(fd field) string {
	if fd.Kind == "value" || fd.Kind == "other" {
		return fd.Type
	}
	return fd.Kind
}

// setSelect picks the options of a select and checks the page kept them.
func setSelect(ctx context.Context, f fieldTarget, fd field, values []string) error {
	if !fd.Multiple {
		values = values[len(values)-1:]
	}
	picked, err := selectValues(ctx, f, values)
	if err != nil {
		return err
	}
	got, err := readField(ctx, f)
	if err != nil {
		return err
	}
	if got != strings.Join(picked, "\n") {
		return kit.Errorf(kit.CodeInvalidInput, "%s: picked %s, but the page changed the selection to %s", f.label, strings.Join(picked, " | "), strings.ReplaceAll(got, "\n", " | "))
	}
	return nil
}

// setFormatted sets a date, time, month, week, colour or range input to value, which it first
// brings to the input's own format, and checks the input kept it.
func setFormatted(ctx context.Context, f fieldTarget, fd field, value string) error {
	want, err := formatValue(fd.Type, value)
	if err != nil {
		return kit.Errorf(kit.CodeInvalidInput, "%s: %v", f.label, err)
	}
	raw, err := callServer(ctx, f.tg, f.n, setValueJS, want)
	if err != nil {
		return err
	}
	var got string
	if err := json.Unmarshal(raw, &got); err != nil {
		return fmt.Errorf("reading the field: %w", err)
	}
	if fd.Type == "range" {
		w, _ := strconv.ParseFloat(want, 64)
		if g, err := strconv.ParseFloat(got, 64); err == nil && g == w {
			return nil
		}
		return kit.Errorf(kit.CodeInvalidInput, "%s: %s is not a value of this slider (min %s, max %s, step %s); it moved to %s",
			f.label, want, orDefault(fd.Min, "0"), orDefault(fd.Max, "100"), orDefault(fd.Step, "1"), got)
	}
	if got != want {
		limits := ""
		if fd.Min != "" || fd.Max != "" {
			limits = fmt.Sprintf(" (min %s, max %s)", orDefault(fd.Min, "none"), orDefault(fd.Max, "none"))
		}
		return kit.Errorf(kit.CodeInvalidInput, "%s: the %s input did not take %s%s; it holds %q", f.label, fd.Type, want, limits, got)
	}
	return nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// selectText selects the content of a text field or editable element so typing replaces it.
const selectText = `function(){
  this.focus();
  if (typeof this.select === 'function' && 'value' in this) { this.select(); return true; }
  const r = document.createRange(); r.selectNodeContents(this);
  const s = getSelection(); s.removeAllRanges(); s.addRange(r); return true;
}`

// typeText focuses the element and types text, replacing what it holds unless appending.
func typeText(ctx context.Context, f fieldTarget, text string, appendText bool) error {
	if _, err := cdp.Call(ctx, f.tg, dom.Focus, dom.FocusParams{BackendNodeID: f.n.id}); err != nil {
		return kit.Errorf(kit.CodeInvalidInput, "%s: cannot focus it (%v); is it a text field?", f.label, err)
	}
	if appendText {
		// Focusing may leave the caret anywhere; text goes after what the field holds.
		if err := keyCommand(ctx, f.tg, kb.End, "moveToEndOfDocument"); err != nil {
			return err
		}
	} else {
		if _, err := callServer(ctx, f.tg, f.n, selectText); err != nil {
			return err
		}
		if text == "" {
			return pressKey(ctx, f.tg, "Delete")
		}
	}
	_, err := cdp.Call(ctx, f.tg, input.InsertText, input.InsertTextParams{Text: text})
	return err
}

// selectOptions picks options of a <select> by value or label.
const selectOptions = `function(vals){
  const want = vals.map(v => String(v).trim());
  const match = o => want.includes(o.value) || want.includes(o.label.trim()) || want.includes(o.text.trim());
  const picked = [];
  for (const o of this.options) {
    const hit = match(o) && (this.multiple || picked.length === 0);
    if (hit) picked.push(o.label.trim());
    if (this.multiple) o.selected = hit;
    else if (hit) this.selectedIndex = o.index;
  }
  if (picked.length === 0) return {error: 'no option matches; options: ' + Array.from(this.options, o => o.label.trim()).join(' | ')};
  this.dispatchEvent(new Event('input', {bubbles: true}));
  this.dispatchEvent(new Event('change', {bubbles: true}));
  return {picked};
}`

func selectValues(ctx context.Context, f fieldTarget, values []string) ([]string, error) {
	raw, err := callServer(ctx, f.tg, f.n, selectOptions, values)
	if err != nil {
		return nil, err
	}
	var res struct {
		Error  string   `json:"error"`
		Picked []string `json:"picked"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("select: %w", err)
	}
	if res.Error != "" {
		return nil, kit.Errorf(kit.CodeInvalidInput, "%s: %s", f.label, res.Error)
	}
	return res.Picked, nil
}

func parseBool(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "yes", "on", "checked", "1", "y":
		return true, nil
	case "false", "no", "off", "unchecked", "0", "n", "":
		return false, nil
	}
	return false, fmt.Errorf("value %q for a check box: use true or false", s)
}

// setChecked clicks a check box or radio button when its state is not the one wanted, and
// checks that the click changed it.
func setChecked(ctx context.Context, f fieldTarget, want bool) error {
	state, err := readField(ctx, f)
	if err != nil {
		return err
	}
	if (state == "true") == want {
		return nil
	}
	x, y, err := center(ctx, f.tg, f.n.id)
	if err != nil {
		return err
	}
	if err := mouseClick(ctx, f.tg, x, y, input.MouseButtonLeft, 1, 0); err != nil {
		return err
	}
	if state, err = readField(ctx, f); err == nil && (state == "true") != want {
		return kit.Errorf(kit.CodeInvalidInput, "%s: clicking did not change its state (the page kept it %s)", f.label, map[bool]string{true: "checked", false: "unchecked"}[state == "true"])
	}
	return err
}
