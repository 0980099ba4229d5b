package main

import "testing"

func TestFormatValue(t *testing.T) {
	for _, tt := range []struct {
		typ, in, want string
		err           bool
	}{
		{"date", "2026-12-24", "2026-12-24", false},
		{"date", "Dec 24, 2026", "2026-12-24", false},
		{"date", "24 December 2026", "2026-12-24", false},
		{"date", "2026/12/24", "2026-12-24", false},
		{"date", "12/24/2026", "", true}, // which is the month is a guess
		{"date", "2026-02-30", "", true},
		{"time", "19:30", "19:30", false},
		{"time", "7:30 pm", "19:30", false},
		{"time", "12 AM", "00:00", false},
		{"time", "08:15:07", "08:15:07", false},
		{"time", "25:00", "", true},
		{"datetime-local", "2026-12-23 09:00", "2026-12-23T09:00", false},
		{"datetime-local", "2026-12-23T09:00:30", "2026-12-23T09:00:30", false},
		{"datetime-local", "Dec 23, 2026 9:00 PM", "2026-12-23T21:00", false},
		{"month", "January 2027", "2027-01", false},
		{"month", "2027-13", "", true},
		{"week", "2026-w5", "2026-W05", false},
		{"week", "2026-12-24", "2026-W52", false},
		{"week", "2027-01-01", "2026-W53", false},
		{"week", "2026-W54", "", true},
		{"color", "#C0F", "#cc00ff", false},
		{"color", "1E90FF", "#1e90ff", false},
		{"color", "rgb(30, 144, 255)", "#1e90ff", false},
		{"color", "rgb(300, 0, 0)", "", true},
		{"color", "teal", "", true},
		{"range", "6", "6", false},
		{"range", "2.50", "2.5", false},
		{"range", "six", "", true},
	} {
		got, err := formatValue(tt.typ, tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("formatValue(%s, %q) = %q, %v; want %q (error %v)", tt.typ, tt.in, got, err, tt.want, tt.err)
		}
	}
}
