package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// formatValue brings v to the value format of an input type: date YYYY-MM-DD, time HH:MM or
// HH:MM:SS, datetime-local YYYY-MM-DDTHH:MM, month YYYY-MM, week YYYY-Www, color #rrggbb and
// range a number. It accepts the usual spellings of each (2026-12-24, Dec 24, 2026, 3:30 PM,
// #ABC); a numeric date with slashes other than year first is refused as ambiguous.
func formatValue(typ, v string) (string, error) {
	v = strings.TrimSpace(v)
	switch typ {
	case "date":
		t, err := parseTime(v, dateLayouts)
		if err != nil {
			return "", fmt.Errorf("%q is not a date: give YYYY-MM-DD, such as 2026-12-24", v)
		}
		return t.Format("2006-01-02"), nil
	case "time":
		t, err := parseTime(strings.ToUpper(v), timeLayouts)
		if err != nil {
			return "", fmt.Errorf("%q is not a time: give HH:MM (24-hour), such as 15:30", v)
		}
		return clock(t), nil
	case "datetime-local":
		t, err := parseTime(strings.ToUpper(v), dateTimeLayouts)
		if err != nil {
			return "", fmt.Errorf("%q is not a date and time: give YYYY-MM-DDTHH:MM, such as 2026-12-24T15:30", v)
		}
		return t.Format("2006-01-02") + "T" + clock(t), nil
	case "month":
		t, err := parseTime(v, monthLayouts)
		if err != nil {
			return "", fmt.Errorf("%q is not a month: give YYYY-MM, such as 2026-12", v)
		}
		return t.Format("2006-01"), nil
	case "week":
		if m := weekRE.FindStringSubmatch(v); m != nil {
			w, _ := strconv.Atoi(m[2])
			if w >= 1 && w <= 53 {
				return fmt.Sprintf("%s-W%02d", m[1], w), nil
			}
		}
		if t, err := parseTime(v, dateLayouts); err == nil {
			y, w := t.ISOWeek()
			return fmt.Sprintf("%04d-W%02d", y, w), nil
		}
		return "", fmt.Errorf("%q is not a week: give YYYY-Www, such as 2026-W52, or a date in it", v)
	case "color":
		return formatColor(v)
	case "range":
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return "", fmt.Errorf("%q is not a number", v)
		}
		return strconv.FormatFloat(f, 'f', -1, 64), nil
	}
	return v, nil
}

var (
	dateLayouts = []string{"2006-01-02", "2006/01/02", "2006.01.02", "January 2, 2006", "Jan 2, 2006", "January 2 2006",
		"Jan 2 2006", "2 January 2006", "2 Jan 2006", "Monday, January 2, 2006", "Mon, Jan 2, 2006", time.RFC3339, "2006-01-02T15:04", "2006-01-02 15:04"}
	timeLayouts     = []string{"15:04", "15:04:05", "15:04:05.000", "3:04 PM", "3:04PM", "3:04:05 PM", "3 PM", "3PM"}
	dateTimeLayouts = []string{"2006-01-02T15:04", "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02 15:04:05",
		"2006-01-02T15:04:05Z07:00", "2006-01-02 3:04 PM", "Jan 2, 2006 3:04 PM", "January 2, 2006 3:04 PM", "Jan 2, 2006 15:04", "January 2, 2006 15:04"}
	monthLayouts = []string{"2006-01", "2006/01", "January 2006", "Jan 2006", "01/2006"}
	weekRE       = regexp.MustCompile(`^(\d{4})-?[Ww](\d{1,2})$`)
	colorRE      = regexp.MustCompile(`^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)
	rgbRE        = regexp.MustCompile(`^rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)$`)
)

func parseTime(v string, layouts []string) (time.Time, error) {
	for _, l := range layouts {
		if t, err := time.Parse(l, v); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("no layout matches %q", v)
}

// clock is a time of day as a time input holds it: seconds only when there are some.
func clock(t time.Time) string {
	if t.Second() != 0 {
		return t.Format("15:04:05")
	}
	return t.Format("15:04")
}

// formatColor brings #RGB, #RRGGBB and rgb(r, g, b) to the #rrggbb a colour input holds.
func formatColor(v string) (string, error) {
	if m := colorRE.FindStringSubmatch(v); m != nil {
		h := strings.ToLower(m[1])
		if len(h) == 3 {
			h = string([]byte{h[0], h[0], h[1], h[1], h[2], h[2]})
		}
		return "#" + h, nil
	}
	if m := rgbRE.FindStringSubmatch(strings.ToLower(v)); m != nil {
		var c [3]int
		for i := range c {
			c[i], _ = strconv.Atoi(m[i+1])
			if c[i] > 255 {
				return "", fmt.Errorf("%q: each of r, g, b is 0 to 255", v)
			}
		}
		return fmt.Sprintf("#%02x%02x%02x", c[0], c[1], c[2]), nil
	}
	return "", fmt.Errorf("%q is not a colour: give #rrggbb, such as #1e90ff", v)
}
